package rbf

import (
	"errors"
	"fmt"
	"math"

	"github.com/wheelgrad/wheelgrad/opt"
)

// MRANConfig holds the tuning of MRAN (Lu et al. 1997; Ordonez et al. eqs.
// 18–23). Zero fields take the defaults in brackets.
type MRANConfig struct {
	// E1 is the threshold on the instantaneous error ‖e_k‖ (eq. 18) [0.02].
	E1 float64
	// E2 is the threshold on the RMS error over the last M samples (eq. 19)
	// [0.04], M = Window [40].
	E2     float64
	Window int
	// E3 is the distance threshold (eq. 20), decaying from EpsMax to EpsMin
	// by the factor Gamma per sample, so that the network first places
	// coarse units and then finer ones [EpsMax 2, EpsMin 0.2, Gamma 0.99].
	EpsMax, EpsMin, Gamma float64
	// Kappa is the overlap factor of eq. 22 [0.87].
	Kappa float64
	// P0 is the prior variance given to the parameters of a new unit [1];
	// Q the process noise added to every parameter's variance per update
	// [0.0005]; R the measurement noise variance [1] (only the ratios of P0,
	// Q and R matter for the weights' path).
	P0, Q, R float64
	// PruneThreshold is δ: a unit whose normalised contribution
	// |α_j φ_j| / max_i |α_i φ_i| stays below it for PruneWindow consecutive
	// samples is removed [0.01, 100].
	PruneThreshold float64
	PruneWindow    int
	// MaxUnits bounds the number of hidden units [30, as in the paper].
	MaxUnits int
}

func (c *MRANConfig) defaults() {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.E1, 0.02)
	def(&c.E2, 0.04)
	def(&c.EpsMax, 2)
	def(&c.EpsMin, 0.2)
	def(&c.Gamma, 0.99)
	def(&c.Kappa, 0.87)
	def(&c.P0, 1)
	def(&c.Q, 0.0005)
	def(&c.R, 1)
	def(&c.PruneThreshold, 0.01)
	if c.Window == 0 {
		c.Window = 40
	}
	if c.PruneWindow == 0 {
		c.PruneWindow = 100
	}
	if c.MaxUnits == 0 {
		c.MaxUnits = 30
	}
}

// MRAN trains a network online, one sample at a time.
type MRAN struct {
	Net *Network
	cfg MRANConfig
	// P is the covariance of Net.W, len(W)×len(W) row-major in a buffer
	// sized for MaxUnits. It is symmetric and, for a network of one output,
	// only its upper triangle (column ≥ row) is kept up to date: the EKF
	// step then touches half the matrix (see ekf1). The lower triangle is
	// stale and must not be read.
	P []float64
	k int // samples seen

	errs   []float64 // ring of ‖e‖² over the last Window samples
	low    []int     // per unit: consecutive samples below the prune threshold
	Added  int       // units added so far
	Pruned int       // units pruned so far

	filter opt.EKF // the EKF of eq. 23 over Net.W and P
	r      []float64

	// scratch, sized for MaxUnits
	y, e, g, h, contrib []float64
}

// NewMRAN returns a trainer starting from net (nil: an empty network with in
// inputs and out outputs). The parameters of a given net start with
// variance P0.
func NewMRAN(net *Network, in, out int, cfg MRANConfig) (*MRAN, error) {
	cfg.defaults()
	if net == nil {
		net = New(in, out)
	}
	if err := net.Validate(); err != nil {
		return nil, err
	}
	if net.Units() > cfg.MaxUnits {
		return nil, fmt.Errorf("rbf: network of %d units exceeds MaxUnits %d", net.Units(), cfg.MaxUnits)
	}
	o := net.Out
	zmax := o + cfg.MaxUnits*net.stride()
	m := &MRAN{Net: net.Clone(), cfg: cfg, P: make([]float64, zmax*zmax),
		errs: make([]float64, 0, cfg.Window), low: make([]int, net.Units(), cfg.MaxUnits),
		y: make([]float64, o), e: make([]float64, o), g: make([]float64, zmax*o), h: make([]float64, zmax*o),
		r: make([]float64, o), contrib: make([]float64, cfg.MaxUnits), filter: opt.EKF{Upper: o == 1}}
	m.filter.Reserve(zmax, o)
	for k := range m.r {
		m.r[k] = cfg.R
	}
	m.Net.W = append(make([]float64, 0, zmax), m.Net.W...)
	z := len(m.Net.W)
	for i := range z {
		m.P[i*z+i] = cfg.P0
	}
	return m, nil
}

// Config returns the configuration with defaults filled in.
func (m *MRAN) Config() MRANConfig { return m.cfg }

// Step is what one Update did.
type Step int

const (
	Adapted Step = iota // EKF update of all parameters (eq. 23)
	Grown               // a new unit by eq. 22
)

// Update learns from one sample (x, y): it adds a unit if all three growth
// criteria (eqs. 18–21) hold and the network is below MaxUnits, otherwise
// updates all parameters by one EKF step; then prunes units whose normalised
// contribution has stayed below PruneThreshold for PruneWindow samples.
// It returns what it did and the prediction error before the update. It does
// not allocate.
func (m *MRAN) Update(x, y []float64) (Step, float64, error) {
	n := m.Net
	if len(x) != n.In || len(y) != n.Out {
		return 0, 0, fmt.Errorf("rbf: sample of %d inputs and %d outputs for a %d→%d network", len(x), len(y), n.In, n.Out)
	}
	out := n.Out
	z := len(n.W)
	n.Gradient(x, m.y, m.g[:z*out])
	e1 := 0.0
	for k := range out {
		m.e[k] = y[k] - m.y[k]
		e1 += m.e[k] * m.e[k]
	}
	if math.IsNaN(e1) || math.IsInf(e1, 0) {
		return 0, 0, errors.New("rbf: non-finite sample or prediction")
	}
	// Eq. 19: RMS error over the last Window samples, this one included.
	if len(m.errs) < m.cfg.Window {
		m.errs = append(m.errs, e1)
	} else {
		m.errs[m.k%m.cfg.Window] = e1
	}
	e2 := 0.0
	for _, v := range m.errs {
		e2 += v
	}
	e2 = math.Sqrt(e2 / float64(len(m.errs)))
	e1 = math.Sqrt(e1)
	// Eq. 20: distance to the nearest centre; the threshold decays.
	eps := math.Max(m.cfg.EpsMax*math.Pow(m.cfg.Gamma, float64(m.k)), m.cfg.EpsMin)
	m.k++
	h := n.Units()
	dmin := math.Inf(1)
	for j := range h {
		_, c, _ := n.Unit(j)
		d := 0.0
		for i := range x {
			d += (x[i] - c[i]) * (x[i] - c[i])
		}
		// Not math.Min, which is an assembly call per unit: d is neither
		// NaN (a non-finite x or centre made the prediction non-finite
		// above) nor −0, so the comparison is the same function.
		if d < dmin {
			dmin = d
		}
	}
	dmin = math.Sqrt(dmin)
	step := Adapted
	if e1 > m.cfg.E1 && e2 > m.cfg.E2 && dmin > eps && h < m.cfg.MaxUnits {
		// Eq. 22: the new unit cancels the error at x.
		width := m.cfg.Kappa * dmin
		if h == 0 {
			width = m.cfg.Kappa * eps
		}
		n.AddUnit(m.e, x, width)
		m.low = append(m.low, 0)
		zn := len(n.W)
		// Grow P: old block kept, new parameters with variance P0.
		for i := z - 1; i >= 0; i-- {
			for j := zn - 1; j >= 0; j-- {
				v := 0.0
				if j < z {
					v = m.P[i*z+j]
				}
				m.P[i*zn+j] = v
			}
		}
		for i := z; i < zn; i++ {
			for j := range zn {
				m.P[i*zn+j] = 0
			}
			m.P[i*zn+i] = m.cfg.P0
		}
		m.Added++
		step = Grown
	} else if err := m.ekf(z); err != nil {
		return 0, e1, err
	}
	m.prune(x)
	return step, e1, nil
}

// ekf is the extended Kalman filter step on all parameters (eq. 23), by
// opt.EKF: K = P·B·(R + BᵀPB)⁻¹, w ← w + K·e, P ← P − K·(PB)ᵀ, then
// P ← P + Q·I, with B = ∂f/∂w (Hᵀ, the layout of Network.Gradient). With one
// output the filter keeps only the upper triangle of P (opt.EKF.Upper): the
// hot path of MRAN, whose networks have one output and hundreds of
// parameters, touches half the matrix.
func (m *MRAN) ekf(z int) error {
	out := m.Net.Out
	H := m.g[:z*out]
	if out > 1 { // H = Bᵀ, out×z
		H = m.h[:z*out]
		for i := range z {
			for k := range out {
				H[k*z+i] = m.g[i*out+k]
			}
		}
	}
	f := &m.filter
	f.X, f.P = m.Net.W[:z], m.P[:z*z]
	if err := f.Correct(m.e, H, m.r); err != nil {
		return fmt.Errorf("rbf: MRAN update: %w", err)
	}
	for i := range z {
		m.P[i*z+i] += m.cfg.Q
	}
	return nil
}

// prune removes the units whose normalised output contribution at x,
// ‖α_j‖·φ_j(x) / max_i ‖α_i‖·φ_i(x), has been below PruneThreshold for
// PruneWindow consecutive samples, with their rows and columns of P.
func (m *MRAN) prune(x []float64) {
	n := m.Net
	h := n.Units()
	if h == 0 {
		return
	}
	st := n.stride()
	best := 0.0
	for j := range h {
		o := n.Out + j*st
		a := 0.0
		for k := range n.Out {
			a += n.W[o+k] * n.W[o+k]
		}
		m.contrib[j] = math.Sqrt(a) * n.phi(x, o)
		// math.Max without its call: contributions are ≥ 0 (no −0), and a
		// NaN (parameters that this update made non-finite) still sticks.
		if c := m.contrib[j]; c > best || c != c {
			best = c
		}
	}
	for j := h - 1; j >= 0; j-- {
		if best > 0 && m.contrib[j]/best < m.cfg.PruneThreshold {
			m.low[j]++
		} else {
			m.low[j] = 0
		}
		if m.low[j] >= m.cfg.PruneWindow {
			m.removeUnit(j)
		}
	}
}

func (m *MRAN) removeUnit(j int) {
	n := m.Net
	st := n.stride()
	z := len(n.W)
	lo, hi := n.Out+j*st, n.Out+(j+1)*st
	keep := func(i int) int { // new index of old parameter i, or -1
		switch {
		case i < lo:
			return i
		case i >= hi:
			return i - st
		}
		return -1
	}
	zn := z - st
	for i := range z {
		ni := keep(i)
		if ni < 0 {
			continue
		}
		for c := range z {
			if nc := keep(c); nc >= 0 {
				m.P[ni*zn+nc] = m.P[i*z+c]
			}
		}
	}
	n.W = append(n.W[:lo], n.W[hi:]...)
	m.low = append(m.low[:j], m.low[j+1:]...)
	m.Pruned++
}
