package cli

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/fit"
	"github.com/wheelgrad/wheelgrad/models/diffdrive"
	"github.com/wheelgrad/wheelgrad/models/diffdrive/calibrate"
	"github.com/wheelgrad/wheelgrad/opt"
)

// The differential-drive model of Park, Lee, Kuipers (FORMATS.md, model
// diffdrive): simulate rolls out the exact model, identify calibrates ζ as in
// their §III-A.

func init() {
	simulateHandlers["diffdrive"] = simulateDiffDrive
	identifyHandlers["diffdrive"] = identifyDiffDrive
	identifyExtraFlags = append(identifyExtraFlags, extraFlag{name: "cw", def: "1",
		usage: "diffdrive: weight c_ω of the angular-velocity error in the L1 loss (Park et al. eq. 22)", model: "diffdrive"})
}

// readDiffDriveParams is diffdrive.ReadParams with its warnings printed.
func readDiffDriveParams(e env, path string, needZeta bool) (diffdrive.Params, error) {
	p, warnings, err := diffdrive.ReadParams(path, needZeta)
	if err != nil {
		return p, err
	}
	warnParams(e, path, warnings)
	return p, nil
}

// hSource says where h came from, for messages about the time step.
func hSource(initPath string, p diffdrive.Params) string {
	if initPath != "" {
		return fmt.Sprintf("h = %g s from -init %s (its \"h\" key, else the default 0.06 s)", p.H, initPath)
	}
	return fmt.Sprintf("h = %g s, the default (set \"h\" in an -init parameter file to the log's step)", p.H)
}

// diffdriveUniform brings a log onto the model's uniform grid t0 + k·h
// (FORMATS.md: logs are sampled uniformly at h). Steps within 0.1 % of h are
// taken as they are; timing jitter (every step within 20 % of h) is
// resampled: commands held (zero-order, as the robot applied them), speeds
// interpolated linearly. A median step unlike h is an error naming h's
// source; gaps follow the -gaps policy (split is not possible: the
// calibration takes one uniform log; bridge takes the rows as consecutive
// steps of h).
func diffdriveUniform(e env, d *diag, tab *dataset.Table, p diffdrive.Params, initPath, gaps string) (calibrate.Log, error) {
	runs, err := calibrate.RunsFromTable(tab)
	if err != nil {
		return calibrate.Log{}, err
	}
	r := runs[0] // one run: no traj here
	if err := calibrate.CheckStep(r, p.H, hSource(initPath, p)); err != nil {
		return r.Log(), err
	}
	if _, err := checkGaps(d, gaps, r.T, nil, false, tableRowErr(tab, 0)); err != nil {
		return r.Log(), err
	}
	if rows, _ := fit.GapRows(r.T); len(rows) > 0 { // bridged: the rows as consecutive steps
		return r.Log(), nil
	}
	lg, worst, err := calibrate.Resample(r, p.H, hSource(initPath, p))
	if err != nil || worst <= 1e-3*p.H {
		return lg, err
	}
	fmt.Fprintf(e.stderr, "note: %s: steps jitter by up to %.3g ms around h = %g s: resampled %d rows onto a uniform grid of %d (commands held, speeds interpolated)\n",
		tab.File, 1e3*worst, p.H, len(r.T), len(lg.UF))
	return lg, nil
}

// diffdriveChecks refuses a log without motion, compares it with the -init
// model's prediction (units), and names the parameters the commands cannot
// excite.
func diffdriveChecks(d *diag, file string, lg calibrate.Log, init diffdrive.Params) (undetermined map[string]bool, err error) {
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
		d.add(fit.Scale(file, "wheel speed (RMS)", math.Sqrt(mv), math.Sqrt(pv),
			"are vr, vl wheel angular speeds in rad/s (FORMATS.md: m/s at the wheel rim), or in mm/s? (or -init's start values far from this robot)",
			"are vr, vl in km/h or the joystick commands on another scale than the paper's ±100? (or -init's start values far from this robot)")...)
	}
	if m := fit.MaxAbs(lg.VR, lg.VL); m > 5 {
		d.add(fit.Warnf(file, "wheel speeds reach %.3g m/s: are vr, vl in rad/s or mm/s? (FORMATS.md: m/s)", m))
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
			d.add(fit.Warnf(file, "wheel accelerations reach %.3g m/s² (99th percentile): are vr, vl in rad/s or mm/s, or is h (%g s) wrong?", a99, init.H))
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

func simulateDiffDrive(e env, a SimulateArgs) error {
	p, err := readDiffDriveParams(e, a.Params, true)
	if err != nil {
		return err
	}
	src := a.source()
	runs, err := calibrate.ReadLog(src.Path, calibrate.LogOptions{Sensors: src.Poses, Offset: src.Offset, Note: e.stderr, Columns: src.Columns, HoldLast: src.HoldLast})
	if err != nil {
		return err
	}
	if err := calibrate.CheckUniform(runs, p.H); err != nil {
		return err
	}
	tab := runs[0].Table
	t := tab.Col("t")
	ids := tab.TextCol("traj")
	var cols [6][]float64
	paramsPath := a.Params
	for _, r := range runs {
		a, b := r.Row, r.Row+len(r.T)
		// each run starts at rest, or from the wheel speeds of its first row
		var s0 diffdrive.State
		if r.VR != nil {
			vr, vl := r.VR[0], r.VL[0]
			if math.IsNaN(vr) != math.IsNaN(vl) {
				return r.Errorf(0, "vr", "the first row gives one of vr, vl but not the other")
			}
			if !math.IsNaN(vr) {
				s0.SdR, s0.SdL = vr, vl
			}
		}
		tr, err := p.Simulate(s0, r.UF, r.UL)
		if err != nil {
			return err
		}
		for k := range tr.VR { // checked before the first byte is written
			if v := tr.VR[k] + tr.VL[k] + tr.V[k] + tr.W[k]; math.IsNaN(v) || math.IsInf(v, 0) {
				return r.Errorf(k, "", "the simulated speeds are not finite from this row on: the commands, or the parameters of %s, are out of scale", paramsPath)
			}
		}
		for i, c := range [][]float64{t[a:b], tr.VR, tr.VL, tr.V, tr.W} {
			cols[i] = append(cols[i], c...)
		}
	}
	return e.writeOut(a.Out, func(w io.Writer) error {
		if ids == nil {
			return dataset.WriteCSV(w, []string{"t", "vr", "vl", "v", "w"}, cols[:5])
		}
		cw := dataset.NewWriter(w)
		cw.WriteHeader("t", "vr", "vl", "v", "w", "traj")
		for i := range cols[0] {
			cw.WriteRow(dataset.Num(cols[0][i]), dataset.Num(cols[1][i]), dataset.Num(cols[2][i]), dataset.Num(cols[3][i]), dataset.Num(cols[4][i]), dataset.Text(ids[i]))
		}
		return cw.Flush()
	})
}

func identifyDiffDrive(e env, a IdentifyArgs) error {
	cw, err := strconv.ParseFloat(a.Extra["cw"], 64)
	if err != nil || !(cw >= 0) || math.IsInf(cw, 0) {
		return usagef("-cw %q: want a finite number ≥ 0", a.Extra["cw"])
	}
	if len(a.Data) != 1 {
		return usagef("-model diffdrive calibrates from one -data log, got %d", len(a.Data))
	}
	init := diffdrive.Paper()
	if a.Init != "" {
		if init, err = readDiffDriveParams(e, a.Init, false); err != nil {
			return err
		}
	}
	offset, err := a.fixedOffset("diffdrive")
	if err != nil {
		return err
	}
	src := a.sources(offset)[0]
	runs, err := calibrate.ReadLog(src.Path, calibrate.LogOptions{NeedSpeeds: true, Sensors: src.Poses, Offset: src.Offset, Note: e.stderr, Columns: src.Columns, HoldLast: src.HoldLast})
	if err != nil {
		return err
	}
	tab := runs[0].Table
	d := a.Diag
	names := []string{"c1", "c2", "alpha", "beta", "gamma", "mu"}
	heldSet, err := fixedSet(names, a.Fix, a.Free)
	if err != nil {
		return err
	}
	var held [6]bool
	for i, n := range names {
		held[i] = heldSet[n]
	}
	if held != [6]bool{} && a.Method != "" && a.Method != "lbfgsb" {
		return usagef("-fix/-free need -method lbfgsb for diffdrive")
	}
	d.add(fit.TimeUnits(a.Data[0], tab.Col("t"))...)
	var lg calibrate.Log
	if tab.Has("traj") {
		// Several runs: each must be uniform at h (no resampling across runs).
		if err := calibrate.CheckUniform(runs, init.H); err != nil {
			return err
		}
		lg = calibrate.Log{UF: tab.Col("uf"), UL: tab.Col("ul"), VR: tab.Col("vr"), VL: tab.Col("vl")}
		for _, r := range runs {
			lg.Runs = append(lg.Runs, r.Row)
		}
	} else if lg, err = diffdriveUniform(e, d, tab, init, a.Init, a.Gaps); err != nil {
		return err
	}
	undet, err := diffdriveChecks(d, a.Data[0], lg, init)
	if err != nil {
		return err
	}
	o := calibrate.Options{CW: cw, Held: held, Settings: a.Fit.Apply(opt.Settings{}), Progress: func(stage int, it opt.Iteration) {
		a.Prog.printf("diffdrive: iteration %d, loss %.6g, %v", it.Iter, it.F, it.Elapsed.Round(1e6))
	}}
	switch a.Method {
	case "", "lbfgsb":
	case "neldermead":
		o.Method = opt.NelderMead{}
	case "cmaes":
		o.Method = opt.CMAES{Seed: 1}
	default:
		return usagef("unknown -method %q for diffdrive", a.Method)
	}
	if len(lg.UF) < 53 {
		return tab.Errorf(len(lg.UF)-1, "", "%d rows: calibration needs at least 53 (one segment of 50 steps)", len(lg.UF))
	}
	res, err := calibrate.Calibrate(lg, init, o)
	a.Prog.done()
	if err != nil {
		return fmt.Errorf("%s: %w", a.Data[0], failureHint(err))
	}
	z0, z := init.Zeta(), res.Params.Zeta()
	var ps []fit.Param
	for i, n := range names {
		ps = append(ps, fit.Param{Name: n, Value: z[i], Std: math.NaN(), StdReason: diffdriveNoSigma,
			Lower: math.Inf(-1), Upper: math.Inf(1), Held: held[i], Undetermined: undet[n] && !held[i]})
		if r := z[i] / z0[i]; z0[i] > 0 && (r > 4 || r < 0.25) {
			d.warnf("%s moved from its start %.4g to %.4g (×%.3g): wrong units in the log (speeds in rad/s, time in ms) or a start in -init far from this robot?", n, z0[i], z[i], r)
		}
	}
	mode := "lbfgsb"
	if a.Method != "" {
		mode = a.Method
	}
	// The status of the last stage (the exact loss) is the fit's, with the
	// iterations of every stage.
	var lastStage *opt.Result
	rep := fit.Report{Model: "diffdrive", Method: mode,
		Data:     fmt.Sprintf("1 log, %d rows, %d segments of 50 steps (stride %d)", len(lg.UF), res.Segments, res.Stride),
		Params:   ps,
		Warnings: d.warns, Evaluations: res.Evaluations, Elapsed: res.Runtime,
		Residual: fit.Residual{Name: "mean |velocity error| (eq. 22)", RMS: res.MeanAbs},
		Lines:    []string{fmt.Sprintf("mean |velocity error| %.4g (eq. 22, c_ω = %g)", res.MeanAbs, cw)},
	}
	if n := len(res.Stages); n > 0 {
		lastStage = res.Stages[n-1]
		rep.Status = fit.NewStatus(methodName(a.Method), lastStage)
		rep.Status.Iterations = res.Iterations
	}
	if err := emitReport(e, a, rep); err != nil {
		return err
	}
	if a.Fit.Settled(lastStage) { // unconverged: reported by checkFit, exit 3
		if err := d.keep(fit.CheckDetermined(ps, a.AllowUndetermined, "add a log with turning commands ul (while uf is non-zero), or hold them with -fix c1,c2")); err != nil {
			return err
		}
	}
	if a.Plot != "" {
		// v and ω against time, simulated from the log's first speeds,
		// beside their residuals (as validate draws them).
		tr, err := res.Params.Simulate(diffdrive.State{SdR: lg.VR[0], SdL: lg.VL[0]}, lg.UF, lg.UL)
		if err != nil {
			return err
		}
		chs := []fit.Channel{{Name: "v", Unit: "m/s"}, {Name: "w", Unit: "rad/s"}}
		t0 := tab.Col("t")[0]
		for k := range lg.VR {
			t := t0 + float64(k)*init.H
			chs[0].Add(0, t, (lg.VR[k]+lg.VL[k])/2, tr.V[k])
			chs[1].Add(0, t, (lg.VR[k]-lg.VL[k])/res.Params.L, tr.W[k])
		}
		stage, err := e.stagePath(a.Plot)
		if err != nil {
			return err
		}
		if err := plotChannels(stage, "diffdrive: measured and calibrated model (simulated from the first row)", chs); err != nil {
			return err
		}
	}
	if lastStage == nil {
		return fmt.Errorf("%s: calibration ran no optimiser stage", a.Data[0])
	}
	if err := e.writeParams(a.Out, res.Params, rep.Status); err != nil {
		return err
	}
	return checkFit(e, a.Fit, "diffdrive identify", lastStage)
}

// diffdriveNoSigma says why the differential drive's parameters have no σ.
const diffdriveNoSigma = "Park's eq. 22 is a sum of absolute velocity errors over 50-step segments, not least squares: Gauss–Newton gives it no covariance"

func methodName(m string) string {
	if m == "" {
		return "lbfgsb"
	}
	return m
}
