package robots

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/fit"
	"github.com/wheelgrad/wheelgrad/models/tire"
)

// The tyre adapter (models/tire; FORMATS.md model "tire"): the Jackal rigid
// body with Dugoff or Pacejka tyres of Westerhout et al. Logs t, wl, wr
// with motion-capture poses x, y, psi (and body velocities u, v, r) on the
// same rows or merged by time from a file of their own, runs split by
// traj. Simulate writes t, x, y, psi, u, v, r; validate compares the
// predicted poses with the measured ones; identify fits μ, Kx, Ky (dugoff)
// or px, py (pacejka) to the poses by L-BFGS-B, or, online, re-estimates
// μ alone over successive batches (§III-C).

// TireOptions are tire's identify options.
type TireOptions struct {
	// Online re-estimates μ alone over successive batches of each log
	// (tire.Online), the other parameters from the start.
	Online bool
	// Batch is the batch length of Online in seconds (0: 2 s).
	Batch float64
	// EIV treats the logged wheel speeds as noisy and estimates the true
	// ones jointly (tire.IdentifyOptions.ErrorsInVariables).
	EIV bool
	// WheelNoise is the wheel-speed noise σ (rad/s) of EIV; 0: estimated
	// from the log.
	WheelNoise float64
}

// ParseTireOptions reads the options as the command line gives them
// (Option.Name → value; a missing one takes its default); a bad value is a
// UsageError.
func ParseTireOptions(m map[string]string) (TireOptions, error) {
	get := func(k, def string) string {
		if v, ok := m[k]; ok {
			return v
		}
		return def
	}
	var o TireOptions
	var err error
	if o.Online, err = strconv.ParseBool(get("online", "false")); err != nil {
		return o, Usagef("-online %q: want true or false", m["online"])
	}
	s := get("batch", "2")
	if o.Batch, err = strconv.ParseFloat(s, 64); err != nil || !(o.Batch > 0) || math.IsInf(o.Batch, 0) {
		return o, Usagef("-batch %q: want a finite number of seconds > 0", s)
	}
	if o.EIV, err = strconv.ParseBool(get("eiv", "false")); err != nil {
		return o, Usagef("-eiv %q: want true or false", m["eiv"])
	}
	s = get("wheel-noise", "0")
	if o.WheelNoise, err = strconv.ParseFloat(s, 64); err != nil || !(o.WheelNoise >= 0) || math.IsInf(o.WheelNoise, 0) {
		return o, Usagef("-wheel-noise %q: want a wheel-speed noise σ ≥ 0 in rad/s (0: estimated from the log)", s)
	}
	return o, nil
}

// ReadParams reads a parameter file over the Jackal defaults
// (tire.ReadParams); its warnings are legal but unusual values.
func (Tire) ReadParams(path string, _ ParamUse) (Params, []fit.Warning, error) {
	p, ws, err := tire.ReadParams(path)
	if err != nil {
		return nil, nil, err
	}
	return p, ParamWarnings(path, ws), nil
}

func tireParams(p Params) (tire.Params, error) {
	switch q := p.(type) {
	case tire.Params:
		return q, nil
	case *tire.Params:
		return *q, nil
	}
	return tire.Params{}, fmt.Errorf("robots: tire takes tire.Params, not %T", p)
}

// RobustScale is the tyre fit's soft-L1 scale in pose-noise deviations,
// used when a position outlier was warned of.
const RobustScale float64 = 3

// readTireLog reads one source split into runs by traj (tire.ReadLog),
// with the table it came from.
func readTireLog(src Source, d *Diag) ([]*tire.Run, *dataset.Table, error) {
	if src.AutoOffset {
		return nil, nil, Usagef("-offset auto is available for -model mecanum only (give the offset in seconds for tire)")
	}
	rs, err := tire.ReadLog(src.Path, tire.LogOptions{Sensors: src.Poses, Offset: src.Offset, Note: d.NoteWriter(), Columns: src.Columns, HoldLast: src.HoldLast, Cache: src.Cache})
	if err != nil {
		return nil, nil, err
	}
	if len(rs) == 0 {
		return nil, nil, &dataset.ParseError{File: src.Path, Err: dataset.ErrNoRows}
	}
	runs := make([]*tire.Run, len(rs))
	for i := range rs {
		runs[i] = &rs[i]
		// the wheel speeds are the model's inputs: a glitch there is
		// integrated into every later pose
		var rows []int
		isCmd := rs[i].CommandRows()
		for k := range rs[i].T {
			if isCmd == nil || isCmd(k) {
				rows = append(rows, k)
			}
		}
		for _, c := range []struct {
			name string
			v    []float64
		}{{"wl", rs[i].WL}, {"wr", rs[i].WR}} {
			d.Add(fit.SpikeWarnings(src.Path, c.name, c.v, rows, rs[i].Origin.Line)...)
		}
		d.Add(Implausible(src.Path, rs[i].Origin, tireLimits, map[string][]float64{"wl": rs[i].WL, "wr": rs[i].WR})...)
	}
	return runs, rs[0].Table, nil
}

// Simulate rolls the exact model over every run of the log from its
// wheel speeds (tire.Simulate): CSV t, x, y, psi, u, v, r[, traj].
func (Tire) Simulate(req SimulateRequest) (*Simulation, error) {
	p, err := tireParams(req.Params)
	if err != nil {
		return nil, err
	}
	d := NewDiag(req.Sink)
	runs, tab, err := readTireLog(req.Source, d)
	if err != nil {
		return nil, err
	}
	hasTraj := tab.Has("traj")
	states := make([][][6]float64, len(runs))
	for i, r := range runs {
		d.Add(SimulatedGaps(r.T, r.Origin)...)
		if states[i], err = tire.Simulate(p, r); err != nil {
			return nil, r.Err(err)
		}
		for k, s := range states[i] {
			for _, v := range s {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, r.Errorf(k, "", "the simulated state is not finite from this row on: the wheel speeds, or the parameters of %s, are out of scale", req.ParamsPath)
				}
			}
		}
	}
	sr := make([]simRun, len(runs))
	for i, r := range runs {
		cols := make([][]float64, 6)
		for c := range cols {
			cols[c] = make([]float64, len(states[i]))
			for k, st := range states[i] {
				cols[c][k] = st[c]
			}
		}
		sr[i] = simRun{ID: r.ID, T: r.T[:len(states[i])], Cols: cols}
	}
	write := func(w io.Writer) error {
		return writeSimulation(w, []string{"x", "y", "psi", "u", "v", "r"}, hasTraj, sr)
	}
	sim := &Simulation{Write: write, Warnings: d.Warnings}
	if req.Plot {
		prs := make([]PathRun, len(runs))
		for i, r := range runs {
			prs[i] = PathRun{ID: r.ID, PredX: sr[i].Cols[0], PredY: sr[i].Cols[1]}
			if r.X != nil {
				for _, k := range measuredRows(r.X) {
					if k < len(states[i]) {
						prs[i].MeasX, prs[i].MeasY = append(prs[i].MeasX, r.X[k]), append(prs[i].MeasY, r.Y[k])
						prs[i].Pair = append(prs[i].Pair, k)
					}
				}
			}
		}
		sim.Figure = PathFigure("tire: predicted path", prs)
	}
	return sim, nil
}

// Validate predicts the measured poses x, y, psi of every run from its
// wheel speeds (the exact model, as Simulate), from the start pose
// estimated per run (or the first measured one, X0First).
func (Tire) Validate(req ValidateRequest) ([]ValidationRun, error) {
	p, err := tireParams(req.Params)
	if err != nil {
		return nil, err
	}
	d := NewDiag(req.Sink)
	var out []ValidationRun
	for _, src := range req.Sources {
		rs, _, err := readTireLog(src, d)
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			if r.X == nil {
				return nil, r.Errorf(0, "x", "validate needs measured poses x, y, psi")
			}
			_, ws, err := fit.ApplyGaps(req.Gaps, r.T, r.CommandRows(), false, func(row int, msg string) error { return r.Errorf(row, "t", "%s", msg) })
			d.Add(ws...)
			if err != nil {
				return nil, err
			}
			k0 := -1
			for k := range r.T {
				if !math.IsNaN(r.X[k]) && !math.IsNaN(r.Y[k]) && !math.IsNaN(r.Psi[k]) {
					k0 = k
					break
				}
			}
			if k0 < 0 {
				return nil, r.Errorf(0, "x", "validate needs measured poses x, y, psi: this run has none")
			}
			predict := func(s []float64) ([]fit.Channel, error) {
				q := *r
				q.X, q.Y, q.Psi = slices.Clone(r.X), slices.Clone(r.Y), slices.Clone(r.Psi)
				q.X[k0], q.Y[k0], q.Psi[k0] = s[0], s[1], s[2]
				st, err := tire.Simulate(p, &q)
				if err != nil {
					return nil, err
				}
				chs := PoseChannels("psi")
				for k := range r.T {
					chs[0].Add(0, r.T[k], r.X[k], st[k][0])
					chs[1].Add(0, r.T[k], r.Y[k], st[k][1])
					chs[2].Add(0, r.T[k], r.Psi[k], st[k][2])
				}
				return chs, nil
			}
			s, chs, err := StartChannels(req.X0, []float64{r.X[k0], r.Y[k0], r.Psi[k0]}, predict)
			if err != nil {
				return nil, r.Err(err)
			}
			out = append(out, ValidationRun{ID: RunID(req.Sources, src.Path, r.ID), Channels: chs, Track: PoseTrack(chs), Start: s, StartNames: []string{"x", "y", "psi"}})
		}
	}
	return out, nil
}

// Methods: L-BFGS-B only, through the generated gradient (tire.Identify).
func (Tire) Methods() []string { return []string{"lbfgsb"} }

// Options: -online, -batch, -eiv, -wheel-noise (TireOptions).
func (Tire) Options() []Option {
	return []Option{
		{Name: "online", Bool: true, Usage: "tire: re-estimate μ alone over successive batches of each log (the others from -init)"},
		{Name: "batch", Default: "2", Usage: "tire: batch length in seconds for -online"},
		{Name: "eiv", Bool: true, Usage: "tire: errors in variables: treat the logged wheel speeds as noisy and estimate the true ones jointly (removes the noise's bias on Kx, Ky; slower)"},
		{Name: "wheel-noise", Default: "0", Usage: "tire: with -eiv, the wheel-speed noise σ (rad/s) instead of its estimate from the log"},
	}
}

// Identify parses the options (ParseTireOptions) and identifies
// (IdentifyWith).
func (m Tire) Identify(req IdentifyRequest) (*Identified, error) {
	o, err := ParseTireOptions(req.Options)
	if err != nil {
		return nil, err
	}
	return m.IdentifyWith(req, o)
}

// IdentifyWith fits the tyre parameters to the logs' poses (tire.Identify:
// μ, Kx, Ky or the Pacejka coefficients, and crr when the start's is not
// 0, or as req.Fix/Free say), from req.Init or the Jackal defaults, after
// the log checks (time units, gaps, motion, scale against the start's
// prediction). With o.Online it re-estimates μ alone per batch instead
// (tire.Online): one report whose lines are the batches.
func (Tire) IdentifyWith(req IdentifyRequest, o TireOptions) (*Identified, error) {
	if req.Method != "" && req.Method != "lbfgsb" {
		return nil, Usagef("-model tire identifies with lbfgsb only (got -method %s)", req.Method)
	}
	p := tire.Jackal()
	if req.Init != nil {
		var err error
		if p, err = tireParams(req.Init); err != nil {
			return nil, err
		}
	}
	if o.Batch == 0 {
		o.Batch = 2
	}
	switch {
	case o.Online && (o.EIV || o.WheelNoise != 0):
		return nil, Usagef("-eiv and -wheel-noise apply to the batch identification, not to -online")
	case o.Online && (req.Fit.MaxIter > 0 || req.Fit.Tol > 0):
		return nil, Usagef("-maxiter and -tol apply to the batch identification, not to -online")
	case !(o.Batch > 0) || math.IsInf(o.Batch, 0):
		return nil, Usagef("-batch %g: want a finite number of seconds > 0", o.Batch)
	case !(o.WheelNoise >= 0) || math.IsInf(o.WheelNoise, 0):
		return nil, Usagef("-wheel-noise %g: want a wheel-speed noise σ ≥ 0 in rad/s (0: estimated from the log)", o.WheelNoise)
	case o.WheelNoise > 0 && !o.EIV:
		return nil, Usagef("-wheel-noise applies with -eiv only")
	}
	var free []string
	if !o.Online && (len(req.Fix) > 0 || len(req.Free) > 0) {
		known := []string{"mu", "Kx", "Ky"}
		if p.Tyre == "pacejka" {
			known = tire.ParamNames(p.Tyre)[:8]
		}
		if p.Crr != 0 {
			known = append(known, "crr")
		}
		if len(req.Free) > 0 {
			known = tire.ParamNames(p.Tyre)
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
	var runs []*tire.Run
	var files []string
	outliers := 0
	for _, src := range req.Sources {
		files = append(files, src.Path)
		rs, tab, err := readTireLog(src, d)
		if err != nil {
			return nil, err
		}
		d.Add(fit.TimeUnits(src.Path, tab.Col("t"))...)
		for _, r := range rs {
			ow := PoseOutliers(src.Path, r.T, r.X, r.Y, tireLimits.Speed, r.Origin)
			outliers += len(ow)
			d.Add(ow...)
			d.Add(tireLayout(src.Path, tab.Has("traj"), r)...)
			pieces, ws, err := fit.ApplyGaps(req.Gaps, r.T, r.CommandRows(), true, func(row int, msg string) error { return r.Errorf(row, "t", "%s", msg) })
			d.Add(ws...)
			if err != nil {
				return nil, err
			}
			if pieces == nil {
				runs = append(runs, r)
				continue
			}
			for pi, pc := range pieces {
				cut := func(v []float64) []float64 {
					if v == nil {
						return nil
					}
					return v[pc[0]:pc[1]]
				}
				q := &tire.Run{T: cut(r.T), WL: cut(r.WL), WR: cut(r.WR), X: cut(r.X), Y: cut(r.Y), Psi: cut(r.Psi), U: cut(r.U), V: cut(r.V), R: cut(r.R),
					Origin: dataset.Origin{Table: r.Table, Row: r.Row + pc[0], ID: r.ID}}
				if pi > 0 {
					q.ID = fmt.Sprintf("%s#%d", r.ID, pi+1)
				}
				runs = append(runs, q)
			}
			d.Add(fit.Warnf(src.Path, "run %q split at %d time gap(s) into %d runs (-gaps split)", r.ID, len(pieces)-1, len(pieces)))
		}
	}
	file := strings.Join(files, ",")
	if err := tireChecks(d, runs, p, file); err != nil {
		return nil, err
	}
	if o.Online {
		return onlineTire(d, req, p, runs, o.Batch)
	}
	var noise float64
	nn := 0
	for _, r := range runs {
		if r.X == nil {
			continue
		}
		if v := fit.PoseNoise(r.X, r.Y, measuredRows(r.X)); !math.IsNaN(v) {
			noise += v
			nn++
		}
	}
	if nn > 0 {
		noise /= float64(nn)
	}
	to := tire.IdentifyOptions{Free: free, ErrorsInVariables: o.EIV, Noise: tire.Noise{Wheel: o.WheelNoise}}
	to.Settings = req.Fit.Apply(to.Settings)
	var robustLine string
	if outliers > 0 && !o.EIV && noise > 0 {
		// A tracker's outlier would pull the squared loss (issue 26.2):
		// fit with the soft-L1 loss, quadratic within a few noise
		// deviations and linear beyond.
		to.Robust = RobustScale * noise
		robustLine = fmt.Sprintf("robust fit: soft-L1 loss at %.3g mm (%g× the pose noise) because of the position outlier(s) warned of; the position RMS counts them", 1e3*to.Robust, RobustScale)
	}
	res, err := tire.Identify(p, runs, to)
	if err != nil {
		err = FailureHint(err)
		var re *dataset.RowError
		if errors.As(err, &re) {
			for _, r := range runs { // name the first run whose plan fails
				if _, perr := tire.Simulate(p, r); perr != nil {
					return nil, r.Err(perr)
				}
			}
		}
		if errors.Is(err, tire.ErrTooLarge) {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		return nil, err
	}
	var ps []fit.Param
	for k, n := range res.Free {
		lo, hi := tire.FitBounds(p, n)
		q := fit.Param{Name: n, Value: res.Value[k], Std: res.Std[k], Lower: lo, Upper: hi, Undetermined: math.IsNaN(res.Std[k])}
		if q.Undetermined {
			q.StdReason = "no Gauss–Newton σ: JᵀJ is singular (or there are fewer pose samples than parameters)"
		}
		ps = append(ps, q)
	}
	for _, w := range res.Warnings {
		d.Add(fit.Warnf("", "%s", w))
	}
	d.Add(fit.OnBound(ps)...)
	if nn > 0 && to.Robust == 0 { // a robust fit's RMS holds its outliers
		d.Add(fit.ResidualNoise("pose position", res.PoseRMS, noise, 0.02, "m")...)
	}
	d.Add(WorseThanStart(Tire{}, req.Sources, p, res.Params, req.Gaps)...)
	out := &Identified{Params: res.Params}
	if req.Fit.Settled(res.Opt) { // unconverged: the outcome says so
		out.Refused = d.Keep(fit.CheckDetermined(ps, req.AllowUndetermined, ""))
	}
	ws, outcome := req.Fit.Check("tire identify", res.Opt)
	d.Add(ws...)
	out.Outcome = outcome
	rep := fit.Report{Model: "tire", Method: "lbfgsb (" + p.Tyre + " tyres)",
		Data:     fmt.Sprintf("%d run(s), %d pose samples", len(runs), res.Samples),
		Params:   ps,
		Residual: fit.Residual{Name: "pose position", Unit: "m", RMS: res.PoseRMS},
		Status:   fit.NewStatus("lbfgsb", res.Opt),
		Warnings: d.Warnings, Evaluations: res.Opt.FuncEvaluations, Elapsed: res.Runtime,
		Lines: []string{fmt.Sprintf("position RMS over the pose samples: %.2f mm (± are Gauss-Newton σ: they ignore noise in the wheel speeds)", 1e3*res.PoseRMS)},
	}
	if robustLine != "" {
		rep.Method = "lbfgsb, soft-L1 loss (" + p.Tyre + " tyres)"
		rep.Lines = append(rep.Lines, robustLine)
	}
	if o.EIV {
		rep.Method = "lbfgsb, errors in variables (" + p.Tyre + " tyres)"
		rep.Lines = []string{fmt.Sprintf("position RMS over the pose samples: %.2f mm (± are σ of the joint fit, the wheel speeds' noise included)", 1e3*res.PoseRMS),
			fmt.Sprintf("noise: wheel speeds %.3g rad/s, positions %.3g m, heading %.3g rad (%s)", res.Noise.Wheel, res.Noise.Position, res.Noise.Heading, map[bool]string{true: "wheel speeds as given", false: "estimated from the log"}[o.WheelNoise > 0])}
		if res.Plain != nil {
			var plain []string
			for k, n := range res.Free {
				plain = append(plain, fmt.Sprintf("%s %.4g ± %.2g", n, res.Plain[k], res.PlainStd[k]))
			}
			rep.Lines = append(rep.Lines, "plain fit (wheel speeds taken as exact): "+strings.Join(plain, ", "))
		}
	}
	out.Report = rep
	if req.Plot {
		if out.Figure, err = tirePaths(res.Params, runs); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// measuredRows are the rows where x is measured (not NaN).
func measuredRows(x []float64) []int {
	var rows []int
	for k := range x {
		if !math.IsNaN(x[k]) {
			rows = append(rows, k)
		}
	}
	return rows
}

// tireChecks refuses logs without motion and compares the measured motion
// with the start model's prediction (units).
func tireChecks(d *Diag, runs []*tire.Run, p tire.Params, file string) error {
	var wmax, md, mt, pd, pt float64
	for _, r := range runs {
		wmax = max(wmax, fit.MaxAbs(r.WL, r.WR))
		if r.X == nil {
			continue
		}
		rows := measuredRows(r.X)
		a, b := fit.Chord(r.T, r.X, r.Y, r.Psi, rows, 0.5)
		md, mt = md+a, mt+b
		if st, err := tire.Simulate(p, r); err == nil {
			x, y, psi := make([]float64, len(st)), make([]float64, len(st)), make([]float64, len(st))
			for k := range st {
				x[k], y[k], psi[k] = st[k][0], st[k][1], st[k][2]
			}
			c, e := fit.Chord(r.T, x, y, psi, rows, 0.5)
			pd, pt = pd+c, pt+e
		}
	}
	if wmax < 1e-9 {
		return fit.NoMotion(file, "every wheel speed wl, wr is zero")
	}
	if wmax > 200 {
		d.Add(fit.Warnf(file, "wheel speeds reach %.4g rad/s: are wl, wr in rpm or deg/s? (FORMATS.md: rad/s)", wmax))
	}
	d.Add(fit.Scale(file, "distance travelled", md, pd,
		"are x, y in mm or cm (FORMATS.md: m)?",
		"are wl, wr in rpm or deg/s instead of rad/s, or t in ms?")...)
	if pt > 0.5 {
		d.Add(fit.Scale(file, "heading change", mt, pt, "is psi in degrees? (FORMATS.md: radians)", "are wl, wr in rpm or deg/s, or t in ms?")...)
	}
	return nil
}

// onlineTire re-estimates μ over batches of each run (tire.Online): one
// report, μ the last batch's (no σ: each batch is its own small fit), the
// residual the pose position RMS over all batches' samples, a line per
// batch and their timing; no optimiser status (and so no "fit" record in
// the parameter file: it is not one optimisation).
func onlineTire(d *Diag, req IdentifyRequest, p tire.Params, runs []*tire.Run, batch float64) (*Identified, error) {
	last := p
	var lines []string
	var tx, ty []float64 // batch end times and μ, for the figure
	var worst, total time.Duration
	var sq float64
	samples, n := 0, 0
	for ri, r := range runs {
		bs, err := tire.Online(p, r, batch, func(b tire.Batch) {
			d.Sink.Progress("run %d: batch at %.1f s: μ = %.4f", ri+1, b.Start, b.Mu)
		})
		d.Sink.Done()
		if err != nil {
			return nil, r.Err(err)
		}
		for _, b := range bs {
			lines = append(lines, fmt.Sprintf("run %d  t = %7.2f–%7.2f s  μ = %.4f  position RMS %.2f mm  (%d samples, %v)", ri+1, b.Start, b.End, b.Mu, 1e3*b.PoseRMS, b.Samples, b.Elapsed.Round(time.Microsecond)))
			tx, ty = append(tx, b.End), append(ty, b.Mu)
			worst = max(worst, b.Elapsed)
			total += b.Elapsed
			sq += b.PoseRMS * b.PoseRMS * float64(b.Samples)
			samples += b.Samples
			n++
			last.Mu = b.Mu
		}
	}
	if n > 0 {
		lines = append(lines, fmt.Sprintf("%d batches of %g s: %.1f ms per batch on average, %.1f ms at most", n, batch, float64(total.Microseconds())/float64(n)/1e3, float64(worst.Microseconds())/1e3))
	}
	lo, hi := tire.Bounds(p.Tyre, "mu")
	rep := fit.Report{Model: "tire", Method: fmt.Sprintf("online μ over %g-s batches, lbfgsb (%s tyres)", batch, p.Tyre),
		Data: fmt.Sprintf("%d run(s), %d batches", len(runs), n),
		Params: []fit.Param{{Name: "mu", Value: last.Mu, Std: math.NaN(), Lower: lo, Upper: hi,
			StdReason: "online: μ of the last batch, each batch its own small fit (the batches are listed)"}},
		Warnings: d.Warnings, Elapsed: total, Lines: lines,
	}
	if samples > 0 {
		rep.Residual = fit.Residual{Name: "pose position", Unit: "m", RMS: math.Sqrt(sq / float64(samples))}
	}
	out := &Identified{Report: rep, Params: last}
	if req.Plot {
		out.Figure = &Figure{Title: fmt.Sprintf("tire: μ online over %g-s batches", batch), XLabel: "time (s)", YLabel: "μ",
			Series: []Series{{Name: "μ per batch", X: tx, Y: ty, Points: true}, {X: tx, Y: ty}}}
	}
	return out, nil
}

// tirePaths is the figure of the measured poses and the identified model's
// paths.
func tirePaths(p tire.Params, runs []*tire.Run) (*Figure, error) {
	var ss []Series
	for i, r := range runs {
		st, err := tire.Simulate(p, r)
		if err != nil {
			return nil, r.Err(err)
		}
		var mx, my, px, py []float64
		for k := range r.T {
			if r.X != nil && !math.IsNaN(r.X[k]) {
				mx, my = append(mx, r.X[k]), append(my, r.Y[k])
			}
			px, py = append(px, st[k][0]), append(py, st[k][1])
		}
		name, pname := "", ""
		if i == 0 {
			name, pname = "measured", "identified model"
		}
		ss = append(ss, Series{Name: name, X: mx, Y: my, Points: true}, Series{Name: pname, X: px, Y: py})
	}
	return &Figure{Title: "tire: measured and predicted paths", XLabel: "x (m)", YLabel: "y (m)", Equal: true, Series: ss}, nil
}

// tireLayout are the layout checks of one run (issue 28): poses that jump
// back to the run's start (runs concatenated without traj) and stretches
// of motion with both wheel speeds zero, or of standing with wheel speeds
// logged (fit.CommandMotionWarnings: before tireChecks' unit warnings,
// which they would mislead).
func tireLayout(file string, hasTraj bool, r *tire.Run) []fit.Warning {
	if r.X == nil || r.Psi == nil {
		return nil
	}
	rows := measuredRows(r.X)
	var ws []fit.Warning
	if !hasTraj {
		ws = append(ws, fit.JumpsBackWarning(file, r.X, r.Y, rows, r.Line)...)
	}
	return append(ws, fit.CommandMotionWarnings(file, r.T, r.X, r.Y, r.Psi, rows, func(k int) bool {
		return r.WL[k] == 0 && r.WR[k] == 0
	})...)
}
