package rbf

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// refMRAN is the MRAN implementation before the symmetric EKF update, kept
// verbatim (renamed) as the reference that TestMRANMatchesReference runs
// side by side with MRAN.
type refMRAN struct {
	Net *Network
	cfg MRANConfig
	// P is the covariance of Net.W, dense len(W)×len(W) row-major in a
	// buffer sized for MaxUnits.
	P []float64
	k int // samples seen

	errs   []float64 // ring of ‖e‖² over the last Window samples
	low    []int     // per unit: consecutive samples below the prune threshold
	Added  int       // units added so far
	Pruned int       // units pruned so far

	// scratch, sized for MaxUnits
	y, e, g, pb, kg, s, si, contrib []float64
}

// newRefMRAN returns a trainer starting from net (nil: an empty network with in
// inputs and out outputs). The parameters of a given net start with
// variance P0.
func newRefMRAN(net *Network, in, out int, cfg MRANConfig) (*refMRAN, error) {
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
	m := &refMRAN{Net: net.Clone(), cfg: cfg, P: make([]float64, zmax*zmax),
		errs: make([]float64, 0, cfg.Window), low: make([]int, net.Units(), cfg.MaxUnits),
		y: make([]float64, o), e: make([]float64, o), g: make([]float64, zmax*o), pb: make([]float64, zmax*o),
		kg: make([]float64, zmax*o), s: make([]float64, o*o), si: make([]float64, o*o), contrib: make([]float64, cfg.MaxUnits)}
	m.Net.W = append(make([]float64, 0, zmax), m.Net.W...)
	z := len(m.Net.W)
	for i := range z {
		m.P[i*z+i] = cfg.P0
	}
	return m, nil
}

// Update learns from one sample (x, y): it adds a unit if all three growth
// criteria (eqs. 18–21) hold and the network is below MaxUnits, otherwise
// updates all parameters by one EKF step; then prunes units whose normalised
// contribution has stayed below PruneThreshold for PruneWindow samples.
// It returns what it did and the prediction error before the update. It does
// not allocate.
func (m *refMRAN) Update(x, y []float64) (Step, float64, error) {
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
		dmin = math.Min(dmin, d)
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
	} else {
		m.ekf(z)
	}
	m.prune(x)
	return step, e1, nil
}

// ekf is the extended Kalman filter step on all parameters (eq. 23):
// K = P·B·(R + BᵀPB)⁻¹, w ← w + K·e, P ← (I − K·Bᵀ)·P + Q·I, with B = ∂f/∂w.
func (m *refMRAN) ekf(z int) {
	out := m.Net.Out
	P, B, PB := m.P[:z*z], m.g[:z*out], m.pb[:z*out]
	for i := range z {
		row := P[i*z : i*z+z]
		for k := range out {
			s := 0.0
			for j, pij := range row {
				s += pij * B[j*out+k]
			}
			PB[i*out+k] = s
		}
	}
	for k := range out {
		for l := range out {
			s := 0.0
			for i := range z {
				s += B[i*out+k] * PB[i*out+l]
			}
			m.s[k*out+l] = s
		}
		m.s[k*out+k] += m.cfg.R
	}
	invSmall(m.s, m.si, out)
	K := m.kg[:z*out]
	for i := range z {
		for l := range out {
			s := 0.0
			for k := range out {
				s += PB[i*out+k] * m.si[k*out+l]
			}
			K[i*out+l] = s
		}
	}
	w := m.Net.W
	for i := range z {
		s := 0.0
		for k := range out {
			s += K[i*out+k] * m.e[k]
		}
		w[i] += s
	}
	// P ← P − K·(PB)ᵀ (P symmetric), plus Q on the diagonal.
	if out == 1 {
		for i := range z {
			ki := K[i]
			row := P[i*z : i*z+z]
			for j := range row {
				row[j] -= ki * PB[j]
			}
			row[i] += m.cfg.Q
		}
		return
	}
	for i := range z {
		for j := range z {
			s := 0.0
			for k := range out {
				s += K[i*out+k] * PB[j*out+k]
			}
			P[i*z+j] -= s
		}
		P[i*z+i] += m.cfg.Q
	}
}

// prune removes the units whose normalised output contribution at x,
// ‖α_j‖·φ_j(x) / max_i ‖α_i‖·φ_i(x), has been below PruneThreshold for
// PruneWindow consecutive samples, with their rows and columns of P.
func (m *refMRAN) prune(x []float64) {
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
		best = math.Max(best, m.contrib[j])
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

func (m *refMRAN) removeUnit(j int) {
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

// TestMRANMatchesReference runs MRAN and refMRAN side by side for 2,000
// samples and checks, after every sample, that they took the same step with
// the same prediction error and, every 100 samples and at the end, that
// their predictions, parameters and covariances agree to 1e-12 relative to
// the largest value (P: the upper triangle, the part MRAN keeps).
func TestMRANMatchesReference(t *testing.T) {
	const tol = 1e-12
	hermiteCfg := MRANConfig{E1: 0.15, E2: 0.15, Gamma: 0.98, EpsMin: 0.3}
	pruneCfg := hermiteCfg
	pruneCfg.PruneThreshold, pruneCfg.PruneWindow = 0.2, 20
	full := New(1, 1)
	for j := range 30 {
		full.AddUnit([]float64{0.1}, []float64{-4 + 8*float64(j)/29}, 0.5)
	}
	cases := []struct {
		name    string
		net     *Network
		in, out int
		cfg     MRANConfig
		// sample writes sample k into x and y.
		sample    func(k int, x, y []float64)
		wantPrune bool
	}{
		{name: "hermite", in: 1, out: 1, cfg: hermiteCfg, sample: hermiteSample()},
		{name: "hermite-pruning", in: 1, out: 1, cfg: pruneCfg, sample: hermiteSample(), wantPrune: true},
		{name: "30-units", net: full, in: 1, out: 1, cfg: MRANConfig{PruneWindow: 1 << 30}, sample: hermiteSample()},
		{name: "2-outputs", in: 2, out: 2, cfg: hermiteCfg, sample: func(k int, x, y []float64) {
			hermiteSample()(k, x[:1], y[:1])
			x[1] = math.Sin(float64(k))
			y[1] = x[0] * x[1]
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := NewMRAN(c.net, c.in, c.out, c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			r, err := newRefMRAN(c.net, c.in, c.out, c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			x, y := make([]float64, c.in), make([]float64, c.out)
			worst := 0.0
			check := func(k int) {
				t.Helper()
				worst = max(worst, compareMRAN(t, k, m, r, tol))
			}
			for k := range 2000 {
				c.sample(k, x, y)
				s, e, err := m.Update(x, y)
				if err != nil {
					t.Fatal(err)
				}
				sr, er, err := r.Update(x, y)
				if err != nil {
					t.Fatal(err)
				}
				if s != sr || m.Net.Units() != r.Net.Units() || m.Pruned != r.Pruned {
					t.Fatalf("sample %d: step %d, %d units, %d pruned; reference %d, %d, %d",
						k, s, m.Net.Units(), m.Pruned, sr, r.Net.Units(), r.Pruned)
				}
				// e = ‖y − f(x)‖ is a difference of O(‖y‖) values, so it is
				// compared relative to ‖y‖ (at least 1), like the
				// predictions on the grid below.
				d := math.Abs(e-er) / math.Max(norm(y), 1)
				if !(d <= tol) {
					t.Fatalf("sample %d: error %.17g, reference %.17g", k, e, er)
				}
				worst = max(worst, d)
				if (k+1)%100 == 0 {
					check(k)
				}
			}
			t.Logf("%d units (added %d, pruned %d); largest relative difference %.2g",
				m.Net.Units(), m.Added, m.Pruned, worst)
			if m.Added == 0 && c.net == nil {
				t.Error("no unit was added: the case does not exercise growth")
			}
			if c.wantPrune && m.Pruned == 0 {
				t.Error("no unit was pruned: the case does not exercise pruning")
			}
		})
	}
}

// hermiteSample streams 200 noisy samples of the Hermite function on [−4, 4]
// in a fixed order, as the public Hermite test does.
func hermiteSample() func(k int, x, y []float64) {
	rng := rand.New(rand.NewPCG(1, 1))
	var X, T [200]float64
	for i := range X {
		X[i] = -4 + 8*rng.Float64()
		T[i] = 1.1*(1-X[i]+2*X[i]*X[i])*math.Exp(-X[i]*X[i]/2) + 0.1*rng.NormFloat64()
	}
	return func(k int, x, y []float64) { x[0], y[0] = X[k%200], T[k%200] }
}

// compareMRAN checks predictions on a grid, W and the upper triangle of P of
// m against r, each to tol relative to the largest magnitude of the
// reference's values, and returns the largest such relative difference.
func compareMRAN(t *testing.T, k int, m *MRAN, r *refMRAN, tol float64) float64 {
	t.Helper()
	n := m.Net
	worst := 0.0
	rel := func(what string, a, b []float64) {
		t.Helper()
		scale, d := 0.0, 0.0
		for i := range b {
			scale = math.Max(scale, math.Abs(b[i]))
			d = math.Max(d, math.Abs(a[i]-b[i]))
		}
		if scale > 0 {
			d /= scale
		}
		worst = math.Max(worst, d)
		if !(d <= tol) {
			t.Fatalf("sample %d: %s differs from the reference by %.3g relative", k, what, d)
		}
	}
	var ym, yr []float64
	x := make([]float64, n.In)
	ya, yb := make([]float64, n.Out), make([]float64, n.Out)
	for i := range 81 {
		for d := range x {
			x[d] = -4 + 0.1*float64(i) + 0.3*float64(d)
		}
		n.Eval(x, ya)
		r.Net.Eval(x, yb)
		ym, yr = append(ym, ya...), append(yr, yb...)
	}
	rel("prediction", ym, yr)
	rel("W", n.W, r.Net.W)
	z := len(n.W)
	var pm, pr []float64
	for i := range z {
		pm = append(pm, m.P[i*z+i:i*z+z]...)
		pr = append(pr, r.P[i*z+i:i*z+z]...)
	}
	rel("P", pm, pr)
	return worst
}

func norm(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}

// BenchmarkRefMRANUpdate30Units is BenchmarkMRANUpdate30Units on the
// reference implementation, to compare the two under the same load.
func BenchmarkRefMRANUpdate30Units(b *testing.B) {
	net := New(1, 1)
	for j := range 30 {
		net.AddUnit([]float64{0.1}, []float64{-4 + 8*float64(j)/29}, 0.5)
	}
	m, err := newRefMRAN(net, 1, 1, MRANConfig{PruneWindow: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	xs := make([]float64, 1024)
	for i := range xs {
		xs[i] = -4 + 8*rng.Float64()
	}
	x, y := []float64{0}, []float64{0}
	b.ResetTimer()
	for i := range b.N {
		x[0] = xs[i%1024]
		y[0] = 1.1 * (1 - x[0] + 2*x[0]*x[0]) * math.Exp(-x[0]*x[0]/2)
		m.Update(x, y)
	}
}

// invSmall inverts the n×n matrix a into b by Gauss–Jordan elimination (n
// is the output dimension, 1 or 2 in practice); MRAN's before opt.EKF.
func invSmall(a, b []float64, n int) {
	if n == 1 {
		b[0] = 1 / a[0]
		return
	}
	w := 2 * n
	m := make([]float64, 0, w*n)
	for i := range n {
		for j := range n {
			m = append(m, a[i*n+j])
		}
		for j := range n {
			if i == j {
				m = append(m, 1)
			} else {
				m = append(m, 0)
			}
		}
	}
	for c := range n {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(m[r*w+c]) > math.Abs(m[p*w+c]) {
				p = r
			}
		}
		for j := range w {
			m[c*w+j], m[p*w+j] = m[p*w+j], m[c*w+j]
		}
		d := m[c*w+c]
		for j := range w {
			m[c*w+j] /= d
		}
		for r := range n {
			if r != c {
				f := m[r*w+c]
				for j := range w {
					m[r*w+j] -= f * m[c*w+j]
				}
			}
		}
	}
	for i := range n {
		copy(b[i*n:i*n+n], m[i*w+n:i*w+2*n])
	}
}
