package main

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/figure"
	"github.com/wheelgrad/wheelgrad/models/pioneer"
)

// Model pioneer (README, Contract additions): the Pioneer 3DX drive
// dynamics of Ivanjko, Petrinić, Petrović, in its physical or experimental
// form ("form" in the parameter JSON). Logs t,v_ref,w_ref[,v,w][,traj], one
// row per 100-ms sample; simulate writes t,v,w.
func init() {
	modelNames = append(modelNames, "pioneer")
	simulateHandlers["pioneer"] = simulatePioneer
	identifyHandlers["pioneer"] = identifyPioneer
	identifyExtraFlags = append(identifyExtraFlags,
		extraFlag{"form", "", "pioneer: physical or experimental, when -init does not say (default experimental)", "pioneer"})
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
	if err := e.writeParams(a.Out, res.Params, nil); err != nil {
		return err
	}
	if !a.Quiet {
		w := e.stdout
		if a.Out == "-" {
			w = e.stderr
		}
		dv, dw := res.Params.DelaySeconds()
		iv, iw := res.Params.Delays()
		fmt.Fprintf(w, "pioneer (%s): %d runs, L-BFGS-B %d iterations, %d evaluations, %v\n", p.Form, len(runs), res.Iterations, res.Evaluations, res.Runtime.Round(1e6))
		fmt.Fprintf(w, "  fitted: %s (and the whole-sample delays, by search)\n", strings.Join(res.Free, ", "))
		fmt.Fprintf(w, "  delay: v %d samples (%.0f ms in all), w %d samples (%.0f ms)\n", iv, 1e3*dv, iw, 1e3*dw)
		fmt.Fprintf(w, "  loss (exact, per row, variance-normalised): %.4g, at the start %.4g\n", res.Loss, res.Start)
		for _, n := range res.OnBound {
			lo, hi := pioneer.Bounds(n, p.Ts)
			fmt.Fprintf(e.stderr, "warning: %s ended on a bound of [%g, %g]\n", n, lo, hi)
		}
		if len(res.Undetermined) > 0 {
			fmt.Fprintf(e.stderr, "warning: %s barely informed by these logs (kept near the start)\n", strings.Join(res.Undetermined, ", "))
		}
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

// validatePioneer predicts the measured v, w of every run from its
// references (the exact model, as simulate) for `wheelgrad validate`.
