package cli

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/figure"
	"github.com/wheelgrad/wheelgrad/fit"
	"github.com/wheelgrad/wheelgrad/models/mecanum"
	"github.com/wheelgrad/wheelgrad/opt"
)

func init() {
	identifyHandlers["mecanum"] = identifyMecanum
	identifyExtraFlags = append(identifyExtraFlags,
		extraFlag{name: "pose", def: "free", usage: "mecanum: start pose of each run, free (estimated with μ) or fixed (first camera pose, as the paper)", model: "mecanum"},
		extraFlag{name: "prior", def: "0", usage: "mecanum: weight λ of a pull λ·Σ(μ_j − init μ_j)² toward -init (0: none)", model: "mecanum"},
		extraFlag{name: "grad", def: "analytic", usage: "mecanum: L-BFGS-B gradient, analytic (Algorithm 2) or autodiff (gorgonia graph)", model: "mecanum"},
		extraFlag{name: "friction", def: "constant", usage: "mecanum: constant (one μ per wheel) or net (the 4-16-4 command→μ network of §VI, trained jointly over all runs)", model: "mecanum"},
		extraFlag{name: "loss", def: "eq8", usage: "mecanum: eq8 (the paper's distances, spline + ground truth + marker) or squared (squared position and marker errors: far fewer iterations on many runs)", model: "mecanum"},
	)
}

// readMecanumLogs reads every -data file; with several files, a run's id is
// prefixed by its file name. Gaps follow the -gaps policy (a split run's
// pieces are runs of their own, ids suffixed "#2", "#3", ...).
func readMecanumLogs(e env, srcs []logSource, m *dataset.CommandMap, d *diag, gaps string) ([]mecanum.Run, error) {
	var runs []mecanum.Run
	for _, src := range srcs {
		f := src.Path
		rs, err := mecanum.ReadLog(src.Path, mecanum.LogOptions{NeedPose: true, Map: m, Sensors: src.Poses, Offset: src.Offset, Note: e.stderr, Columns: src.Columns, HoldLast: src.HoldLast})
		if err != nil {
			return nil, err
		}
		t := rs[0].Table
		d.add(fit.TimeUnits(f, t.Col("t"))...)
		for i := range rs {
			switch {
			case len(srcs) > 1 && rs[i].ID == "":
				rs[i].ID = filepath.Base(f)
			case len(srcs) > 1:
				rs[i].ID = filepath.Base(f) + ":" + rs[i].ID
			}
			r := rs[i]
			pieces, err := checkGaps(d, gaps, r.T, r.CommandRows(), true, func(row int, msg string) error { return r.Errorf(row, "t", "%s", msg) })
			if err != nil {
				return nil, err
			}
			if pieces == nil {
				runs = append(runs, r)
				continue
			}
			for pi, pc := range pieces {
				q := r
				q.T, q.W = r.T[pc[0]:pc[1]], r.W[pc[0]:pc[1]]
				if r.X != nil {
					q.X, q.Y, q.Theta = r.X[pc[0]:pc[1]], r.Y[pc[0]:pc[1]], r.Theta[pc[0]:pc[1]]
				}
				q.Row = r.Row + pc[0]
				if pi > 0 {
					q.ID = fmt.Sprintf("%s#%d", r.ID, pi+1)
				}
				if len(q.Camera()) < 3 {
					d.add(fit.Warnf(f, "the piece of run %q from line %d has fewer than three camera poses after the gap split: left out", r.ID, t.Line[q.Row]))
					continue
				}
				runs = append(runs, q)
			}
			d.add(fit.Warnf(f, "run %q split at %d time gap(s) into %d runs (-gaps split)", r.ID, len(pieces)-1, len(pieces)))
		}
	}
	return runs, nil
}

// mecanumChecks compares the logs with the friction-free prediction (units
// and scale) and refuses a log without motion.
func mecanumChecks(d *diag, runs []mecanum.Run, p mecanum.Params, files []string) error {
	free := p
	free.Mu = []float64{0, 0, 0, 0}
	free.Friction = nil
	var md, mt, pd, pt, wmax float64
	cams := 0
	for i := range runs {
		r := &runs[i]
		for _, w := range r.W {
			wmax = max(wmax, math.Abs(w[0]), math.Abs(w[1]), math.Abs(w[2]), math.Abs(w[3]))
		}
		cam := r.Camera()
		cams += len(cam)
		if len(cam) < 2 {
			continue
		}
		x, y, th := mecanum.Simulate(free, r)
		a, b := fit.Chord(r.T, r.X, r.Y, r.Theta, cam, 0.5)
		c, e := fit.Chord(r.T, x, y, th, cam, 0.5)
		md, mt, pd, pt = md+a, mt+b, pd+c, pt+e
	}
	file := strings.Join(files, ",")
	if wmax < 1e-9 {
		return fit.NoMotion(file, "every commanded wheel speed w1..w4 is zero")
	}
	if cams >= 2 && md < 1e-3 && mt < 1e-3 {
		return fit.NoMotion(file, "the camera poses x, y, theta do not move")
	}
	if wmax > 200 {
		d.add(fit.Warnf(file, "commanded wheel speeds reach %.4g rad/s: are w1..w4 in rpm or deg/s? (FORMATS.md: rad/s)", wmax))
	}
	d.add(fit.Scale(file, "distance travelled", md, pd,
		"are x, y in mm or cm (FORMATS.md: m), or w1..w4 too small?",
		"are w1..w4 in rpm or deg/s instead of rad/s, t in ms instead of s, or x, y in km?")...)
	if pt > 0.5 {
		d.add(fit.Scale(file, "heading change", mt, pt,
			"is theta in degrees? (FORMATS.md: radians)",
			"are w1..w4 in rpm or deg/s instead of rad/s, or t in ms?")...)
	} else if hn := headingNoise(runs); hn > 0.1 {
		d.add(fit.Warnf(file, "theta scatters by %.3g rad from sample to sample: is theta in degrees? (FORMATS.md: radians)", hn))
	}
	return nil
}

var mecanumNames = []string{"mu1", "mu2", "mu3", "mu4"}

// mecanumCorrelation is the inflation of Gauss–Newton σ for residuals
// correlated in time (fit.CorrelationInflation over each run's x and y
// camera residuals), their RMS and the camera noise (fit.PoseNoise,
// averaged over the runs). With -pose fixed, an error in the first camera
// pose bends the whole predicted path, so its residuals are one slow drift
// and the plain σ is tens of times too small.
func mecanumCorrelation(f *mecanum.Fit, runs []mecanum.Run, x []float64) (infl, rms, noise float64) {
	var series [][]float64
	var noises []float64
	for i := range runs {
		r := &runs[i]
		px, py, _ := f.Predict(x, i)
		cam := r.Camera()
		ex, ey := make([]float64, len(cam)), make([]float64, len(cam))
		for j, k := range cam {
			ex[j], ey[j] = px[k]-r.X[k], py[k]-r.Y[k]
		}
		series = append(series, ex, ey)
		if v := fit.PoseNoise(r.X, r.Y, cam); !math.IsNaN(v) {
			noises = append(noises, v)
		}
	}
	if rms = fit.RMS(series...); !(rms > 0) {
		return 1, 0, math.NaN()
	}
	infl, _ = fit.CorrelationInflation(series)
	noise = math.NaN()
	if len(noises) > 0 {
		noise = 0
		for _, v := range noises {
			noise += v
		}
		noise /= float64(len(noises))
	}
	return infl, rms, noise
}

// headingNoise estimates the heading noise (rad) of the camera samples
// (fit.AngleNoise), averaged over the runs; 0 when no run has three.
func headingNoise(runs []mecanum.Run) float64 {
	var s float64
	n := 0
	for i := range runs {
		if v := fit.AngleNoise(runs[i].Theta, runs[i].Camera()); !math.IsNaN(v) {
			s += v
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return s / float64(n)
}

func identifyMecanum(e env, a IdentifyArgs) error {
	cfg := mecanum.DefaultConfig()
	switch a.Extra["pose"] {
	case "", "free":
	case "fixed":
		cfg = mecanum.PaperConfig()
	default:
		return usagef("-pose must be free or fixed, not %q", a.Extra["pose"])
	}
	if s := a.Extra["prior"]; s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || !(v >= 0) || math.IsInf(v, 0) {
			return usagef("-prior must be a number ≥ 0, not %q", s)
		}
		cfg.Prior = v
	}
	autodiff := false
	switch a.Extra["grad"] {
	case "", "analytic":
	case "autodiff":
		autodiff = true
	default:
		return usagef("-grad must be analytic or autodiff, not %q", a.Extra["grad"])
	}
	held, err := fixedSet(mecanumNames, a.Fix, a.Free)
	if err != nil {
		return err
	}
	var hold [4]bool
	for j, n := range mecanumNames {
		hold[j] = held[n]
	}
	method := a.Method
	if method == "" {
		method = mecanum.LBFGSB
	}
	if hold != [4]bool{} && method != mecanum.LBFGSB {
		return usagef("-fix/-free need -method lbfgsb for mecanum")
	}
	p := mecanum.DefaultParams()
	if a.Init != "" {
		var err error
		if p, err = readMecanumParams(e, a.Init, false); err != nil {
			return err
		}
		if p.Mu == nil {
			p.Mu = mecanum.DefaultParams().Mu
		}
	}
	init := [4]float64(p.Mu)
	cfg.PriorMu = init
	d := a.Diag
	fric, loss := a.Extra["friction"], a.Extra["loss"]
	if fric != "constant" && fric != "net" {
		return usagef("-friction must be constant or net, not %q", fric)
	}
	if loss != "eq8" && loss != "squared" {
		return usagef("-loss must be eq8 or squared, not %q", loss)
	}
	if fric == "net" || loss == "squared" {
		if a.Method != "" && a.Method != mecanum.LBFGSB {
			return usagef("-friction net and -loss squared use lbfgsb")
		}
		if (a.Extra["pose"] != "" && a.Extra["pose"] != "free") || cfg.Prior != 0 || autodiff {
			return usagef("-pose fixed, -prior and -grad autodiff go with the eq8 loss and a constant μ, not with -friction net or -loss squared")
		}
	}
	// The report goes to stdout unless the parameters do.
	rep := e.stdout
	if a.Out == "-" {
		rep = e.stderr
	}
	srcs, err := mecanumSources(e, a, p, rep)
	if err != nil {
		return err
	}
	runs, err := readMecanumLogs(e, srcs, p.CommandMap, d, a.Gaps)
	if err != nil {
		return err
	}
	if fric == "net" || loss == "squared" {
		return identifyMecanumSquared(e, a, p, runs, rep, fric == "net")
	}
	f, err := mecanum.NewFit(p, runs, cfg)
	if err != nil {
		return err
	}
	if err := mecanumChecks(d, runs, p, a.Data); err != nil {
		return err
	}
	res, err := mecanum.Identify(f, mecanum.IdentifyOptions{
		Method: method, Autodiff: autodiff, Init: init, Seed: 1, Held: hold,
		Settings: a.Fit.Apply(opt.Settings{Callback: func(it opt.Iteration) bool {
			a.Prog.printf("identify %s: iteration %d, loss %.6g", method, it.Iter, it.F)
			return true
		}}),
	})
	a.Prog.done()
	if err != nil {
		return failureHint(err)
	}
	out := p
	out.Model = "mecanum"
	out.Mu = res.Mu[:]
	out.Friction = nil
	grad := "gradient generated from the step definition"
	if autodiff {
		grad = "autodiff gradient"
	}
	if method != mecanum.LBFGSB {
		grad = "derivative-free"
	}
	infl, rms, noise := mecanumCorrelation(f, runs, res.X)
	lo, hi := p.Bounds()
	undet := [4]bool{}
	for _, u := range res.Ident.Undetermined() {
		for j := range 4 {
			if math.Abs(u[j]) > 0.05 {
				undet[j] = true
			}
		}
	}
	sigmaNote := fmt.Sprintf("σ: Gauss–Newton × %.3g for residuals correlated in time (lag-1 autocorrelation of the camera residuals)", infl)
	var poseStd [4]float64
	if cfg.Pose != mecanum.PoseFixed {
		// Measured: over 10 noise seeds of the 3-run test log the errors
		// were 1.5 σ RMS (the loss compares with a spline of the same noisy
		// samples, whose residuals are correlated in a way the lag-1
		// autocorrelation of the raw residuals does not show).
		sigmaNote += "; over repeated noise the errors measured 1.4–2× this σ"
	}
	if cfg.Pose == mecanum.PoseFixed {
		// The fixed start poses carry the first camera sample's noise.
		sth := headingNoise(runs)
		if ps, err := f.StartPoseStd(res.Mu, noise, sth); err == nil {
			poseStd = ps
			sigmaNote += fmt.Sprintf(", combined with the spread the fixed start poses' noise causes (σ ≈ %.2g m, %.2g rad, from the samples' scatter)", noise, sth)
		}
	}
	var ps []fit.Param
	for j, n := range mecanumNames {
		sd := math.Hypot(infl*res.Ident.MuStd[j], poseStd[j])
		ps = append(ps, fit.Param{Name: n, Value: res.Mu[j], Std: sd, Lower: lo, Upper: hi, Held: hold[j], Undetermined: undet[j] && !hold[j]})
	}
	d.add(fit.OnBound(ps)...)
	// The residual against the camera noise the log itself shows: far above
	// it, the answer is a wrong optimum or the model (or the units) do not
	// match, whatever the optimiser says.
	if cn := f.CameraNoise(); res.Ident.Noise > residualWarnFactor*cn && res.Ident.Noise > 1e-3 {
		d.warnf("mecanum identify: the residual (%.3g m RMS) is %.0f× the camera noise the log shows (%.2g m): the fit is probably a wrong local optimum, or the model or the units (mm? degrees? rpm?) do not match the log",
			res.Ident.Noise, res.Ident.Noise/cn, cn)
	}
	s := fit.Report{
		Model: "mecanum", Method: fmt.Sprintf("%s (%s)", method, grad),
		Data:        fmt.Sprintf("%d run(s), %d parameters (μ and %s start poses)", f.Runs(), f.Dim(), cmpOr(a.Extra["pose"], "free")),
		Params:      ps,
		Residual:    fit.Residual{Name: "camera position", Unit: "m", RMS: rms},
		Status:      fit.NewStatus(method, res.Opt),
		Evaluations: res.Opt.FuncEvaluations, Elapsed: res.Wall,
		Lines: []string{fmt.Sprintf("loss %.6g, camera position residual RMS %.3g m", res.Opt.F, rms),
			sigmaNote},
	}
	if len(res.Windows) > 0 {
		var ws []string
		for _, w := range res.Windows {
			ws = append(ws, fmt.Sprintf("%g s (%d iterations)", w.Seconds, w.Iterations))
		}
		s.Notes = append(s.Notes, "long log: solved first over its first "+strings.Join(ws, ", ")+", then the whole")
	}
	id := res.Ident
	nd := 0
	for _, ok := range id.Determined {
		if ok {
			nd++
		}
	}
	if len(id.Singular) > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("identifiability: %d of %d μ directions determined by the data (singular values %.3g … %.3g, the start poses eliminated)", nd, len(id.Singular), id.Singular[0], id.Singular[len(id.Singular)-1]))
	}
	if id.Poses > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("start poses: %d of %d directions determined (singular values %.3g … %.3g)", id.PosesDetermined, id.Poses, id.PoseSingular[1], id.PoseSingular[0]))
	}
	for _, u := range id.Undetermined() {
		s.Notes = append(s.Notes, fmt.Sprintf("NOT determined: μ + t·(%.4f, %.4f, %.4f, %.4f) predicts the same trajectories for every t", u[0], u[1], u[2], u[3]))
		s.Null = append(s.Null, fit.NewDirection(mecanumNames, u[:]))
	}
	all := true
	for _, q := range ps {
		all = all && (q.Held || q.Verdict() == fit.Determined)
	}
	if all {
		s.Notes = append(s.Notes, "every μ_j is determined")
	}
	s.Warnings = d.warns
	if err := emitReport(e, a, s); err != nil {
		return err
	}
	if a.Fit.Settled(res.Opt) { // unconverged: reported by checkFit, exit 3
		if err := d.keep(fit.CheckDetermined(ps, a.AllowUndetermined, "hold one of them with -fix (e.g. -fix mu1), add runs with other commands, or use -prior")); err != nil {
			return err
		}
	}
	if a.Plot != "" {
		if err := plotMecanum(e, a.Plot, f, runs, res, p); err != nil {
			return err
		}
	}
	if err := e.writeParams(a.Out, out, s.Status); err != nil {
		return err
	}
	return checkFit(e, a.Fit, "mecanum identify ("+method+")", res.Opt)
}

// residualWarnFactor is how far above the camera noise a fit's residual
// may lie before identify warns. On the synthetic logs of
// experiments/mecanum-long (σ = 3 mm) good fits leave 3.03–3.06 mm, about
// 1×; the wrong optima of long logs 0.44–3.8 m, 150× and more.
const residualWarnFactor = 5

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// plotMecanum draws every run in its own colour: camera poses (points),
// the identified model's prediction (line), the friction-free (Uranus,
// μ = 0) prediction (dashed grey), a triangle at each run's start and
// arrows along the robot's forward axis (−sin θ, cos θ) once a second.
func plotMecanum(e env, path string, f *mecanum.Fit, runs []mecanum.Run, res *mecanum.Result, p mecanum.Params) error {
	var ss []figure.Series
	free := p
	free.Mu = []float64{0, 0, 0, 0}
	free.Friction = nil
	span := 0.0
	for i := range runs {
		r := &runs[i]
		for _, k := range r.Camera() {
			span = max(span, math.Abs(r.X[k]), math.Abs(r.Y[k]))
		}
	}
	arrow := max(0.04*span, 0.01)
	for i := range runs {
		r := &runs[i]
		col := figure.Palette[i%len(figure.Palette)]
		var gx, gy, ax, ay []float64
		last := math.Inf(-1)
		for _, k := range r.Camera() {
			gx, gy = append(gx, r.X[k]), append(gy, r.Y[k])
			if r.T[k]-last >= 1 {
				last = r.T[k]
				s, c := math.Sincos(r.Theta[k])
				ax = append(ax, r.X[k], r.X[k]-arrow*s)
				ay = append(ay, r.Y[k], r.Y[k]+arrow*c)
			}
		}
		x, y, _ := f.Predict(res.X, i)
		ux, uy, _ := mecanum.Simulate(free, r)
		id := r.ID
		if id == "" {
			id = fmt.Sprint(i + 1)
		}
		uname := ""
		if i == 0 {
			uname = "friction-free (Uranus)"
		}
		ss = append(ss,
			figure.Series{Name: uname, X: ux, Y: uy, Color: color.RGBA{150, 150, 150, 255}, Dashed: true, Width: 1},
			figure.Series{Name: "run " + id + ": camera", X: gx, Y: gy, Points: true, Color: col, Size: 1.4},
			figure.Series{Name: "run " + id + ": identified model", X: x, Y: y, Color: col, Width: 1.2},
			figure.Series{X: ax, Y: ay, Segments: true, Color: col, Width: 1.5})
		if len(gx) > 0 {
			ss = append(ss, figure.Series{X: gx[:1], Y: gy[:1], Points: true, Shape: "triangle", Size: 4, Color: col})
		}
	}
	stage, err := e.stagePath(path)
	if err != nil {
		return err
	}
	return figure.XY(stage, "Mecanum identification (▲ start, ticks: forward axis once a second)", "x (m)", "y (m)", true, ss)
}
