package cli

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/figure"
	"github.com/wheelgrad/wheelgrad/fit"
	"github.com/wheelgrad/wheelgrad/models/skidsteer"
	"github.com/wheelgrad/wheelgrad/opt"
)

// Model skidsteer (FORMATS.md): slip-enhanced kinematics of Ordonez et al.,
// calibrated online by IPEM (the default, -method ekf) or in batch by
// L-BFGS over all intervals (-method batch, alias lbfgsb; neldermead and
// cmaes minimise the same batch objective).
func init() {
	simulateHandlers["skidsteer"] = simulateSkidsteer
	identifyHandlers["skidsteer"] = identifySkidsteer
	identifyMethods["skidsteer"] = []string{"ipem", "ekf", "batch"}
}

// readSkidsteerLog reads a log or controls CSV split into runs by traj
// (skidsteer.ReadLog); p gives the command map and, for a wheel-speed log,
// r and track.
func readSkidsteerLog(e env, src logSource, p skidsteer.Params, params string) ([]skidsteer.Run, error) {
	return skidsteer.ReadLog(src.Path, skidsteer.LogOptions{Params: p, ParamsFile: params, Sensors: src.Poses, Offset: src.Offset, Note: e.stderr, Columns: src.Columns, HoldLast: src.HoldLast})
}

// readSkidsteerParams is skidsteer.ReadParams with its warnings printed.
func readSkidsteerParams(e env, path string, needA bool) (skidsteer.Params, error) {
	p, warnings, err := skidsteer.ReadParams(path, needA)
	if err != nil {
		return p, err
	}
	warnParams(e, path, warnings)
	return p, nil
}

func simulateSkidsteer(e env, a SimulateArgs) error {
	p, err := readSkidsteerParams(e, a.Params, true)
	if err != nil {
		return err
	}
	runs, err := readSkidsteerLog(e, a.source(), p, a.Params)
	if err != nil {
		return err
	}
	// each run starts from its own first pose (or zero)
	trajs := make([][]skidsteer.Pose, len(runs))
	for i, r := range runs {
		tr, err := simulateSkidsteerLog(p, r.Log)
		if err != nil {
			return r.Err(err)
		}
		for k, q := range tr { // checked before the first byte is written
			if math.IsNaN(q.X+q.Y+q.Psi) || math.IsInf(q.X+q.Y+q.Psi, 0) {
				return r.Errorf(k, "", "the simulated pose is not finite from this row on: the commands, or the slip coefficients of %s, are out of scale", a.Params)
			}
		}
		trajs[i] = tr
	}
	hasTraj := runs[0].Table.Has("traj")
	write := func(w io.Writer) error {
		cw := dataset.NewWriter(w)
		head := []string{"t", "x", "y", "psi"}
		if hasTraj {
			head = append(head, "traj")
		}
		cw.WriteHeader(head...)
		for i, r := range runs {
			for k, q := range trajs[i] {
				row := []dataset.Cell{dataset.Num(r.T[k]), dataset.Num(q.X), dataset.Num(q.Y), dataset.Num(q.Psi)}
				if hasTraj {
					row = append(row, dataset.Text(r.ID))
				}
				cw.WriteRow(row...)
			}
		}
		return cw.Flush()
	}
	return e.writeOut(a.Out, write)
}

// simulateSkidsteerLog rolls the model out over the log anchored at its
// first pose, at whatever row it falls (earlier rows are the same Euler
// steps taken backwards, as mecanum's Simulate), or from zero at row 0.
func simulateSkidsteerLog(p skidsteer.Params, l *skidsteer.Log) ([]skidsteer.Pose, error) {
	k0 := 0
	var pose0 skidsteer.Pose
	if rows := l.PoseRows(); len(rows) > 0 {
		k0, pose0 = rows[0], l.Pose[rows[0]]
	}
	fwd, err := skidsteer.Simulate(p, pose0, l.T[k0:], l.Vc[k0:], l.Wc[k0:])
	if err != nil {
		return nil, err
	}
	out := make([]skidsteer.Pose, len(l.T))
	copy(out[k0:], fwd)
	a := p.Coeffs()
	for i := k0 - 1; i >= 0; i-- {
		f, lat, yaw := skidsteer.Velocity(a, l.Vc[i], l.Wc[i])
		dt := l.T[i+1] - l.T[i]
		psi := out[i+1].Psi - dt*yaw
		c, s := math.Cos(psi), math.Sin(psi)
		out[i] = skidsteer.Pose{X: out[i+1].X - dt*(c*f-s*lat), Y: out[i+1].Y - dt*(s*f+c*lat), Psi: psi}
	}
	return out, nil
}

// predictionLine is the summary's 2-s prediction figure, or why there is
// none: a window shorter than the horizon has no 2-s prediction, and the
// RMS of none is not 0 (issue 28: 1.95-s windows printed "0.0000 m").
func predictionLine(logs []*skidsteer.Log, nom, calib []skidsteer.TrackError) string {
	if len(calib) == 0 {
		return "2-s prediction error: n/a (" + longestRun(logs) + ")"
	}
	return fmt.Sprintf("2-s prediction error (RMS): nominal %.4f m, calibrated %.4f m (%d predictions)", skidsteer.RMS(nom), skidsteer.RMS(calib), len(calib))
}

// longestRun says that no run spans the 2-s horizon, and the longest's span.
func longestRun(logs []*skidsteer.Log) string {
	longest := 0.0
	for _, l := range logs {
		if rows := l.PoseRows(); len(rows) > 1 {
			longest = math.Max(longest, l.T[rows[len(rows)-1]]-l.T[rows[0]])
		}
	}
	return fmt.Sprintf("no run's poses span 2 s; the longest spans %.3g s", longest)
}

// skidsteerPieces applies the -gaps policy to a log: the log itself, or
// its pieces between gaps (each a log of its own).
func skidsteerPieces(d *diag, policy string, r skidsteer.Run) ([]*skidsteer.Log, error) {
	l := r.Log
	pieces, err := checkGaps(d, policy, l.T, r.CommandRows(), true, tableRowErr(r.Table, r.Row))
	if err != nil || pieces == nil {
		return []*skidsteer.Log{l}, err
	}
	var out []*skidsteer.Log
	for _, pc := range pieces {
		a, b := pc[0], pc[1]
		q := &skidsteer.Log{T: l.T[a:b], Vc: l.Vc[a:b], Wc: l.Wc[a:b], Pose: l.Pose[a:b], HasPose: l.HasPose[a:b]}
		if len(q.PoseRows()) < 2 {
			d.add(fit.Warnf(r.Table.File, "the piece from line %d has fewer than two poses after the gap split: left out", r.Table.Line[r.Row+a]))
			continue
		}
		out = append(out, q)
	}
	d.add(fit.Warnf(r.Table.File, "split at %d time gap(s) into %d runs (-gaps split)", len(pieces)-1, len(out)))
	return out, nil
}

// skidsteerChecks compares the logs with the nominal model (a = 0) and
// refuses logs without motion.
func skidsteerChecks(d *diag, logs []*skidsteer.Log, files []string) error {
	file := strings.Join(files, ",")
	var md, mt, pd, pt, vmax, wmax float64
	for _, l := range logs {
		vmax, wmax = max(vmax, fit.MaxAbs(l.Vc)), max(wmax, fit.MaxAbs(l.Wc))
		rows := l.PoseRows()
		nom, err := skidsteer.Simulate(skidsteer.Params{}, l.Pose[rows[0]], l.T[rows[0]:], l.Vc[rows[0]:], l.Wc[rows[0]:])
		if err != nil {
			return err
		}
		x, y, psi := make([]float64, len(l.T)), make([]float64, len(l.T)), make([]float64, len(l.T))
		nx, ny, npsi := make([]float64, len(l.T)), make([]float64, len(l.T)), make([]float64, len(l.T))
		for _, k := range rows {
			x[k], y[k], psi[k] = l.Pose[k].X, l.Pose[k].Y, l.Pose[k].Psi
			q := nom[k-rows[0]]
			nx[k], ny[k], npsi[k] = q.X, q.Y, q.Psi
		}
		a, b := fit.Chord(l.T, x, y, psi, rows, 0.5)
		c, e := fit.Chord(l.T, nx, ny, npsi, rows, 0.5)
		md, mt, pd, pt = md+a, mt+b, pd+c, pt+e
	}
	if vmax < 1e-9 && wmax < 1e-9 {
		return fit.NoMotion(file, "every command vc, wc is zero")
	}
	if md < 1e-3 && mt < 1e-3 {
		return fit.NoMotion(file, "the poses x, y, psi do not move")
	}
	if vmax > 5 {
		d.add(fit.Warnf(file, "|vc| reaches %.4g m/s: is vc in mm/s or cm/s? (FORMATS.md: m/s)", vmax))
	}
	if wmax > 10 {
		d.add(fit.Warnf(file, "|wc| reaches %.4g rad/s: is wc in deg/s? (FORMATS.md: rad/s)", wmax))
	}
	d.add(fit.Scale(file, "distance travelled", md, pd,
		"are x, y in mm or cm (FORMATS.md: m), or vc too small?",
		"is vc in mm/s or cm/s instead of m/s, t in ms instead of s, or x, y in km?")...)
	if pt > 0.5 {
		d.add(fit.Scale(file, "heading change", mt, pt,
			"is psi in degrees? (FORMATS.md: radians)",
			"is wc in deg/s instead of rad/s, or t in ms?")...)
	} else {
		var s float64
		n := 0
		for _, l := range logs {
			psi := make([]float64, len(l.T))
			for k, q := range l.Pose {
				psi[k] = q.Psi
			}
			if v := fit.AngleNoise(psi, l.PoseRows()); !math.IsNaN(v) {
				s += v
				n++
			}
		}
		if n > 0 && s/float64(n) > 0.1 {
			d.add(fit.Warnf(file, "psi scatters by %.3g rad from sample to sample: is psi in degrees? (FORMATS.md: radians)", s/float64(n)))
		}
	}
	return nil
}

func identifySkidsteer(e env, a IdentifyArgs) error {
	if (a.Method == "" || a.Method == "ekf" || a.Method == "ipem") && (a.Fit.MaxIter > 0 || a.Fit.Tol > 0) {
		return usagef("-maxiter and -tol apply to the optimisers (-method batch, neldermead, cmaes); -method ekf (alias ipem) is one pass of the filter")
	}
	cfg := skidsteer.IPEMConfig{}
	var init skidsteer.Params
	if a.Init != "" {
		var err error
		if init, err = readSkidsteerParams(e, a.Init, false); err != nil {
			return err
		}
		cfg.A0 = init.Coeffs()
	}
	offset, err := a.fixedOffset("skidsteer")
	if err != nil {
		return err
	}
	d := a.Diag
	held, err := fixedSet(skidsteer.CoeffNames[:], a.Fix, a.Free)
	if err != nil {
		return err
	}
	var logs []*skidsteer.Log
	var ivs []*skidsteer.Intervals
	for _, src := range a.sources(offset) {
		runs, err := readSkidsteerLog(e, src, init, a.Init)
		if err != nil {
			return err
		}
		for _, r := range runs {
			if len(r.PoseRows()) < 2 {
				_, err := r.Intervals(1, 400)
				return r.Err(err)
			}
			d.add(fit.TimeUnits(src.Path, r.T)...)
			rows := r.PoseRows()
			x, y := make([]float64, len(r.T)), make([]float64, len(r.T))
			for _, k := range rows {
				x[k], y[k] = r.Pose[k].X, r.Pose[k].Y
			}
			d.add(fit.StaleWarning(src.Path, x, y, rows)...)
			pieces, err := skidsteerPieces(d, a.Gaps, r)
			if err != nil {
				return err
			}
			for _, q := range pieces {
				iv, err := q.Intervals(1, 400)
				if err != nil {
					return r.Err(err)
				}
				logs, ivs = append(logs, q), append(ivs, iv)
			}
		}
	}
	if err := skidsteerChecks(d, logs, a.Data); err != nil {
		return err
	}
	iv := skidsteer.MergeIntervals(ivs...)
	method := a.Method
	if method == "" {
		method = "ekf"
	}
	if len(held) > 0 && method != "batch" && method != "lbfgsb" {
		return usagef("-fix/-free need -method batch (lbfgsb) for skidsteer: the online EKF estimates all nine coefficients")
	}
	start := time.Now()
	var cal *skidsteer.Calibration
	var note string
	evals := 0
	var optRes *opt.Result // batch methods
	switch method {
	case "ekf":
		var err error
		cal, _, err = skidsteer.CalibrateIntervals(iv, cfg, func(k int, f *skidsteer.IPEM) {
			if k%200 == 0 {
				a.Prog.printf("IPEM update %d/%d: a32 = %.4f", k+1, len(iv.Z), f.A[7])
			}
		})
		a.Prog.done()
		if err != nil {
			return failureHint(err)
		}
		note = fmt.Sprintf("ipem (online EKF), %d updates over %d intervals", len(iv.Z), len(iv.Z))
	default:
		b, err := skidsteer.NewBatchIntervals(iv, cfg, 0)
		if err != nil {
			return err
		}
		var m opt.Method = opt.LBFGSB{}
		switch method {
		case "neldermead":
			m = opt.NelderMead{}
		case "cmaes":
			m = opt.CMAES{Seed: 1}
		}
		x0 := cfg.A0
		if x0 == nil {
			x0 = make([]float64, skidsteer.NumCoeffs)
		}
		prob := opt.Problem{Objective: b.Eval}
		if len(held) > 0 {
			prob.Lower, prob.Upper = make([]float64, len(x0)), make([]float64, len(x0))
			for k, n := range skidsteer.CoeffNames {
				prob.Lower[k], prob.Upper[k] = math.Inf(-1), math.Inf(1)
				if held[n] {
					prob.Lower[k], prob.Upper[k] = x0[k], x0[k]
				}
			}
		}
		res, err := m.Minimize(prob, x0, a.Fit.Apply(opt.Settings{Callback: func(it opt.Iteration) bool {
			a.Prog.printf("%s iteration %d: loss %.6g", method, it.Iter, it.F)
			return true
		}}))
		a.Prog.done()
		if err != nil {
			return failureHint(err)
		}
		optRes = res
		if cal, err = b.Covariance(res.X); err != nil {
			return err
		}
		note = fmt.Sprintf("batch %s over %d intervals", method, len(iv.Z))
		evals = res.FuncEvaluations
	}
	elapsed := time.Since(start)
	out := cal.Params()
	out.R, out.Track, out.CommandMap = init.R, init.Track, init.CommandMap
	// A diverged filter or an out-of-range fit is the calibration's failure
	// (nothing written), never a file that simulate would then refuse.
	for k, v := range cal.A {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("skidsteer %s: %s = %v: the calibration diverged (the log's units or scale?); no parameters written", method, skidsteer.CoeffNames[k], v)
		}
	}
	if err := out.Validate(); err != nil {
		return fmt.Errorf("skidsteer %s: the calibration is out of range, %v (the log's units or scale?); no parameters written", method, err)
	}
	sd := cal.Std()
	var ps []fit.Param
	for k, name := range skidsteer.CoeffNames {
		v := sd[k]
		if held[name] {
			v = 0
		}
		ps = append(ps, fit.Param{Name: name, Value: cal.A[k], Std: v, Lower: math.Inf(-1), Upper: math.Inf(1), Held: held[name]})
	}
	var nom, calib []skidsteer.TrackError
	for _, l := range logs {
		nom = append(nom, skidsteer.PredictionErrors(l, make([]float64, 9), 2, 1)...)
		calib = append(calib, skidsteer.PredictionErrors(l, cal.A, 2, 1)...)
	}
	var noise float64
	for _, l := range logs {
		rows := l.PoseRows()
		x, y := make([]float64, len(l.T)), make([]float64, len(l.T))
		for _, k := range rows {
			x[k], y[k] = l.Pose[k].X, l.Pose[k].Y
		}
		noise += fit.PoseNoise(x, y, rows) / float64(len(logs))
	}
	rms := skidsteer.RMS(calib)
	d.add(fit.ResidualNoise("2-s prediction", rms, noise, 0.05, "m")...)
	rep := fit.Report{Model: "skidsteer", Method: note,
		Data:     fmt.Sprintf("%d run(s), %d pose intervals", len(logs), len(iv.Z)),
		Params:   ps,
		Residual: fit.Residual{Name: "2-s prediction", Unit: "m", RMS: rms},
		Warnings: d.warns, Evaluations: evals, Elapsed: elapsed,
		Lines: []string{predictionLine(logs, nom, calib)},
	}
	if optRes != nil {
		rep.Status = fit.NewStatus(method, optRes)
	}
	if err := emitReport(e, a, rep); err != nil {
		return err
	}
	if a.Fit.Settled(optRes) { // unconverged: reported by checkFit, exit 3
		if err := d.keep(fit.CheckDetermined(ps, a.AllowUndetermined, "")); err != nil {
			return err
		}
	}
	if err := e.writeParams(a.Out, out, rep.Status); err != nil {
		return err
	}
	if a.Plot != "" && len(calib) == 0 {
		return fmt.Errorf("-plot %s: no 2-s prediction to plot (%s); nothing written: run without -plot for the parameters", a.Plot, longestRun(logs))
	}
	if a.Plot != "" {
		stage, err := e.stagePath(a.Plot)
		if err != nil {
			return err
		}
		if err := plotTrackErrors(stage, "skidsteer: 2-s prediction errors", nom, calib); err != nil {
			return err
		}
	}
	if optRes != nil {
		return checkFit(e, a.Fit, "skidsteer identify ("+method+")", optRes)
	}
	return nil
}

// plotTrackErrors draws along-track vs cross-track errors of nominal and
// calibrated predictions with their 3σ ellipses (Ordonez et al. Figs. 12–14).
func plotTrackErrors(path, title string, nom, calib []skidsteer.TrackError) error {
	cloud := func(name string, e []skidsteer.TrackError, dashed bool) figure.Cloud {
		x, y, ex, ey := skidsteer.ErrorCloud(e, 3)
		return figure.Cloud{Name: name, X: x, Y: y, CurveX: ex, CurveY: ey, Dashed: dashed}
	}
	return figure.Clouds(path, title, "along-track error (m)", "cross-track error (m)",
		[]figure.Cloud{cloud("nominal", nom, true), cloud("calibrated", calib, false)})
}
