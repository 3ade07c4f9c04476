package cli

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/wheelgrad/wheelgrad/fit"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/figure"
	"github.com/wheelgrad/wheelgrad/models/tire"
	"github.com/wheelgrad/wheelgrad/opt"
)

// Model tire (FORMATS.md): the Jackal rigid body with Dugoff or Pacejka
// tyres of Westerhout et al. identify fits μ, Kx, Ky (dugoff) or px, py
// (pacejka) to the logs' motion-capture poses by L-BFGS-B; -online -batch S
// re-estimates μ alone over S-second batches (§III-C).
func init() {
	simulateHandlers["tire"] = simulateTire
	identifyHandlers["tire"] = identifyTire
	identifyOnly["tire"] = []string{"lbfgsb"}
	identifyExtraFlags = append(identifyExtraFlags,
		extraFlag{name: "online", def: "false", usage: "tire: re-estimate μ alone over successive batches of each log (the others from -init)", model: "tire"},
		extraFlag{name: "batch", def: "2", usage: "tire: batch length in seconds for -online", model: "tire"},
		extraFlag{name: "eiv", def: "false", usage: "tire: errors in variables: treat the logged wheel speeds as noisy and estimate the true ones jointly (removes the noise's bias on Kx, Ky; slower)", model: "tire"},
		extraFlag{name: "wheel-noise", def: "0", usage: "tire: with -eiv, the wheel-speed noise σ (rad/s) instead of its estimate from the log", model: "tire"})
}

// readTireLog reads a log split into runs by traj (tire.ReadLog).
func readTireLog(e env, src logSource) ([]*tire.Run, *dataset.Table, error) {
	rs, err := tire.ReadLog(src.Path, tire.LogOptions{Sensors: src.Poses, Offset: src.Offset, Note: e.stderr, Columns: src.Columns, HoldLast: src.HoldLast})
	if err != nil {
		return nil, nil, err
	}
	if len(rs) == 0 {
		return nil, nil, &dataset.ParseError{File: src.Path, Err: dataset.ErrNoRows}
	}
	runs := make([]*tire.Run, len(rs))
	for i := range rs {
		runs[i] = &rs[i]
	}
	return runs, rs[0].Table, nil
}

// readTireParams is tire.ReadParams with its warnings printed; no file
// gives the defaults (tire.Jackal).
func readTireParams(e env, path string) (tire.Params, error) {
	if path == "" {
		return tire.Jackal(), nil
	}
	p, warnings, err := tire.ReadParams(path)
	if err != nil {
		return p, err
	}
	warnParams(e, path, warnings)
	return p, nil
}

func simulateTire(e env, a SimulateArgs) error {
	p, err := readTireParams(e, a.Params)
	if err != nil {
		return err
	}
	runs, tab, err := readTireLog(e, a.source())
	if err != nil {
		return err
	}
	hasTraj := tab.Has("traj")
	var states [][][6]float64
	for _, r := range runs {
		s, err := tire.Simulate(p, r)
		if err != nil {
			return r.Err(err)
		}
		states = append(states, s)
	}
	return e.writeOut(a.Out, func(w io.Writer) error {
		cw := dataset.NewWriter(w)
		head := []string{"t", "x", "y", "psi", "u", "v", "r"}
		if hasTraj {
			head = append(head, "traj")
		}
		if err := cw.WriteHeader(head...); err != nil {
			return err
		}
		for i, r := range runs {
			for k, s := range states[i] {
				row := []dataset.Cell{dataset.Num(r.T[k])}
				for _, v := range s {
					row = append(row, dataset.Num(v))
				}
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

func identifyTire(e env, a IdentifyArgs) error {
	if a.Method != "" && a.Method != "lbfgsb" {
		return usagef("-model tire identifies with lbfgsb only (got -method %s)", a.Method)
	}
	p, err := readTireParams(e, a.Init)
	if err != nil {
		return err
	}
	online, err := strconv.ParseBool(a.Extra["online"])
	if err != nil {
		return usagef("-online %q: want true or false", a.Extra["online"])
	}
	if online && (a.Extra["eiv"] == "true" || a.Extra["wheel-noise"] != "0") {
		return usagef("-eiv and -wheel-noise apply to the batch identification, not to -online")
	}
	if online && (a.Fit.MaxIter > 0 || a.Fit.Tol > 0) {
		return usagef("-maxiter and -tol apply to the batch identification, not to -online")
	}
	batch, err := strconv.ParseFloat(a.Extra["batch"], 64)
	if err != nil || !(batch > 0) || math.IsInf(batch, 0) {
		return usagef("-batch %q: want a finite number of seconds > 0", a.Extra["batch"])
	}
	offset, err := a.fixedOffset("tire")
	if err != nil {
		return err
	}
	d := a.Diag
	var runs []*tire.Run
	for _, src := range a.sources(offset) {
		path := src.Path
		rs, tab, err := readTireLog(e, src)
		if err != nil {
			return err
		}
		d.add(fit.TimeUnits(path, tab.Col("t"))...)
		for _, r := range rs {
			pieces, err := checkGaps(d, a.Gaps, r.T, r.CommandRows(), true, tableRowErr(tab, r.Row))
			if err != nil {
				return err
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
			d.add(fit.Warnf(path, "run %q split at %d time gap(s) into %d runs (-gaps split)", r.ID, len(pieces)-1, len(pieces)))
		}
	}
	if err := tireChecks(d, runs, p, a.Data); err != nil {
		return err
	}
	if online {
		return onlineTire(e, a, p, runs, batch)
	}
	def := []string{"mu", "Kx", "Ky"}
	if p.Tyre == "pacejka" {
		def = tire.ParamNames(p.Tyre)[:8]
	}
	if p.Crr != 0 {
		def = append(def, "crr")
	}
	var free []string
	if a.Free != "" {
		held, err := fixedSet(tire.ParamNames(p.Tyre), "", a.Free)
		if err != nil {
			return err
		}
		for _, n := range tire.ParamNames(p.Tyre) {
			if !held[n] {
				free = append(free, n)
			}
		}
	} else if a.Fix != "" {
		held, err := fixedSet(def, a.Fix, "")
		if err != nil {
			return err
		}
		for _, n := range def {
			if !held[n] {
				free = append(free, n)
			}
		}
	}
	eiv, err := strconv.ParseBool(a.Extra["eiv"])
	if err != nil {
		return usagef("-eiv %q: want true or false", a.Extra["eiv"])
	}
	wheelNoise, err := strconv.ParseFloat(a.Extra["wheel-noise"], 64)
	if err != nil || !(wheelNoise >= 0) || math.IsInf(wheelNoise, 0) {
		return usagef("-wheel-noise %q: want a wheel-speed noise σ ≥ 0 in rad/s (0: estimated from the log)", a.Extra["wheel-noise"])
	}
	if wheelNoise > 0 && !eiv {
		return usagef("-wheel-noise applies with -eiv only")
	}
	res, err := tire.Identify(p, runs, tire.IdentifyOptions{Free: free, Settings: a.Fit.Apply(opt.Settings{}),
		ErrorsInVariables: eiv, Noise: tire.Noise{Wheel: wheelNoise}})
	if err != nil {
		err = failureHint(err)
		var re *dataset.RowError
		if errors.As(err, &re) {
			for _, r := range runs { // name the first run whose plan fails
				if _, perr := tire.Simulate(p, r); perr != nil {
					return r.Err(perr)
				}
			}
		}
		if errors.Is(err, tire.ErrTooLarge) {
			return fmt.Errorf("%s: %w", strings.Join(a.Data, ","), err)
		}
		return err
	}
	var ps []fit.Param
	for k, n := range res.Free {
		lo, hi := tire.Bounds(p.Tyre, n)
		q := fit.Param{Name: n, Value: res.Value[k], Std: res.Std[k], Lower: lo, Upper: hi, Undetermined: math.IsNaN(res.Std[k])}
		if q.Undetermined {
			q.StdReason = "no Gauss–Newton σ: JᵀJ is singular (or there are fewer pose samples than parameters)"
		}
		ps = append(ps, q)
	}
	for _, warn := range res.Warnings {
		d.warnf("%s", warn)
	}
	d.add(fit.OnBound(ps)...)
	var noise float64
	nn := 0
	for _, r := range runs {
		if r.X == nil {
			continue
		}
		var rows []int
		for k := range r.T {
			if !math.IsNaN(r.X[k]) {
				rows = append(rows, k)
			}
		}
		if v := fit.PoseNoise(r.X, r.Y, rows); !math.IsNaN(v) {
			noise += v
			nn++
		}
	}
	if nn > 0 {
		d.add(fit.ResidualNoise("pose position", res.PoseRMS, noise/float64(nn), 0.02, "m")...)
	}
	rep := fit.Report{Model: "tire", Method: "lbfgsb (" + p.Tyre + " tyres)",
		Data:     fmt.Sprintf("%d run(s), %d pose samples", len(runs), res.Samples),
		Params:   ps,
		Residual: fit.Residual{Name: "pose position", Unit: "m", RMS: res.PoseRMS},
		Status:   fit.NewStatus("lbfgsb", res.Opt),
		Warnings: d.warns, Evaluations: res.Opt.FuncEvaluations, Elapsed: res.Runtime,
		Lines: []string{fmt.Sprintf("position RMS over the pose samples: %.2f mm (± are Gauss-Newton σ: they ignore noise in the wheel speeds)", 1e3*res.PoseRMS)},
	}
	if eiv {
		rep.Method = "lbfgsb, errors in variables (" + p.Tyre + " tyres)"
		rep.Lines = []string{fmt.Sprintf("position RMS over the pose samples: %.2f mm (± are σ of the joint fit, the wheel speeds' noise included)", 1e3*res.PoseRMS),
			fmt.Sprintf("noise: wheel speeds %.3g rad/s, positions %.3g m, heading %.3g rad (%s)", res.Noise.Wheel, res.Noise.Position, res.Noise.Heading, map[bool]string{true: "wheel speeds as given", false: "estimated from the log"}[wheelNoise > 0])}
		if res.Plain != nil {
			var plain []string
			for k, n := range res.Free {
				plain = append(plain, fmt.Sprintf("%s %.4g ± %.2g", n, res.Plain[k], res.PlainStd[k]))
			}
			rep.Lines = append(rep.Lines, "plain fit (wheel speeds taken as exact): "+strings.Join(plain, ", "))
		}
	}
	if err := emitReport(e, a, rep); err != nil {
		return err
	}
	if a.Fit.Settled(res.Opt) { // unconverged: reported by checkFit, exit 3
		if err := d.keep(fit.CheckDetermined(ps, a.AllowUndetermined, "")); err != nil {
			return err
		}
	}
	if err := e.writeParams(a.Out, res.Params, rep.Status); err != nil {
		return err
	}
	if a.Plot != "" {
		stage, err := e.stagePath(a.Plot)
		if err != nil {
			return err
		}
		if err := plotTirePaths(stage, res.Params, runs); err != nil {
			return err
		}
	}
	return checkFit(e, a.Fit, "tire identify", res.Opt)
}

// tireChecks refuses logs without motion and compares the measured motion
// with the -init model's prediction (units).
func tireChecks(d *diag, runs []*tire.Run, p tire.Params, files []string) error {
	file := strings.Join(files, ",")
	var wmax, md, mt, pd, pt float64
	for _, r := range runs {
		wmax = max(wmax, fit.MaxAbs(r.WL, r.WR))
		if r.X == nil {
			continue
		}
		var rows []int
		for k := range r.T {
			if !math.IsNaN(r.X[k]) {
				rows = append(rows, k)
			}
		}
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
		d.add(fit.Warnf(file, "wheel speeds reach %.4g rad/s: are wl, wr in rpm or deg/s? (FORMATS.md: rad/s)", wmax))
	}
	d.add(fit.Scale(file, "distance travelled", md, pd,
		"are x, y in mm or cm (FORMATS.md: m)?",
		"are wl, wr in rpm or deg/s instead of rad/s, or t in ms?")...)
	if pt > 0.5 {
		d.add(fit.Scale(file, "heading change", mt, pt, "is psi in degrees? (FORMATS.md: radians)", "are wl, wr in rpm or deg/s, or t in ms?")...)
	}
	return nil
}

func onlineTire(e env, a IdentifyArgs, p tire.Params, runs []*tire.Run, batch float64) error {
	var xs, mus []float64
	var last tire.Params = p
	w := e.stdout
	if a.Out == "-" {
		w = e.stderr
	}
	var worst time.Duration
	var total time.Duration
	n := 0
	for ri, r := range runs {
		bs, err := tire.Online(p, r, batch, func(b tire.Batch) {
			a.Prog.printf("run %d: batch at %.1f s: μ = %.4f", ri+1, b.Start, b.Mu)
		})
		a.Prog.done()
		if err != nil {
			return r.Err(err)
		}
		for _, b := range bs {
			if !a.Quiet {
				fmt.Fprintf(w, "run %d  t = %7.2f–%7.2f s  μ = %.4f  position RMS %.2f mm  (%d samples, %v)\n", ri+1, b.Start, b.End, b.Mu, 1e3*b.PoseRMS, b.Samples, b.Elapsed.Round(time.Microsecond))
			}
			xs, mus = append(xs, b.End), append(mus, b.Mu)
			worst = max(worst, b.Elapsed)
			total += b.Elapsed
			n++
			last.Mu = b.Mu
		}
	}
	if !a.Quiet && n > 0 {
		fmt.Fprintf(w, "%d batches of %g s: %.1f ms per batch on average, %.1f ms at most\n", n, batch, float64(total.Microseconds())/float64(n)/1e3, float64(worst.Microseconds())/1e3)
	}
	if err := e.writeParams(a.Out, last, nil); err != nil {
		return err
	}
	if a.Plot != "" {
		stage, err := e.stagePath(a.Plot)
		if err != nil {
			return err
		}
		return figure.XY(stage, fmt.Sprintf("tire: μ online over %g-s batches", batch), "time (s)", "μ", false,
			[]figure.Series{{Name: "μ per batch", X: xs, Y: mus, Points: true}, {X: xs, Y: mus}})
	}
	return nil
}

// plotTirePaths draws the measured poses and the identified model's paths.
func plotTirePaths(path string, p tire.Params, runs []*tire.Run) error {
	var ss []figure.Series
	for i, r := range runs {
		st, err := tire.Simulate(p, r)
		if err != nil {
			return r.Err(err)
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
		ss = append(ss, figure.Series{Name: name, X: mx, Y: my, Points: true}, figure.Series{Name: pname, X: px, Y: py})
	}
	return figure.XY(path, "tire: measured and predicted paths", "x (m)", "y (m)", true, ss)
}
