package mecanum

import (
	"fmt"

	"github.com/wheelgrad/wheelgrad/dyn"
	"github.com/wheelgrad/wheelgrad/losses"
)

//go:generate env DYN_UPDATE=1 go test -count=1 -run TestGenerated .

// cameraLoss is the identification loss at one camera sample, in the step
// language: the pose predicted for the sample's row comes in as the state,
// the sample and the spline's closest point as inputs, and the step's cost
// is
//
//	wsp·|P − c(P)| + wgt·|P − P_gt| + whd·|Q − Q_gt|
//
// with P = (x, y): the spline term of eq. 7 and the ground-truth term of
// eq. 6 weighted as in eq. 8, plus the marker term of Config.Heading on
// Q = P + ℓ·(−sin θ, cos θ). c(P) = c* + c′·(k·(P − P*)) is the closest
// point found natively at P* = P, whose derivative is zero
// (losses.FixedClosest, k = 0) or the implicit one (losses.ImplicitClosest,
// k = ∂U/∂P). A distance that is exactly zero takes the subgradient 0, as
// Fit.AnalyticGrad does. The K camera samples of a fit are the lanes of one
// step, so a whole loss is one forward and one reverse pass; its state
// adjoint is the adjoint of the predicted poses.
var cameraLoss = dyn.MustDefine(dyn.Spec{
	Name:     "mecanum_camera_loss",
	State:    []string{"x", "y", "theta"},
	Input:    []string{"gx", "gy", "qx", "qy", "cx", "cy", "px", "py", "tx", "ty", "kx", "ky"},
	Settings: []string{"wsp", "wgt", "whd", "ell"},
}, func(s *dyn.Step) {
	x, y, th := s.State("x"), s.State("y"), s.State("theta")
	s.Next("x", x)
	s.Next("y", y)
	s.Next("theta", th)
	zero := s.Const(0)
	dist := func(dx, dy dyn.X) dyn.X {
		d2 := dx.Square().Add(dy.Square())
		return dyn.Where(dyn.Gt(d2, zero), dyn.Sqrt(d2), zero)
	}
	in := s.Input
	// c(P) = c* + c′·(k·(P − P*))
	du := in("kx").Mul(x.Sub(in("px"))).Add(in("ky").Mul(y.Sub(in("py"))))
	cx, cy := in("cx").Add(in("tx").Mul(du)), in("cy").Add(in("ty").Mul(du))
	ell := s.Setting("ell")
	qx, qy := x.Sub(ell.Mul(dyn.Sin(th))), y.Add(ell.Mul(dyn.Cos(th)))
	s.Cost(s.Setting("wgt").Mul(dist(x.Sub(in("gx")), y.Sub(in("gy")))).
		Add(s.Setting("wsp").Mul(dist(x.Sub(cx), y.Sub(cy)))).
		Add(s.Setting("whd").Mul(dist(qx.Sub(in("qx")), qy.Sub(in("qy"))))))
})

// dynFit is the loss of a Fit computed from the step definitions (Model and
// the camera-sample loss above) natively, with the gradient from their
// generated reverse passes: the runs are the lanes of one Model rollout
// (padded with dt = 0 to the longest), the camera samples the lanes of one
// camera-loss step, and the prior is added by hand. It is what Identify
// minimises by default; Fit.AnalyticGrad (Algorithm 2) and the fused graph
// of Fit.compile are the references it is tested against. Not safe for
// concurrent use.
type dynFit struct {
	f    *Fit
	B, T int
	sim  *dyn.Sim // Model over the runs
	cam  *dyn.Sim // cameraLoss over the camera samples
	q    []float64
	x0   []float64 // [3][B]
	u    []float64 // [T][5][B]
	ybar []float64 // [3][T][B] adjoint of the poses (Model's outputs)
	// per camera lane k: the flat index t·B + b of its row in a [T][B]
	// output, and the index of its x in the rollout's states
	// [T+1][3][B] (the pose before row t's step is Model's output at t)
	at, xat      []int
	seg, sample  []int
	lq, lx, lu   []float64
	lxbar        []float64
	pbar, x0bar  []float64
	warm         []losses.Warm // per camera lane: the closest point's memory (nil: none)
	implicitMode bool
}

// newDynFit prepares the dyn objective of f: the rollout's part (Model's
// Sim over the runs and its inputs, the camera lanes). The camera-loss
// part (its Sim, inputs and adjoints, the closest points' memory and the
// poses' adjoint ybar) is built at the first Eval (camera): linearize uses
// the rollout alone.
func (f *Fit) newDynFit() *dynFit { return f.newDynFitFrom(nil) }

// newDynFitFrom is newDynFit with the rollout's buffers (its Sim, inputs
// and lanes) taken from old where the runs have its shape (runs, steps):
// the same dynFit as a fresh one, old's to be used no more.
func (f *Fit) newDynFitFrom(old *dynFit) *dynFit {
	B := len(f.segs)
	T := 0
	K := 0
	for _, s := range f.segs {
		T = max(T, s.n)
		K += len(s.cam)
	}
	d := &dynFit{f: f, B: B, T: T, q: SettingsOf(f.P), implicitMode: f.Cfg.Mode == losses.ImplicitClosest}
	if old != nil && old.B == B && old.T == T {
		d.x0, d.u, d.sim = old.x0, old.u, old.sim
		clear(d.u) // a shorter run's lane stays still (dt = 0) past its end
		d.at, d.xat, d.seg, d.sample = old.at[:0], old.xat[:0], old.seg[:0], old.sample[:0]
	} else {
		d.x0, d.u = make([]float64, 3*B), make([]float64, T*5*B)
		d.at, d.xat = make([]int, 0, K), make([]int, 0, K)
		d.seg, d.sample = make([]int, 0, K), make([]int, 0, K)
	}
	for si, s := range f.segs {
		for i := 0; i < s.n; i++ {
			for j := range 4 {
				d.u[(i*5+j)*B+si] = s.w[i][j]
			}
			d.u[(i*5+4)*B+si] = s.dt[i]
		}
		for k, i := range s.cam {
			if i == 0 && f.Cfg.Pose == PoseFixed {
				continue // the fixed start pose is the sample itself
			}
			d.at, d.xat = append(d.at, i*B+si), append(d.xat, i*3*B+si)
			d.seg, d.sample = append(d.seg, si), append(d.sample, k)
		}
	}
	if d.sim == nil {
		d.sim = Model.NewSim(B, T)
	}
	return d
}

// camera builds the camera-loss part of d (see newDynFit), once (warm
// set to nil afterwards stays nil: no memory).
func (d *dynFit) camera() {
	if d.ybar != nil {
		return
	}
	f, B, T := d.f, d.B, d.T
	K := len(d.at)
	d.ybar = make([]float64, 3*T*B)
	d.pbar, d.x0bar = make([]float64, 4), make([]float64, 3*B)
	d.lq = []float64{f.Cfg.Weights.Spline, f.Cfg.Weights.GroundTruth, f.Cfg.Heading, f.ell}
	d.lx, d.lxbar = make([]float64, 3*K), make([]float64, 3*K)
	d.lu = make([]float64, 12*K)
	d.warm = make([]losses.Warm, K)
	for k := range K {
		s := &f.segs[d.seg[k]]
		j := d.sample[k]
		for c, v := range []float64{s.gx[j], s.gy[j], s.qx[j], s.qy[j]} {
			d.lu[c*K+k] = v
		}
	}
	if K > 0 {
		d.cam = cameraLoss.NewSim(K, 1)
	}
}

// Eval has the signature of opt.Objective: the loss of the Fit (Fit.Loss)
// and, when grad is not nil, its gradient.
func (d *dynFit) Eval(x, grad []float64) (float64, error) {
	f := d.f
	if len(x) != f.Dim() || (grad != nil && len(grad) != f.Dim()) {
		return 0, fmt.Errorf("mecanum: x has %d values, the fit has %d", len(x), f.Dim())
	}
	d.camera()
	B, T := d.B, d.T
	for si := range f.segs {
		p0 := f.pose(x, si)
		for c := range 3 {
			d.x0[c*B+si] = p0[c]
		}
	}
	mu := x[:4]
	if _, err := d.sim.Forward(mu, d.q, d.x0, d.u, nil); err != nil {
		return 0, err
	}
	var L float64
	if d.cam != nil {
		// the predicted camera poses, and the closest points on the spline
		// (a native search: data for the camera-loss step)
		K := len(d.at)
		X := d.sim.X
		for k, m := range d.xat {
			px, py := X[m], X[m+B]
			d.lx[k], d.lx[K+k], d.lx[2*K+k] = px, py, X[m+2*B]
			if f.Cfg.Weights.Spline == 0 {
				continue // no spline term (its inputs stay zero)
			}
			s := &f.segs[d.seg[k]]
			j := d.sample[k]
			var m *losses.Warm
			if d.warm != nil {
				m = &d.warm[k]
			}
			c := s.spline.ClosestWarm(px, py, s.tcam[j], f.Cfg.window(), m)
			d.lu[4*K+k], d.lu[5*K+k] = c.X, c.Y
			if d.implicitMode {
				d.lu[6*K+k], d.lu[7*K+k] = px, py
				d.lu[8*K+k], d.lu[9*K+k] = c.DX, c.DY
				d.lu[10*K+k], d.lu[11*K+k] = c.DParam(px, py)
			}
		}
		l, err := d.cam.Forward(nil, d.lq, d.lx, d.lu, nil)
		if err != nil {
			return 0, err
		}
		L = l
	}
	prior := f.Cfg.Prior
	if prior > 0 {
		for j := range 4 {
			e := mu[j] - f.Cfg.PriorMu[j]
			L += prior * e * e
		}
	}
	if grad == nil {
		return L, nil
	}
	if d.cam != nil {
		K := len(d.at)
		if err := d.cam.Backward(nil, d.lq, d.lu, nil, 1, nil, nil, d.lxbar, nil); err != nil {
			return L, err
		}
		for k, m := range d.at {
			for c := range 3 {
				d.ybar[c*T*B+m] = d.lxbar[c*K+k]
			}
		}
	}
	if err := d.sim.Backward(mu, d.q, d.u, d.ybar, 0, nil, d.pbar, d.x0bar, nil); err != nil {
		return L, err
	}
	clear(grad)
	copy(grad[:4], d.pbar)
	if prior > 0 {
		for j := range 4 {
			grad[j] += 2 * prior * (mu[j] - f.Cfg.PriorMu[j])
		}
	}
	if f.Cfg.Pose == PoseFree {
		copy(grad[4:], d.x0bar)
	}
	return L, nil
}
