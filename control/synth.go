package control

import (
	"errors"
	"fmt"
	"math"

	G "gorgonia.org/gorgonia"

	"github.com/wheelgrad/wheelgrad/ad"
	"github.com/wheelgrad/wheelgrad/graph"
	"github.com/wheelgrad/wheelgrad/opt"
)

// Weights scale the terms of the synthesis loss. Each term is a mean over the
// samples divided by the square of a physical scale, so that a weight of 1
// means "an error of one scale unit costs as much as 1 cm of position error".
type Weights struct {
	Position float64 // scale 1 cm
	Heading  float64 // 2(1 − cos Δθ), scale 0.1 rad; only where the mode sets a heading
	Velocity float64 // world-frame velocity against the path's, scale 2 cm/s (the paper lacked it: overshoot)
	Smooth   float64 // change of each command between consecutive segments, scale 1 rad/s
}

// DefaultWeights are the weights of `wheelgrad follow`.
var DefaultWeights = Weights{Position: 1, Heading: 1, Velocity: 0.1, Smooth: 0.01}

const (
	scalePos     = 0.01
	scaleHeading = 0.1
	scaleVel     = 0.02
	scaleSmooth  = 1.0
)

// Plan is one synthesis problem: drive Model from Start along Path in
// segments of N steps of Dt, commands bounded by ±Wmax.
type Plan struct {
	Model   Drive
	Path    Path
	Heading HeadingMode
	Start   Pose
	K       int     // number of control segments
	N       int     // integration steps per segment
	Dt      float64 // integration step (s)
	Wmax    float64
	Weights Weights
	// T0 is the path time at which the plan starts (MPC re-plans from later
	// times); the plan covers [T0, T0 + K·N·Dt].
	T0 float64
}

// NewPlan sets up the plan for `wheelgrad follow`: K = duration·rate
// segments of N = 1/(rate·dt) steps (which must be a whole number).
func NewPlan(m Drive, p Path, mode HeadingMode, theta0, rate, dt, wmax float64) (*Plan, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if !(rate > 0) || !(dt > 0) || !(wmax > 0) {
		return nil, errors.New("control: rate, dt and wmax must be positive")
	}
	nf := 1 / (rate * dt)
	n := int(math.Round(nf))
	if n < 1 || math.Abs(nf-float64(n)) > 1e-9*nf {
		return nil, fmt.Errorf("control: a control segment (1/rate = %g s) must be a whole number of integration steps (dt = %g s)", 1/rate, dt)
	}
	kf := p.Duration() * rate
	k := int(math.Round(kf))
	if k < 1 || math.Abs(kf-float64(k)) > 1e-9*math.Max(1, kf) {
		return nil, fmt.Errorf("control: the path's duration %g s is not a whole number of control segments at %g per second", p.Duration(), rate)
	}
	return &Plan{Model: m, Path: p, Heading: mode, Start: Pose{Theta: theta0}, K: k, N: n, Dt: dt, Wmax: wmax, Weights: DefaultWeights}, nil
}

// stride is the number of steps between loss samples: twice per segment
// when a segment has an even number of steps, so the path is also held
// between waypoints.
func (p *Plan) stride() int {
	if p.N%2 == 0 {
		return p.N / 2
	}
	return p.N
}

// reference samples the path at the loss sample times of the plan.
func (p *Plan) reference() (*Reference, error) {
	s := p.stride()
	m := p.K * p.N / s
	sh := shifted{Path: p.Path, t0: p.T0, dur: float64(p.K*p.N) * p.Dt}
	return Sample(sh, m, p.Heading, p.Start.Theta)
}

// SegmentReference samples the plan's window of the path at the K+1
// boundaries of its control segments (the waypoints of an initial guess
// or of a waypoint-to-waypoint controller).
func (p *Plan) SegmentReference() (*Reference, error) {
	return Sample(shifted{Path: p.Path, t0: p.T0, dur: float64(p.K*p.N) * p.Dt}, p.K, p.Heading, p.Start.Theta)
}

// shifted is a window [t0, t0+dur] of a path, for receding horizons. Past
// the end of the path it holds the final point (the robot should stop there).
type shifted struct {
	Path
	t0, dur float64
}

func (s shifted) At(t float64) (x, y, vx, vy float64) {
	tt := s.t0 + t
	if tt > s.Path.Duration() {
		x, y, _, _ = s.Path.At(s.Path.Duration())
		return x, y, 0, 0
	}
	return s.Path.At(tt)
}
func (s shifted) Duration() float64 { return s.dur }
func (s shifted) Heading(t float64) (float64, bool) {
	return s.Path.Heading(math.Min(s.t0+t, s.Path.Duration()))
}

// Synthesizer is a compiled synthesis problem: the graph is built once and
// re-used for every evaluation (and, through SetStart, for every MPC re-plan).
type Synthesizer struct {
	plan *Plan
	prog *ad.Program
	ref  *Reference
}

// NewSynthesizer builds and compiles the loss graph of p.
func NewSynthesizer(p *Plan) (*Synthesizer, error) {
	if err := p.Model.Validate(); err != nil {
		return nil, err
	}
	ref, err := p.reference()
	if err != nil {
		return nil, err
	}
	s := &Synthesizer{plan: p, ref: ref}
	params := make([]ad.Param, 4)
	for j := range params {
		params[j] = ad.Param{Name: fmt.Sprintf("w%d", j+1), Shape: []int{p.K}}
	}
	s.prog, err = ad.Compile(params, s.build)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// inputs of the graph that change between re-plans.
func (s *Synthesizer) inputValues() map[string][]float64 {
	p, r := s.plan, s.ref
	steps := p.K * p.N
	fill := func(v float64) []float64 {
		out := make([]float64, steps)
		for i := range out {
			out[i] = v
		}
		return out
	}
	m := len(r.T) - 1 // samples 1..m (sample 0 is the start)
	thMask := make([]float64, m)
	thRef := make([]float64, m)
	for i := range m {
		if !math.IsNaN(r.Theta[i+1]) {
			thMask[i], thRef[i] = 1, r.Theta[i+1]
		}
	}
	return map[string][]float64{
		"x0": fill(p.Start.X), "y0": fill(p.Start.Y), "th0": fill(p.Start.Theta),
		"xr": r.X[1:], "yr": r.Y[1:], "vxr": r.VX[1:], "vyr": r.VY[1:],
		"thr": thRef, "thmask": thMask,
	}
}

func (s *Synthesizer) build(g *ad.Graph, w []*G.Node) (*G.Node, error) {
	p := s.plan
	m := p.Model
	in := map[string]*G.Node{}
	for name, v := range s.inputValues() {
		n, err := g.Input(name, v)
		if err != nil {
			return nil, err
		}
		in[name] = n
	}
	var b errBuilder
	var ws [4]*G.Node
	copy(ws[:], w)
	// Body velocities per segment, then per step.
	bx, by, bz, err := m.BodyGraph(g, ws)
	if err != nil {
		return nil, err
	}
	vx := b.do(graph.Repeat(bx, p.N))
	vy := b.do(graph.Repeat(by, p.N))
	wz := b.do(graph.Repeat(bz, p.N))
	dt := g.Scalar(p.Dt)
	// Heading at the start of each step (exclusive sum: Euler with the angle
	// at the start of the step), and after it.
	thStart := b.do(G.Add(in["th0"], b.do(G.Mul(b.do(graph.CumSum(wz, true)), dt))))
	thEnd := b.do(G.Add(in["th0"], b.do(G.Mul(b.do(graph.CumSum(wz, false)), dt))))
	c, sn := b.do(G.Cos(thStart)), b.do(G.Sin(thStart))
	vwx := b.do(G.Sub(b.do(G.HadamardProd(c, vx)), b.do(G.HadamardProd(sn, vy))))
	vwy := b.do(G.Add(b.do(G.HadamardProd(sn, vx)), b.do(G.HadamardProd(c, vy))))
	x := b.do(G.Add(in["x0"], b.do(G.Mul(b.do(graph.CumSum(vwx, false)), dt))))
	y := b.do(G.Add(in["y0"], b.do(G.Mul(b.do(graph.CumSum(vwy, false)), dt))))
	// Samples after every stride steps.
	st := p.stride()
	pick := func(v *G.Node) *G.Node { return b.do(graph.Pick(v, st, st-1)) }
	xs, ys, ths := pick(x), pick(y), pick(thEnd)
	vxs, vys := pick(vwx), pick(vwy)
	if b.err != nil {
		return nil, b.err
	}
	g.Watch("x", xs)
	g.Watch("y", ys)
	g.Watch("theta", ths)
	nS := float64(len(s.ref.T) - 1)
	mean := func(v *G.Node, scale, weight float64) *G.Node {
		return b.do(G.Mul(b.do(G.Sum(v)), g.Scalar(weight/(nS*scale*scale))))
	}
	sq := func(a, r *G.Node) *G.Node { return b.do(G.Square(b.do(G.Sub(a, r)))) }
	wt := p.Weights
	loss := mean(b.do(G.Add(sq(xs, in["xr"]), sq(ys, in["yr"]))), scalePos, wt.Position)
	if wt.Velocity > 0 {
		loss = b.do(G.Add(loss, mean(b.do(G.Add(sq(vxs, in["vxr"]), sq(vys, in["vyr"]))), scaleVel, wt.Velocity)))
	}
	if wt.Heading > 0 {
		dth := b.do(G.Sub(ths, in["thr"]))
		h := b.do(G.Mul(g.Scalar(2), b.do(G.Sub(g.Scalar(1), b.do(G.Cos(dth))))))
		loss = b.do(G.Add(loss, mean(b.do(G.HadamardProd(h, in["thmask"])), scaleHeading, wt.Heading)))
	}
	if wt.Smooth > 0 && p.K > 1 {
		var acc *G.Node
		for j := range ws {
			d := b.do(G.Sub(b.do(G.Slice(ws[j], G.S(1, p.K))), b.do(G.Slice(ws[j], G.S(0, p.K-1)))))
			t := b.do(G.Sum(b.do(G.Square(d))))
			if acc == nil {
				acc = t
			} else {
				acc = b.do(G.Add(acc, t))
			}
		}
		loss = b.do(G.Add(loss, b.do(G.Mul(acc, g.Scalar(wt.Smooth/(float64(4*(p.K-1))*scaleSmooth*scaleSmooth))))))
	}
	return loss, b.err
}

// errBuilder threads the first error through a chain of gorgonia calls.
type errBuilder struct{ err error }

func (b *errBuilder) do(n *G.Node, err error) *G.Node {
	if b.err != nil {
		return nil
	}
	if err != nil {
		b.err = err
	}
	return n
}

// flatten stores controls (segment-major) as the flat parameter vector
// (wheel-major: w1 over segments, then w2, …).
func flatten(c [][4]float64) []float64 {
	k := len(c)
	x := make([]float64, 4*k)
	for i, ws := range c {
		for j := range ws {
			x[j*k+i] = ws[j]
		}
	}
	return x
}

func unflatten(x []float64) [][4]float64 {
	k := len(x) / 4
	c := make([][4]float64, k)
	for i := range c {
		for j := range 4 {
			c[i][j] = x[j*k+i]
		}
	}
	return c
}

// Loss evaluates the synthesis loss and its gradient with respect to the
// flattened controls (wheel-major).
func (s *Synthesizer) Loss(x, grad []float64) (float64, error) { return s.prog.Eval(x, grad) }

// Nodes is the size of the compiled graph.
func (s *Synthesizer) Nodes() int { return s.prog.Nodes() }

// SetStart moves the plan to start from pose p at path time t0 (MPC).
func (s *Synthesizer) SetStart(p Pose, t0 float64) error {
	s.plan.Start, s.plan.T0 = p, t0
	ref, err := s.plan.reference()
	if err != nil {
		return err
	}
	s.ref = ref
	for name, v := range s.inputValues() {
		if err := s.prog.SetInput(name, v); err != nil {
			return err
		}
	}
	return nil
}

// InitialGuess is the friction-aware inverse kinematics of the reference:
// for each segment, the chord velocity of the path and the turn of the
// desired heading, rotated into the body frame at the segment's mean desired
// heading, through B⁺ and the friction factor; clipped to ±Wmax.
func (s *Synthesizer) InitialGuess() [][4]float64 {
	p := s.plan
	ref, _ := p.SegmentReference()
	segT := float64(p.N) * p.Dt
	c := make([][4]float64, p.K)
	for i := range c {
		dx, dy := ref.X[i+1]-ref.X[i], ref.Y[i+1]-ref.Y[i]
		th0, th1 := ref.Theta[i], ref.Theta[i+1]
		if i == 0 {
			th0 = p.Start.Theta
			dx, dy = ref.X[1]-p.Start.X, ref.Y[1]-p.Start.Y
		}
		if p.Heading == Fixed {
			th0, th1 = p.Start.Theta, p.Start.Theta
		}
		th := (th0 + th1) / 2
		cw, sw := math.Cos(th), math.Sin(th)
		vxw, vyw := dx/segT, dy/segT
		// world → body: vx = c·vxw + s·vyw, vy = −s·vxw + c·vyw
		ws := p.Model.PseudoInverse(cw*vxw+sw*vyw, -sw*vxw+cw*vyw, (th1-th0)/segT)
		for j := range ws {
			ws[j] = math.Max(-p.Wmax, math.Min(p.Wmax, ws[j]))
		}
		c[i] = ws
	}
	return c
}

// Result of a synthesis.
type Result struct {
	Controls [][4]float64 // one row per segment
	Opt      *opt.Result
	Nodes    int
}

// Synthesize minimises the loss from init (nil: InitialGuess) with L-BFGS-B
// under the wheel-speed bounds.
func (s *Synthesizer) Synthesize(init [][4]float64, settings opt.Settings) (*Result, error) {
	p := s.plan
	if init == nil {
		init = s.InitialGuess()
	}
	if len(init) != p.K {
		return nil, fmt.Errorf("control: initial guess has %d segments, the plan %d", len(init), p.K)
	}
	lo := make([]float64, 4*p.K)
	hi := make([]float64, 4*p.K)
	for i := range lo {
		lo[i], hi[i] = -p.Wmax, p.Wmax
	}
	if settings.MaxIterations == 0 {
		settings.MaxIterations = 3000
	}
	if settings.FunctionTol == 0 {
		settings.FunctionTol = 1e-10
	}
	if settings.GradientTol == 0 {
		settings.GradientTol = 1e-6
	}
	if settings.StallIterations == 0 {
		// Stop once 50 iterations gain less than 0.1 %: the loss is scaled so
		// that 1 ≈ 1 cm of position error, and by then the tracking error is
		// far below what the model itself can promise.
		settings.StallIterations, settings.StallTol = 50, 1e-3
	}
	res, err := opt.LBFGSB{}.Minimize(opt.Problem{Objective: s.Loss, Lower: lo, Upper: hi}, flatten(init), settings)
	if err != nil {
		return nil, err
	}
	return &Result{Controls: unflatten(res.X), Opt: res, Nodes: s.prog.Nodes()}, nil
}

// Flatten stores controls (one row per segment) as the flat vector that
// Loss takes (wheel-major: w1 over segments, then w2, …).
func (s *Synthesizer) Flatten(c [][4]float64) []float64 { return flatten(c) }
