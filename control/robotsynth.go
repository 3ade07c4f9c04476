package control

import (
	"errors"
	"fmt"
	"math"

	"github.com/wheelgrad/wheelgrad/dyn"
	"github.com/wheelgrad/wheelgrad/opt"
)

// RobotPlan is Plan for any Robot: drive it from Start along Path in K
// segments of N steps of Dt, with the loss conventions of Plan (Weights:
// position, heading, velocity and smoothness terms, samples twice per
// segment when N is even).
type RobotPlan struct {
	Robot   Robot
	Path    Path
	Heading HeadingMode
	Start   Pose // the heading is the robot's (its Heading lane)
	K       int
	N       int
	Dt      float64
	Weights Weights
	T0      float64 // path time at which the plan starts (MPC)
}

// NewRobotPlan sets up the plan of `wheelgrad follow` for r: K =
// duration·rate segments of N = 1/(rate·dt) steps, both whole numbers, and
// dt the robot's own step when it has one (see OnSteps).
func NewRobotPlan(r Robot, p Path, mode HeadingMode, theta0, rate, dt float64) (*RobotPlan, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	if r.Step > 0 && math.Abs(dt-r.Step) > 1e-9*r.Step {
		return nil, fmt.Errorf("control: %s steps by %g s, the plan by %g s", r.Model.Name(), r.Step, dt)
	}
	n, k, err := segments(p.Duration(), rate, dt)
	if err != nil {
		return nil, err
	}
	return &RobotPlan{Robot: r, Path: p, Heading: mode, Start: Pose{Theta: theta0}, K: k, N: n, Dt: dt, Weights: DefaultWeights}, nil
}

func segments(duration, rate, dt float64) (n, k int, err error) {
	if !(rate > 0) || !(dt > 0) || math.IsInf(rate, 0) || math.IsInf(dt, 0) {
		return 0, 0, errors.New("control: rate and dt must be positive")
	}
	nf := 1 / (rate * dt)
	n = int(math.Round(nf))
	if n < 1 || math.Abs(nf-float64(n)) > 1e-9*nf {
		return 0, 0, fmt.Errorf("control: a control segment (1/rate = %g s) must be a whole number of integration steps (dt = %g s)", 1/rate, dt)
	}
	kf := duration * rate
	k = int(math.Round(kf))
	if k < 1 || math.Abs(kf-float64(k)) > 1e-9*math.Max(1, kf) {
		return 0, 0, fmt.Errorf("control: the path's duration %g s is not a whole number of control segments at %g per second", duration, rate)
	}
	return n, k, nil
}

// OnSteps fits a path and a segment rate to a model with a fixed step dt
// (the differential drive's h): a segment becomes the whole number of steps
// nearest 1/rate (at least one), and the path's duration is rounded up to
// a whole number of segments, a circle or figure 8 by running once around
// in the rounded time, another path by holding its end point for the
// extra time. It returns the path and the segment rate to plan with.
func OnSteps(p Path, rate, dt float64) (Path, float64, error) {
	if !(rate > 0) || !(dt > 0) || math.IsInf(rate, 0) || math.IsInf(dt, 0) {
		return nil, 0, errors.New("control: rate and dt must be positive")
	}
	n := max(1, int(math.Round(1/(rate*dt))))
	seg := float64(n) * dt
	k := max(1, int(math.Ceil(p.Duration()/seg-1e-9)))
	d := float64(k) * seg
	switch q := p.(type) {
	case Circle:
		q.T = d
		return q, 1 / seg, nil
	case Figure8:
		q.T = d
		return q, 1 / seg, nil
	}
	if d == p.Duration() {
		return p, 1 / seg, nil
	}
	return shifted{Path: p, dur: d}, 1 / seg, nil
}

func (p *RobotPlan) stride() int {
	if p.N%2 == 0 {
		return p.N / 2
	}
	return p.N
}

// reference samples the path at the loss sample times (m+1 samples over
// the plan, headings converted to the robot's).
func (p *RobotPlan) reference(m int) (*Reference, error) {
	r := p.Robot
	sh := shifted{Path: p.Path, t0: p.T0, dur: float64(p.K*p.N) * p.Dt}
	ref, err := Sample(sh, m, p.Heading, r.toPlanHeading(p.Start.Theta))
	if err != nil {
		return nil, err
	}
	for i, th := range ref.Theta {
		if !math.IsNaN(th) {
			ref.Theta[i] = r.fromPlanHeading(th)
		}
	}
	ref.Theta0 = p.Start.Theta
	return ref, nil
}

// RobotSynthesizer evaluates a RobotPlan's loss and its gradient with
// respect to the controls natively: the robot's dyn.Sim rolls the model
// forward, the loss's adjoints enter its outputs, and the model's generated
// reverse pass returns the gradient with respect to every step's inputs,
// summed over each segment. No graph is built. Not safe for concurrent use.
type RobotSynthesizer struct {
	plan *RobotPlan
	l    *lanes
	sim  *dyn.Sim
	ref  *Reference
	x0   []float64
	u    []float64 // [T][U]
	y    []float64 // [NY][T]
	ybar []float64
	xbar []float64 // adjoint of the final state
	ubar []float64
	pbar []float64
}

// NewRobotSynthesizer prepares the loss of p.
func NewRobotSynthesizer(p *RobotPlan) (*RobotSynthesizer, error) {
	l, err := p.Robot.resolve()
	if err != nil {
		return nil, err
	}
	if p.K < 1 || p.N < 1 || !(p.Dt > 0) {
		return nil, fmt.Errorf("control: plan of %d segments of %d steps of %g s", p.K, p.N, p.Dt)
	}
	m := p.Robot.Model
	T := p.K * p.N
	s := &RobotSynthesizer{plan: p, l: l, sim: m.NewSim(1, T),
		y: make([]float64, m.NY()*T), ybar: make([]float64, m.NY()*T), xbar: make([]float64, m.NS()), ubar: make([]float64, m.NU()*T), pbar: make([]float64, m.NP())}
	zero := make([][]float64, p.K)
	for i := range zero {
		zero[i] = make([]float64, len(l.ctl))
	}
	if s.u, err = p.Robot.inputs(l, zero, p.N, p.Dt); err != nil {
		return nil, err
	}
	x0, err := p.Robot.StartState(p.Start)
	if err != nil {
		return nil, err
	}
	if err := s.SetState(x0, p.T0); err != nil {
		return nil, err
	}
	return s, nil
}

// Plan is the synthesizer's plan.
func (s *RobotSynthesizer) Plan() *RobotPlan { return s.plan }

// SetState moves the plan to start from the full state x0 of the robot's
// model (its pose lanes give the start pose) at path time t0 (MPC).
func (s *RobotSynthesizer) SetState(x0 []float64, t0 float64) error {
	p := s.plan
	pose, err := p.Robot.PoseOf(x0)
	if err != nil {
		return err
	}
	for i, v := range x0 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("control: %s: start state %s = %v", p.Robot.Model.Name(), p.Robot.Model.Spec().State[i], v)
		}
	}
	p.Start, p.T0 = pose, t0
	ref, err := p.reference(p.K * p.N / p.stride())
	if err != nil {
		return err
	}
	s.ref, s.x0 = ref, append([]float64(nil), x0...)
	return nil
}

// Len is the number of decision variables: K per control.
func (s *RobotSynthesizer) Len() int { return s.plan.K * len(s.l.ctl) }

// Flatten stores controls (one row per segment) as the flat vector the
// loss takes: control-major (the first control over the segments, then the
// second, …).
func (s *RobotSynthesizer) Flatten(c [][]float64) []float64 {
	k, nc := s.plan.K, len(s.l.ctl)
	x := make([]float64, nc*k)
	for i := range min(k, len(c)) {
		for j := range min(nc, len(c[i])) {
			x[j*k+i] = c[i][j]
		}
	}
	return x
}

// Unflatten is the inverse of Flatten.
func (s *RobotSynthesizer) Unflatten(x []float64) [][]float64 {
	k, nc := s.plan.K, len(s.l.ctl)
	c := make([][]float64, k)
	for i := range c {
		c[i] = make([]float64, nc)
		for j := range nc {
			c[i][j] = x[j*k+i]
		}
	}
	return c
}

// Loss is the synthesis loss at the flat controls x and, when grad is not
// nil, its gradient.
func (s *RobotSynthesizer) Loss(x, grad []float64) (float64, error) {
	f, _, err := s.eval(x, grad)
	return f, err
}

// Terms is the loss at x with its weighted terms (the breakdown of `follow -v`).
func (s *RobotSynthesizer) Terms(x []float64) (float64, Weights, error) { return s.eval(x, nil) }

func (s *RobotSynthesizer) eval(x, grad []float64) (total float64, terms Weights, err error) {
	p, l, r := s.plan, s.l, s.plan.Robot
	K, N, U := p.K, p.N, r.Model.NU()
	T := K * N
	if len(x) != s.Len() || (grad != nil && len(grad) != len(x)) {
		return 0, terms, fmt.Errorf("control: %d controls and %d gradient entries, want %d", len(x), len(grad), s.Len())
	}
	for t := range T {
		i := t / N
		for j, k := range l.ctl {
			s.u[t*U+k] = x[j*K+i]
		}
	}
	if _, err := s.sim.Forward(r.Params, r.Settings, s.x0, s.u, s.y); err != nil {
		return 0, terms, err
	}
	st := p.stride()
	m := T / st
	ref := s.ref
	n := float64(m)
	w := p.Weights
	cPos := w.Position / (n * scalePos * scalePos)
	cVel := w.Velocity / (n * scaleVel * scaleVel)
	cHead := w.Heading / (n * scaleHeading * scaleHeading)
	y, xT := s.y, s.sim.Final()
	yb, xb := s.ybar, s.xbar
	if grad != nil {
		clear(yb)
		clear(xb)
	}
	pose := func(c, t int) float64 { return l.after(y, xT, c, t, T) }
	seed := func(c, t int, v float64) { l.seed(yb, xb, c, t, T, v) }
	for i := 1; i <= m; i++ {
		t := i*st - 1 // the pose after step t is at time (t+1)·dt
		x1, y1 := pose(0, t), pose(1, t)
		dx, dy := x1-ref.X[i], y1-ref.Y[i]
		terms.Position += cPos * (dx*dx + dy*dy)
		// The world velocity of step t: the pose change over dt (for explicit
		// Euler exactly the velocity the step integrates).
		px, py := s.x0[l.x], s.x0[l.y]
		if t > 0 {
			px, py = pose(0, t-1), pose(1, t-1)
		}
		ex := (x1-px)/p.Dt - ref.VX[i]
		ey := (y1-py)/p.Dt - ref.VY[i]
		terms.Velocity += cVel * (ex*ex + ey*ey)
		var hg float64
		if th := ref.Theta[i]; !math.IsNaN(th) {
			d := pose(2, t) - th
			terms.Heading += cHead * 2 * (1 - math.Cos(d))
			hg = cHead * 2 * math.Sin(d)
		}
		if grad != nil {
			seed(0, t, 2*cPos*dx+2*cVel*ex/p.Dt)
			seed(1, t, 2*cPos*dy+2*cVel*ey/p.Dt)
			seed(2, t, hg)
			if t > 0 {
				seed(0, t-1, -2*cVel*ex/p.Dt)
				seed(1, t-1, -2*cVel*ey/p.Dt)
			}
		}
	}
	if grad != nil {
		var xTbar []float64
		if l.atStart {
			xTbar = xb
		}
		if err := s.sim.Backward(r.Params, r.Settings, s.u, yb, 0, xTbar, s.pbar, nil, s.ubar); err != nil {
			return 0, Weights{}, err
		}
		clear(grad)
		for t := range T {
			i := t / N
			for j, k := range l.ctl {
				grad[j*K+i] += s.ubar[t*U+k]
			}
		}
	}
	if K > 1 && w.Smooth > 0 {
		nc := len(l.ctl)
		for j, c := range r.Controls {
			sc := c.Scale
			if sc == 0 {
				sc = 1
			}
			cs := w.Smooth / (float64(nc*(K-1)) * sc * sc)
			for i := 1; i < K; i++ {
				d := x[j*K+i] - x[j*K+i-1]
				terms.Smooth += cs * d * d
				if grad != nil {
					grad[j*K+i] += 2 * cs * d
					grad[j*K+i-1] -= 2 * cs * d
				}
			}
		}
	}
	total = terms.Position + terms.Velocity + terms.Heading + terms.Smooth
	return total, terms, nil
}

// InitialGuess is the robot's steady-state inverse (Robot.Guess) along the
// reference: for each segment, the chord velocity of the path rotated into
// the body frame at the segment's mean desired heading, and the turn of
// the desired heading (or of the direction of travel, where the mode sets
// no heading); clipped to the bounds. Without Guess it is zero (clipped).
func (s *RobotSynthesizer) InitialGuess() [][]float64 {
	p, r := s.plan, s.plan.Robot
	c := make([][]float64, p.K)
	ref, err := p.reference(p.K)
	for i := range c {
		c[i] = make([]float64, len(r.Controls))
		if r.Guess != nil && err == nil {
			segT := float64(p.N) * p.Dt
			x0, y0, th0 := ref.X[i], ref.Y[i], ref.Theta[i]
			if i == 0 {
				x0, y0, th0 = p.Start.X, p.Start.Y, p.Start.Theta
			}
			th1 := ref.Theta[i+1]
			if math.IsNaN(th0) || math.IsNaN(th1) {
				th0, th1 = p.Start.Theta, p.Start.Theta
			}
			if p.Heading == Fixed {
				th0, th1 = p.Start.Theta, p.Start.Theta
			}
			// Forward axis at the mean heading.
			fa := (th0+th1)/2 + r.ForwardAxis
			vx, vy := (ref.X[i+1]-x0)/segT, (ref.Y[i+1]-y0)/segT
			fwd := math.Cos(fa)*vx + math.Sin(fa)*vy
			lat := -math.Sin(fa)*vx + math.Cos(fa)*vy
			if g := r.Guess(fwd, lat, (th1-th0)/segT); len(g) == len(c[i]) {
				copy(c[i], g)
			}
		}
		for j, ct := range r.Controls {
			v := c[i][j]
			if math.IsNaN(v) {
				v = 0
			}
			c[i][j] = math.Max(ct.Lo, math.Min(ct.Hi, v))
		}
	}
	return c
}

// RobotResult is a synthesis: one row of controls per segment.
type RobotResult struct {
	Controls [][]float64
	Opt      *opt.Result
}

// Synthesize minimises the loss from init (nil: InitialGuess) with
// L-BFGS-B under the controls' bounds, with Synthesizer's defaults.
func (s *RobotSynthesizer) Synthesize(init [][]float64, settings opt.Settings) (*RobotResult, error) {
	p, r := s.plan, s.plan.Robot
	if init == nil {
		init = s.InitialGuess()
	}
	if len(init) != p.K {
		return nil, fmt.Errorf("control: initial guess has %d segments, the plan %d", len(init), p.K)
	}
	K := p.K
	lo := make([]float64, s.Len())
	hi := make([]float64, s.Len())
	for j, c := range r.Controls {
		for i := range K {
			lo[j*K+i], hi[j*K+i] = c.Lo, c.Hi
		}
	}
	x0 := s.Flatten(init)
	for i := range x0 {
		x0[i] = math.Max(lo[i], math.Min(hi[i], x0[i]))
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
		settings.StallIterations, settings.StallTol = 50, 1e-3
	}
	res, err := opt.LBFGSB{}.Minimize(opt.Problem{Objective: s.Loss, Lower: lo, Upper: hi}, x0, settings)
	if err != nil {
		return nil, err
	}
	return &RobotResult{Controls: s.Unflatten(res.X), Opt: res}, nil
}
