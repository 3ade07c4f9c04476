package robots

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/fit"
	"github.com/wheelgrad/wheelgrad/models/diffdrive"
	"github.com/wheelgrad/wheelgrad/models/diffdrive/calibrate"
)

// The differential drive of Park, Lee and Kuipers (FORMATS.md, model
// diffdrive): parameter files (diffdrive.ReadParams), simulate (the exact
// model of eqs. 1–21 rolled from each run's first wheel speeds), validate
// (v and ω of eq. 19 against the measured wheel speeds), identify (the
// calibration of their §III-A, diffdrive_identify.go) and follow (joystick
// commands planned with the friction surrogate, reported on the exact
// model).

var (
	_ ParamReader = DiffDrive{}
	_ Simulator   = DiffDrive{}
	_ Validator   = DiffDrive{}
	_ Identifier  = DiffDrive{}
	_ Driver      = DiffDrive{}
)

// ReadParams reads a diffdrive parameter file (diffdrive.ReadParams): for
// ForPrediction every key of ζ is required; for ForStart the missing ones
// are the paper's ζ*.
func (DiffDrive) ReadParams(path string, use ParamUse) (Params, []fit.Warning, error) {
	p, ws, err := diffdrive.ReadParams(path, use == ForPrediction)
	if err != nil {
		return nil, nil, err
	}
	return p, ParamWarnings(path, ws), nil
}

// diffDriveParams is p as the model package's Params (a value or a
// pointer, as a library user may hand it over).
func diffDriveParams(p Params) (diffdrive.Params, error) {
	switch q := p.(type) {
	case diffdrive.Params:
		return q, nil
	case *diffdrive.Params:
		if q != nil {
			return *q, nil
		}
	}
	return diffdrive.Params{}, fmt.Errorf("robots: diffdrive: parameters of type %T, want diffdrive.Params", p)
}

// inFile prefixes err with the file it is about, when one is named.
func inFile(path string, err error) error {
	if path == "" {
		return err
	}
	return fmt.Errorf("%s: %w", path, err)
}

// noAutoOffset refuses -offset auto, which only the Mecanum model can
// estimate.
func noAutoOffset(model string, srcs ...Source) error {
	for _, s := range srcs {
		if s.AutoOffset {
			return Usagef("-offset auto is available for -model mecanum only (give the offset in seconds for %s)", model)
		}
	}
	return nil
}

func diffDriveLog(d *Diag, src Source, needSpeeds bool) ([]calibrate.Run, error) {
	runs, err := calibrate.ReadLog(src.Path, calibrate.LogOptions{NeedSpeeds: needSpeeds, Sensors: src.Poses, Offset: src.Offset,
		Note: d.NoteWriter(), Columns: src.Columns, HoldLast: src.HoldLast, Cache: src.Cache})
	for _, r := range runs {
		d.Add(Implausible(src.Path, r.Origin, diffDriveLimits, map[string][]float64{"uf": r.UF, "ul": r.UL, "vr": r.VR, "vl": r.VL})...)
	}
	return runs, err
}

// Simulate rolls the exact model over each run of the controls (t, uf, ul;
// a traj column splits runs), from rest or from the wheel speeds vr, vl of
// the run's first row, into FORMATS.md's t,vr,vl,v,w[,traj] rows. The log
// must be sampled uniformly at the model's h.
func (DiffDrive) Simulate(req SimulateRequest) (*Simulation, error) {
	p, err := diffDriveParams(req.Params)
	if err != nil {
		return nil, err
	}
	if err := noAutoOffset("diffdrive", req.Source); err != nil {
		return nil, err
	}
	d := NewDiag(req.Sink)
	runs, err := diffDriveLog(d, req.Source, false)
	if err != nil {
		return nil, err
	}
	if err := calibrate.CheckUniform(runs, p.H); err != nil {
		return nil, err
	}
	tab := runs[0].Table
	t := tab.Col("t")
	ids := tab.TextCol("traj")
	var cols [5][]float64
	for _, r := range runs {
		a, b := r.Row, r.Row+len(r.T)
		// each run starts at rest, or from the wheel speeds of its first row
		var s0 diffdrive.State
		if r.VR != nil {
			vr, vl := r.VR[0], r.VL[0]
			if math.IsNaN(vr) != math.IsNaN(vl) {
				return nil, r.Errorf(0, "vr", "the first row gives one of vr, vl but not the other")
			}
			if !math.IsNaN(vr) {
				s0.SdR, s0.SdL = vr, vl
			}
		}
		tr, err := p.Simulate(s0, r.UF, r.UL)
		if err != nil {
			return nil, err
		}
		for k := range tr.VR { // checked before the first byte is written
			if v := tr.VR[k] + tr.VL[k] + tr.V[k] + tr.W[k]; math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, r.Errorf(k, "", "the simulated speeds are not finite from this row on: the commands, or the parameters of %s, are out of scale", req.ParamsPath)
			}
		}
		for i, c := range [][]float64{t[a:b], tr.VR, tr.VL, tr.V, tr.W} {
			cols[i] = append(cols[i], c...)
		}
	}
	var fig *Figure
	if req.Plot {
		fig = diffDriveSimFigure(req.Source.Path, p, runs, cols)
	}
	return &Simulation{Warnings: d.Warnings, Figure: fig, Write: func(w io.Writer) error {
		if ids == nil {
			return dataset.WriteCSV(w, []string{"t", "vr", "vl", "v", "w"}, cols[:])
		}
		cw := dataset.NewWriter(w)
		cw.WriteHeader("t", "vr", "vl", "v", "w", "traj")
		for i := range cols[0] {
			cw.WriteRow(dataset.Num(cols[0][i]), dataset.Num(cols[1][i]), dataset.Num(cols[2][i]), dataset.Num(cols[3][i]), dataset.Num(cols[4][i]), dataset.Text(ids[i]))
		}
		return cw.Flush()
	}}, nil
}

// Validate predicts each log's body speeds v = (vr + vl)/2 and
// ω = (vr − vl)/l (eq. 19) from its commands, starting from wheel speeds
// estimated per log (X0Estimate) or from its first row (X0First). Logs are
// brought onto the model's grid as identify brings them (a jittered clock
// resampled, gaps by req.Gaps).
func (DiffDrive) Validate(req ValidateRequest) ([]ValidationRun, error) {
	p, err := diffDriveParams(req.Params)
	if err != nil {
		return nil, err
	}
	if err := noAutoOffset("diffdrive", req.Sources...); err != nil {
		return nil, err
	}
	d := NewDiag(req.Sink)
	var out []ValidationRun
	for _, src := range req.Sources {
		runs, err := diffDriveLog(d, src, true)
		if err != nil {
			return nil, err
		}
		tab := runs[0].Table
		lg, err := diffDriveUniform(d, tab, p, req.ParamsPath, req.Gaps)
		if err != nil {
			return nil, err
		}
		t0 := tab.Col("t")[0]
		predict := func(s []float64) ([]fit.Channel, error) {
			tr, err := p.Simulate(diffdrive.State{SdR: s[0], SdL: s[1]}, lg.UF, lg.UL)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", src.Path, err)
			}
			return diffDriveChannels(t0, p.H, p.L, lg, tr), nil
		}
		x0 := []float64{lg.VR[0], lg.VL[0]}
		var chs []fit.Channel
		if req.X0 == X0First {
			chs, err = predict(x0)
		} else {
			x0, chs, err = fit.EstimateStart(x0, predict)
		}
		if err != nil {
			return nil, err
		}
		var track fit.Track
		if len(chs[0].T) == len(chs[1].T) {
			track = fit.DeadReckon(chs[0].T, chs[0].Meas, chs[1].Meas, chs[0].Pred, chs[1].Pred)
		}
		out = append(out, ValidationRun{ID: RunID(req.Sources, src.Path, ""), Channels: chs, Track: track, Start: x0, StartNames: []string{"vr", "vl"}})
	}
	return out, nil
}

// diffDriveChannels are the measured and predicted v and ω of a log on the
// model's grid t0 + k·h (eq. 19, axle length l).
func diffDriveChannels(t0, h, l float64, lg calibrate.Log, tr *diffdrive.Trajectory) []fit.Channel {
	chs := []fit.Channel{{Name: "v", Unit: "m/s"}, {Name: "w", Unit: "rad/s"}}
	for k := range lg.VR {
		t := t0 + float64(k)*h
		chs[0].Add(0, t, (lg.VR[k]+lg.VL[k])/2, tr.V[k])
		chs[1].Add(0, t, (lg.VR[k]-lg.VL[k])/l, tr.W[k])
	}
	return chs
}

// diffDriveHSource says where h came from, for messages about the time
// step.
func diffDriveHSource(initPath string, p diffdrive.Params) string {
	if initPath != "" {
		return fmt.Sprintf("h = %g s from -init %s (its \"h\" key, else the default 0.06 s)", p.H, initPath)
	}
	return fmt.Sprintf("h = %g s, the default (set \"h\" in an -init parameter file to the log's step)", p.H)
}

// diffDriveUniform brings a log onto the model's uniform grid t0 + k·h
// (FORMATS.md: logs are sampled uniformly at h). Steps within 0.1 % of h
// are taken as they are; timing jitter (every step within 20 % of h) is
// resampled: commands held (zero-order, as the robot applied them), speeds
// interpolated linearly, with a note. A median step unlike h is an error
// naming h's source; gaps follow the policy (split is not possible: the
// calibration takes one uniform log; bridge takes the rows as consecutive
// steps of h).
func diffDriveUniform(d *Diag, tab *dataset.Table, p diffdrive.Params, initPath string, gaps fit.GapPolicy) (calibrate.Log, error) {
	runs, err := calibrate.RunsFromTable(tab)
	if err != nil {
		return calibrate.Log{}, err
	}
	r := runs[0] // one run: no traj here
	if err := calibrate.CheckStep(r, p.H, diffDriveHSource(initPath, p)); err != nil {
		return r.Log(), err
	}
	_, ws, err := fit.ApplyGaps(gaps, r.T, nil, false, func(row int, msg string) error { return tab.Errorf(row, "t", "%s", msg) })
	if err := d.Keep(ws, err); err != nil {
		return r.Log(), err
	}
	if rows, _ := fit.GapRows(r.T); len(rows) > 0 { // bridged: the rows as consecutive steps
		return r.Log(), nil
	}
	lg, worst, err := calibrate.Resample(r, p.H, diffDriveHSource(initPath, p))
	if err != nil || worst <= 1e-3*p.H {
		return lg, err
	}
	d.Note("note: %s: steps jitter by up to %.3g ms around h = %g s: resampled %d rows onto a uniform grid of %d (commands held, speeds interpolated)",
		tab.File, 1e3*worst, p.H, len(r.T), len(lg.UF))
	return lg, nil
}

// diffDriveChecks refuses a log without motion, compares it with the start
// model's prediction (units), and names the parameters the commands cannot
// excite.
func diffDriveChecks(d *Diag, file string, lg calibrate.Log, init diffdrive.Params) (undetermined map[string]bool, err error) {
	if fit.MaxAbs(lg.UF, lg.UL) < 1e-12 {
		return nil, fit.NoMotion(file, "every joystick command uf, ul is zero")
	}
	if fit.MaxAbs(lg.VR, lg.VL) < 1e-6 {
		return nil, fit.NoMotion(file, "the measured wheel speeds vr, vl are zero throughout")
	}
	if tr, err := init.Simulate(diffdrive.State{SdR: lg.VR[0], SdL: lg.VL[0]}, lg.UF, lg.UL); err == nil {
		var mv, pv float64
		for k := range lg.VR {
			mv += lg.VR[k]*lg.VR[k] + lg.VL[k]*lg.VL[k]
			pv += tr.VR[k]*tr.VR[k] + tr.VL[k]*tr.VL[k]
		}
		d.Add(fit.Scale(file, "wheel speed (RMS)", math.Sqrt(mv), math.Sqrt(pv),
			"are vr, vl wheel angular speeds in rad/s (FORMATS.md: m/s at the wheel rim), or in mm/s? (or -init's start values far from this robot)",
			"are vr, vl in km/h or the joystick commands on another scale than the paper's ±100? (or -init's start values far from this robot)")...)
	}
	if m := fit.MaxAbs(lg.VR, lg.VL); m > 5 {
		d.Add(fit.Warnf(file, "wheel speeds reach %.3g m/s: are vr, vl in rad/s or mm/s? (FORMATS.md: m/s)", m))
	}
	// Wheel accelerations: the 99th percentile of |Δv|/h (spikes and
	// hang-ups stay below it) above 20 m/s² is no wheelchair or mobile
	// robot: speeds in other units, or h wrong.
	var acc []float64
	for k := 1; k < len(lg.VR); k++ {
		acc = append(acc, math.Abs(lg.VR[k]-lg.VR[k-1])/init.H, math.Abs(lg.VL[k]-lg.VL[k-1])/init.H)
	}
	if len(acc) > 0 {
		sort.Float64s(acc)
		if a99 := acc[len(acc)*99/100]; a99 > 20 {
			d.Add(fit.Warnf(file, "wheel accelerations reach %.3g m/s² (99th percentile): are vr, vl in rad/s or mm/s, or is h (%g s) wrong?", a99, init.H))
		}
	}
	undetermined = map[string]bool{}
	if fit.MaxAbs(lg.UL) < 1e-12 {
		undetermined["c1"], undetermined["c2"] = true, true // V_R = V_L = uf: no turning command
	} else {
		both := false
		for k := range lg.UF {
			both = both || (lg.UF[k] != 0 && lg.UL[k] != 0)
		}
		if !both {
			undetermined["c2"] = true // c2 scales ul by |uf|: never both at once
		}
	}
	return undetermined, nil
}

// DriveFlags: the joystick bound -umax and the friction surrogate's band
// -band.
func (DiffDrive) DriveFlags() []string { return []string{"umax", "band"} }

// Drive plans joystick commands |uf|, |ul| ≤ Umax (default
// DefaultJoystickMax) at the model's own step h, with the friction
// surrogate of band T = Band (default DefaultFrictionBand·μ; 0: the exact
// clamp), and reports the prediction on the exact model. A Dt given that
// differs from h is refused; a true robot (Truth) must step by the same h.
func (DiffDrive) Drive(params Params, o DriveOptions) (*Drive, error) {
	p, err := diffDriveParams(params)
	if err != nil {
		return nil, err
	}
	umax := float64(DefaultJoystickMax)
	if o.Set["umax"] {
		umax = o.Umax
	}
	if err := positiveFlag("umax", umax); err != nil {
		return nil, err
	}
	band := DefaultFrictionBand * p.Mu
	if o.Set["band"] {
		if !(o.Band >= 0) || math.IsInf(o.Band, 0) {
			return nil, Usagef("-band %g: want a finite number ≥ 0", o.Band)
		}
		band = o.Band
	}
	if o.Set["dt"] && math.Abs(o.Dt-p.H) > 1e-9*p.H {
		return nil, Usagef("-model diffdrive steps by its h = %g s (%s): -dt %g differs (leave it out)", p.H, o.ParamsPath, o.Dt)
	}
	plan, err := NewDiffDriveRobot(p, band, umax)
	if err != nil {
		return nil, inFile(o.ParamsPath, err)
	}
	exact, err := NewDiffDriveRobot(p, 0, umax)
	if err != nil {
		return nil, inFile(o.ParamsPath, err)
	}
	d := &Drive{Plan: plan, Exact: exact, Dt: p.H, FixedStep: true, Columns: []string{"uf", "ul"}, Pose: []string{"x", "y", "theta"}}
	if band > 0 {
		d.Planned = fmt.Sprintf("planned (friction surrogate, T = %.3g)", band)
	}
	if o.Truth != nil {
		tp, err := diffDriveParams(o.Truth)
		if err != nil {
			return nil, err
		}
		if math.Abs(tp.H-p.H) > 1e-9*p.H {
			return nil, fmt.Errorf("%s: h = %g, the plan's %g (%s): the true robot must step alike", o.TruthPath, tp.H, p.H, o.ParamsPath)
		}
		tr, err := NewDiffDriveRobot(tp, 0, umax)
		if err != nil {
			return nil, inFile(o.TruthPath, err)
		}
		d.Truth = &tr
	}
	return d, nil
}

// positiveFlag refuses a bound that is not a positive finite number.
func positiveFlag(flag string, v float64) error {
	if !(v > 0) || math.IsInf(v, 0) {
		return Usagef("-%s %g: want a positive finite number", flag, v)
	}
	return nil
}

// diffDriveSimFigure is simulate -plot's figure: the simulated v and ω
// (cols: t, vr, vl, v, w of every run in turn) against time, with the
// log's measured ones (eq. 19, from vr, vl where it has them) as points,
// as validate -plot draws them.
func diffDriveSimFigure(path string, p diffdrive.Params, runs []calibrate.Run, cols [5][]float64) *Figure {
	chs := []fit.Channel{{Name: "v", Unit: "m/s"}, {Name: "w", Unit: "rad/s"}}
	j := 0
	for i, r := range runs {
		for k := range r.T {
			mv, mw := math.NaN(), math.NaN()
			if r.VR != nil {
				mv, mw = (r.VR[k]+r.VL[k])/2, (r.VR[k]-r.VL[k])/p.L
			}
			chs[0].Add(i, cols[0][j], mv, cols[3][j])
			chs[1].Add(i, cols[0][j], mw, cols[4][j])
			j++
		}
	}
	f := &Figure{Title: "diffdrive: simulated v and ω (" + filepath.Base(path) + ")", Channels: chs}
	if len(runs) > 1 {
		for _, r := range runs {
			f.RunIDs = append(f.RunIDs, r.ID)
		}
	}
	return f
}
