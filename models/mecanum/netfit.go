package mecanum

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/wheelgrad/wheelgrad/opt"
)

// NetFit trains the friction network of §VI (end) jointly over all runs
// through the gradient of the trajectory loss, after the paper's two
// stages (μ per trajectory, then the network on those estimates) give its
// start (TrainNet). With μ = net(ω_s) acting at every row, runs with
// time-varying commands are used as they are. The parameter vector is the network's weights (FrictionNet
// flatten order: W1, b1, W2, b2) followed by the start pose of every run
// (x0 of every run, then y0, then θ0), free as in PoseFree.
//
// The loss is the mean over camera samples of the squared position and
// marker-point errors (marker ℓ ahead on the forward axis, as Config.Heading)
// in units of NetUnit, plus Decay/2 times the squared weights of W1 and W2.
// The loss runs on the step definitions NetModel (the network, once per
// distinct command) and MuModel (eqs. 3–5 with each row's μ) and the
// gradient on their generated reverse passes (netdyn.go), tested against
// the hand-written adjoint it replaced (netfit_ref_test.go) and central
// differences.
type NetFit struct {
	P     Params
	H     int     // hidden units (NetHidden)
	Scale float64 // input scale of the network
	MuMax float64
	Decay float64
	// Delays adds a time offset δ per run (after the start poses), a nuisance
	// with a gradient: camera sample k is compared with the pose δ after its
	// row, p_i + δ·R(θ_i)·v, θ_i + δ·ω_z (the Euler step of eq. 5 continued,
	// exact for 0 ≤ δ < dt_i): what a clock offset of δ between the camera
	// and the commands does. Bounded to ±MaxDelay. With one constant command
	// per run δ trades off against the start pose (a later start along the
	// same path); only command changes (a stop included) determine it. On
	// the real-like recordings, whose robot starts after a dead time but
	// stops at once, the delays ran to their bounds, so the command line
	// uses the motion onset (EstimateOnset) alone.
	Delays bool
	runs   []netRun
	ell    float64
	ncam   int
	dyn    *netDyn // NetModel's rollout over the runs (engine)
}

// InputDecay is the weight decay of the hidden layer W1 relative to that of
// the output layer W2. The output decay pulls the network toward a constant
// μ (W2 = 0); the hidden layer needs only enough to stay bounded, so that
// it can bend μ as sharply as the data ask (|ω_s| has a kink at 0).
var InputDecay = 0.01

// NetUnit is the length unit of NetFit's loss (m): a loss of 1 is a 1-cm
// RMS error.
const NetUnit = 0.01

type netRun struct {
	dt     []float64
	w      [][4]float64
	cam    []int
	gx, gy []float64
	qx, qy []float64
	// the measured heading at cam, its sine and cosine (SquaredLS's
	// anchors: the rollout's θ there is near it)
	th, sth, cth []float64
	pose0        [3]float64
	// scratch of the hand-written reference adjoint (tests: allocated
	// there, at its first use), with each row's index in cmds, the
	// distinct consecutive commands
	cmd        []int
	cmds       [][4]float64
	mu, mub    [][4]float64
	vel, velb  [][3]float64 // body velocities of each distinct command, their adjoints
	hid        [][]float64
	px, py, pt []float64
	sn, cs     []float64
}

// NewNetFit prepares the runs (each with at least three camera poses) for
// a network with h hidden units; the input scale is the largest |ω_s| of
// the runs.
func NewNetFit(p Params, runs []Run, h int, decay float64) (*NetFit, error) {
	if len(runs) == 0 {
		return nil, errors.New("mecanum: no runs to fit")
	}
	if h < 1 {
		return nil, fmt.Errorf("mecanum: %d hidden units", h)
	}
	f := &NetFit{P: p, H: h, MuMax: 2, Decay: decay, ell: p.Lab, runs: make([]netRun, 0, len(runs))}
	for ri := range runs {
		r := &runs[ri]
		if err := r.Check(); err != nil {
			return nil, err
		}
		// r.Camera(), counted first: one allocation
		nc := 0
		for _, v := range r.X {
			if !math.IsNaN(v) {
				nc++
			}
		}
		cam := make([]int, 0, nc)
		for i, v := range r.X {
			if !math.IsNaN(v) {
				cam = append(cam, i)
			}
		}
		if len(cam) < 3 {
			return nil, r.Errorf(0, "x", "run has %d camera poses, identification needs at least 3", len(cam))
		}
		k0, k1 := cam[0], cam[len(cam)-1]
		s := netRun{pose0: [3]float64{r.X[k0], r.Y[k0], r.Theta[k0]}}
		n := k1 - k0 + 1
		s.dt = make([]float64, n)
		s.w = r.W[k0 : k1+1]
		for i := range n {
			if i+1 < n {
				s.dt[i] = r.T[k0+i+1] - r.T[k0+i]
			}
			if i == 0 || s.w[i] != s.w[i-1] {
				// the largest |ω_s| over the distinct commands is that
				// over the rows (a NaN is distinct from itself: kept)
				for _, v := range s.w[i] {
					f.Scale = max(f.Scale, math.Abs(v))
				}
			}
		}
		// the camera rows from k0 on (cam, reused) and the measured points
		// and headings (one block, seven full slices)
		buf := make([]float64, 7*nc)
		part := func(i int) []float64 { return buf[i*nc : (i+1)*nc : (i+1)*nc] }
		s.cam = cam
		s.gx, s.gy, s.qx, s.qy = part(0), part(1), part(2), part(3)
		s.th, s.sth, s.cth = part(4), part(5), part(6)
		for c, k := range cam {
			s.cam[c] = k - k0
			s.gx[c], s.gy[c] = r.X[k], r.Y[k]
			sn, cs := math.Sincos(r.Theta[k])
			s.qx[c], s.qy[c] = r.X[k]-f.ell*sn, r.Y[k]+f.ell*cs
			s.th[c], s.sth[c], s.cth[c] = r.Theta[k], sn, cs
		}
		f.ncam += len(cam)
		f.runs = append(f.runs, s)
	}
	if f.Scale == 0 {
		f.Scale = 1
	}
	return f, nil
}

// NetWeights is the number of network weights in x.
func (f *NetFit) NetWeights() int { return 4*f.H + f.H + 4*f.H + 4 }

// Dim is the length of x.
func (f *NetFit) Dim() int {
	if f.Delays {
		return f.NetWeights() + 4*len(f.runs)
	}
	return f.NetWeights() + 3*len(f.runs)
}

// MaxDelay bounds the time offsets of NetFit.Delays (s).
const MaxDelay = 0.1

// Delay returns run i's time offset δ in x (0 without Delays).
func (f *NetFit) Delay(x []float64, i int) float64 {
	if !f.Delays {
		return 0
	}
	return x[f.NetWeights()+3*len(f.runs)+i]
}

// Net returns the network of x.
func (f *NetFit) Net(x []float64) *FrictionNet {
	n := &FrictionNet{Scale: f.Scale, MuMax: f.MuMax, B1: make([]float64, f.H), B2: make([]float64, 4)}
	for range f.H {
		n.W1 = append(n.W1, make([]float64, 4))
	}
	for range 4 {
		n.W2 = append(n.W2, make([]float64, f.H))
	}
	n.unflatten(x[:f.NetWeights()])
	return n
}

// X0 returns a start: the network's hidden layer from a seeded draw, its
// output layer near zero with biases that give μ = mu on every wheel (e.g. a
// constant-μ identification), and the runs' first camera poses.
func (f *NetFit) X0(mu [4]float64, seed uint64) []float64 {
	n := newNet(f.H, f.Scale, f.MuMax, seed)
	rng := rand.New(rand.NewPCG(seed, 17))
	for o := range 4 {
		for i := range f.H {
			n.W2[o][i] = 0.02 * rng.NormFloat64()
		}
		m := math.Min(math.Max(mu[o], 1e-3), f.MuMax-1e-3) / f.MuMax
		n.B2[o] = math.Log(m / (1 - m))
	}
	x := append(n.flatten(), make([]float64, f.Dim()-f.NetWeights())...)
	nw, b := f.NetWeights(), len(f.runs)
	for i, s := range f.runs {
		x[nw+i], x[nw+b+i], x[nw+2*b+i] = s.pose0[0], s.pose0[1], s.pose0[2]
	}
	return x
}

// NetResult is a trained network.
type NetResult struct {
	Net  *FrictionNet
	X    []float64
	Opt  *opt.Result
	Wall time.Duration
}

// Train minimises the loss with L-BFGS-B from x0 with only the variables
// where free is true (nil: all) changing.
func (f *NetFit) Train(x0 []float64, free []bool, set opt.Settings) (*NetResult, error) {
	start := time.Now()
	n := f.Dim()
	lo, hi := make([]float64, n), make([]float64, n)
	for i := range n {
		lo[i], hi[i] = math.Inf(-1), math.Inf(1)
		if f.Delays && i >= f.NetWeights()+3*len(f.runs) {
			lo[i], hi[i] = -MaxDelay, MaxDelay
		}
		if free != nil && !free[i] {
			lo[i], hi[i] = x0[i], x0[i]
		}
	}
	if set.MaxIterations == 0 {
		set.MaxIterations = 3000
	}
	if set.FunctionTol == 0 {
		set.FunctionTol = 1e-10
	}
	if set.GradientTol == 0 {
		set.GradientTol = 1e-7
	}
	res, err := opt.LBFGSB{}.Minimize(opt.Problem{Objective: f.Eval, Lower: lo, Upper: hi}, x0, set)
	if err != nil {
		return nil, err
	}
	return &NetResult{Net: f.Net(res.X), X: res.X, Opt: res, Wall: time.Since(start)}, nil
}

// IdentifySquared identifies one constant μ and the start poses jointly
// over runs with NetFit's squared-error loss (positions and marker points):
// the network reduced to its output biases, μ = MuMax·σ(b2). It takes far
// fewer iterations than the distance loss of eq. 8 on real-like data
// (README: item 6 of issue 10). Without delays it is solved as bounded
// least squares (opt.LeastSquares, SciPy's 'trf') over μ ∈ [0, MuMax] and
// the start poses with the forward-mode Jacobian of Model (SquaredLS):
// a handful of iterations where L-BFGS-B on the biases took tens, to the
// same optimum. With delays, each run's camera clock offset is fitted too
// (NetFit.Delays), by L-BFGS-B on NetFit's gradient. It returns μ, the
// result (X: the fit's NetFit vector, with b2 = logit(μ/MuMax); Opt.X, for
// the least-squares solve, is SquaredLS's vector) and the fit.
func IdentifySquared(p Params, runs []Run, init [4]float64, delays bool, set opt.Settings) ([4]float64, *NetResult, *NetFit, error) {
	f, err := NewNetFit(p, runs, 1, 0)
	if err != nil {
		return [4]float64{}, nil, nil, err
	}
	f.Delays = delays
	x0 := f.X0(init, 1)
	free := make([]bool, f.Dim())
	for i := 9; i < len(free); i++ {
		free[i] = true
	}
	for i := 5; i < 9; i++ {
		x0[i] = 0
	}
	if set.FunctionTol == 0 {
		set.FunctionTol = DefaultFunctionTol
	}
	if set.GradientTol == 0 {
		set.GradientTol = DefaultGradientTol
	}
	if !delays {
		start := time.Now()
		r, err := identifySquaredLS(f, x0, init, set)
		if err != nil {
			return [4]float64{}, nil, nil, err
		}
		r.Wall = time.Since(start)
		return r.Net.Predict([4]float64{}), r, f, nil
	}
	r, err := f.Train(x0, free, set)
	if err != nil {
		return [4]float64{}, nil, nil, err
	}
	return r.Net.Predict([4]float64{}), r, f, nil
}

// StartPose returns run i's start pose in x.
func (f *NetFit) StartPose(x []float64, i int) [3]float64 {
	nw, b := f.NetWeights(), len(f.runs)
	return [3]float64{x[nw+i], x[nw+b+i], x[nw+2*b+i]}
}
