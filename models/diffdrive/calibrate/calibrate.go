// Package calibrate identifies the six parameters ζ = [c1, c2, α, β, γ, μ]
// of the differential-drive model (package diffdrive) from a log of joystick
// commands and wheel speeds, as in Park, Lee, Kuipers §III-A: overlapping
// segments of N steps (eq. 23) started from measured states (eq. 24), the L1
// velocity loss of eq. 22, positivity bounds, L-BFGS-B, the gradient from
// the fused graph sharded over the cores.
//
// It couples a model with the loss and the optimiser, as package control does
// for paths, so it imports diffdrive, losses, ad, opt and dataset.
package calibrate

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"time"

	G "gorgonia.org/gorgonia"

	"github.com/wheelgrad/wheelgrad/ad"
	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/losses"
	"github.com/wheelgrad/wheelgrad/models/diffdrive"
	"github.com/wheelgrad/wheelgrad/opt"
)

// Coords are the coordinates the optimiser works in.
type Coords int

const (
	// Steady optimises (c1, c2, a, β, g, μ) with α = a·β and γ = g·β/μ, the
	// steady-state coefficients of the authors' deployed code (above the
	// deadband v∞ = a·V − g), each divided by its starting value.
	Steady Coords = iota
	// Scaled optimises ζ divided by its starting value.
	Scaled
	// Raw optimises ζ itself, as the paper's fmincon did.
	Raw
)

func (c Coords) String() string {
	return [...]string{"steady", "scaled", "raw"}[c]
}

// Graph selects how the loss and its gradient are computed.
type Graph int

const (
	// Step is the step-language model (diffdrive.StepLoss: the native
	// rollout and its generated reverse pass) sharded over the cores: the
	// default.
	Step Graph = iota
	// Fused is diffdrive.FusedLoss: one custom node per step, with the
	// hand-written adjoint (the reference).
	Fused
	// Primitive is diffdrive.PrimitiveRollout + losses.SegmentsL1, the
	// reference (about 5× slower).
	Primitive
	// Native is the hand-written diffdrive.Adjoint, without gorgonia, on one
	// core (for comparison).
	Native
)

// Options configure a calibration. The zero value is the paper's setting
// with annealing.
type Options struct {
	N        int     // steps per segment; default 50
	Segments int     // about this many segments (stride chosen); default 3800
	Stride   int     // explicit stride (overrides Segments)
	CW       float64 // c_ω of eq. 22; default 1
	Coords   Coords
	Graph    Graph
	// Anneal lists the smoothing stages (start smooth, end exact), each run
	// to convergence from the previous stage's result; nil selects
	// DefaultAnneal. The last stage should be exact ({0, 0}) for the exact
	// loss of eq. 22.
	Anneal []diffdrive.Smoothing
	// Robust takes the initial states of eq. 24 from a 5-sample running
	// median of the speeds (spikes removed) instead of the raw samples.
	Robust   bool
	Shards   int        // 0: all cores
	Method   opt.Method // nil: opt.LBFGSB{}, with the positivity bounds of eq. 2
	Settings opt.Settings
	// Progress, if set, is called after every optimiser iteration;
	// OnIteration too, with the stage (0, 1, … of the anneal), the
	// iteration and the loss, for a caller that does not import opt.
	Progress    func(stage int, it opt.Iteration)
	OnIteration func(stage, iter int, loss float64)
	// Held ζ_i (c1, c2, α, β, γ, μ) stay at their starting values (the
	// command line's -fix). Holding any works in Scaled coordinates (a
	// bound per ζ_i), whatever Coords says; L-BFGS-B only.
	Held [6]bool
}

// Methods are the optimisers a calibration takes by name (MethodNamed),
// the default first: the command line's -method values.
var Methods = []string{"lbfgsb", "neldermead", "cmaes"}

// MethodNamed returns the optimiser called name, for Options.Method: nil
// for "" and "lbfgsb" (opt.LBFGSB with the positivity bounds of eq. 2, the
// default), opt.NelderMead for "neldermead", opt.CMAES seeded 1 for
// "cmaes" (a calibration is deterministic); another name is an error.
func MethodNamed(name string) (opt.Method, error) {
	switch name {
	case "", "lbfgsb":
		return nil, nil
	case "neldermead":
		return opt.NelderMead{}, nil
	case "cmaes":
		return opt.CMAES{Seed: 1}, nil
	}
	return nil, fmt.Errorf("calibrate: unknown method %q (one of lbfgsb, neldermead, cmaes)", name)
}

// ProgressLine is an Options.Progress that hands each iteration to printf
// as one progress line: "diffdrive: iteration N, loss F, elapsed".
func ProgressLine(printf func(format string, a ...any)) func(stage int, it opt.Iteration) {
	return func(_ int, it opt.Iteration) {
		printf("diffdrive: iteration %d, loss %.6g, %v", it.Iter, it.F, it.Elapsed.Round(time.Millisecond))
	}
}

// DefaultAnneal is the exact model and loss alone. Measured on the 2,250-s
// synthetic log (experiments/diffdrive-calibrate), L-BFGS-B on the exact L1
// loss reaches the same optimum as a smooth start (T = 0.05, Eps = 0.005)
// followed by the exact loss, in about half the iterations: with ~10⁵
// residuals the kinks of |·| and of the clamp are dense and small, and the
// line search copes with them.
var DefaultAnneal = []diffdrive.Smoothing{{}}

// SmoothThenExact is the annealing alternative: friction corner rounded over
// 0.05 m/s² and |·| over 5 mm/s, then the exact model and loss.
var SmoothThenExact = []diffdrive.Smoothing{{T: 0.05, Eps: 0.005}, {}}

// Log is a calibration log: uniformly sampled rows at the model's h.
type Log struct {
	UF, UL, VR, VL []float64
	// Runs, when not nil, are the first rows of separate runs (a traj
	// column): no segment and no derivative crosses from one run into the
	// next. Runs[0] must be 0.
	Runs []int
}

// Result is a calibration's outcome.
type Result struct {
	Params      diffdrive.Params
	Loss        float64 // eq. 22 at Params, exact, over all segments
	MeanAbs     float64 // Loss / (M·N)
	Segments    int
	Stride      int
	Iterations  int
	Evaluations int
	Stages      []*opt.Result
	Runtime     time.Duration // whole calibration, including building the graphs
	Nodes       int           // nodes of the largest shard graph
}

func (o *Options) defaults() {
	if o.N == 0 {
		o.N = 50
	}
	if o.Segments == 0 {
		o.Segments = 3800
	}
	if o.CW == 0 {
		o.CW = 1
	}
	if o.Anneal == nil {
		o.Anneal = DefaultAnneal
	}
	if o.Settings.FunctionTol == 0 {
		// The loss is a sum of ~10⁵ absolute errors; 1e-9 relative is far
		// below what moves the parameters' significant digits.
		o.Settings.FunctionTol = 1e-10
	}
	if o.Settings.GradientTol == 0 {
		o.Settings.GradientTol = 1e-8
	}
}

// Segments builds the Batch of §III-A from a log: starts every Stride rows
// (after the 2 rows the 5-point derivative needs), initial states of eq. 24.
func Segments(lg Log, l, h float64, o Options) (*diffdrive.Batch, int, error) {
	o.defaults()
	n := len(lg.UF)
	if len(lg.UL) != n || len(lg.VR) != n || len(lg.VL) != n {
		return nil, 0, fmt.Errorf("calibrate: the log's columns uf, ul, vr, vl have lengths %d, %d, %d, %d", n, len(lg.UL), len(lg.VR), len(lg.VL))
	}
	stride := o.Stride
	if stride == 0 {
		stride = dataset.StrideFor(n, o.N, 2, o.Segments)
	}
	runs := lg.Runs
	if runs == nil {
		runs = []int{0}
	}
	if runs[0] != 0 {
		return nil, 0, fmt.Errorf("calibrate: Runs[0] = %d, want 0", runs[0])
	}
	var starts []int
	vr, vl := lg.VR, lg.VL
	if o.Robust {
		vr, vl = make([]float64, n), make([]float64, n)
	}
	ar, al := make([]float64, n), make([]float64, n)
	var firstErr error
	for r, a := range runs {
		b := n
		if r+1 < len(runs) {
			b = runs[r+1]
		}
		if b <= a {
			return nil, 0, fmt.Errorf("calibrate: Runs %v are not increasing within %d rows", runs, n)
		}
		st, err := dataset.SegmentStarts(b-a, o.N, stride, 2)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue // a run too short for one segment adds none
		}
		for _, k := range st {
			starts = append(starts, a+k)
		}
		if o.Robust {
			if err := errors.Join(dataset.Median5(vr[a:b], lg.VR[a:b]), dataset.Median5(vl[a:b], lg.VL[a:b])); err != nil {
				return nil, 0, err
			}
		}
		if b-a >= 5 {
			if err := dataset.Derivative5(ar[a:b], vr[a:b], h); err != nil {
				return nil, 0, err
			}
			if err := dataset.Derivative5(al[a:b], vl[a:b], h); err != nil {
				return nil, 0, err
			}
		}
	}
	if len(starts) == 0 {
		return nil, 0, firstErr
	}
	// The measured velocities of eq. 22 stay the raw ones: L1 copes with
	// their spikes; only the initial states are filtered.
	b, err := diffdrive.NewBatch(lg.UF, lg.UL, lg.VR, lg.VL, ar, al, l, starts, o.N)
	if err != nil {
		return nil, 0, err
	}
	if o.Robust {
		for j, k := range starts {
			b.Init[0][j], b.Init[2][j] = vr[k], vl[k]
		}
	}
	return b, stride, nil
}

// objective is L(ζ) with its gradient, for one smoothing.
type objective struct {
	eval   func(z [6]float64, grad []float64) (float64, error)
	set    func(diffdrive.Smoothing) error
	nodes  int
	native *diffdrive.Adjoint
	sm     diffdrive.Smoothing
}

func newObjective(b *diffdrive.Batch, p diffdrive.Params, o Options) (*objective, error) {
	params := []ad.Param{{Name: "zeta", Shape: []int{6}}}
	ob := &objective{}
	switch o.Graph {
	case Native:
		a, err := diffdrive.NewAdjoint(b, p.L, p.H, diffdrive.LossSpec{CW: o.CW})
		if err != nil {
			return nil, err
		}
		ob.native = a
		ob.set = func(s diffdrive.Smoothing) error { ob.sm = s; return nil }
		ob.eval = func(z [6]float64, grad []float64) (float64, error) {
			f, g := a.LossGrad(z, ob.sm)
			copy(grad, g[:])
			return f, nil
		}
		return ob, nil
	case Step:
		return newStepObjective(b, p, o)
	case Fused, Primitive:
	default:
		return nil, fmt.Errorf("calibrate: unknown graph %d", o.Graph)
	}
	sm0 := o.Anneal[0]
	build := func(g *ad.Graph, x []*G.Node, lo, hi int) (*G.Node, error) {
		s, err := g.Input("smooth", []float64{sm0.T, sm0.Eps})
		if err != nil {
			return nil, err
		}
		sb := b.Slice(lo, hi)
		if o.Graph == Fused {
			return diffdrive.FusedLoss(g, x[0], s, sb, p.L, p.H, o.CW)
		}
		var T, eps *G.Node
		smooth := false
		for _, a := range o.Anneal {
			smooth = smooth || a != diffdrive.Smoothing{}
		}
		if smooth {
			// The primitive graph fixes its form when built: a smooth
			// graph cannot be made exact by a zero temperature.
			if o.Anneal[len(o.Anneal)-1] == (diffdrive.Smoothing{}) || o.Anneal[0] == (diffdrive.Smoothing{}) {
				return nil, errors.New("calibrate: the primitive graph cannot anneal to the exact model; use the fused graph")
			}
			T, eps = G.Must(G.Slice(s, G.S(0))), G.Must(G.Slice(s, G.S(1)))
		}
		v, w, err := diffdrive.PrimitiveRollout(g, x[0], T, sb, p.L, p.H)
		if err != nil {
			return nil, err
		}
		vm, wm := diffdrive.MeasuredNodes(g, sb)
		return losses.SegmentsL1(v, w, vm, wm, o.CW, eps)
	}
	sh, err := ad.CompileSharded(params, b.M, o.Shards, build, ad.WithMaxNodes(200000))
	if err != nil {
		return nil, err
	}
	progs, _ := sh.Shards()
	ob.nodes = sh.Nodes()
	ob.set = func(s diffdrive.Smoothing) error {
		for _, p := range progs {
			if err := p.SetInput("smooth", []float64{s.T, s.Eps}); err != nil {
				return err
			}
		}
		return nil
	}
	ob.eval = func(z [6]float64, grad []float64) (float64, error) {
		return sh.ValueAndGradInto(z[:], grad)
	}
	return ob, nil
}

// newStepObjective shards the batch over the cores, one diffdrive.StepLoss
// per shard, run in goroutines and summed in a fixed order.
func newStepObjective(b *diffdrive.Batch, p diffdrive.Params, o Options) (*objective, error) {
	n := o.Shards
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	n = max(1, min(n, b.M))
	parts := make([]*diffdrive.StepLoss, n)
	for i := range n {
		lo, hi := i*b.M/n, (i+1)*b.M/n
		s, err := diffdrive.NewStepLoss(b.Slice(lo, hi), p.L, p.H, diffdrive.LossSpec{CW: o.CW})
		if err != nil {
			return nil, err
		}
		parts[i] = s
	}
	ob := &objective{}
	ob.set = func(s diffdrive.Smoothing) error { ob.sm = s; return nil }
	fs := make([]float64, n)
	gs := make([][6]float64, n)
	errs := make([]error, n)
	ob.eval = func(z [6]float64, grad []float64) (float64, error) {
		var wg sync.WaitGroup
		for i := range parts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				fs[i], gs[i], errs[i] = parts[i].LossGrad(z, ob.sm)
			}()
		}
		wg.Wait()
		var f float64
		clear(grad)
		for i := range parts {
			if errs[i] != nil {
				return 0, errs[i]
			}
			f += fs[i]
			for k := range 6 {
				grad[k] += gs[i][k]
			}
		}
		return f, nil
	}
	return ob, nil
}

// coordinate maps between the optimiser's x and ζ.
type coordinate struct {
	kind Coords
	s0   [6]float64 // starting values of the coordinates (scales)
}

func newCoordinate(kind Coords, p diffdrive.Params) coordinate {
	c := coordinate{kind: kind}
	switch kind {
	case Steady:
		s := p.Steady()
		c.s0 = [6]float64{s.C1, s.C2, s.A, s.Beta, s.G, s.Mu}
	default:
		c.s0 = p.Zeta()
	}
	return c
}

func (c coordinate) x0() []float64 {
	if c.kind == Raw {
		return append([]float64(nil), c.s0[:]...)
	}
	return []float64{1, 1, 1, 1, 1, 1}
}

// zeta returns ζ(x).
func (c coordinate) zeta(x []float64) [6]float64 {
	var s [6]float64
	for i := range s {
		s[i] = x[i]
		if c.kind != Raw {
			s[i] *= c.s0[i]
		}
	}
	if c.kind != Steady {
		return s
	}
	// (c1, c2, a, β, g, μ) → (c1, c2, α = aβ, β, γ = gβ/μ, μ)
	return [6]float64{s[0], s[1], s[2] * s[3], s[3], s[4] * s[3] / s[5], s[5]}
}

// grad maps ∂L/∂ζ to ∂L/∂x (chain rule through zeta).
func (c coordinate) grad(x []float64, gz []float64, gx []float64) {
	copy(gx, gz)
	if c.kind == Steady {
		s := make([]float64, 6)
		for i := range s {
			s[i] = x[i] * c.s0[i]
		}
		a, be, g, mu := s[2], s[3], s[4], s[5]
		gal, gga := gz[2], gz[4]
		gx[2] = gal * be
		gx[3] = gz[3] + gal*a + gga*g/mu
		gx[4] = gga * be / mu
		gx[5] = gz[5] - gga*g*be/(mu*mu)
	}
	if c.kind != Raw {
		for i := range gx {
			gx[i] *= c.s0[i]
		}
	}
}

// Calibrate identifies ζ from the log, starting from init (whose L and H are
// the known constants).
func Calibrate(lg Log, init diffdrive.Params, o Options) (*Result, error) {
	start := time.Now()
	o.defaults()
	if err := init.Validate(); err != nil {
		return nil, fmt.Errorf("calibrate: initial parameters: %w", err)
	}
	b, stride, err := Segments(lg, init.L, init.H, o)
	if err != nil {
		return nil, err
	}
	ob, err := newObjective(b, init, o)
	if err != nil {
		return nil, err
	}
	held := o.Held != [6]bool{}
	if held && o.Method != nil {
		if _, ok := o.Method.(opt.LBFGSB); !ok {
			return nil, fmt.Errorf("calibrate: holding parameters needs L-BFGS-B")
		}
	}
	kind := o.Coords
	if held && kind == Steady {
		kind = Scaled
	}
	co := newCoordinate(kind, init)
	x := co.x0()
	lower, upper := make([]float64, 6), make([]float64, 6)
	for i := range lower {
		// Positivity (eq. 2): a small positive floor, since γ = gβ/μ
		// divides by μ.
		lower[i] = 1e-6 * x[i]
		upper[i] = math.Inf(1)
		if o.Held[i] {
			lower[i], upper[i] = x[i], x[i]
		}
	}
	res := &Result{Segments: b.M, Stride: stride, Nodes: ob.nodes}
	gz := make([]float64, 6)
	for k, sm := range o.Anneal {
		if err := ob.set(sm); err != nil {
			return nil, err
		}
		prob := opt.Problem{
			Objective: func(x, grad []float64) (float64, error) {
				z := co.zeta(x)
				f, err := ob.eval(z, gz)
				if err != nil {
					return 0, err
				}
				if grad != nil {
					co.grad(x, gz, grad)
				}
				return f, nil
			},
			Lower: lower, Upper: upper,
		}
		s := o.Settings
		if o.Progress != nil || o.OnIteration != nil {
			stage := k
			s.Callback = func(it opt.Iteration) bool {
				if o.Progress != nil {
					o.Progress(stage, it)
				}
				if o.OnIteration != nil {
					o.OnIteration(stage, it.Iter, it.F)
				}
				return true
			}
		}
		var m opt.Method = opt.LBFGSB{}
		if o.Method != nil {
			m = o.Method
		}
		r, err := m.Minimize(prob, x, s)
		if err != nil {
			return nil, fmt.Errorf("calibrate: stage %d (T = %g, eps = %g): %w", k+1, sm.T, sm.Eps, err)
		}
		res.Stages = append(res.Stages, r)
		res.Iterations += r.Iterations
		res.Evaluations += r.FuncEvaluations
		x = r.X
	}
	z := co.zeta(x)
	res.Params = init.WithZeta(z)
	if err := ob.set(diffdrive.Smoothing{}); err != nil {
		return nil, err
	}
	last := o.Anneal[len(o.Anneal)-1]
	res.Loss = res.Stages[len(res.Stages)-1].F
	if last != (diffdrive.Smoothing{}) && o.Graph != Primitive {
		if res.Loss, err = ob.eval(z, gz); err != nil {
			return nil, err
		}
	}
	res.MeanAbs = res.Loss / float64(b.M*b.N)
	res.Runtime = time.Since(start)
	return res, nil
}
