package mecanum

import (
	"fmt"
	"math"
	"slices"

	"github.com/wheelgrad/wheelgrad/dyn"
)

// netDyn is NetFit's loss on NetModel and MuModel: the network runs once
// per distinct command of the runs (NetModel's lanes), the runs are the
// lanes of one MuModel rollout (padded with dt = 0 to the longest) whose
// rows take their command's μ, the camera residuals and their adjoints are
// computed from its outputs natively, and the gradient comes from the two
// generated reverse passes: MuModel's to the start poses and to every
// row's μ, those summed over the rows of each command, and NetModel's from
// them to the weights.
type netDyn struct {
	B, T, C int
	net     *dyn.Sim // NetModel over the C distinct commands, one step
	sim     *dyn.Sim // MuModel over the runs
	q, qn   []float64
	cmds    []float64 // [4][C] the distinct commands: NetModel's inputs
	cmd     []int     // [T][B] each row's command
	mu, mub []float64 // [4][C] NetModel's outputs and their adjoints
	x0, u   []float64 // [3][B], [T][9][B]
	ubar    []float64 // [T][9][B]
	y, ybar []float64 // [6][T][B]
	pbar    []float64
	x0bar   []float64
	// the outputs of the last rollout were made at x (a copy), for RMS
	// and Predict, which read them run by run
	at []float64
}

// engine returns f's dyn rollout, made on first use.
func (f *NetFit) engine() *netDyn {
	if f.dyn != nil {
		return f.dyn
	}
	B, T := len(f.runs), 0
	for _, s := range f.runs {
		T = max(T, len(s.dt))
	}
	d := &netDyn{B: B, T: T, cmd: make([]int, T*B), x0: make([]float64, 3*B), u: make([]float64, T*9*B), ubar: make([]float64, T*9*B),
		y: make([]float64, 6*T*B), ybar: make([]float64, 6*T*B),
		pbar: make([]float64, f.NetWeights()), x0bar: make([]float64, 3*B), q: SettingsOf(f.P)}
	index := map[[4]float64]int{}
	var cmds [][4]float64
	for b, s := range f.runs {
		for i := range T {
			w := s.w[min(i, len(s.w)-1)] // padding rows (dt = 0) repeat the last command
			c, ok := index[w]
			if !ok {
				c = len(cmds)
				index[w] = c
				cmds = append(cmds, w)
			}
			d.cmd[i*B+b] = c
			for k := range 4 {
				d.u[(i*9+k)*B+b] = w[k]
			}
			if i < len(s.dt) {
				d.u[(i*9+8)*B+b] = s.dt[i]
			}
		}
	}
	d.C = len(cmds)
	d.cmds = make([]float64, 4*d.C)
	for c, w := range cmds {
		for k := range 4 {
			d.cmds[k*d.C+c] = w[k]
		}
	}
	d.mu, d.mub = make([]float64, 4*d.C), make([]float64, 4*d.C)
	d.net = NetModelOf(f.H).NewSim(d.C, 1)
	d.sim = MuModel.NewSim(B, T)
	f.dyn = d
	return d
}

// roll runs NetModel and MuModel at x: the outputs of every run's rows
// into d.y, with the reverse pass's trajectories stored when store is true.
func (f *NetFit) roll(x []float64, store bool) (*netDyn, error) {
	d := f.engine()
	nw, B := f.NetWeights(), d.B
	for b := range B {
		p := f.StartPose(x, b)
		d.x0[b], d.x0[B+b], d.x0[2*B+b] = p[0], p[1], p[2]
	}
	d.qn = netSettings(f.Scale, f.MuMax)
	zero := make([]float64, d.C)
	var err error
	if store {
		_, err = d.net.Forward(x[:nw], d.qn, zero, d.cmds, d.mu)
	} else {
		_, err = d.net.Value(x[:nw], d.qn, zero, d.cmds, d.mu)
	}
	if err == nil {
		for t := range d.T {
			for b, c := range d.cmd[t*B : (t+1)*B] {
				for k := range 4 {
					d.u[(t*9+4+k)*B+b] = d.mu[k*d.C+c]
				}
			}
		}
		if store {
			_, err = d.sim.Forward(nil, d.q, d.x0, d.u, d.y)
		} else {
			_, err = d.sim.Value(nil, d.q, d.x0, d.u, d.y)
		}
	}
	if err != nil {
		d.at = nil
		return nil, fmt.Errorf("mecanum: friction network rollout: %w", err)
	}
	d.at = append(d.at[:0], x...)
	return d, nil
}

// sample returns, for run b's camera sample k at row i, the pose δ after
// the row (NetModel's pose plus δ times its velocity) and that velocity.
func (d *netDyn) sample(b, i int, delta float64) (hx, hy, ht, vx, vy, vt float64) {
	TB := d.T * d.B
	m := i*d.B + b
	vx, vy, vt = d.y[3*TB+m], d.y[4*TB+m], d.y[5*TB+m]
	return d.y[m] + delta*vx, d.y[TB+m] + delta*vy, d.y[2*TB+m] + delta*vt, vx, vy, vt
}

// Eval has the signature of opt.Objective: the loss and, when grad is not
// nil, its gradient, from NetModel's rollout and generated reverse pass
// (tested against the hand-written adjoint it replaced and against central
// differences).
func (f *NetFit) Eval(x, grad []float64) (float64, error) {
	if len(x) != f.Dim() || (grad != nil && len(grad) != f.Dim()) {
		return 0, fmt.Errorf("mecanum: x has %d values, the network fit has %d", len(x), f.Dim())
	}
	d, err := f.roll(x, grad != nil)
	if err != nil {
		return 0, err
	}
	nw, B, TB := f.NetWeights(), d.B, d.T*d.B
	ell := f.ell
	norm := 1 / (NetUnit * NetUnit * float64(f.ncam))
	if grad != nil {
		clear(grad)
		clear(d.ybar)
	}
	var L float64
	for b := range f.runs {
		s := &f.runs[b]
		delta := f.Delay(x, b)
		var db float64
		for k, i := range s.cam {
			hx, hy, ht, vx, vy, vt := d.sample(b, i, delta)
			sn, cs := math.Sincos(ht)
			ex, ey := hx-s.gx[k], hy-s.gy[k]
			qx, qy := hx-ell*sn-s.qx[k], hy+ell*cs-s.qy[k]
			L += norm * (ex*ex + ey*ey + qx*qx + qy*qy)
			if grad == nil {
				continue
			}
			gx, gy := 2*norm*(ex+qx), 2*norm*(ey+qy)
			gt := -2 * norm * ell * (qx*cs + qy*sn)
			m := i*B + b
			d.ybar[m] += gx
			d.ybar[TB+m] += gy
			d.ybar[2*TB+m] += gt
			d.ybar[3*TB+m] += delta * gx
			d.ybar[4*TB+m] += delta * gy
			d.ybar[5*TB+m] += delta * gt
			db += gx*vx + gy*vy + gt*vt
		}
		if grad != nil && f.Delays {
			grad[nw+3*B+b] = db
		}
	}
	if grad != nil {
		if err := d.sim.Backward(nil, d.q, d.u, d.ybar, 0, nil, nil, d.x0bar, d.ubar); err != nil {
			return 0, fmt.Errorf("mecanum: friction network reverse pass: %w", err)
		}
		// each row's μ adjoint to its command's
		clear(d.mub)
		for t := range d.T {
			for b, c := range d.cmd[t*B : (t+1)*B] {
				for k := range 4 {
					d.mub[k*d.C+c] += d.ubar[(t*9+4+k)*B+b]
				}
			}
		}
		if err := d.net.Backward(x[:nw], d.qn, d.cmds, d.mub, 0, nil, d.pbar, nil, nil); err != nil {
			return 0, fmt.Errorf("mecanum: friction network reverse pass: %w", err)
		}
		copy(grad[:nw], d.pbar)
		copy(grad[nw:nw+3*B], d.x0bar) // [3][B]: x0 of every run, y0, θ0, as x
	}
	L += f.decayTerm(x, grad)
	return L, nil
}

// decayTerm adds Decay/2·(InputDecay·|W1|² + |W2|²) and its gradient.
func (f *NetFit) decayTerm(x, grad []float64) float64 {
	if f.Decay <= 0 {
		return 0
	}
	H := f.H
	var L float64
	for _, r := range [][3]float64{{0, float64(4 * H), InputDecay}, {float64(5 * H), float64(9 * H), 1}} {
		w := f.Decay * r[2]
		for i := int(r[0]); i < int(r[1]); i++ {
			L += w / 2 * x[i] * x[i]
			if grad != nil {
				grad[i] += w * x[i]
			}
		}
	}
	return L
}

// outputs returns the rollout's outputs at x, rolling only when the last
// rollout was made at another x.
func (f *NetFit) outputs(x []float64) (*netDyn, error) {
	if f.dyn != nil && f.dyn.at != nil && slices.Equal(f.dyn.at, x) {
		return f.dyn, nil
	}
	return f.roll(x, false)
}

// RMS returns the position RMS error (m) of run i's camera samples under x
// (the marker term left out); NaN if the rollout fails.
func (f *NetFit) RMS(x []float64, i int) float64 {
	d, err := f.outputs(x)
	if err != nil {
		return math.NaN()
	}
	s := &f.runs[i]
	var ss float64
	for k, j := range s.cam {
		hx, hy, _, _, _, _ := d.sample(i, j, f.Delay(x, i))
		ex, ey := hx-s.gx[k], hy-s.gy[k]
		ss += ex*ex + ey*ey
	}
	return math.Sqrt(ss / float64(len(s.cam)))
}

// Predict returns run i's poses at its camera rows' span under x: the rows
// from its first to its last camera pose, as Simulate from the fitted start
// pose with the network of x (nil if the rollout fails).
func (f *NetFit) Predict(x []float64, i int) (px, py []float64) {
	d, err := f.outputs(x)
	if err != nil {
		return nil, nil
	}
	n := len(f.runs[i].dt)
	px, py = make([]float64, n), make([]float64, n)
	TB := d.T * d.B
	for k := range n {
		px[k], py[k] = d.y[k*d.B+i], d.y[TB+k*d.B+i]
	}
	return px, py
}
