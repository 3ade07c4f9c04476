package robots

import (
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/wheelgrad/wheelgrad/fit"
	"github.com/wheelgrad/wheelgrad/models/mecanum"
)

var _ Identifier = Mecanum{}

// MecanumOptions are the Mecanum model's own identify options (the command
// line's -pose, -prior, -grad, -friction and -loss).
type MecanumOptions struct {
	// Pose is the runs' start poses: "free" (estimated with μ, the
	// default) or "fixed" (each run's first camera pose, as the paper).
	Pose string
	// Prior is the weight λ of a pull λ·Σ(μ_j − init μ_j)² toward the
	// start (0: none).
	Prior float64
	// Grad is L-BFGS-B's gradient: "generated" (the reverse pass generated
	// from the step definition, the default), "analytic" (the paper's
	// Algorithm 2, the native forward sensitivities of Fit.AnalyticGrad)
	// or "autodiff" (the gorgonia graph): mecanum.Config.Engine. The three
	// agree to rounding.
	Grad string
	// Friction is "constant" (one μ per wheel, the default) or "net" (the
	// 4-16-4 command→μ network of Luo §VI, trained jointly over all runs).
	Friction string
	// Loss is "eq8" (the paper's distances, Luo eqs. 6–8, the default) or
	// "squared" (squared position and marker errors).
	Loss string
	// Lag (s) is a first-order lag of each wheel's speed behind its
	// command (mecanum.Run.Lagged; 0: none, the default); LagAuto
	// chooses it by a golden-section search of the loss over (0, 1] s.
	// The parameter file records it ("tau").
	Lag     float64
	LagAuto bool
}

// DefaultMecanumOptions are the options' defaults.
func DefaultMecanumOptions() MecanumOptions {
	return MecanumOptions{Pose: "free", Grad: "generated", Friction: "constant", Loss: "eq8"}
}

// ParseMecanumOptions reads the options from their command-line strings
// (Option.Name → value; a missing name keeps its default). A bad value or
// combination is a UsageError.
func ParseMecanumOptions(s map[string]string) (MecanumOptions, error) {
	o := DefaultMecanumOptions()
	if v := s["pose"]; v != "" {
		o.Pose = v
	}
	if v := s["prior"]; v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f >= 0) || math.IsInf(f, 0) {
			return o, Usagef("-prior must be a number ≥ 0, not %q", v)
		}
		o.Prior = f
	}
	switch v := s["lag"]; v {
	case "", "0":
	case "auto":
		o.LagAuto = true
	default:
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f >= 0 && f <= mecanum.MaxTau) {
			return o, Usagef("-lag must be auto or a time constant in [0, %g] s, not %q", mecanum.MaxTau, v)
		}
		o.Lag = f
	}
	for _, k := range []struct {
		name string
		to   *string
	}{{"grad", &o.Grad}, {"friction", &o.Friction}, {"loss", &o.Loss}} {
		if v := s[k.name]; v != "" {
			*k.to = v
		}
	}
	return o, o.check()
}

func (o MecanumOptions) check() error {
	switch {
	case o.Pose != "free" && o.Pose != "fixed":
		return Usagef("-pose must be free or fixed, not %q", o.Pose)
	case !(o.Prior >= 0) || math.IsInf(o.Prior, 0):
		return Usagef("-prior must be a number ≥ 0, not %g", o.Prior)
	case o.Grad != "generated" && o.Grad != "analytic" && o.Grad != "autodiff":
		return Usagef("-grad must be generated, analytic or autodiff, not %q", o.Grad)
	case o.Friction != "constant" && o.Friction != "net":
		return Usagef("-friction must be constant or net, not %q", o.Friction)
	case o.Loss != "eq8" && o.Loss != "squared":
		return Usagef("-loss must be eq8 or squared, not %q", o.Loss)
	}
	return nil
}

// squared says whether the fit runs on the squared-error loss (-loss
// squared or -friction net).
func (o MecanumOptions) squared() bool { return o.Friction == "net" || o.Loss == "squared" }

// Methods are L-BFGS-B (the default), Nelder–Mead and CMA-ES.
func (Mecanum) Methods() []string { return []string{mecanum.LBFGSB, mecanum.NelderMead, mecanum.CMAES} }

// Options are -pose, -prior, -grad, -friction, -lag and -loss (MecanumOptions).
func (Mecanum) Options() []Option {
	d := DefaultMecanumOptions()
	return []Option{
		{Name: "pose", Default: d.Pose, Usage: "mecanum: start pose of each run, free (estimated with μ) or fixed (first camera pose, as the paper)"},
		{Name: "prior", Default: "0", Usage: "mecanum: weight λ of a pull λ·Σ(μ_j − init μ_j)² toward -init (0: none)"},
		{Name: "grad", Default: d.Grad, Usage: "mecanum: L-BFGS-B gradient, generated (the reverse pass generated from the step), analytic (Algorithm 2) or autodiff (gorgonia graph)"},
		{Name: "friction", Default: d.Friction, Usage: "mecanum: constant (one μ per wheel) or net (the 4-16-4 command→μ network of §VI, trained jointly over all runs)"},
		{Name: "lag", Default: "0", Usage: "mecanum: first-order lag τ (s) of each wheel's speed behind its command, from rest at each run's start (0: none, the default; auto: chosen by a golden-section search of the loss over (0, 1] s); the parameter file records it as \"tau\" and simulate, validate use it"},
		{Name: "loss", Default: d.Loss, Usage: "mecanum: eq8 (the paper's distances, spline + ground truth + marker) or squared (squared position and marker errors: far fewer iterations on many runs)"},
	}
}

// Identify parses req.Options (ParseMecanumOptions) and runs IdentifyWith.
func (m Mecanum) Identify(req IdentifyRequest) (*Identified, error) {
	o, err := ParseMecanumOptions(req.Options)
	if err != nil {
		return nil, err
	}
	return m.IdentifyWith(req, o)
}

// IdentifyWith identifies μ_1..μ_4 (or, with Friction "net", the friction
// network) from the runs of req.Sources: Luo §VII-A's loss (eq. 8) with
// L-BFGS-B, Nelder–Mead or CMA-ES, or the squared-error loss. req.Options
// is not read.
func (Mecanum) IdentifyWith(req IdentifyRequest, o MecanumOptions) (*Identified, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	cfg := mecanum.DefaultConfig()
	if o.Pose == "fixed" {
		cfg = mecanum.PaperConfig()
	}
	cfg.Prior = o.Prior
	held, err := fit.HeldSet(mecanumNames, req.Fix, req.Free)
	if err != nil {
		return nil, Usagef("%s", err)
	}
	var hold [4]bool
	for j, n := range mecanumNames {
		hold[j] = held[n]
	}
	method := req.Method
	if method == "" {
		method = mecanum.LBFGSB
	}
	if hold != [4]bool{} && method != mecanum.LBFGSB {
		return nil, Usagef("-fix/-free need -method lbfgsb for mecanum")
	}
	if o.squared() {
		if method != mecanum.LBFGSB {
			return nil, Usagef("-friction net and -loss squared use lbfgsb")
		}
		if hold != [4]bool{} {
			// the squared-loss fits free every μ: a held one would be ignored
			return nil, Usagef("-fix/-free go with the eq8 loss and a constant μ, not with -friction net or -loss squared")
		}
		if o.Pose != "free" || o.Prior != 0 || o.Grad != "generated" {
			return nil, Usagef("-pose fixed, -prior and -grad analytic or autodiff go with the eq8 loss and a constant μ, not with -friction net or -loss squared")
		}
	}
	p := mecanum.DefaultParams()
	if req.Init != nil {
		if p, err = mecanumParams(req.Init); err != nil {
			return nil, err
		}
		if p.Mu == nil {
			p.Mu = mecanum.DefaultParams().Mu
		}
	}
	d := NewDiag(req.Sink)
	srcs, offsets, err := mecanumOffsets(req.Sources, p, true)
	if err != nil {
		return nil, err
	}
	runs, err := mecanumRuns(d, srcs, p.CommandMap, req.Gaps)
	if err != nil {
		return nil, err
	}
	if o.LagAuto && (o.squared() || method != mecanum.LBFGSB) {
		return nil, Usagef("-lag auto goes with the eq8 loss, a constant μ and -method lbfgsb; give -lag a time constant for the others")
	}
	// The fits run on the lagged commands with no lag of their own (a
	// -init file's "tau" would lag them twice); the output records it.
	p0 := p // the start as given, for WorseThanStart
	p.Tau = 0
	var lagLine string
	if o.LagAuto {
		if o.Lag, lagLine, err = mecanumLagSearch(runs, p, cfg, method, hold, req.Fit); err != nil {
			return nil, mecanumHint(err)
		}
	}
	unlagged := runs
	runs = mecanumLagged(runs, o.Lag)
	if o.squared() {
		id, err := mecanumSquared(req, d, p, runs, offsets, o.Friction == "net")
		if err == nil && o.Lag > 0 {
			q := id.Params.(mecanum.Params)
			q.Tau = o.Lag
			id.Params = q
		}
		if err == nil {
			d.Add(WorseThanStart(Mecanum{}, req.Sources, p0, id.Params, req.Gaps)...)
			id.Report.Warnings = d.Warnings
		}
		return id, err
	}
	init := [4]float64(p.Mu)
	cfg.PriorMu = init
	switch o.Grad {
	case "analytic":
		cfg.Engine = mecanum.EngineAnalytic
	case "autodiff":
		cfg.Engine = mecanum.EngineGraph
	}
	f, err := mecanum.NewFit(p, runs, cfg)
	if err != nil {
		return nil, err
	}
	if err := mecanumChecks(d, runs, p, mecanumFiles(req.Sources)); err != nil {
		return nil, err
	}
	res, err := mecanum.Identify(f, mecanum.IdentifyOptions{
		Method: method, Init: init, Seed: 1, Held: hold,
		Settings: req.Fit.WithProgress(func(iter int, loss float64) {
			d.Sink.Progress("identify %s: iteration %d, loss %.6g", method, iter, loss)
		}),
	})
	d.Sink.Done()
	if err != nil {
		return nil, mecanumHint(err)
	}
	out := p
	out.Model = "mecanum"
	out.Mu = res.Mu[:]
	out.Tau = o.Lag
	out.Friction = nil
	grad := "gradient generated from the step definition"
	switch o.Grad {
	case "autodiff":
		grad = "autodiff gradient"
	case "analytic":
		grad = "Algorithm 2 gradient"
	}
	if method != mecanum.LBFGSB {
		grad = "derivative-free"
	}
	if fs := res.FirstStage; fs != nil {
		grad += fmt.Sprintf("; first stage: least squares on the squared terms, %d of the iterations", fs.Iterations)
		if res.Linearised {
			grad += "; then L1 Gauss–Newton on eq. 8 with the rollout linearised"
		}
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
	} else {
		// The fixed start poses carry the first camera sample's noise.
		sth := mecanumHeadingNoise(runs)
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
	switch {
	case o.LagAuto:
		ps = append(ps, fit.Param{Name: "tau", Unit: "s", Value: o.Lag, Std: math.NaN(), StdReason: "chosen by a golden-section search of the loss (" + lagLine + "): no σ", Lower: 0, Upper: 1})
	case o.Lag > 0:
		ps = append(ps, fit.Param{Name: "tau", Unit: "s", Value: o.Lag, Lower: 0, Upper: mecanum.MaxTau, Held: true})
	}
	d.Add(fit.OnBound(ps)...)
	// The residual against the camera noise the log itself shows: far above
	// it, the answer is a wrong optimum or the model (or the units) do not
	// match, whatever the optimiser says.
	if cn := f.CameraNoise(); res.Ident.Noise > mecanumResidualWarnFactor*cn && res.Ident.Noise > 1e-3 {
		d.Add(fit.Warnf("", "mecanum identify: the residual (%.3g m RMS) is %.0f× the camera noise the log shows (%.2g m): the fit is probably a wrong local optimum, or the model or the units (mm? degrees? rpm?) do not match the log",
			res.Ident.Noise, res.Ident.Noise/cn, cn))
	}
	s := fit.Report{
		Model: "mecanum", Method: fmt.Sprintf("%s (%s)", method, grad),
		Data:        fmt.Sprintf("%d run(s), %d parameters (μ and %s start poses)", f.Runs(), f.Dim(), o.Pose),
		Params:      ps,
		Residual:    fit.Residual{Name: "camera position", Unit: "m", RMS: rms},
		Status:      fit.NewStatus(method, res.Opt),
		Evaluations: res.Opt.FuncEvaluations, Elapsed: res.Wall,
		Lines: append(offsets, fmt.Sprintf("loss %.6g, camera position residual RMS %.3g m", res.Opt.F, rms),
			sigmaNote),
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
	d.Add(WorseThanStart(Mecanum{}, req.Sources, p0, out, req.Gaps)...)
	outcome := &Identified{Params: out}
	if req.Fit.Settled(res.Opt) { // unconverged: the Outcome says so
		outcome.Refused = d.Keep(fit.CheckDetermined(ps, req.AllowUndetermined, "hold one of them with -fix (e.g. -fix mu1), add runs with other commands, or use -prior"))
	}
	outcome.Outcome = d.Keep(req.Fit.Check("mecanum identify ("+method+")", res.Opt))
	s.Warnings = d.Warnings
	outcome.Report = s
	if req.Plot {
		outcome.Figure = MecanumFitFigure(f, unlagged, res, out)
	}
	return outcome, nil
}

// mecanumLagged is the runs with their commands through the lag tau
// (mecanum.Run.Lagged; tau 0: the runs).
func mecanumLagged(runs []mecanum.Run, tau float64) []mecanum.Run {
	if !(tau > 0) {
		return runs
	}
	out := make([]mecanum.Run, len(runs))
	for i, r := range runs {
		out[i] = r.Lagged(tau)
	}
	return out
}

// mecanumLagSearch chooses the lag τ in (0, 1] s that minimises the eq. 8
// fit's loss over μ (and the start poses) by a golden-section search of 12
// fits (the loss is unimodal in τ on the logs tried; a wrong bracket ends
// on its edge, which the line returned says). It returns τ and a line on
// the search.
func mecanumLagSearch(runs []mecanum.Run, p mecanum.Params, cfg mecanum.Config, method string, hold [4]bool, s fit.Settings) (float64, string, error) {
	loss := func(tau float64) (float64, error) {
		f, err := mecanum.NewFit(p, mecanumLagged(runs, tau), cfg)
		if err != nil {
			return 0, err
		}
		res, err := mecanum.Identify(f, mecanum.IdentifyOptions{Method: method, Init: [4]float64(p.Mu), Seed: 1, Held: hold, Settings: s.WithProgress(nil)})
		if err != nil {
			return 0, err
		}
		return res.Opt.F, nil
	}
	const lo, hi, n = 1e-3, 1.0, 12
	g := (math.Sqrt(5) - 1) / 2
	a, b := lo, hi
	c, e := b-g*(b-a), a+g*(b-a)
	fc, err := loss(c)
	if err != nil {
		return 0, "", err
	}
	fe, err := loss(e)
	if err != nil {
		return 0, "", err
	}
	for range n - 2 {
		if fc <= fe {
			b, e, fe = e, c, fc
			c = b - g*(b-a)
			if fc, err = loss(c); err != nil {
				return 0, "", err
			}
		} else {
			a, c, fc = c, e, fe
			e = a + g*(b-a)
			if fe, err = loss(e); err != nil {
				return 0, "", err
			}
		}
	}
	tau, f := c, fc
	if fe < fc {
		tau, f = e, fe
	}
	return tau, fmt.Sprintf("%d fits over [%g, %g] s, bracket [%.3g, %.3g] s, loss %.6g", n, lo, hi, a, b, f), nil
}

// mecanumResidualWarnFactor is how far above the camera noise a fit's
// residual may lie before identify warns. On the synthetic logs of
// experiments/mecanum-long (σ = 3 mm) good fits leave 3.03–3.06 mm, about
// 1×; the wrong optima of long logs 0.44–3.8 m, 150× and more.
const mecanumResidualWarnFactor = 5

// mecanumHint adds the likely causes to a numerical failure of the
// optimiser (a NaN or Inf loss).
func mecanumHint(err error) error {
	s := err.Error()
	if strings.Contains(s, "NaN") || strings.Contains(s, "Inf") || strings.Contains(s, "not finite") {
		return fmt.Errorf("%w — the model blew up: usually inputs in the wrong units (rpm or deg/s for rad/s, mm for m, ms for s, joystick commands not normalised to [-1, 1]) or a start point in -init far from plausible values", err)
	}
	return err
}

// mecanumChecks compares the logs with the friction-free prediction (units
// and scale) and refuses a log without motion.
func mecanumChecks(d *Diag, runs []mecanum.Run, p mecanum.Params, file string) error {
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
	if wmax < 1e-9 {
		return fit.NoMotion(file, "every commanded wheel speed w1..w4 is zero")
	}
	if cams >= 2 && md < 1e-3 && mt < 1e-3 {
		return fit.NoMotion(file, "the camera poses x, y, theta do not move")
	}
	if wmax > 200 {
		d.Add(fit.Warnf(file, "commanded wheel speeds reach %.4g rad/s: are w1..w4 in rpm or deg/s? (FORMATS.md: rad/s)", wmax))
	}
	d.Add(fit.Scale(file, "distance travelled", md, pd,
		"are x, y in mm or cm (FORMATS.md: m), or w1..w4 too small?",
		"are w1..w4 in rpm or deg/s instead of rad/s, t in ms instead of s, or x, y in km?")...)
	if pt > 0.5 {
		d.Add(fit.Scale(file, "heading change", mt, pt,
			"is theta in degrees? (FORMATS.md: radians)",
			"are w1..w4 in rpm or deg/s instead of rad/s, or t in ms?")...)
	} else if hn := mecanumHeadingNoise(runs); hn > 0.1 {
		d.Add(fit.Warnf(file, "theta scatters by %.3g rad from sample to sample: is theta in degrees? (FORMATS.md: radians)", hn))
	}
	return nil
}

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

// mecanumHeadingNoise estimates the heading noise (rad) of the camera
// samples (fit.AngleNoise), averaged over the runs; 0 when no run has three.
func mecanumHeadingNoise(runs []mecanum.Run) float64 {
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

// mecanumDecays are the friction network's candidate weight decays.
func mecanumDecays() []float64 { return []float64{0.1, 1, 10} }

// mecanumSquared identifies with NetFit's squared-error loss: one constant
// μ (-loss squared) or the friction network (-friction net).
func mecanumSquared(req IdentifyRequest, d *Diag, p mecanum.Params, runs []mecanum.Run, offsets []string, net bool) (*Identified, error) {
	init := [4]float64(p.Mu)
	start := time.Now()
	out := p
	out.Model = "mecanum"
	prog := func(stage string) func(int, float64) {
		return func(iter int, loss float64) {
			d.Sink.Progress("identify %s: iteration %d, loss %.6g", stage, iter, loss)
		}
	}
	s := fit.Report{Model: "mecanum", Lines: offsets}
	var x []float64
	var nf *mecanum.NetFit
	outcome := &Identified{}
	if net {
		r, err := mecanum.TrainNet(p, runs, mecanum.NetOptions{Init: init, Seed: 1, Decays: mecanumDecays(), LeaveOneOut: true,
			OnIteration: func(stage string, iter int, loss float64) { prog(stage)(iter, loss) }})
		d.Sink.Done()
		if err != nil {
			return nil, err
		}
		if nf, err = mecanum.NewNetFit(p, runs, mecanum.NetHidden, r.Decay); err != nil {
			return nil, err
		}
		x = r.X
		out.Mu, out.Friction = nil, r.Net
		s.Method = "lbfgsb (friction network, stages)"
		s.Data = fmt.Sprintf("%d run(s), friction network %d-%d-4 trained jointly, start poses free", len(runs), 4, mecanum.NetHidden)
		s.Lines = append(s.Lines, fmt.Sprintf("friction network %d-%d-4 trained jointly over %d run(s), start poses free; %d L-BFGS-B iterations in all stages",
			4, mecanum.NetHidden, len(runs), r.Iterations))
		if len(r.HeldOut) == 0 {
			s.Lines = append(s.Lines, fmt.Sprintf("fewer than 3 distinct commands: no held-out check; weight decay %g", r.Decay))
		} else {
			s.Lines = append(s.Lines, fmt.Sprintf("held-out check (runs %v, their start poses fitted): position RMS %s for weight decay %s; one constant μ: %.4f m; decay %g chosen",
				r.HeldOut, mecanumMetres(r.ValNet), mecanumFloats(mecanumDecays()), r.ValConst, r.Decay))
			if r.Overfits {
				d.Add(fit.Warnf("", "mecanum identify: no network predicted the held-out commands better than one constant μ: the runs do not support a network (use -friction constant, or record more distinct commands)"))
			}
		}
		s.Lines = append(s.Lines, fmt.Sprintf("constant μ over the same runs for comparison: %.4f %.4f %.4f %.4f", r.ConstMu[0], r.ConstMu[1], r.ConstMu[2], r.ConstMu[3]))
		s.Lines = append(s.Lines, mecanumNetLines(r)...)
		s.HeldOut = mecanumLOCO(r)
		s.Notes = append(s.Notes, fmt.Sprintf("the network's %d weights are in the parameter file (friction_net); no σ is computed for them", nf.NetWeights()))
	} else {
		mu, r, f, err := mecanum.IdentifySquared(p, runs, init, false, req.Fit.WithProgress(prog("squared loss")))
		d.Sink.Done()
		if err != nil {
			return nil, mecanumHint(err)
		}
		nf, x = f, r.X
		out.Mu, out.Friction = mu[:], nil
		lo, hi := p.Bounds()
		std, infl, null, why := mecanumSquaredStd(nf, runs, x, r.Opt.X)
		for j, n := range mecanumNames {
			s.Params = append(s.Params, fit.Param{Name: n, Value: mu[j], Std: std[j], StdReason: why, Lower: lo, Upper: hi})
		}
		s.Null = null
		d.Add(fit.OnBound(s.Params)...)
		if why == "" {
			s.Lines = append(s.Lines, fmt.Sprintf("σ: Gauss–Newton over μ and the start poses × %.3g for residuals correlated in time (lag-1 autocorrelation of the camera residuals)", infl))
		}
		for _, u := range null {
			s.Notes = append(s.Notes, "NOT determined: "+u.Text+" can change without changing the predicted trajectories")
		}
		if req.Fit.Settled(r.Opt) {
			outcome.Refused = d.Keep(fit.CheckDetermined(s.Params, req.AllowUndetermined, "add runs with other commands"))
		}
		s.Method = "least-squares (squared position and marker errors)"
		s.Data = fmt.Sprintf("%d run(s), %d parameters (μ and free start poses)", len(runs), f.Dim())
		s.Status = fit.NewStatus("least-squares", r.Opt)
		s.Evaluations = r.Opt.FuncEvaluations
		s.Lines = append(s.Lines, fmt.Sprintf("squared position and marker errors, μ and free start poses: %d least-squares iterations, %d evaluations, %v",
			r.Opt.Iterations, r.Opt.FuncEvaluations, r.Opt.Status))
		outcome.Outcome = d.Keep(req.Fit.Check("mecanum identify (squared loss)", r.Opt))
	}
	var ss float64
	for i := range runs {
		e := nf.RMS(x, i)
		ss += e * e
	}
	rms := math.Sqrt(ss / float64(len(runs)))
	s.Residual = fit.Residual{Name: "camera position (RMS of the runs' RMS)", Unit: "m", RMS: rms}
	s.Lines = append(s.Lines, fmt.Sprintf("position RMS over the runs' camera samples: %.4f m", rms))
	s.Elapsed = time.Since(start)
	s.Warnings = d.Warnings
	outcome.Report, outcome.Params = s, out
	if req.Plot {
		outcome.Figure = mecanumSquaredFigure(nf, runs, x)
	}
	return outcome, nil
}

// mecanumSquaredStd is the σ of μ of a squared-loss fit (SquaredLS.Ident
// at the solver's xls, start poses included), inflated for residuals
// correlated in time as the eq. 8 fit's (fit.CorrelationInflation of each
// run's x and y camera residuals at NetFit's x), the null directions that
// move μ, and, where σ cannot be computed, why (σ NaN).
func mecanumSquaredStd(nf *mecanum.NetFit, runs []mecanum.Run, x, xls []float64) (std [4]float64, infl float64, null []fit.Direction, why string) {
	for j := range std {
		std[j] = math.NaN()
	}
	ls, err := nf.SquaredLS()
	if err != nil {
		return std, 1, nil, err.Error()
	}
	id, err := ls.Ident(xls)
	if err != nil {
		return std, 1, nil, err.Error()
	}
	var series [][]float64
	for i := range runs {
		r := &runs[i]
		px, py := nf.Predict(x, i) // rows from the first camera pose on
		cam := r.Camera()
		if len(cam) == 0 {
			continue
		}
		ex, ey := make([]float64, len(cam)), make([]float64, len(cam))
		for j, k := range cam {
			if k-cam[0] < len(px) {
				ex[j], ey[j] = px[k-cam[0]]-r.X[k], py[k-cam[0]]-r.Y[k]
			} else {
				ex[j], ey[j] = math.NaN(), math.NaN()
			}
		}
		series = append(series, ex, ey)
	}
	infl, _ = fit.CorrelationInflation(series)
	for j := range std {
		std[j] = infl * id.Std[j]
	}
	for _, u := range id.Null {
		if math.Abs(u.Coef[0])+math.Abs(u.Coef[1])+math.Abs(u.Coef[2])+math.Abs(u.Coef[3]) > 0.05 {
			null = append(null, u)
		}
	}
	return std, infl, null, ""
}

// mecanumNetLines are the summary lines of the per-command fits the
// network starts from and of the leave-one-command-out report.
func mecanumNetLines(r *mecanum.NetReport) []string {
	l := []string{fmt.Sprintf("position RMS over the runs: network %.4f m, one constant μ per command %.4f m (network / per-command %.2f; the network starts from these fits), one constant μ %.4f m",
		r.NetRMS, r.PerCommandRMS, r.NetRMS/r.PerCommandRMS, r.ConstRMS)}
	h := mecanumLOCO(r)
	if h == nil {
		return append(l, "leave-one-command-out: fewer than 2 distinct commands, nothing to leave out")
	}
	m, b, wins := h.Means()
	l = append(l, fmt.Sprintf("leave-one-command-out (each command's runs predicted, start poses fitted, by the network trained without them at decay %g and by one constant μ fitted without them): network %.4f m, constant μ %.4f m on average; the network better for %d of %d commands",
		r.Decay, m, b, wins, len(h.Groups)))
	for _, g := range h.Groups {
		l = append(l, fmt.Sprintf("  left out %s (runs %s): network %.4f m, constant μ %.4f m", g.Name, strings.Join(g.Runs, " "), g.Model, g.Baseline))
	}
	return l
}

// mecanumLOCO is the network's leave-one-command-out report as a
// fit.HeldOut (nil without one).
func mecanumLOCO(r *mecanum.NetReport) *fit.HeldOut {
	if len(r.LOCO) == 0 {
		return nil
	}
	h := &fit.HeldOut{Method: "leave-one-command-out", Model: "friction network", Baseline: "constant μ", Unit: "m"}
	for _, l := range r.LOCO {
		h.Groups = append(h.Groups, fit.HeldOutGroup{Name: fmt.Sprintf("[%g %g %g %g]", l.Command[0], l.Command[1], l.Command[2], l.Command[3]),
			Runs: l.Runs, Model: l.Net, Baseline: l.Const})
	}
	return h
}

func mecanumMetres(v []float64) string {
	s := ""
	for i, x := range v {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%.4f", x)
	}
	return s + " m"
}

func mecanumFloats(v []float64) string {
	s := ""
	for i, x := range v {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%g", x)
	}
	return s
}

// mecanumSquaredFigure is each run's camera poses and the squared-loss
// fit's prediction.
func mecanumSquaredFigure(nf *mecanum.NetFit, runs []mecanum.Run, x []float64) *Figure {
	var series []Series
	for i := range runs {
		r := &runs[i]
		var gx, gy []float64
		for _, k := range r.Camera() {
			gx, gy = append(gx, r.X[k]), append(gy, r.Y[k])
		}
		px, py := nf.Predict(x, i)
		name := mecanumLegend(i)
		series = append(series,
			Series{Name: name("ground truth (camera)"), X: gx, Y: gy, Points: true, Color: 2},
			Series{Name: name("identified model"), X: px, Y: py, Color: 1})
	}
	return &Figure{Title: "Mecanum identification", XLabel: "x (m)", YLabel: "y (m)", Equal: true, Series: series}
}

// MecanumFitFigure is an identification (mecanum.Identify over f's runs)
// as a figure: every run in its own colour, its camera poses (points), the
// identified model's prediction (line), the friction-free (Uranus, μ = 0)
// prediction (dashed grey), a triangle at each run's start and ticks along
// the robot's forward axis (−sin θ, cos θ) once a second.
func MecanumFitFigure(f *mecanum.Fit, runs []mecanum.Run, res *mecanum.Result, p mecanum.Params) *Figure {
	var ss []Series
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
		col := i + 1 // the palette's i-th colour
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
			Series{Name: uname, X: ux, Y: uy, RGB: color.RGBA{150, 150, 150, 255}, Dashed: true, Width: 1},
			Series{Name: "run " + id + ": camera", X: gx, Y: gy, Points: true, Color: col, Size: 1.4},
			Series{Name: "run " + id + ": identified model", X: x, Y: y, Color: col, Width: 1.2},
			Series{X: ax, Y: ay, Segments: true, Color: col, Width: 1.5})
		if len(gx) > 0 {
			ss = append(ss, Series{X: gx[:1], Y: gy[:1], Points: true, Shape: "triangle", Size: 4, Color: col})
		}
	}
	return &Figure{Title: "Mecanum identification (▲ start, ticks: forward axis once a second)", XLabel: "x (m)", YLabel: "y (m)", Equal: true, Series: ss}
}
