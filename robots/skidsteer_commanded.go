package robots

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wheelgrad/wheelgrad/fit"
	"github.com/wheelgrad/wheelgrad/models/skidsteer"
)

// The skid-steer from commanded wheel speeds (issue 25): identify
// -inputs commanded fits the slip coefficients and the input dynamics
// (skidsteer.LagModel: a first-order lag τ per side, and a dead time where
// -dead-time asks) from the commanded speeds wl_cmd, wr_cmd of a
// wheel-speed log, each 2-s window of pose rows predicted open loop from
// its first pose and its first measured wheel speeds
// (skidsteer.FitWindows). The parameter file records "inputs":
// "commanded", "tau" and "delay"; simulate and validate then predict from
// wl_cmd, wr_cmd (skidsteer.CommandedFrom).

// SkidSteerOptions are the skid-steer's own identify options.
type SkidSteerOptions struct {
	// Commanded identifies from wl_cmd, wr_cmd through the lag (-inputs
	// commanded); false: from the measured speeds (vc, wc or wl, wr).
	Commanded bool
	// DeadTime also fits a dead time before the lag (-dead-time).
	DeadTime bool
}

// Options: -inputs and -dead-time (SkidSteerOptions).
func (SkidSteer) Options() []Option {
	return []Option{
		{Name: "inputs", Default: skidsteer.InputsMeasured, Usage: "skidsteer: measured (vc, wc or wl, wr; the default) or commanded: fit the slip and a first-order lag tau of each side's wheel speed behind its command from wl_cmd, wr_cmd (2-s windows from the first measured wl, wr); the parameter file records it and simulate, validate predict from wl_cmd, wr_cmd"},
		{Name: "dead-time", Bool: true, Usage: "skidsteer -inputs commanded: also fit a dead time (delay, s; at most 20 log periods) before the lag"},
	}
}

// ParseSkidSteerOptions reads the options as the command line gives them
// (IdentifyRequest.Options); a missing one takes its default.
func ParseSkidSteerOptions(opts map[string]string) (SkidSteerOptions, error) {
	var o SkidSteerOptions
	switch v := strings.ToLower(opts["inputs"]); v {
	case "", skidsteer.InputsMeasured:
	case skidsteer.InputsCommanded:
		o.Commanded = true
	default:
		return o, Usagef("-inputs must be %s or %s, not %q", skidsteer.InputsMeasured, skidsteer.InputsCommanded, opts["inputs"])
	}
	if v, ok := opts["dead-time"]; ok && v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return o, Usagef("-dead-time: %q is not true or false", v)
		}
		o.DeadTime = b
	}
	if o.DeadTime && !o.Commanded {
		return o, Usagef("-dead-time needs -inputs commanded")
	}
	return o, nil
}

// skidSteerLagNames are the parameters of a commanded identification.
var skidSteerLagNames = append(append([]string(nil), skidsteer.CoeffNames[:]...), skidsteer.LagNames[:]...)

// identifyCommanded is Identify with -inputs commanded.
func (SkidSteer) identifyCommanded(req IdentifyRequest, o SkidSteerOptions, init skidsteer.Params) (*Identified, error) {
	method := strings.ToLower(req.Method)
	switch method {
	case "", SkidSteerBatch, "lbfgsb":
	default:
		return nil, Usagef("-inputs commanded fits 2-s windows by -method batch (lbfgsb), not %s", req.Method)
	}
	for _, s := range req.Sources {
		if s.AutoOffset {
			return nil, Usagef("-offset auto is available for -model mecanum only (give the offset in seconds for skidsteer)")
		}
	}
	held, err := fit.HeldSet(skidSteerLagNames, req.Fix, req.Free)
	if err != nil {
		return nil, Usagef("%s", err)
	}
	if !(init.R > 0 && init.Track > 0) {
		return nil, Usagef("-inputs commanded needs the wheel radius \"r\" and track width \"track\" in -init (m)")
	}
	d := NewDiag(req.Sink)
	var logs []*skidsteer.Log
	var files []string
	for _, src := range req.Sources {
		files = append(files, src.Path)
		runs, err := readSkidSteerLog(d, src, init, req.InitPath)
		if err != nil {
			return nil, err
		}
		for _, r := range runs {
			if r.WlCmd == nil {
				return nil, r.Errorf(0, "wl_cmd", "-inputs commanded needs the commanded wheel speeds wl_cmd, wr_cmd beside the measured wl, wr (rad/s)")
			}
			if len(r.PoseRows()) < 2 {
				return nil, r.Errorf(0, "x", "a run needs two poses or more")
			}
			d.Add(fit.TimeUnits(src.Path, r.T)...)
			x, y, _ := skidSteerPoseColumns(r.Log)
			d.Add(fit.StaleWarning(src.Path, x, y, r.PoseRows())...)
			pieces, err := skidSteerPieces(d, req.Gaps, r)
			if err != nil {
				return nil, err
			}
			logs = append(logs, pieces...)
		}
	}
	if err := skidSteerChecks(d, logs, files); err != nil {
		return nil, err
	}
	start := init
	start.A, start.Std, start.Cov = init.A, nil, nil
	wo := skidsteer.WindowOptions{Inputs: skidsteer.Commanded, Horizon: skidSteerHorizon, WholeShortRuns: true,
		FitTau: !held["tau"], FitDelay: o.DeadTime && !held["delay"], Hold: held,
		MaxIterations: req.Fit.MaxIter, Tol: req.Fit.Tol}
	if !wo.FitDelay {
		held["delay"] = true
	}
	sink := d.Sink
	sink.Progress("fitting the slip and the lag over 2-s windows of %d run(s)", len(logs))
	t0 := time.Now()
	wf, err := skidsteer.FitWindows(logs, start, wo)
	sink.Done()
	if err != nil {
		return nil, FailureHint(err)
	}
	elapsed := time.Since(t0)
	nomOpt := wo
	nomOpt.FitTau, nomOpt.FitDelay = false, false
	nominal := init
	nominal.A, nominal.Tau, nominal.Delay = [3][3]float64{}, 0, 0
	nom, err := skidsteer.PredictWindows(logs, nominal, nomOpt)
	if err != nil {
		return nil, err
	}
	out := wf.Params
	out.Model, out.R, out.Track, out.CommandMap = "skidsteer", init.R, init.Track, init.CommandMap
	for k, v := range wf.Value {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("skidsteer -inputs commanded: %s = %v: the fit diverged (the log's units or scale?); no parameters written", wf.Names[k], v)
		}
	}
	if err := out.Validate(); err != nil {
		return nil, fmt.Errorf("skidsteer -inputs commanded: the fit is out of range, %v (the log's units or scale?); no parameters written", err)
	}
	// The coefficients' box (±10, a11 and a32 above −0.99) is a sanity
	// limit, not a physical range: their verdicts are judged against their
	// values, as IPEM's and the batch fit's are; τ's and the dead time's
	// ranges are the fit's own.
	var ps []fit.Param
	for k, name := range wf.Names {
		if wf.AtBound[k] {
			d.Add(fit.Warnf(strings.Join(files, ","), "%s ended on the bound of its search range (%g): the windows do not determine it, or the log's units are off", name, wf.Value[k]))
		}
		lo, hi, unit := math.Inf(-1), math.Inf(1), ""
		switch name {
		case "tau":
			lo, hi, unit = 1e-3, 10, "s"
		case "delay":
			lo, hi, unit = 0, skidsteer.DeadTimeSteps*minStep(logs), "s"
		}
		p := fit.Param{Name: name, Unit: unit, Value: wf.Value[k], Std: wf.Std[k], Lower: lo, Upper: hi, Held: !wf.Free[k]}
		if p.Held {
			p.Std = 0
		}
		ps = append(ps, p)
	}
	status := fit.NewStatus("lbfgsb", wf.Result)
	outcome := d.Keep(req.Fit.Check("skidsteer identify -inputs commanded", wf.Result))
	lag := fmt.Sprintf("τ %.3g s", out.Tau)
	if o.DeadTime {
		lag += fmt.Sprintf(", dead time %.3g s", out.Delay)
	}
	res := &Identified{Params: out, Outcome: outcome}
	res.Report = fit.Report{Model: "skidsteer",
		Method:      fmt.Sprintf("batch lbfgsb from the commanded wheel speeds through a first-order lag (%s), %d windows of 2 s", lag, wf.Windows),
		Data:        fmt.Sprintf("%d run(s), %d windows", len(logs), wf.Windows),
		Params:      ps,
		Residual:    fit.Residual{Name: "2-s endpoint", Unit: "m", RMS: wf.TrainRMS},
		Warnings:    slices.Clone(d.Warnings),
		Evaluations: wf.Result.FuncEvaluations, Elapsed: elapsed, Status: status,
		Lines: []string{fmt.Sprintf("2-s endpoint error from the commanded speeds (RMS): nominal without lag %.4f m, calibrated %.4f m (%d windows)",
			skidsteer.EndpointRMS(nom), wf.TrainRMS, wf.Windows)},
	}
	if req.Fit.Settled(wf.Result) {
		res.Refused = d.Keep(fit.CheckDetermined(ps, req.AllowUndetermined, ""))
		res.Report.Warnings = slices.Clone(d.Warnings)
	}
	if req.Plot {
		res.Figure = SkidSteerEndpointFigure("skidsteer -inputs commanded: 2-s window ends (window frame)", wf.Predictions)
	}
	return res, nil
}

// SkidSteerEndpointFigure draws windows' predicted end positions against
// the measured ones, each in its window's start frame, joined by a segment.
func SkidSteerEndpointFigure(title string, ws []skidsteer.WindowPrediction) *Figure {
	var miss, meas, pred Series
	miss.Name, meas.Name, pred.Name = "miss", "measured", "predicted"
	for _, w := range ws {
		meas.X, meas.Y = append(meas.X, w.Measured.X), append(meas.Y, w.Measured.Y)
		pred.X, pred.Y = append(pred.X, w.Predicted.X), append(pred.Y, w.Predicted.Y)
		miss.X, miss.Y = append(miss.X, w.Measured.X, w.Predicted.X), append(miss.Y, w.Measured.Y, w.Predicted.Y)
	}
	miss.Segments, miss.Width, miss.Color = true, 0.5, 3
	meas.Points, meas.Color = true, 1
	pred.Points, pred.Color = true, 2
	return &Figure{Title: title, XLabel: "x (m)", YLabel: "y (m)", Equal: true, Series: []Series{miss, meas, pred}}
}

// minStep is the shortest time step of the logs (s).
func minStep(logs []*skidsteer.Log) float64 {
	h := math.Inf(1)
	for _, l := range logs {
		for i := 1; i < len(l.T); i++ {
			h = min(h, l.T[i]-l.T[i-1])
		}
	}
	return h
}

// simulateSkidSteer predicts a log's poses with p: from the commanded
// wheel speeds when p was identified from them, else from the measured
// ones, anchored at the first pose (or zero at row 0).
func simulateSkidSteer(p skidsteer.Params, l *skidsteer.Log) ([]skidsteer.Pose, error) {
	if !p.FromCommands() {
		return SimulateSkidSteerLog(p, l)
	}
	k0 := 0
	var pose0 skidsteer.Pose
	if rows := l.PoseRows(); len(rows) > 0 {
		k0, pose0 = rows[0], l.Pose[rows[0]]
	}
	return skidsteer.CommandedFrom(l, p, k0, pose0)
}
