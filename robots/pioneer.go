package robots

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/fit"
	"github.com/wheelgrad/wheelgrad/models/pioneer"
)

// The Pioneer 3DX adapter (models/pioneer; README, Contract additions): the
// drive dynamics of Ivanjko, Petrinić and Petrović in the physical or the
// experimental form ("form" in the parameter file). Logs t, v_ref, w_ref
// [, v, w][, traj], one row per 100-ms sample (or references and measured
// velocities in files of their own, merged by time); simulate writes
// t, v, w; validate compares the predicted v, w with the measured ones;
// identify fits the form's parameters by L-BFGS-B over annealed
// surrogates and the whole-sample delays by search.

// PioneerOptions are pioneer's identify options.
type PioneerOptions struct {
	// Form is pioneer.FormPhysical or pioneer.FormExperimental: the form
	// to identify when there is no start (default experimental); with a
	// start it must be the start's form ("" takes it).
	Form string
}

// ParsePioneerOptions reads the options as the command line gives them
// (Option.Name → value); a bad value is a UsageError.
func ParsePioneerOptions(m map[string]string) (PioneerOptions, error) {
	o := PioneerOptions{Form: m["form"]}
	if o.Form != "" && o.Form != pioneer.FormPhysical && o.Form != pioneer.FormExperimental {
		return o, Usagef("-form %q: want physical or experimental", o.Form)
	}
	return o, nil
}

// ReadParams reads a parameter file of either form (pioneer.ReadParams).
func (Pioneer) ReadParams(path string, _ ParamUse) (Params, []fit.Warning, error) {
	p, ws, err := pioneer.ReadParams(path)
	if err != nil {
		return nil, nil, err
	}
	return p, ParamWarnings(path, ws), nil
}

func pioneerParams(p Params) (pioneer.Params, error) {
	switch q := p.(type) {
	case pioneer.Params:
		return q, nil
	case *pioneer.Params:
		return *q, nil
	}
	return pioneer.Params{}, fmt.Errorf("robots: pioneer takes pioneer.Params, not %T", p)
}

// readPioneerLog reads one source split into runs by traj (pioneer.ReadLog).
func readPioneerLog(src Source, needMeasured bool, d *Diag) ([]pioneer.Run, error) {
	rs, err := pioneer.ReadLog(src.Path, pioneer.LogOptions{NeedMeasured: needMeasured, Sensors: src.Poses, Offset: src.Offset,
		Note: d.NoteWriter(), Columns: src.Columns, HoldLast: src.HoldLast, Cache: src.Cache})
	if err != nil {
		return nil, err
	}
	if len(rs) == 0 {
		return nil, &dataset.ParseError{File: src.Path, Err: dataset.ErrNoRows}
	}
	for _, r := range rs {
		d.Add(Implausible(src.Path, r.Origin, pioneerLimits, map[string][]float64{"v_ref": r.Vref, "w_ref": r.Wref, "v": r.V, "w": r.W})...)
		if needMeasured {
			d.Add(Spikes(src.Path, r.Origin, map[string][]float64{"v": r.V, "w": r.W})...)
		}
	}
	return rs, nil
}

func pioneerFixedOffset(src Source) error {
	if src.AutoOffset {
		return Usagef("-offset auto is available for -model mecanum only (give the offset in seconds for pioneer)")
	}
	return nil
}

// Simulate predicts the measured velocities v, w of every run of the log
// from its references with the exact model (pioneer.Simulate): CSV
// t, v, w[, traj].
func (Pioneer) Simulate(req SimulateRequest) (*Simulation, error) {
	p, err := pioneerParams(req.Params)
	if err != nil {
		return nil, err
	}
	if err := pioneerFixedOffset(req.Source); err != nil {
		return nil, err
	}
	d := NewDiag(req.Sink)
	runs, err := readPioneerLog(req.Source, false, d)
	if err != nil {
		return nil, err
	}
	type pred struct{ v, w []float64 }
	preds := make([]pred, len(runs))
	for i := range runs {
		r := &runs[i] // a gap is an error of pioneer.Simulate (one Ts per row)
		v, w, err := pioneer.Simulate(p, r)
		if err != nil {
			return nil, r.Err(err)
		}
		for k := range v {
			if math.IsNaN(v[k]+w[k]) || math.IsInf(v[k]+w[k], 0) {
				return nil, r.Errorf(k, "", "the simulated velocities are not finite from this row on: the references, or the parameters of %s, are out of scale", req.ParamsPath)
			}
		}
		preds[i] = pred{v, w}
	}
	hasTraj := runs[0].Table.Has("traj")
	sr := make([]simRun, len(runs))
	for i, r := range runs {
		sr[i] = simRun{ID: r.ID, T: r.T, Cols: [][]float64{preds[i].v, preds[i].w}}
	}
	write := func(w io.Writer) error { return writeSimulation(w, []string{"v", "w"}, hasTraj, sr) }
	sim := &Simulation{Write: write, Warnings: d.Warnings}
	if req.Plot {
		// v and ω against time, the log's measured ones (where it has
		// them) as points, as validate -plot draws them
		chs := []fit.Channel{{Name: "v", Unit: "m/s"}, {Name: "w", Unit: "rad/s"}}
		for i, r := range runs {
			for k := range preds[i].v {
				mv, mw := math.NaN(), math.NaN()
				if r.V != nil {
					mv, mw = r.V[k], r.W[k]
				}
				chs[0].Add(i, r.T[k], mv, preds[i].v[k])
				chs[1].Add(i, r.T[k], mw, preds[i].w[k])
			}
		}
		sim.Figure = &Figure{Title: "pioneer: simulated v and ω (" + filepath.Base(req.Source.Path) + ")", Channels: chs}
		if hasTraj {
			for _, r := range runs {
				sim.Figure.RunIDs = append(sim.Figure.RunIDs, r.ID)
			}
		}
	}
	return sim, nil
}

// Validate predicts the measured v, w of every run from its references
// (the exact model, as Simulate), from the start velocities estimated per
// run (or the first measured ones, X0First); the poses of the per-run
// errors are dead-reckoned from v, w.
func (Pioneer) Validate(req ValidateRequest) ([]ValidationRun, error) {
	p, err := pioneerParams(req.Params)
	if err != nil {
		return nil, err
	}
	d := NewDiag(req.Sink)
	var out []ValidationRun
	for _, src := range req.Sources {
		if err := pioneerFixedOffset(src); err != nil {
			return nil, err
		}
		rs, err := readPioneerLog(src, true, d)
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			_, ws, err := fit.ApplyGaps(req.Gaps, r.T, nil, false, func(row int, msg string) error { return r.Errorf(row, "t", "%s", msg) })
			d.Add(ws...)
			if err != nil {
				return nil, err
			}
			predict := func(s []float64) ([]fit.Channel, error) {
				q := r
				q.V, q.W = slices.Clone(r.V), slices.Clone(r.W)
				q.V[0], q.W[0] = s[0], s[1]
				v, w, err := pioneer.Simulate(p, &q)
				if err != nil {
					return nil, err
				}
				chs := VelocityChannels()
				for k := range r.T {
					chs[0].Add(0, r.T[k], r.V[k], v[k])
					chs[1].Add(0, r.T[k], r.W[k], w[k])
				}
				return chs, nil
			}
			v0, w0 := r.V[0], r.W[0]
			if math.IsNaN(v0) || math.IsNaN(w0) {
				v0, w0 = 0, 0
			}
			s, chs, err := StartChannels(req.X0, []float64{v0, w0}, predict)
			if err != nil {
				return nil, r.Err(err)
			}
			out = append(out, ValidationRun{ID: RunID(req.Sources, src.Path, r.ID), Channels: chs, Track: VelocityTrack(chs), Start: s, StartNames: []string{"v", "w"}})
		}
	}
	return out, nil
}

// Methods: lsq (bounded least squares with the forward-mode Jacobian, the
// default) or lbfgsb, over annealed surrogates (pioneer.Identify).
func (Pioneer) Methods() []string { return slices.Clone(pioneer.Methods) }

// Options: -form.
func (Pioneer) Options() []Option {
	return []Option{{Name: "form", Default: "", Usage: "pioneer: physical or experimental, when -init does not say (default experimental)"}}
}

// Identify parses the options (ParsePioneerOptions) and identifies
// (IdentifyWith).
func (m Pioneer) Identify(req IdentifyRequest) (*Identified, error) {
	o, err := ParsePioneerOptions(req.Options)
	if err != nil {
		return nil, err
	}
	return m.IdentifyWith(req, o)
}

// IdentifyWith fits the form's parameters (pioneer.DefaultFree, or as
// req.Fix/Free say) and the whole-sample delays to the logs' measured v, w
// (pioneer.Identify), with Gauss–Newton σ of the exact model corrected for
// residuals correlated in time (pioneer.GaussNewton). Every parameter is
// written; there is no refusal of undetermined parameters (the model marks
// the ones the logs barely inform, kept near the start, with a warning)
// and no unconverged outcome (the fit is a schedule of annealing stages).
func (Pioneer) IdentifyWith(req IdentifyRequest, o PioneerOptions) (*Identified, error) {
	method := req.Method
	if method == "" {
		method = pioneer.Methods[0]
	}
	if !slices.Contains(pioneer.Methods, method) {
		return nil, Usagef("-model pioneer identifies with %s (got -method %s)", strings.Join(pioneer.Methods, " or "), req.Method)
	}
	form := o.Form
	if form != "" && form != pioneer.FormPhysical && form != pioneer.FormExperimental {
		return nil, Usagef("-form %q: want physical or experimental", form)
	}
	var p pioneer.Params
	if req.Init != nil {
		var err error
		if p, err = pioneerParams(req.Init); err != nil {
			return nil, err
		}
		if form != "" && form != p.Form {
			return nil, Usagef("-form %s, but %s is a %s parameter file", form, req.InitPath, p.Form)
		}
	} else {
		if form == "" {
			form = pioneer.FormExperimental
		}
		p = pioneer.Default(form)
	}
	var free []string
	if len(req.Fix) > 0 || len(req.Free) > 0 {
		names := pioneer.ExperimentalParamNames
		if p.Form == pioneer.FormPhysical {
			names = pioneer.PhysicalParamNames
		}
		known := names
		if len(req.Free) == 0 {
			known = pioneer.DefaultFree(p.Form)
		}
		held, err := fit.HeldSet(known, req.Fix, req.Free)
		if err != nil {
			return nil, Usagef("%s", err)
		}
		for _, n := range known {
			if !held[n] {
				free = append(free, n)
			}
		}
	}
	d := NewDiag(req.Sink)
	var runs []*pioneer.Run
	for _, src := range req.Sources {
		if err := pioneerFixedOffset(src); err != nil {
			return nil, err
		}
		rs, err := readPioneerLog(src, true, d)
		if err != nil {
			return nil, err
		}
		for i := range rs {
			r := &rs[i]
			if err := r.Check(p.Ts); err != nil {
				return nil, r.Err(err)
			}
			d.Add(pioneerLayout(src.Path, p, r)...)
			runs = append(runs, r)
		}
	}
	res, err := pioneer.Identify(p, runs, pioneer.IdentifyOptions{Free: free, Method: method, MaxIter: req.Fit.MaxIter, Tol: req.Fit.Tol, Progress: func(s string) { d.Sink.Progress("%s", s) }})
	d.Sink.Done()
	if err != nil {
		return nil, err
	}
	d.Add(WorseThanStart(Pioneer{}, req.Sources, p, res.Params, req.Gaps)...)
	out := &Identified{Report: pioneerReport(d, p, runs, res, method), Params: res.Params}
	if req.Plot {
		out.Figure, err = pioneerFigure(p.Form, res.Params, runs[0])
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// pioneerReport is the fit's report: every free parameter with its
// Gauss–Newton σ (pioneer.GaussNewton, corrected for correlated
// residuals) and bounds, the whole-sample delays (chosen by search: no σ),
// and the loss as the residual figure. The warnings (on a bound, barely
// informed) go to d.
func pioneerReport(d *Diag, p pioneer.Params, runs []*pioneer.Run, res *pioneer.Result, method string) fit.Report {
	for _, n := range res.OnBound {
		lo, hi := pioneer.Bounds(n, p.Ts)
		d.Add(fit.Warnf("", "%s ended on a bound of [%g, %g]", n, lo, hi))
	}
	if len(res.Undetermined) > 0 {
		d.Add(fit.Warnf("", "%s barely informed by these logs (kept near the start)", strings.Join(res.Undetermined, ", ")))
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
	how := "annealed surrogates"
	if method == pioneer.MethodLSQ {
		how += ", then the exact model"
	}
	rep := fit.Report{Model: "pioneer", Method: method + " (" + p.Form + " form, " + how + ")",
		Data:     fmt.Sprintf("%d run(s)", len(runs)),
		Params:   ps,
		Residual: fit.Residual{Name: "v and ω error over the measured sd (RMS)", RMS: math.Sqrt(res.Loss / 2)},
		Warnings: d.Warnings, Evaluations: res.Evaluations, Elapsed: res.Runtime,
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
		rep.Status = fit.NewStatus(method, res.Opt)
		rep.Status.Iterations = res.Iterations
		rep.Status.Loss = res.Loss // the exact loss, not the last surrogate's
	}
	return rep
}

// pioneerFigure is the translational velocity of the first run: reference,
// measured and the identified model's.
func pioneerFigure(form string, p pioneer.Params, r *pioneer.Run) (*Figure, error) {
	v, _, err := pioneer.Simulate(p, r)
	if err != nil {
		return nil, r.Err(err)
	}
	var mt, mv []float64
	for k := range r.T {
		if !math.IsNaN(r.V[k]) {
			mt, mv = append(mt, r.T[k]), append(mv, r.V[k])
		}
	}
	return &Figure{Title: fmt.Sprintf("pioneer (%s): translational velocity, first run", form), XLabel: "time (s)", YLabel: "v (m/s)",
		Series: []Series{{Name: "reference", X: r.T, Y: r.Vref, Dashed: true}, {Name: "measured", X: mt, Y: mv, Points: true}, {Name: "model", X: r.T, Y: v}}}, nil
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

// pioneerLayout warns of stretches where the measured v, w move the robot
// while both references are zero (driven by hand) or stand while it is
// commanded (issue 28), named with their time spans. Only rows where the
// start model agrees with the references count (references zero and the
// model standing, or references and the model moving): the model's delays
// and its slowing down are not stretches of other driving.
func pioneerLayout(file string, p pioneer.Params, r *pioneer.Run) []fit.Warning {
	v, w, err := pioneer.Simulate(p, r)
	if err != nil || r.V == nil {
		return nil // Identify says why
	}
	zero := func(k int) bool { return r.Vref[k] == 0 && r.Wref[k] == 0 }
	var rows []int
	for k := range min(len(v), len(r.T)) {
		if predMoving(v[k], w[k]) != zero(k) {
			rows = append(rows, k)
		}
	}
	return fit.CommandSpeedWarnings(file, r.T, r.V, r.W, rows, zero)
}
