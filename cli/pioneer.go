package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/figure"
	"github.com/wheelgrad/wheelgrad/fit"
	"github.com/wheelgrad/wheelgrad/models/pioneer"
)

// Model pioneer (README, Contract additions): the Pioneer 3DX drive
// dynamics of Ivanjko, Petrinić, Petrović, in its physical or experimental
// form ("form" in the parameter JSON). Logs t,v_ref,w_ref[,v,w][,traj], one
// row per 100-ms sample; simulate writes t,v,w.
func init() {
	simulateHandlers["pioneer"] = simulatePioneer
	identifyHandlers["pioneer"] = identifyPioneer
	identifyExtraFlags = append(identifyExtraFlags,
		extraFlag{name: "form", def: "", usage: "pioneer: physical or experimental, when -init does not say (default experimental)", model: "pioneer"})
}

// readPioneerLog reads a log split into runs by traj (pioneer.ReadLog),
// with the table it came from.
func readPioneerLog(path string, needMeasured bool, columns *dataset.ColumnMap) ([]*pioneer.Run, *dataset.Table, error) {
	rs, err := pioneer.ReadLog(path, pioneer.LogOptions{NeedMeasured: needMeasured, Columns: columns})
	if err != nil {
		return nil, nil, err
	}
	if len(rs) == 0 {
		return nil, nil, &dataset.ParseError{File: path, Err: dataset.ErrNoRows}
	}
	runs := make([]*pioneer.Run, len(rs))
	for i := range rs {
		runs[i] = &rs[i]
	}
	return runs, rs[0].Table, nil
}

func simulatePioneer(e env, a SimulateArgs) error {
	p, _, err := pioneer.ReadParams(a.Params)
	if err != nil {
		return err
	}
	runs, tab, err := readPioneerLog(a.Controls, false, a.Columns)
	if err != nil {
		return err
	}
	type pred struct{ v, w []float64 }
	var preds []pred
	for _, r := range runs {
		v, w, err := pioneer.Simulate(p, r)
		if err != nil {
			return r.Err(err)
		}
		preds = append(preds, pred{v, w})
	}
	hasTraj := tab.Has("traj")
	return e.writeOut(a.Out, func(w io.Writer) error {
		cw := dataset.NewWriter(w)
		head := []string{"t", "v", "w"}
		if hasTraj {
			head = append(head, "traj")
		}
		if err := cw.WriteHeader(head...); err != nil {
			return err
		}
		for i, r := range runs {
			for k := range r.T {
				row := []dataset.Cell{dataset.Num(r.T[k]), dataset.Num(preds[i].v[k]), dataset.Num(preds[i].w[k])}
				if hasTraj {
					row = append(row, dataset.Text(r.ID))
				}
				if err := cw.WriteRow(row...); err != nil {
					return err
				}
			}
		}
		return cw.Flush()
	})
}

func identifyPioneer(e env, a IdentifyArgs) error {
	if a.Method != "" && a.Method != "lbfgsb" {
		return usagef("-model pioneer identifies with lbfgsb only (got -method %s)", a.Method)
	}
	form := a.Extra["form"]
	if form != "" && form != pioneer.FormPhysical && form != pioneer.FormExperimental {
		return usagef("-form %q: want physical or experimental", form)
	}
	var p pioneer.Params
	if a.Init != "" {
		var err error
		if p, _, err = pioneer.ReadParams(a.Init); err != nil {
			return err
		}
		if form != "" && form != p.Form {
			return usagef("-form %s, but %s is a %s parameter file", form, a.Init, p.Form)
		}
	} else {
		if form == "" {
			form = pioneer.FormExperimental
		}
		p = pioneer.Default(form)
	}
	var runs []*pioneer.Run
	for _, path := range a.Data {
		rs, _, err := readPioneerLog(path, true, a.Columns)
		if err != nil {
			return err
		}
		for _, r := range rs {
			if err := r.Check(p.Ts); err != nil {
				return r.Err(err)
			}
		}
		runs = append(runs, rs...)
	}
	res, err := pioneer.Identify(p, runs, pioneer.IdentifyOptions{Progress: func(s string) { a.Prog.printf("%s", s) }})
	a.Prog.done()
	if err != nil {
		return err
	}
	rep := pioneerReport(a, p, runs, res)
	if !a.Quiet || a.JSON {
		if err := emitReport(e, a, rep); err != nil {
			return err
		}
	}
	if err := e.writeParams(a.Out, res.Params, rep.Status); err != nil {
		return err
	}
	if a.Plot != "" {
		r := runs[0]
		v, _, err := pioneer.Simulate(res.Params, r)
		if err != nil {
			return r.Err(err)
		}
		var mt, mv []float64
		for k := range r.T {
			if !math.IsNaN(r.V[k]) {
				mt, mv = append(mt, r.T[k]), append(mv, r.V[k])
			}
		}
		stage, err := e.stagePath(a.Plot)
		if err != nil {
			return err
		}
		return figure.XY(stage, fmt.Sprintf("pioneer (%s): translational velocity, first run", p.Form), "time (s)", "v (m/s)", false,
			[]figure.Series{{Name: "reference", X: r.T, Y: r.Vref, Dashed: true}, {Name: "measured", X: mt, Y: mv, Points: true}, {Name: "model", X: r.T, Y: v}})
	}
	return nil
}

// pioneerReport is the fit's report: every free parameter with its
// Gauss–Newton σ (pioneer.GaussNewton, corrected for correlated
// residuals) and bounds, the whole-sample delays (chosen by search: no σ),
// and the loss as the residual figure. The warnings (on a bound, barely
// informed) are added to a.Diag.
func pioneerReport(a IdentifyArgs, p pioneer.Params, runs []*pioneer.Run, res *pioneer.Result) fit.Report {
	d := a.Diag
	for _, n := range res.OnBound {
		lo, hi := pioneer.Bounds(n, p.Ts)
		d.warnf("%s ended on a bound of [%g, %g]", n, lo, hi)
	}
	if len(res.Undetermined) > 0 {
		d.warnf("%s barely informed by these logs (kept near the start)", strings.Join(res.Undetermined, ", "))
	}
	sig, err := pioneer.GaussNewton(res.Params, runs, res.Free)
	reason := ""
	if err != nil {
		reason = "Gauss–Newton σ failed: " + err.Error()
	}
	vals, _ := paramValues(res.Params)
	var ps []fit.Param
	for i, n := range res.Free {
		lo, hi := pioneer.Bounds(n, p.Ts)
		q := fit.Param{Name: n, Value: vals[n], Lower: lo, Upper: hi, Std: math.NaN(), StdReason: reason,
			Undetermined: slices.Contains(res.Undetermined, n)}
		if err == nil {
			q.Std = sig.Std[i]
			if math.IsInf(q.Std, 1) {
				q.StdReason = "the exact model does not change with it at the fit (a null direction of JᵀJ): a saturation these logs never reach, or a threshold, in which the loss is piecewise constant"
			}
		}
		ps = append(ps, q)
	}
	dv, dw := res.Params.DelaySeconds()
	iv, iw := res.Params.Delays()
	delays := []string{"delay_v", "delay_w"}
	if p.Form == pioneer.FormPhysical {
		delays = []string{"delay"}
	}
	for i, n := range delays {
		ps = append(ps, fit.Param{Name: n, Unit: "samples", Value: float64([]int{iv, iw}[i]), Lower: 0, Upper: 5,
			Std: math.NaN(), StdReason: "a whole number of samples chosen by search over 0…5: no σ"})
	}
	rep := fit.Report{Model: "pioneer", Method: "lbfgsb (" + p.Form + " form, annealed surrogates)",
		Data:     fmt.Sprintf("%d run(s)", len(runs)),
		Params:   ps,
		Residual: fit.Residual{Name: "v and ω error over the measured sd (RMS)", RMS: math.Sqrt(res.Loss / 2)},
		Warnings: d.warns, Evaluations: res.Evaluations, Elapsed: res.Runtime,
		Lines: []string{
			fmt.Sprintf("fitted: %s (and the whole-sample delays, by search)", strings.Join(res.Free, ", ")),
			fmt.Sprintf("delay: v %d samples (%.0f ms in all), w %d samples (%.0f ms)", iv, 1e3*dv, iw, 1e3*dw),
			fmt.Sprintf("loss (exact, per row, variance-normalised): %.4g, at the start %.4g", res.Loss, res.Start),
		},
	}
	if err == nil {
		rep.Lines = append(rep.Lines, fmt.Sprintf("σ: Gauss–Newton of the exact model (central differences) × %.3g for residuals correlated in time", sig.Inflation))
		rep.Null = sig.Null
		for _, n := range sig.Null {
			rep.Notes = append(rep.Notes, "NOT determined: "+n.Text)
		}
	}
	if res.Opt != nil {
		rep.Status = fit.NewStatus("lbfgsb", res.Opt)
		rep.Status.Iterations = res.Iterations
		rep.Status.Loss = res.Loss // the exact loss, not the last surrogate's
	}
	return rep
}

// paramValues are the numbers of a parameter file by key.
func paramValues(p any) (map[string]float64, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for k, v := range m {
		if f, ok := v.(float64); ok {
			out[k] = f
		}
	}
	return out, nil
}

// validatePioneer predicts the measured v, w of every run from its
// references (the exact model, as simulate) for `wheelgrad validate`.
