package robots

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/wheelgrad/wheelgrad/fit"
	"github.com/wheelgrad/wheelgrad/models/diffdrive"
	"github.com/wheelgrad/wheelgrad/models/diffdrive/calibrate"
)

// DiffDriveOptions are the differential drive's own identify options.
type DiffDriveOptions struct {
	// CW is the weight c_ω of the angular-velocity error in the L1 loss
	// (Park et al. eq. 22), finite and ≥ 0; the command line's -cw
	// (default 1).
	CW float64
}

// DefaultDiffDriveOptions are the options of a request that gives none.
var DefaultDiffDriveOptions = DiffDriveOptions{CW: 1}

// diffDriveNoSigma says why the differential drive's parameters have no σ.
const diffDriveNoSigma = "Park's eq. 22 is a sum of absolute velocity errors over 50-step segments, not least squares: Gauss–Newton gives it no covariance"

// Methods: L-BFGS-B (the paper's setting, the default), Nelder–Mead and
// CMA-ES.
func (DiffDrive) Methods() []string { return slices.Clone(calibrate.Methods) }

// Options: -cw (DiffDriveOptions.CW).
func (DiffDrive) Options() []Option {
	return []Option{{Name: "cw", Default: "1", Usage: "diffdrive: weight c_ω of the angular-velocity error in the L1 loss (Park et al. eq. 22)"}}
}

// ParseDiffDriveOptions reads the options as the command line gives them
// (IdentifyRequest.Options); a missing one takes its default, a bad value
// is a UsageError.
func ParseDiffDriveOptions(opts map[string]string) (DiffDriveOptions, error) {
	o := DefaultDiffDriveOptions
	if s, ok := opts["cw"]; ok {
		cw, err := strconv.ParseFloat(s, 64)
		if err != nil || !(cw >= 0) || math.IsInf(cw, 0) {
			return o, Usagef("-cw %q: want a finite number ≥ 0", s)
		}
		o.CW = cw
	}
	return o, nil
}

// Identify parses req.Options (ParseDiffDriveOptions) and calibrates
// (IdentifyWith).
func (m DiffDrive) Identify(req IdentifyRequest) (*Identified, error) {
	o, err := ParseDiffDriveOptions(req.Options)
	if err != nil {
		return nil, err
	}
	return m.IdentifyWith(req, o)
}

// IdentifyWith calibrates ζ = (c1, c2, α, β, γ, μ) from one log of
// joystick commands and wheel speeds as Park et al. §III-A do
// (calibrate.Calibrate: 50-step segments started from measured states,
// eq. 24; the L1 velocity loss of eq. 22), starting from req.Init (default
// the paper's ζ*, whose l and h are the known constants). The log is brought
// onto the model's grid (a jittered clock resampled with a note, gaps by
// req.Gaps; a traj column's runs must each be uniform at h) and checked for
// motion, units and excitation: c1, c2 are undetermined without turning
// commands, c2 without turning while driving. The loss is no least
// squares, so no parameter has a σ; the report says why.
func (DiffDrive) IdentifyWith(req IdentifyRequest, o DiffDriveOptions) (*Identified, error) {
	if !(o.CW >= 0) || math.IsInf(o.CW, 0) {
		return nil, Usagef("-cw %q: want a finite number ≥ 0", strconv.FormatFloat(o.CW, 'g', -1, 64))
	}
	if len(req.Sources) != 1 {
		return nil, Usagef("-model diffdrive calibrates from one -data log, got %d", len(req.Sources))
	}
	init := diffdrive.Paper()
	if req.Init != nil {
		var err error
		if init, err = diffDriveParams(req.Init); err != nil {
			return nil, err
		}
	}
	if err := noAutoOffset("diffdrive", req.Sources...); err != nil {
		return nil, err
	}
	src := req.Sources[0]
	d := NewDiag(req.Sink)
	runs, err := diffDriveLog(d, src, true)
	if err != nil {
		return nil, err
	}
	tab := runs[0].Table
	names := diffdrive.ZetaNames[:]
	heldSet, err := fit.HeldSet(names, req.Fix, req.Free)
	if err != nil {
		return nil, Usagef("%s", err)
	}
	var held [6]bool
	for i, n := range names {
		held[i] = heldSet[n]
	}
	if held != [6]bool{} && req.Method != "" && req.Method != "lbfgsb" {
		return nil, Usagef("-fix/-free need -method lbfgsb for diffdrive")
	}
	d.Add(fit.TimeUnits(src.Path, tab.Col("t"))...)
	var lg calibrate.Log
	if tab.Has("traj") {
		// Several runs: each must be uniform at h (no resampling across runs).
		if err := calibrate.CheckUniform(runs, init.H); err != nil {
			return nil, err
		}
		lg = calibrate.Log{UF: tab.Col("uf"), UL: tab.Col("ul"), VR: tab.Col("vr"), VL: tab.Col("vl")}
		for _, r := range runs {
			lg.Runs = append(lg.Runs, r.Row)
		}
	} else if lg, err = diffDriveUniform(d, tab, init, req.InitPath, req.Gaps); err != nil {
		return nil, err
	}
	d.Add(diffDriveLayout(src.Path, tab.Col("t")[0], init, lg)...)
	undet, err := diffDriveChecks(d, src.Path, lg, init)
	if err != nil {
		return nil, err
	}
	co := calibrate.Options{CW: o.CW, Held: held, Progress: calibrate.ProgressLine(d.Sink.Progress)}
	co.Settings = req.Fit.Apply(co.Settings)
	if co.Method, err = calibrate.MethodNamed(req.Method); err != nil {
		return nil, Usagef("unknown -method %q for diffdrive", req.Method)
	}
	method := req.Method
	if method == "" {
		method = "lbfgsb"
	}
	if len(lg.UF) < 53 {
		return nil, tab.Errorf(len(lg.UF)-1, "", "%d rows: calibration needs at least 53 (one segment of 50 steps)", len(lg.UF))
	}
	res, err := calibrate.Calibrate(lg, init, co)
	d.Sink.Done()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", src.Path, FailureHint(err))
	}
	z0, z := init.Zeta(), res.Params.Zeta()
	var ps []fit.Param
	for i, n := range names {
		ps = append(ps, fit.Param{Name: n, Value: z[i], Std: math.NaN(), StdReason: diffDriveNoSigma,
			Lower: math.Inf(-1), Upper: math.Inf(1), Held: held[i], Undetermined: undet[n] && !held[i]})
		if r := z[i] / z0[i]; z0[i] > 0 && (r > 4 || r < 0.25) {
			d.Add(fit.Warnf("", "%s moved from its start %.4g to %.4g (×%.3g): wrong units in the log (speeds in rad/s, time in ms) or a start in -init far from this robot?", n, z0[i], z[i], r))
		}
	}
	d.Add(WorseThanStart(DiffDrive{}, req.Sources, init, res.Params, req.Gaps)...)
	rep := fit.Report{Model: "diffdrive", Method: method,
		Data:        fmt.Sprintf("1 log, %d rows, %d segments of 50 steps (stride %d)", len(lg.UF), res.Segments, res.Stride),
		Params:      ps,
		Evaluations: res.Evaluations, Elapsed: res.Runtime,
		Residual: fit.Residual{Name: "mean |velocity error| (eq. 22)", RMS: res.MeanAbs},
		Lines:    []string{fmt.Sprintf("mean |velocity error| %.4g (eq. 22, c_ω = %g)", res.MeanAbs, o.CW)},
	}
	// The status of the last stage (the exact loss) is the fit's, with the
	// iterations of every stage.
	n := len(res.Stages)
	if n > 0 {
		rep.Status = fit.NewStatus(method, res.Stages[n-1])
		rep.Status.Iterations = res.Iterations
	}
	// The summary counts the warnings found by the fit; the verdicts' come
	// after it (Diag and the Sink have them all).
	rep.Warnings = slices.Clone(d.Warnings)
	out := &Identified{Report: rep, Params: res.Params}
	if n == 0 || req.Fit.Settled(res.Stages[n-1]) { // unconverged: the outcome says so
		out.Refused = d.Keep(fit.CheckDetermined(ps, req.AllowUndetermined, "add a log with turning commands ul (while uf is non-zero), or hold them with -fix c1,c2"))
	}
	if req.Plot {
		// v and ω against time, simulated from the log's first speeds,
		// beside their residuals (as validate draws them).
		tr, err := res.Params.Simulate(diffdrive.State{SdR: lg.VR[0], SdL: lg.VL[0]}, lg.UF, lg.UL)
		if err != nil {
			return nil, err
		}
		out.Figure = &Figure{Title: "diffdrive: measured and calibrated model (simulated from the first row)",
			Channels: diffDriveChannels(tab.Col("t")[0], init.H, res.Params.L, lg, tr)}
	}
	if n == 0 {
		out.Outcome = fmt.Errorf("%s: calibration ran no optimiser stage", src.Path)
		return out, nil
	}
	ws, err := req.Fit.Check("diffdrive identify", res.Stages[n-1])
	out.Outcome = d.Keep(ws, err)
	return out, nil
}

// diffDriveLayout warns of stretches where the measured wheel speeds move
// the robot while both commands are zero (driven by hand) or stand while
// commanded (issue 28), named with their time spans on the model's grid
// t0 + k·h: before diffDriveChecks' unit warnings, which they would
// mislead. Only rows where the start model agrees with the commands count
// (commands zero and the model standing, or commands and the model
// moving): a robot coasting to a stop, or held by its dead zone, is the
// model's, not a stretch of other driving.
func diffDriveLayout(file string, t0 float64, p diffdrive.Params, lg calibrate.Log) []fit.Warning {
	tr, err := p.Simulate(diffdrive.State{SdR: lg.VR[0], SdL: lg.VL[0]}, lg.UF, lg.UL)
	if err != nil || math.IsNaN(lg.VR[0]+lg.VL[0]) {
		return nil // Calibrate says why
	}
	n := len(lg.UF)
	t, v, w := make([]float64, n), make([]float64, n), make([]float64, n)
	zero := func(k int) bool { return lg.UF[k] == 0 && lg.UL[k] == 0 }
	var rows []int
	for k := range n {
		t[k], v[k], w[k] = t0+float64(k)*p.H, (lg.VR[k]+lg.VL[k])/2, (lg.VR[k]-lg.VL[k])/p.L
		if predMoving(tr.V[k], tr.W[k]) != zero(k) {
			rows = append(rows, k)
		}
	}
	return fit.CommandSpeedWarnings(file, t, v, w, rows, zero)
}

// predMoving says whether a predicted forward speed v (m/s) and turn rate
// w (rad/s) move the robot (fit.CommandSpeedSpans' threshold).
func predMoving(v, w float64) bool { return math.Abs(v) > 0.05 || math.Abs(w) > 0.05 }
