package mecanum

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/wheelgrad/wheelgrad/losses"
)

// PoseMode says how the start pose of each run enters the fit.
type PoseMode int

const (
	// PoseFree estimates each run's start pose (x0, y0, θ0) together with μ,
	// starting from the first camera pose. The camera's poses are noisy, and
	// a start heading taken from one sample bends the whole prediction (0.01
	// rad is 2 cm over 2 m), which μ would then absorb. Positions alone
	// cannot tell θ0 from the direction of the body velocity, so the fit
	// also compares a marker point ℓ ahead of the robot (Config.Heading),
	// which brings in every camera heading, not just the first.
	PoseFree PoseMode = iota
	// PoseFixed starts each run at its first camera pose, as the paper's
	// Algorithms 1–2 do.
	PoseFixed
)

// Config is the loss of the identification problem.
type Config struct {
	// Weights of eq. 8: w1·L_sp + w2·L_gt.
	Weights losses.Weights
	// Heading is the weight w3 of the marker term w3·Σ_k |q_k − q_gt,k|,
	// q = (x, y) + ℓ·(−sin θ, cos θ) the point ℓ ahead on the forward axis:
	// a wrap-free comparison of headings in metres, like a second tag on the
	// robot. Zero leaves the paper's loss (eq. 8) alone.
	Heading float64
	// Marker is ℓ (m); zero selects Params.Lab.
	Marker float64
	// Mode is the closest-point treatment of the spline term's gradient.
	Mode losses.ClosestMode
	// SplineEvery thins the camera samples to spline knots (losses.Smooth):
	// a knot every SplineEvery samples, smoothed. 0 or 1 interpolates every
	// sample, as the paper does; through noisy samples that curve zig-zags
	// and the spline term gets kinks where the closest point jumps.
	SplineEvery int
	Pose        PoseMode
	// SplineWindow (s), when positive, restricts the spline term's closest
	// point to the part of the path within SplineWindow of the sample's
	// time (losses.Spline.ClosestWithin); 0 searches the whole run. A run
	// no longer than the window is unaffected; on long runs that cross
	// their own path the global search makes the fit's time grow with the
	// square of the run's length, and matches a sample to another lap.
	SplineWindow float64
	// Prior, when positive, adds Prior·Σ_j (μ_j − PriorMu_j)²: a pull toward
	// -init that fixes the directions the data leave undetermined.
	Prior   float64
	PriorMu [4]float64
	// Engine computes Fit.Eval's gradient (the loss is the same; the engines
	// agree to rounding). The zero value is EngineGenerated.
	Engine Engine
}

// Engine is the source of the gradient of Fit.Eval.
type Engine int

const (
	// EngineGenerated is the reverse pass generated from the step
	// definitions (Model and the camera-sample loss, fitdyn.go): the runs
	// are the lanes of one rollout, the camera samples those of one loss
	// step. The default (the command line's -grad generated).
	EngineGenerated Engine = iota
	// EngineAnalytic is the paper's Algorithm 2: native forward
	// sensitivities (eqs. 9–13, Fit.AnalyticGrad).
	EngineAnalytic
	// EngineGraph is gorgonia's autodiff over the fused graph of the whole
	// batch (fused.go: about thirty nodes).
	EngineGraph
	// EnginePrimitive is gorgonia's autodiff over the same loss built from
	// elementwise primitives (graph.go), the reference of EngineGraph.
	EnginePrimitive
)

var engineNames = [...]string{"generated", "analytic", "graph", "primitive"}

func (e Engine) String() string {
	if e >= 0 && int(e) < len(engineNames) {
		return engineNames[e]
	}
	return fmt.Sprintf("Engine(%d)", int(e))
}

// DefaultSplineWindow is DefaultConfig's SplineWindow: 10 s, longer than
// the paper's runs (7 s), so that they keep the global closest point.
const DefaultSplineWindow = 10

// window is the spline search's half-width: +Inf for the whole run.
func (c Config) window() float64 {
	if c.SplineWindow > 0 {
		return c.SplineWindow
	}
	return math.Inf(1)
}

// DefaultConfig is identify's loss: eq. 8 with the paper's weights, the
// start pose estimated, and the marker term at weight 0.2.
func DefaultConfig() Config {
	return Config{Weights: losses.DefaultWeights(), Heading: 0.2, Pose: PoseFree, SplineEvery: 6, SplineWindow: DefaultSplineWindow}
}

// PaperConfig is the paper's loss exactly: eq. 8, start at the first camera
// pose, closest point held constant.
func PaperConfig() Config {
	return Config{Weights: losses.DefaultWeights(), Pose: PoseFixed}
}

// seg is one run prepared for fitting: the rows from its first to its last
// camera pose (earlier and later rows do not reach the loss).
type seg struct {
	run    *Run
	k0     int          // first row of the run used
	n      int          // rows used
	dt     []float64    // step of each row (0 on the last)
	w      [][4]float64 // commands
	cam    []int        // camera rows (relative)
	gx, gy []float64    // camera positions at cam
	gth    []float64    // camera headings at cam
	qx, qy []float64    // camera marker points at cam
	tcam   []float64    // camera times (spline parameter, hints)
	spline *losses.Spline
	pose0  [3]float64 // first camera pose
}

// Fit is the identification problem of §VI over a batch of runs. The
// parameter vector is x = (μ_1..μ_4) followed, with PoseFree, by x0 of every
// run, then y0 of every run, then θ0 of every run.
//
// One Fit is one problem whatever the gradient engine (Config.Engine,
// WithEngine): Eval is the objective for opt, and the engine's state (a dyn
// rollout, a compiled graph) is built at the first Eval. Eval is not safe
// for concurrent use; AnalyticGrad and Loss are.
type Fit struct {
	P    Params
	Cfg  Config
	segs []seg
	ell  float64
	// the engine's objective, built at the first Eval (nil before; err when
	// building it failed)
	obj    func(x, grad []float64) (float64, error)
	objErr error
	// fullSecondStage makes staged search eq. 8 itself (L-BFGS-B on
	// Eval) instead of the linearised model (linearStage): the second
	// stage before it, for the tests and benchmarks that compare them.
	fullSecondStage bool
	// stageLin is the linearisation that Identify's two stages share
	// (stagedTol), for Identify's analysis at the answer; nil outside
	// Identify.
	stageLin *linEq8
}

// NewFit prepares the runs (each needs at least three camera poses, for the
// spline and for a trajectory to compare). p gives the known constants;
// p.Mu is ignored here (it is x's starting point, see X0).
func NewFit(p Params, runs []Run, cfg Config) (*Fit, error) {
	if len(runs) == 0 {
		return nil, errors.New("mecanum: no runs to fit")
	}
	f := &Fit{P: p, Cfg: cfg, ell: cfg.Marker, segs: make([]seg, 0, len(runs))}
	if f.ell == 0 {
		f.ell = p.Lab
	}
	for ri := range runs {
		r := &runs[ri]
		if err := r.Check(); err != nil {
			return nil, err
		}
		cam := r.Camera()
		if len(cam) < 3 {
			col := "x"
			if r.X == nil {
				return nil, r.Errorf(0, "", "run has no x, y, theta columns: identification needs camera poses")
			}
			return nil, r.Errorf(0, col, "run has %d camera poses, identification needs at least 3", len(cam))
		}
		k0, k1 := cam[0], cam[len(cam)-1]
		s := seg{run: r, k0: k0, n: k1 - k0 + 1}
		s.dt = make([]float64, s.n)
		s.w = r.W[k0 : k1+1]
		for i := 0; i+1 < s.n; i++ {
			s.dt[i] = r.T[k0+i+1] - r.T[k0+i]
		}
		nc := len(cam)
		s.cam = make([]int, nc)
		// one allocation for the six per-sample series
		buf := make([]float64, 6*nc)
		s.gx, s.gy, s.gth = buf[:nc:nc], buf[nc:2*nc:2*nc], buf[2*nc:3*nc:3*nc]
		s.qx, s.qy, s.tcam = buf[3*nc:4*nc:4*nc], buf[4*nc:5*nc:5*nc], buf[5*nc:]
		for c, k := range cam {
			s.cam[c] = k - k0
			s.gx[c], s.gy[c], s.gth[c] = r.X[k], r.Y[k], r.Theta[k]
			sn, cs := math.Sincos(r.Theta[k])
			s.qx[c], s.qy[c] = r.X[k]-f.ell*sn, r.Y[k]+f.ell*cs
			s.tcam[c] = r.T[k]
		}
		s.pose0 = [3]float64{r.X[k0], r.Y[k0], r.Theta[k0]}
		sp, err := losses.NewSpline(losses.Smooth(s.tcam, s.gx, s.gy, cfg.SplineEvery))
		if err != nil {
			if c, ratio := widestGap(s.tcam); ratio > 1e6 {
				// a gap the spline's fit cannot span (one bridged by -gaps
				// bridge): the row of the pose after it, not the run's first
				return nil, r.Errorf(cam[c], "t", "a time gap of %.6g s before this camera pose (%.3g× the median step) breaks the spline of eq. 7 through the poses (%v): split the run there (-gaps split) or cut the log", s.tcam[c]-s.tcam[c-1], ratio, err)
			}
			return nil, r.Errorf(k0, "x", "%v", err)
		}
		s.spline = sp
		f.segs = append(f.segs, s)
	}
	return f, nil
}

// widestGap returns the index c of the widest step t[c] − t[c−1] of the
// increasing times t (at least two) and its ratio to their median step.
func widestGap(t []float64) (c int, ratio float64) {
	d := make([]float64, len(t)-1)
	for i := range d {
		d[i] = t[i+1] - t[i]
		if d[i] > d[c] {
			c = i
		}
	}
	w := d[c]
	slices.Sort(d)
	return c + 1, w / d[len(d)/2]
}

// Runs is the number of runs in the fit.
func (f *Fit) Runs() int { return len(f.segs) }

// Dim is the length of the parameter vector.
func (f *Fit) Dim() int {
	if f.Cfg.Pose == PoseFree {
		return 4 + 3*len(f.segs)
	}
	return 4
}

// X0 returns a starting vector: mu and the runs' first camera poses.
func (f *Fit) X0(mu [4]float64) []float64 {
	x := make([]float64, f.Dim())
	copy(x, mu[:])
	if f.Cfg.Pose == PoseFree {
		b := len(f.segs)
		for i, s := range f.segs {
			x[4+i], x[4+b+i], x[4+2*b+i] = s.pose0[0], s.pose0[1], s.pose0[2]
		}
	}
	return x
}

// pose returns the start pose of run i under x.
func (f *Fit) pose(x []float64, i int) [3]float64 {
	if f.Cfg.Pose == PoseFree {
		b := len(f.segs)
		return [3]float64{x[4+i], x[4+b+i], x[4+2*b+i]}
	}
	return f.segs[i].pose0
}

// Loss is the native loss (value only).
func (f *Fit) Loss(x []float64) float64 { return f.eval(x, nil, nil) }

// AnalyticGrad is the paper's Algorithm 2 as a native forward-sensitivity
// recursion (eqs. 9–13) extended to the start pose and the marker term: it
// writes ∇L into grad and returns L. It follows eqs. 11–13, which differ from
// the printed Algorithm 2 in two places: line 10 must read (v_x·c − v_y·s)
// (eq. 12; the listing has +), and the loss at step i uses the sensitivities
// of the pose before step i's update, as the listing's position p does (the
// listing updates J first, one step ahead of p).
func (f *Fit) AnalyticGrad(x, grad []float64) float64 {
	clear(grad)
	return f.eval(x, grad, nil)
}

// Eval has the signature of opt.Objective: the loss and, when grad is not
// nil, its gradient from f.Cfg.Engine. A graph engine's compile error is
// returned by every Eval.
func (f *Fit) Eval(x, grad []float64) (float64, error) {
	if len(x) != f.Dim() || (grad != nil && len(grad) != f.Dim()) {
		return 0, fmt.Errorf("mecanum: x has %d values, the fit has %d", len(x), f.Dim())
	}
	if f.obj == nil && f.objErr == nil {
		f.obj, f.objErr = f.engine()
	}
	if f.objErr != nil {
		return 0, f.objErr
	}
	return f.obj(x, grad)
}

// engine builds the objective of f.Cfg.Engine.
func (f *Fit) engine() (func(x, grad []float64) (float64, error), error) {
	switch f.Cfg.Engine {
	case EngineGenerated:
		return f.newDynFit().Eval, nil
	case EngineAnalytic:
		return func(x, grad []float64) (float64, error) {
			if grad == nil {
				return f.Loss(x), nil
			}
			return f.AnalyticGrad(x, grad), nil
		}, nil
	case EngineGraph, EnginePrimitive:
		compile := f.compile
		if f.Cfg.Engine == EnginePrimitive {
			compile = f.compilePrimitive
		}
		gf, err := compile()
		if err != nil {
			return nil, err
		}
		return gf.Eval, nil
	}
	return nil, fmt.Errorf("mecanum: unknown gradient engine %v", f.Cfg.Engine)
}

// WithEngine returns the same problem (sharing f's prepared runs) with the
// gradient engine e.
func (f *Fit) WithEngine(e Engine) *Fit {
	g := &Fit{P: f.P, Cfg: f.Cfg, segs: f.segs, ell: f.ell}
	g.Cfg.Engine = e
	return g
}

// jacRow receives, for each camera row counted in the loss, the residual
// vectors of position and marker (x, y, qx, qy) and their derivatives with
// respect to μ and to the run's own start pose (x0, y0, θ0; zero without
// PoseFree), for the identifiability analysis: the Jacobian's nonzero
// blocks, never a dense row of length Dim.
//
// sp is the spline term at the sample: the unit normal from the closest
// point to the predicted position, and the distance (zero without the term
// or at distance zero).
type jacRow func(run, k int, r [4]float64, sp [3]float64, dmu [4][4]float64, dpose [4][3]float64)

func (f *Fit) eval(x, grad []float64, jac jacRow) float64 { return f.evalAs(x, grad, jac, false, nil) }

// evalAs is eval; with squared (grad must be nil) the loss sums ½·w·d²
// over the terms instead of w·d, and ½·Prior·(μ_j − PriorMu_j)²: the
// objective of the first stage of Identify (squaredStage). warm, when not
// nil, holds a closest-point memory per run and camera sample
// (newWarm): the same answers, found faster when the predicted points
// moved little since the last call (losses.Spline.ClosestWarm).
func (f *Fit) evalAs(x, grad []float64, jac jacRow, squared bool, warm [][]losses.Warm) float64 {
	B := f.P.BMatrix()
	K := f.P.K()
	mu := [4]float64(x[:4])
	free := f.Cfg.Pose == PoseFree
	nb := len(f.segs)
	var L float64
	for si := range f.segs {
		s := &f.segs[si]
		p0 := f.pose(x, si)
		px, py, th := p0[0], p0[1], p0[2]
		var J [3][4]float64 // ∂(x, y, θ)/∂μ_j
		ci := 0
		for i := 0; i < s.n; i++ {
			sn, cs := math.Sincos(th)
			// The fixed start pose is the first sample: distance 0, no gradient.
			if ci < len(s.cam) && s.cam[ci] == i && (i > 0 || free) {
				k := ci
				// residual directions (unit vectors times weights)
				var m *losses.Warm
				if warm != nil {
					m = &warm[si][k]
				}
				dx, dy := px-s.gx[k], py-s.gy[k]
				qx, qy := px-f.ell*sn, py+f.ell*cs
				gp, gq, sp := f.sampleTerms(&L, s, k, px, py, qx-s.qx[k], qy-s.qy[k], squared, m)
				gpx, gpy := gp[0]+gq[0], gp[1]+gq[1]         // ∂L/∂(x, y)
				gth := gq[0]*(-f.ell*cs) + gq[1]*(-f.ell*sn) // ∂L/∂θ (marker term)
				if grad != nil {
					for j := range 4 {
						grad[j] += gpx*J[0][j] + gpy*J[1][j] + gth*J[2][j]
					}
					if free {
						grad[4+si] += gpx
						grad[4+nb+si] += gpy
						grad[4+2*nb+si] += gpx*(-(py - p0[1])) + gpy*(px-p0[0]) + gth
					}
				}
				if jac != nil {
					r := [4]float64{dx, dy, qx - s.qx[k], qy - s.qy[k]}
					var d [4][4]float64
					var dp [4][3]float64
					for j := range 4 {
						d[0][j], d[1][j] = J[0][j], J[1][j]
						d[2][j] = J[0][j] - f.ell*cs*J[2][j]
						d[3][j] = J[1][j] - f.ell*sn*J[2][j]
					}
					if free {
						dp[0][0], dp[1][1] = 1, 1
						dp[2][0], dp[3][1] = 1, 1
						dp[0][2], dp[1][2] = -(py - p0[1]), px-p0[0]
						dp[2][2], dp[3][2] = -(py-p0[1])-f.ell*cs, px-p0[0]-f.ell*sn
					}
					jac(si, k, r, sp, d, dp)
				}
			}
			if ci < len(s.cam) && s.cam[ci] == i {
				ci++
			}
			dt := s.dt[i]
			if dt == 0 {
				continue
			}
			var vx, vy, wz float64
			var dom [4]float64
			for j := range 4 {
				om := s.w[i][j] * (1 - mu[j]*K)
				dom[j] = -s.w[i][j] * K
				vx += B[0][j] * om
				vy += B[1][j] * om
				wz += B[2][j] * om
			}
			if grad != nil || jac != nil {
				a := vx*sn + vy*cs
				b := vx*cs - vy*sn
				for j := range 4 {
					J[0][j] += dt * (dom[j]*(cs*B[0][j]-sn*B[1][j]) - a*J[2][j])
					J[1][j] += dt * (dom[j]*(sn*B[0][j]+cs*B[1][j]) + b*J[2][j])
					J[2][j] += dt * B[2][j] * dom[j]
				}
			}
			px += dt * (cs*vx - sn*vy)
			py += dt * (sn*vx + cs*vy)
			th += dt * wz
		}
	}
	if f.Cfg.Prior > 0 {
		for j := range 4 {
			e := mu[j] - f.Cfg.PriorMu[j]
			if squared {
				L += 0.5 * f.Cfg.Prior * e * e
			} else {
				L += f.Cfg.Prior * e * e
			}
			if grad != nil {
				grad[j] += 2 * f.Cfg.Prior * e
			}
		}
	}
	return L
}

// sampleTerms adds eq. 8's terms at counted camera sample k of run s to
// *L, in this order: the position term of the error p − p_gt, the spline
// term of p (the closest-point search from m; nil: no memory) and the
// marker term of eq = q − q_gt, each w·d (½·w·d² with squared). It
// returns the loss's gradient (of w·d) with respect to p from the first two
// (gp, the closest point held, or moving with ImplicitClosest) and with
// respect to q (gq), and the spline term's unit normal and distance (sp;
// zero without the term or at distance zero). Fit.eval and linEq8 use it.
func (f *Fit) sampleTerms(L *float64, s *seg, k int, px, py, eqx, eqy float64, squared bool, m *losses.Warm) (gp, gq [2]float64, sp [3]float64) {
	w1, w2, w3 := f.Cfg.Weights.Spline, f.Cfg.Weights.GroundTruth, f.Cfg.Heading
	term := func(w, d float64) float64 {
		if squared {
			return 0.5 * w * d * d
		}
		return w * d
	}
	dx, dy := px-s.gx[k], py-s.gy[k]
	if dgt := math.Hypot(dx, dy); dgt > 0 {
		*L += term(w2, dgt)
		gp = [2]float64{w2 * dx / dgt, w2 * dy / dgt}
	}
	if w1 != 0 {
		c := s.spline.ClosestWarm(px, py, s.tcam[k], f.Cfg.window(), m)
		*L += term(w1, c.Dist)
		if c.Dist > 0 {
			ex, ey := (px-c.X)/c.Dist, (py-c.Y)/c.Dist
			sp = [3]float64{ex, ey, c.Dist}
			if f.Cfg.Mode == losses.ImplicitClosest {
				ux, uy := c.DParam(px, py)
				t := ex*c.DX + ey*c.DY
				ex, ey = ex-t*ux, ey-t*uy
			}
			gp[0] += w1 * ex
			gp[1] += w1 * ey
		}
	}
	if w3 != 0 {
		if dq := math.Hypot(eqx, eqy); dq > 0 {
			*L += term(w3, dq)
			gq = [2]float64{w3 * eqx / dq, w3 * eqy / dq}
		}
	}
	return gp, gq, sp
}

// newWarm allocates a closest-point memory per run and camera sample, for
// evalAs.
func (f *Fit) newWarm() [][]losses.Warm {
	w := make([][]losses.Warm, len(f.segs))
	for i, s := range f.segs {
		w[i] = losses.NewWarms(len(s.cam))
	}
	return w
}

// Predict returns, for run i, the poses at every row of the run (as
// Simulate does) from the start pose and μ in x: the fitted trajectory.
func (f *Fit) Predict(x []float64, i int) (px, py, pth []float64) {
	s := &f.segs[i]
	r := *s.run
	p := f.P
	p.Mu = append([]float64(nil), x[:4]...)
	p.Friction = nil
	pose := f.pose(x, i)
	// anchor the run at the fitted start pose
	r.X = make([]float64, r.Len())
	r.Y = make([]float64, r.Len())
	r.Theta = make([]float64, r.Len())
	for k := range r.X {
		r.X[k], r.Y[k], r.Theta[k] = math.NaN(), math.NaN(), math.NaN()
	}
	r.X[s.k0], r.Y[s.k0], r.Theta[s.k0] = pose[0], pose[1], pose[2]
	return Simulate(p, &r)
}
