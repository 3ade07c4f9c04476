package robots

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/wheelgrad/wheelgrad/fit"
	"github.com/wheelgrad/wheelgrad/models/skidsteer"
)

// The skid-steer adapter (models/skidsteer, Ordonez et al.): parameter files,
// simulate, validate and identify. Identification is IPEM's online EKF
// (Ordonez et al. §2.2, Seegmiller's integrated prediction error, the
// default; the README calls it ipem) or a batch minimisation of the same
// integrated prediction errors over all pose intervals (batch: bounded
// least squares with the forward-mode Jacobian; lbfgsb, neldermead and
// cmaes minimise the same objective as a scalar). Plans are in
// skidsteer_plan.go.

// The skid-steer's identification methods.
const (
	SkidSteerEKF  = "ekf"  // IPEM, the online EKF (one pass; the default)
	SkidSteerIPEM = "ipem" // the README's name of SkidSteerEKF
	// SkidSteerBatch minimises the integrated prediction errors of all
	// intervals by bounded least squares (skidsteer.FitBatch; lbfgsb the
	// same sum of squares by L-BFGS-B).
	SkidSteerBatch = "batch"
)

var (
	_ ParamReader = SkidSteer{}
	_ Simulator   = SkidSteer{}
	_ Validator   = SkidSteer{}
	_ Identifier  = SkidSteer{}
)

// skidSteerHorizon is the horizon (s) of the summary's prediction errors
// (Ordonez et al. Figs. 12–14: 2-s predictions every second).
const skidSteerHorizon = 2

// ReadParams reads a skid-steer parameter file (skidsteer.ReadParams): for
// prediction the slip matrix "a" must be given; as identify's start it
// defaults to zero (the nominal model). The result is a skidsteer.Params.
func (SkidSteer) ReadParams(path string, use ParamUse) (Params, []fit.Warning, error) {
	p, ws, err := skidsteer.ReadParams(path, use == ForPrediction)
	if err != nil {
		return nil, nil, err
	}
	return p, ParamWarnings(path, ws), nil
}

// skidSteerParams is p as the model's parameters (nil: the nominal model).
func skidSteerParams(p Params) (skidsteer.Params, error) {
	switch v := p.(type) {
	case nil:
		return skidsteer.Params{}, nil
	case skidsteer.Params:
		return v, nil
	case *skidsteer.Params:
		return *v, nil
	}
	return skidsteer.Params{}, fmt.Errorf("skidsteer: parameters of type %T, want skidsteer.Params", p)
}

// readSkidSteerLog reads one source's runs (skidsteer.ReadLog); p gives the
// command map and, for a wheel-speed log, r and track; the reader's notes
// and warnings go to d.
func readSkidSteerLog(d *Diag, src Source, p skidsteer.Params, paramsPath string) ([]skidsteer.Run, error) {
	if src.AutoOffset {
		return nil, Usagef("-offset auto is available for -model mecanum only (give the offset in seconds for skidsteer)")
	}
	runs, err := skidsteer.ReadLog(src.Path, skidsteer.LogOptions{Params: p, ParamsFile: paramsPath, Sensors: src.Poses,
		Offset: src.Offset, Note: d.NoteWriter(), Columns: src.Columns, HoldLast: src.HoldLast, Cache: src.Cache})
	d.Add(skidSteerImplausible(src.Path, runs)...)
	return runs, err
}

// Simulate rolls the model out over the source's commands, each run from
// its first pose (earlier rows integrated backwards) or from zero; the CSV
// is t,x,y,psi (and traj when the log has runs).
func (SkidSteer) Simulate(req SimulateRequest) (*Simulation, error) {
	p, err := skidSteerParams(req.Params)
	if err != nil {
		return nil, err
	}
	d := NewDiag(req.Sink)
	runs, err := readSkidSteerLog(d, req.Source, p, req.ParamsPath)
	if err != nil {
		return nil, err
	}
	trajs := make([][]skidsteer.Pose, len(runs))
	for i, r := range runs {
		d.Add(SimulatedGaps(r.T, r.Origin)...)
		tr, err := simulateSkidSteer(p, r.Log)
		if err != nil {
			return nil, r.Err(err)
		}
		for k, q := range tr { // checked before the first byte is written
			if math.IsNaN(q.X+q.Y+q.Psi) || math.IsInf(q.X+q.Y+q.Psi, 0) {
				return nil, r.Errorf(k, "", "the simulated pose is not finite from this row on: the commands, or the slip coefficients of %s, are out of scale", req.ParamsPath)
			}
		}
		trajs[i] = tr
	}
	hasTraj := runs[0].Table.Has("traj")
	sr := make([]simRun, len(runs))
	for i, r := range runs {
		x, y, psi := make([]float64, len(trajs[i])), make([]float64, len(trajs[i])), make([]float64, len(trajs[i]))
		for k, q := range trajs[i] {
			x[k], y[k], psi[k] = q.X, q.Y, q.Psi
		}
		sr[i] = simRun{ID: r.ID, T: r.T[:len(trajs[i])], Cols: [][]float64{x, y, psi}}
	}
	write := func(w io.Writer) error { return writeSimulation(w, []string{"x", "y", "psi"}, hasTraj, sr) }
	sim := &Simulation{Write: write, Warnings: d.Warnings}
	if req.Plot {
		prs := make([]PathRun, len(runs))
		for i, r := range runs {
			pr := PathRun{ID: r.ID, PredX: sr[i].Cols[0], PredY: sr[i].Cols[1]}
			for _, k := range r.PoseRows() {
				pr.MeasX, pr.MeasY = append(pr.MeasX, r.Pose[k].X), append(pr.MeasY, r.Pose[k].Y)
				pr.Pair = append(pr.Pair, k)
			}
			prs[i] = pr
		}
		sim.Figure = PathFigure("skidsteer: predicted path", prs)
	}
	return sim, nil
}

// SimulateSkidSteerLog rolls the model out over the log anchored at its
// first pose, at whatever row it falls (earlier rows are the same Euler
// steps taken backwards, as mecanum's Simulate), or from zero at row 0.
func SimulateSkidSteerLog(p skidsteer.Params, l *skidsteer.Log) ([]skidsteer.Pose, error) {
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

// skidSteerPieces applies the gap policy to a run: the run's log itself,
// or its pieces between gaps (each a log of its own).
func skidSteerPieces(d *Diag, policy fit.GapPolicy, r skidsteer.Run) ([]*skidsteer.Log, error) {
	l := r.Log
	pieces, ws, err := fit.ApplyGaps(policy, l.T, r.CommandRows(), true, func(row int, msg string) error {
		return r.Table.Errorf(r.Row+row, "t", "%s", msg)
	})
	d.Add(ws...)
	if err != nil || pieces == nil {
		return []*skidsteer.Log{l}, err
	}
	var out []*skidsteer.Log
	for _, pc := range pieces {
		a, b := pc[0], pc[1]
		q := l.Slice(a, b)
		if len(q.PoseRows()) < 2 {
			d.Add(fit.Warnf(r.Table.File, "the piece from line %d has fewer than two poses after the gap split: left out", r.Table.Line[r.Row+a]))
			continue
		}
		out = append(out, q)
	}
	d.Add(fit.Warnf(r.Table.File, "split at %d time gap(s) into %d runs (-gaps split)", len(pieces)-1, len(out)))
	return out, nil
}

// Validate predicts each run's poses x, y, psi (each piece between gaps a
// run of its own, named #1, #2, ...) from its start state, estimated or the
// first measured (req.X0).
func (SkidSteer) Validate(req ValidateRequest) ([]ValidationRun, error) {
	p, err := skidSteerParams(req.Params)
	if err != nil {
		return nil, err
	}
	d := NewDiag(req.Sink)
	var out []ValidationRun
	for _, src := range req.Sources {
		runs, err := readSkidSteerLog(d, src, p, req.ParamsPath)
		if err != nil {
			return nil, err
		}
		for _, r := range runs {
			if len(r.PoseRows()) == 0 {
				return nil, r.Errorf(0, "x", "validate needs measured poses x, y, psi")
			}
			pieces, err := skidSteerPieces(d, req.Gaps, r)
			if err != nil {
				return nil, err
			}
			for n, q := range pieces {
				rows := q.PoseRows()
				if len(rows) == 0 {
					continue
				}
				k0 := rows[0]
				predict := func(s []float64) ([]fit.Channel, error) {
					l := *q
					l.Pose = slices.Clone(q.Pose)
					l.Pose[k0] = skidsteer.Pose{X: s[0], Y: s[1], Psi: s[2]}
					tr, err := simulateSkidSteer(p, &l)
					if err != nil {
						return nil, err
					}
					chs := PoseChannels("psi")
					for _, k := range rows {
						chs[0].Add(0, q.T[k], q.Pose[k].X, tr[k].X)
						chs[1].Add(0, q.T[k], q.Pose[k].Y, tr[k].Y)
						chs[2].Add(0, q.T[k], q.Pose[k].Psi, tr[k].Psi)
					}
					return chs, nil
				}
				p0 := q.Pose[k0]
				s, chs, err := StartChannels(req.X0, []float64{p0.X, p0.Y, p0.Psi}, predict)
				if err != nil {
					return nil, r.Err(err)
				}
				id := RunID(req.Sources, src.Path, r.ID)
				if len(pieces) > 1 {
					id += fmt.Sprintf("#%d", n+1)
				}
				out = append(out, ValidationRun{ID: id, Channels: chs, Track: PoseTrack(chs), Start: s, StartNames: []string{"x", "y", "psi"}})
			}
		}
	}
	return out, nil
}

// Methods are ekf (IPEM, the default), its alias ipem, batch and the
// general optimisers over the batch objective.
func (SkidSteer) Methods() []string {
	return []string{SkidSteerEKF, SkidSteerIPEM, SkidSteerBatch, "lbfgsb", "neldermead", "cmaes"}
}

// Identify calibrates the nine slip coefficients from the sources' poses
// (IdentifyRequest: the method, -fix/-free for the batch methods, the gap
// policy, the start in Init). The report's residual is the RMS of the 2-s
// predictions (Ordonez et al. Figs. 12–14), nominal against calibrated.
func (SkidSteer) Identify(req IdentifyRequest) (*Identified, error) {
	method := strings.ToLower(req.Method)
	switch method {
	case "", SkidSteerIPEM:
		method = SkidSteerEKF
	}
	if !slices.Contains(SkidSteer{}.Methods(), method) {
		return nil, Usagef("unknown -method %q for skidsteer (one of %s)", req.Method, strings.Join(SkidSteer{}.Methods(), ", "))
	}
	so, err := ParseSkidSteerOptions(req.Options)
	if err != nil {
		return nil, err
	}
	if so.Commanded {
		init, err := skidSteerParams(req.Init)
		if err != nil {
			return nil, err
		}
		return SkidSteer{}.identifyCommanded(req, so, init)
	}
	if method == SkidSteerEKF && (req.Fit.MaxIter > 0 || req.Fit.Tol > 0) {
		return nil, Usagef("-maxiter and -tol apply to the optimisers (-method batch, neldermead, cmaes); -method ekf (alias ipem) is one pass of the filter")
	}
	init, err := skidSteerParams(req.Init)
	if err != nil {
		return nil, err
	}
	cfg := skidsteer.IPEMConfig{}
	if req.Init != nil {
		cfg.A0 = init.Coeffs()
	}
	for _, s := range req.Sources {
		if s.AutoOffset {
			return nil, Usagef("-offset auto is available for -model mecanum only (give the offset in seconds for skidsteer)")
		}
	}
	held, err := fit.HeldSet(skidsteer.CoeffNames[:], req.Fix, req.Free)
	if err != nil {
		return nil, Usagef("%s", err)
	}
	d := NewDiag(req.Sink)
	logs, iv, err := skidSteerIntervals(d, req, init)
	if err != nil {
		return nil, err
	}
	if len(held) > 0 && method != SkidSteerBatch && method != "lbfgsb" {
		return nil, Usagef("-fix/-free need -method batch (lbfgsb) for skidsteer: the online EKF estimates all nine coefficients")
	}
	sink := d.Sink
	start := time.Now()
	var cal *skidsteer.Calibration
	var note string
	var status *fit.Status
	var outcome error
	check := func() {} // the optimiser's outcome (fit.Settings.Check)
	evals, settled := 0, true
	if method == SkidSteerEKF {
		cal, _, err = skidsteer.CalibrateIntervals(iv, cfg, func(k int, f *skidsteer.IPEM) {
			if k%200 == 0 {
				sink.Progress("IPEM update %d/%d: a32 = %.4f", k+1, len(iv.Z), f.A[7])
			}
		})
		sink.Done()
		if err != nil {
			return nil, FailureHint(err)
		}
		note = fmt.Sprintf("ipem (online EKF), %d updates over %d intervals", len(iv.Z), len(iv.Z))
	} else {
		var hold [skidsteer.NumCoeffs]bool
		for k, n := range skidsteer.CoeffNames {
			hold[k] = held[n]
		}
		res, c, err := skidsteer.FitBatch(iv, cfg, method, hold, req.Fit, func(iter int, loss float64) {
			sink.Progress("%s iteration %d: loss %.6g", method, iter, loss)
		})
		sink.Done()
		if err != nil {
			return nil, FailureHint(err)
		}
		cal, evals = c, res.FuncEvaluations
		how := method // lbfgsb, neldermead, cmaes
		if method == SkidSteerBatch {
			how = "least squares"
		}
		note = fmt.Sprintf("batch %s over %d intervals", how, len(iv.Z))
		status, settled = fit.NewStatus(method, res), req.Fit.Settled(res)
		check = func() { outcome = d.Keep(req.Fit.Check("skidsteer identify ("+method+")", res)) }
	}
	elapsed := time.Since(start)
	out := cal.Params()
	out.R, out.Track, out.CommandMap = init.R, init.Track, init.CommandMap
	// A diverged filter or an out-of-range fit is the calibration's failure
	// (nothing written), never a file that simulate would then refuse.
	for k, v := range cal.A {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("skidsteer %s: %s = %v: the calibration diverged (the log's units or scale?); no parameters written", method, skidsteer.CoeffNames[k], v)
		}
	}
	if err := out.Validate(); err != nil {
		return nil, fmt.Errorf("skidsteer %s: the calibration is out of range, %v (the log's units or scale?); no parameters written", method, err)
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
	var noise float64
	for _, l := range logs {
		nom = append(nom, skidsteer.PredictionErrors(l, make([]float64, skidsteer.NumCoeffs), skidSteerHorizon, 1)...)
		calib = append(calib, skidsteer.PredictionErrors(l, cal.A, skidSteerHorizon, 1)...)
		x, y, _ := skidSteerPoseColumns(l)
		noise += fit.PoseNoise(x, y, l.PoseRows()) / float64(len(logs))
	}
	rms := skidsteer.RMS(calib)
	d.Add(fit.ResidualNoise("2-s prediction", rms, noise, 0.05, "m")...)
	if len(calib) > 0 {
		d.Add(fit.WorseThanNominal(skidSteerFiles(req.Sources), "2-s prediction error (RMS)", skidsteer.RMS(nom), rms, "m")...)
	}
	check()
	res := &Identified{Params: out, Outcome: outcome}
	rep := fit.Report{Model: "skidsteer", Method: note,
		Data:     fmt.Sprintf("%d run(s), %d pose intervals", len(logs), len(iv.Z)),
		Params:   ps,
		Residual: fit.Residual{Name: "2-s prediction", Unit: "m", RMS: rms},
		Warnings: slices.Clone(d.Warnings), Evaluations: evals, Elapsed: elapsed,
		Lines: []string{skidSteerPredictionLine(logs, nom, calib), skidSteerInputsLine(logs, init, req.Sources)},
	}
	rep.Status = status
	res.Report = rep
	if settled { // unconverged: reported as such (Outcome)
		res.Refused = d.Keep(fit.CheckDetermined(ps, req.AllowUndetermined, ""))
	}
	if req.Plot {
		if len(calib) == 0 {
			if res.Refused == nil {
				res.Refused = fmt.Errorf("-plot: no 2-s prediction to plot (%s); nothing written: run without -plot for the parameters", skidSteerLongestRun(logs))
			}
		} else {
			res.Figure = SkidSteerErrorFigure("skidsteer: 2-s prediction errors", nom, calib)
		}
	}
	return res, nil
}

// skidSteerIntervals reads the sources' runs (each split by the gap
// policy), checks them (time units, stale poses, scale and motion
// against the nominal model) and returns the logs with their pose
// intervals merged.
func skidSteerIntervals(d *Diag, req IdentifyRequest, init skidsteer.Params) ([]*skidsteer.Log, *skidsteer.Intervals, error) {
	var logs []*skidsteer.Log
	var ivs []*skidsteer.Intervals
	var files []string
	for _, src := range req.Sources {
		files = append(files, src.Path)
		runs, err := readSkidSteerLog(d, src, init, req.InitPath)
		if err != nil {
			return nil, nil, err
		}
		stale, poses := 0, 0
		for _, r := range runs {
			if len(r.PoseRows()) < 2 {
				_, err := r.Intervals(1, 400)
				return nil, nil, r.Err(err)
			}
			d.Add(fit.TimeUnits(src.Path, r.T)...)
			x, y, psi := skidSteerPoseColumns(r.Log)
			stale, poses = stale+fit.StalePoses(x, y, r.PoseRows()), poses+len(r.PoseRows())
			if r.ID == "" {
				d.Add(fit.JumpsBackWarning(src.Path, x, y, r.PoseRows(), r.Line)...)
			}
			// before the unit checks (skidSteerChecks), which a stretch
			// of manual driving would mislead
			d.Add(fit.CommandMotionWarnings(src.Path, r.T, x, y, psi, r.PoseRows(), func(k int) bool {
				return r.Vc[k] == 0 && r.Wc[k] == 0
			})...)
			pieces, err := skidSteerPieces(d, req.Gaps, r)
			if err != nil {
				return nil, nil, err
			}
			for _, q := range pieces {
				iv, err := q.Intervals(1, 400)
				if err != nil {
					return nil, nil, r.Err(err)
				}
				logs, ivs = append(logs, q), append(ivs, iv)
			}
		}
		d.Add(fit.StaleCountWarning(src.Path, stale, poses, len(runs))...)
	}
	if err := skidSteerChecks(d, logs, files); err != nil {
		return nil, nil, err
	}
	return logs, skidsteer.MergeIntervals(ivs...), nil
}

// skidSteerInputsLine says which logged columns gave the commands vc, wc
// (the readers' precedence: vc, wc themselves; else the parameter file's
// command_map; else the wheel speeds wl, wr with r and track), with the
// column map's sources where one renamed them (issue 28: the summary never
// said which it used).
func skidSteerInputsLine(logs []*skidsteer.Log, p skidsteer.Params, srcs []Source) string {
	src := func(target string) string {
		for _, s := range srcs {
			if s.Columns != nil {
				for _, e := range s.Columns.Entries {
					if strings.EqualFold(e.Target, target) {
						return fmt.Sprintf("%s (column %s)", target, strings.Join(e.Sources, ", "))
					}
				}
			}
		}
		return target
	}
	switch {
	case len(logs) > 0 && logs[0].Wl != nil:
		return fmt.Sprintf("inputs: vc, wc from the measured wheel speeds %s, %s (r = %g m, track = %g m)", src("wl"), src("wr"), p.R, p.Track)
	case p.CommandMap != nil:
		return fmt.Sprintf("inputs: vc, wc from the command_map's columns %s", strings.Join(p.CommandMap.Columns, ", "))
	}
	return fmt.Sprintf("inputs: the commands %s, %s", src("vc"), src("wc"))
}

// skidSteerFiles names the sources' files, comma-separated.
func skidSteerFiles(srcs []Source) string {
	var fs []string
	for _, s := range srcs {
		fs = append(fs, s.Path)
	}
	return strings.Join(fs, ",")
}

// skidSteerPoseColumns are a log's poses as columns (0 where none).
func skidSteerPoseColumns(l *skidsteer.Log) (x, y, psi []float64) {
	x, y, psi = make([]float64, len(l.T)), make([]float64, len(l.T)), make([]float64, len(l.T))
	for _, k := range l.PoseRows() {
		x[k], y[k], psi[k] = l.Pose[k].X, l.Pose[k].Y, l.Pose[k].Psi
	}
	return x, y, psi
}

// skidSteerChecks compares the logs with the nominal model (a = 0) and
// refuses logs without motion.
func skidSteerChecks(d *Diag, logs []*skidsteer.Log, files []string) error {
	file := strings.Join(files, ",")
	var md, mt, pd, pt, vmax, wmax float64
	for _, l := range logs {
		vmax, wmax = max(vmax, fit.MaxAbs(l.Vc)), max(wmax, fit.MaxAbs(l.Wc))
		rows := l.PoseRows()
		nom, err := skidsteer.Simulate(skidsteer.Params{}, l.Pose[rows[0]], l.T[rows[0]:], l.Vc[rows[0]:], l.Wc[rows[0]:])
		if err != nil {
			return err
		}
		x, y, psi := skidSteerPoseColumns(l)
		nx, ny, npsi := make([]float64, len(l.T)), make([]float64, len(l.T)), make([]float64, len(l.T))
		for _, k := range rows {
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
		d.Add(fit.Warnf(file, "|vc| reaches %.4g m/s: is vc in mm/s or cm/s? (FORMATS.md: m/s)", vmax))
	}
	if wmax > 10 {
		d.Add(fit.Warnf(file, "|wc| reaches %.4g rad/s: is wc in deg/s? (FORMATS.md: rad/s)", wmax))
	}
	d.Add(fit.Scale(file, "distance travelled", md, pd,
		"are x, y in mm or cm (FORMATS.md: m), or vc too small?",
		"is vc in mm/s or cm/s instead of m/s, t in ms instead of s, or x, y in km?")...)
	if pt > 0.5 {
		d.Add(fit.Scale(file, "heading change", mt, pt,
			"is psi in degrees? (FORMATS.md: radians)",
			"is wc in deg/s instead of rad/s, or t in ms?")...)
		return nil
	}
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
		d.Add(fit.Warnf(file, "psi scatters by %.3g rad from sample to sample: is psi in degrees? (FORMATS.md: radians)", s/float64(n)))
	}
	return nil
}

// skidSteerPredictionLine is the summary's 2-s prediction figure, or why
// there is none: a window shorter than the horizon has no 2-s prediction,
// and the RMS of none is not 0 (issue 28: 1.95-s windows printed "0.0000
// m").
func skidSteerPredictionLine(logs []*skidsteer.Log, nom, calib []skidsteer.TrackError) string {
	if len(calib) == 0 {
		return "2-s prediction error: n/a (" + skidSteerLongestRun(logs) + ")"
	}
	return fmt.Sprintf("2-s prediction error (RMS): nominal %.4f m, calibrated %.4f m (%d predictions)", skidsteer.RMS(nom), skidsteer.RMS(calib), len(calib))
}

// skidSteerLongestRun says that no run spans the 2-s horizon, and the
// longest's span.
func skidSteerLongestRun(logs []*skidsteer.Log) string {
	longest := 0.0
	for _, l := range logs {
		if rows := l.PoseRows(); len(rows) > 1 {
			longest = math.Max(longest, l.T[rows[len(rows)-1]]-l.T[rows[0]])
		}
	}
	return fmt.Sprintf("no run's poses span 2 s; the longest spans %.3g s", longest)
}

// SkidSteerErrorFigure is the figure of along-track against cross-track
// errors of nominal and calibrated predictions with their 3σ ellipses
// (Ordonez et al. Figs. 12–14).
func SkidSteerErrorFigure(title string, nom, calib []skidsteer.TrackError) *Figure {
	f := &Figure{Title: title, XLabel: "along-track error (m)", YLabel: "cross-track error (m)", Equal: true}
	for i, c := range []struct {
		name   string
		e      []skidsteer.TrackError
		dashed bool
	}{{"nominal", nom, true}, {"calibrated", calib, false}} {
		x, y, ex, ey := skidsteer.ErrorCloud(c.e, 3)
		f.Series = append(f.Series, Series{Name: c.name, X: x, Y: y, Points: true, Color: i + 1})
		if ex != nil {
			f.Series = append(f.Series, Series{Name: c.name + " 3σ", X: ex, Y: ey, Color: i + 1, Dashed: c.dashed})
		}
	}
	return f
}

// SkidSteerParams are the skid-steer's parameters (a parameter file's
// content) as ReadParams returns them.
type SkidSteerParams = skidsteer.Params
