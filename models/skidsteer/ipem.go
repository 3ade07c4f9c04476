package skidsteer

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	G "gorgonia.org/gorgonia"

	"github.com/wheelgrad/wheelgrad/ad"
	"github.com/wheelgrad/wheelgrad/dyn"
	"github.com/wheelgrad/wheelgrad/opt"
)

// JacobianSource selects how IPEM linearises the integrated prediction.
type JacobianSource int

const (
	// DynJacobian, the default, propagates the step Jacobians of the step
	// definition Model over the interval (WindowJacobian).
	DynJacobian JacobianSource = iota
	// NativeJacobian is hand-written forward-mode differentiation of the
	// native Euler steps (the function JacobianNative), kept as the
	// reference the others are tested against.
	NativeJacobian
	// GraphJacobianSource is the compiled gorgonia graph (GraphJacobian),
	// a second reference (and, for Batch, the unrolled window graph).
	GraphJacobianSource
)

// IPEMConfig configures the online calibration.
type IPEMConfig struct {
	// A0 is the starting estimate (nil: the nominal model, all zero).
	A0 []float64
	// Std0 is the prior standard deviation of every coefficient (default 0.5,
	// wide enough for the understeer a32 ≈ −0.4 of Table 2).
	Std0 float64
	// SigmaPos (m) and SigmaPsi (rad) are the standard deviations of the
	// measured pose change of one interval (default 3 mm and 3 mrad: visual
	// odometry at 10 Hz). The estimate depends only on their ratio; their
	// scale sets the reported covariance, which Calibrate rescales by the
	// measured residuals.
	SigmaPos, SigmaPsi float64
	// QStd is the random-walk standard deviation of each coefficient per
	// update (default 0: constant coefficients; a positive value lets the
	// filter follow a change of terrain).
	QStd float64
	// Span is the number of pose samples an interval spans (default 1).
	Span int
	// Jacobian selects the linearisation (default: from the step
	// definition, DynJacobian).
	Jacobian JacobianSource
	// MaxSteps bounds the command rows per interval (default 400).
	MaxSteps int
}

func (c *IPEMConfig) defaults() {
	if c.Std0 == 0 {
		c.Std0 = 0.5
	}
	if c.SigmaPos == 0 {
		c.SigmaPos = 0.003
	}
	if c.SigmaPsi == 0 {
		c.SigmaPsi = 0.003
	}
	if c.Span == 0 {
		c.Span = 1
	}
	if c.MaxSteps == 0 {
		c.MaxSteps = 400
	}
}

// IPEM is the extended Kalman filter of integrated prediction error
// minimisation over the nine slip coefficients (opt.EKF). Its state is a,
// with covariance P; each measurement is the pose change over an interval, in
// the frame of the interval's first pose, predicted by integrating eqs. 2–3
// over the interval's commands from (0, 0, 0).
type IPEM struct {
	cfg IPEMConfig
	A   [NumCoeffs]float64
	P   [NumCoeffs * NumCoeffs]float64
	r   [3]float64 // measurement variances
	// NIS accumulates the normalised innovation squared νᵀS⁻¹ν (3 degrees of
	// freedom per update when the noise model is right).
	NIS     float64
	Updates int

	gj  *GraphJacobian
	gws *Windows
	dj  *WindowJacobian
	jac [3 * NumCoeffs]float64
	ekf opt.EKF
	q   [NumCoeffs]float64
}

// NewIPEM returns a filter at cfg.A0 with covariance Std0²·I.
func NewIPEM(cfg IPEMConfig) (*IPEM, error) {
	cfg.defaults()
	f := &IPEM{cfg: cfg}
	if cfg.A0 != nil {
		if len(cfg.A0) != NumCoeffs {
			return nil, fmt.Errorf("skidsteer: A0 has %d coefficients, want 9", len(cfg.A0))
		}
		copy(f.A[:], cfg.A0)
	}
	for i := range NumCoeffs {
		f.P[i*NumCoeffs+i] = cfg.Std0 * cfg.Std0
	}
	f.r = [3]float64{cfg.SigmaPos * cfg.SigmaPos, cfg.SigmaPos * cfg.SigmaPos, cfg.SigmaPsi * cfg.SigmaPsi}
	f.ekf.Reserve(NumCoeffs, 3)
	switch cfg.Jacobian {
	case DynJacobian:
		f.dj = NewWindowJacobian()
	case NativeJacobian:
	case GraphJacobianSource:
		var err error
		if f.gj, err = NewGraphJacobian(1, cfg.MaxSteps); err != nil {
			return nil, err
		}
		f.gws = NewWindows(1, cfg.MaxSteps)
	default:
		return nil, fmt.Errorf("skidsteer: unknown Jacobian source %d", cfg.Jacobian)
	}
	return f, nil
}

// Update assimilates one interval: the commands vc, wc held for dt each, and
// the measured pose change z in the frame of the interval's first pose. It
// returns the innovation (measured − predicted, heading wrapped).
func (f *IPEM) Update(vc, wc, dt []float64, z Pose) ([3]float64, error) {
	var pred Pose
	switch {
	case f.dj != nil:
		var err error
		if pred, err = f.dj.Jacobian(f.A[:], vc, wc, dt, &f.jac); err != nil {
			return [3]float64{}, err
		}
	case f.gj != nil:
		if len(vc) > f.gws.S {
			return [3]float64{}, fmt.Errorf("skidsteer: interval of %d steps, the Jacobian graph takes %d", len(vc), f.gws.S)
		}
		f.gws.Set(0, vc, wc, dt)
		poses, err := f.gj.Jacobian(f.A[:], f.gws, f.jac[:])
		if err != nil {
			return [3]float64{}, err
		}
		pred = poses[0]
	default:
		pred = JacobianNative(f.A[:], vc, wc, dt, &f.jac)
	}
	nu := [3]float64{z.X - pred.X, z.Y - pred.Y, Wrap(z.Psi - pred.Psi)}
	// The filter's state is A with covariance P (the arrays themselves),
	// a random walk of QStd per update; the measurement Jacobian is the
	// integrated prediction's.
	e := &f.ekf
	e.X, e.P, e.NIS, e.Updates = f.A[:], f.P[:], f.NIS, f.Updates
	if q := f.cfg.QStd; q > 0 {
		for i := range f.q {
			f.q[i] = q * q
		}
		if err := e.Predict(nil, nil, f.q[:]); err != nil {
			return nu, err
		}
	}
	if err := e.Correct(nu[:], f.jac[:], f.r[:]); err != nil {
		if errors.Is(err, opt.ErrSingularInnovation) {
			return nu, errors.New("skidsteer: IPEM innovation covariance is singular")
		}
		return nu, err
	}
	f.NIS, f.Updates = e.NIS, e.Updates
	return nu, nil
}

// Calibration is the result of Calibrate or of a batch fit.
type Calibration struct {
	A []float64 // the nine coefficients
	// Cov is the 9×9 covariance of A (row-major), scaled by the measured
	// residual variance (Scale), so that it does not depend on the assumed
	// noise level.
	Cov []float64
	// Scale is the mean squared normalised residual per measured component
	// at A (1 when the assumed noise matches the data).
	Scale     float64
	Intervals int
}

// Std returns the standard deviations of the coefficients.
func (c *Calibration) Std() []float64 {
	s := make([]float64, NumCoeffs)
	for i := range s {
		s[i] = math.Sqrt(c.Cov[i*NumCoeffs+i])
	}
	return s
}

// Params returns the calibration as a parameter file, with its covariance.
func (c *Calibration) Params() Params {
	p := FromCoeffs(c.A)
	var cov [9][9]float64
	var std [3][3]float64
	sd := c.Std()
	for i := range NumCoeffs {
		std[i/3][i%3] = sd[i]
		for j := range NumCoeffs {
			cov[i][j] = c.Cov[i*NumCoeffs+j]
		}
	}
	p.Cov, p.Std = &cov, &std
	return p
}

// Calibrate runs the IPEM filter over the log's intervals in time order.
// visit (may be nil) is called after each update with the interval index,
// the time of its last pose and the filter.
func Calibrate(l *Log, cfg IPEMConfig, visit func(k int, t float64, f *IPEM)) (*Calibration, *IPEM, error) {
	cfg.defaults()
	iv, err := l.Intervals(cfg.Span, cfg.MaxSteps)
	if err != nil {
		return nil, nil, err
	}
	var v func(int, *IPEM)
	if visit != nil {
		v = func(k int, f *IPEM) { visit(k, l.T[iv.To[k]], f) }
	}
	return CalibrateIntervals(iv, cfg, v)
}

// CalibrateIntervals runs the IPEM filter over intervals in order and
// returns the estimate with its covariance scaled by the residuals.
func CalibrateIntervals(iv *Intervals, cfg IPEMConfig, visit func(k int, f *IPEM)) (*Calibration, *IPEM, error) {
	cfg.defaults()
	if iv.Windows.S > cfg.MaxSteps {
		cfg.MaxSteps = iv.Windows.S
	}
	f, err := NewIPEM(cfg)
	if err != nil {
		return nil, nil, err
	}
	var vc, wc, dt []float64
	for k := range iv.Z {
		vc, wc, dt = iv.Window(k, vc, wc, dt)
		if _, err := f.Update(vc, wc, dt, iv.Z[k]); err != nil {
			return nil, nil, err
		}
		if visit != nil {
			visit(k, f)
		}
	}
	scale := ResidualScale(iv, f.A[:], cfg)
	cov := make([]float64, len(f.P))
	for i := range cov {
		cov[i] = scale * f.P[i]
	}
	return &Calibration{A: append([]float64(nil), f.A[:]...), Cov: cov, Scale: scale, Intervals: len(iv.Z)}, f, nil
}

// MergeIntervals joins the intervals of several logs (in order) into one
// batch; From and To keep each log's own row numbers.
func MergeIntervals(ivs ...*Intervals) *Intervals {
	w, s := 0, 0
	for _, iv := range ivs {
		w += iv.Windows.W
		s = max(s, iv.Windows.S)
	}
	out := &Intervals{Windows: NewWindows(w, s)}
	off := 0
	for _, iv := range ivs {
		ws := iv.Windows
		for k := range ws.W {
			for st := range ws.S {
				i, j := st*ws.W+k, st*w+off+k
				out.Windows.Vc[j], out.Windows.Wc[j], out.Windows.Dt[j] = ws.Vc[i], ws.Wc[i], ws.Dt[i]
			}
		}
		out.Z = append(out.Z, iv.Z...)
		out.From = append(out.From, iv.From...)
		out.To = append(out.To, iv.To...)
		out.Len = append(out.Len, iv.Len...)
		off += ws.W
	}
	return out
}

// ResidualScale is the mean squared normalised residual per component of
// the intervals at a: the factor by which the assumed noise variances
// (SigmaPos², SigmaPsi²) should be multiplied to match the data.
func ResidualScale(iv *Intervals, a []float64, cfg IPEMConfig) float64 {
	cfg.defaults()
	pred := iv.Windows.Predict(a)
	s := 0.0
	for k, z := range iv.Z {
		ex, ey, ep := z.X-pred[k].X, z.Y-pred[k].Y, z.Psi-pred[k].Psi
		s += (ex*ex+ey*ey)/(cfg.SigmaPos*cfg.SigmaPos) + ep*ep/(cfg.SigmaPsi*cfg.SigmaPsi)
	}
	dof := 3*len(iv.Z) - NumCoeffs
	if dof < 1 {
		return 1
	}
	return s / float64(dof)
}

// Batch is the batch form of IPEM: the weighted squared prediction errors of
// all intervals, ½ Σ_k Σ_c (pred_kc − z_kc)²/σ_c², as one objective for
// L-BFGS. The intervals are the lanes of a rollout of the step definition
// Model (dyn.Rollout: one gorgonia node whose backward pass is Model's
// generated reverse pass) with the loss around it as a gorgonia graph, the
// lanes sharded over cores. With Jacobian: GraphJacobianSource it is the
// unrolled window graph of BuildWindows instead (the reference).
type Batch struct {
	iv   *Intervals
	cfg  IPEMConfig
	prog *ad.Sharded
}

// NewBatch compiles the batch objective over the log's intervals. shards ≤ 0
// means one per core.
func NewBatch(l *Log, cfg IPEMConfig, shards int) (*Batch, error) {
	cfg.defaults()
	iv, err := l.Intervals(cfg.Span, cfg.MaxSteps)
	if err != nil {
		return nil, err
	}
	return NewBatchIntervals(iv, cfg, shards)
}

// NewBatchIntervals is NewBatch on intervals already extracted.
func NewBatchIntervals(iv *Intervals, cfg IPEMConfig, shards int) (*Batch, error) {
	cfg.defaults()
	if cfg.Jacobian == GraphJacobianSource {
		return newBatchWindowGraph(iv, cfg, shards)
	}
	ws := iv.Windows
	w := [3]float64{0.5 / (cfg.SigmaPos * cfg.SigmaPos), 0.5 / (cfg.SigmaPos * cfg.SigmaPos), 0.5 / (cfg.SigmaPsi * cfg.SigmaPsi)}
	params := []ad.Param{{Name: "a", Shape: []int{NumCoeffs}}}
	prog, err := ad.CompileSharded(params, ws.W, shards, func(g *ad.Graph, p []*G.Node, lo, hi int) (*G.Node, error) {
		n := hi - lo
		// lanes lo..hi−1 from (0, 0, 0): u [S][3][n]; z and the weights [3][n]
		u := make([]float64, ws.S*3*n)
		for s := range ws.S {
			for k := lo; k < hi; k++ {
				i := s*ws.W + k
				u[(s*3)*n+k-lo], u[(s*3+1)*n+k-lo], u[(s*3+2)*n+k-lo] = ws.Vc[i], ws.Wc[i], ws.Dt[i]
			}
		}
		z, wt := make([]float64, 3*n), make([]float64, 3*n)
		for k := lo; k < hi; k++ {
			z[k-lo], z[n+k-lo], z[2*n+k-lo] = iv.Z[k].X, iv.Z[k].Y, iv.Z[k].Psi
			for c := range 3 {
				wt[c*n+k-lo] = w[c]
			}
		}
		tr, err := dyn.Rollout(Model, p[0], nil, g.Const(make([]float64, 3*n)), g.Const(u), n, ws.S, dyn.InputsAreData())
		if err != nil {
			return nil, err
		}
		end, err := tr.Final()
		if err != nil {
			return nil, err
		}
		r, err := G.Sub(end, g.Const(z))
		if err != nil {
			return nil, err
		}
		return G.Sum(G.Must(G.HadamardProd(g.Const(wt), G.Must(G.Square(r)))))
	})
	if err != nil {
		return nil, err
	}
	return &Batch{iv: iv, cfg: cfg, prog: prog}, nil
}

// newBatchWindowGraph is the batch objective on the unrolled window graph
// of BuildWindows, the reference of the dyn form.
func newBatchWindowGraph(iv *Intervals, cfg IPEMConfig, shards int) (*Batch, error) {
	ws := iv.Windows
	params := make([]ad.Param, NumCoeffs)
	for j := range params {
		params[j] = ad.Param{Name: CoeffNames[j]}
	}
	wPos, wPsi := 1/(cfg.SigmaPos*cfg.SigmaPos), 1/(cfg.SigmaPsi*cfg.SigmaPsi)
	prog, err := ad.CompileSharded(params, ws.W, shards, func(g *ad.Graph, p []*G.Node, lo, hi int) (*G.Node, error) {
		n := hi - lo
		var dv, dw, dvw []*G.Node
		for s := range ws.S {
			a, b, c := make([]float64, n), make([]float64, n), make([]float64, n)
			for w := lo; w < hi; w++ {
				i := s*ws.W + w
				a[w-lo] = ws.Dt[i] * ws.Vc[i]
				b[w-lo] = ws.Dt[i] * ws.Wc[i]
				c[w-lo] = ws.Dt[i] * ws.Vc[i] * ws.Wc[i]
			}
			dv, dw, dvw = append(dv, g.Const(a)), append(dw, g.Const(b)), append(dvw, g.Const(c))
		}
		x, y, psi, err := BuildWindows(p, dv, dw, dvw)
		if err != nil {
			return nil, err
		}
		zx, zy, zp := make([]float64, n), make([]float64, n), make([]float64, n)
		for w := lo; w < hi; w++ {
			zx[w-lo], zy[w-lo], zp[w-lo] = iv.Z[w].X, iv.Z[w].Y, iv.Z[w].Psi
		}
		sq := func(u *G.Node, z []float64) *G.Node {
			return G.Must(G.Square(G.Must(G.Sub(u, g.Const(z)))))
		}
		pos := G.Must(G.Add(sq(x, zx), sq(y, zy)))
		tot := G.Must(G.Add(G.Must(G.Mul(g.Scalar(0.5*wPos), pos)), G.Must(G.Mul(g.Scalar(0.5*wPsi), sq(psi, zp)))))
		return G.Sum(tot)
	}, ad.WithUnusedParams())
	if err != nil {
		return nil, err
	}
	return &Batch{iv: iv, cfg: cfg, prog: prog}, nil
}

// Eval has the signature of opt.Objective.
func (b *Batch) Eval(x, grad []float64) (float64, error) { return b.prog.Eval(x, grad) }

// Nodes is the node count of the largest shard's graph.
func (b *Batch) Nodes() int { return b.prog.Nodes() }

// Intervals returns the measurements.
func (b *Batch) Intervals() *Intervals { return b.iv }

// Native is the objective evaluated by the native model.
func (b *Batch) Native(a []float64) float64 {
	return 0.5 * ResidualScale(b.iv, a, b.cfg) * float64(3*len(b.iv.Z)-NumCoeffs)
}

// Covariance returns the Gauss–Newton covariance of the least-squares
// estimate at a, (Σ_k H_kᵀ R⁻¹ H_k)⁻¹, scaled by the residual variance.
func (b *Batch) Covariance(a []float64) (*Calibration, error) {
	return GaussNewtonCovariance(b.iv, a, b.cfg)
}

// GaussNewtonCovariance is the covariance of a least-squares fit of the
// intervals at a (see Batch.Covariance).
func GaussNewtonCovariance(iv *Intervals, a []float64, cfg IPEMConfig) (*Calibration, error) {
	cfg.defaults()
	info := mat.NewSymDense(NumCoeffs, nil)
	w := [3]float64{1 / (cfg.SigmaPos * cfg.SigmaPos), 1 / (cfg.SigmaPos * cfg.SigmaPos), 1 / (cfg.SigmaPsi * cfg.SigmaPsi)}
	var jac [27]float64
	var vc, wc, dt []float64
	for k := range iv.Z {
		vc, wc, dt = iv.Window(k, vc, wc, dt)
		JacobianNative(a, vc, wc, dt, &jac)
		for i := range NumCoeffs {
			for j := i; j < NumCoeffs; j++ {
				s := 0.0
				for c := range 3 {
					s += w[c] * jac[9*c+i] * jac[9*c+j]
				}
				info.SetSym(i, j, info.At(i, j)+s)
			}
		}
	}
	var chol mat.Cholesky
	if !chol.Factorize(info) {
		return nil, errors.New("skidsteer: the intervals do not determine all nine coefficients (singular information matrix): drive with varied speeds and turn rates")
	}
	var inv mat.SymDense
	if err := chol.InverseTo(&inv); err != nil {
		return nil, err
	}
	scale := ResidualScale(iv, a, cfg)
	cov := make([]float64, NumCoeffs*NumCoeffs)
	for i := range NumCoeffs {
		for j := range NumCoeffs {
			cov[i*NumCoeffs+j] = scale * inv.At(i, j)
		}
	}
	return &Calibration{A: append([]float64(nil), a...), Cov: cov, Scale: scale, Intervals: len(iv.Z)}, nil
}
