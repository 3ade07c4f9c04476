package rbf_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/wheelgrad/wheelgrad/models/rbf"
	"github.com/wheelgrad/wheelgrad/opt"
)

// hermite is the benchmark of Lu et al. (1997): 1.1(1 − x + 2x²)e^(−x²/2).
func hermite(x float64) float64 { return 1.1 * (1 - x + 2*x*x) * math.Exp(-x*x/2) }

func testRMS(n *rbf.Network) float64 {
	s := 0.0
	for i := range 201 {
		x := -4 + 8*float64(i)/200
		d := n.Predict(x) - hermite(x)
		s += d * d
	}
	return math.Sqrt(s / 201)
}

// noisySamples draws n training samples on [−4, 4] with noise σ.
func noisySamples(n int, sigma float64, seed uint64) (X, T []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	X, T = make([]float64, n), make([]float64, n)
	for i := range X {
		X[i] = -4 + 8*rng.Float64()
		T[i] = hermite(X[i]) + sigma*rng.NormFloat64()
	}
	return
}

var hermiteCfg = rbf.MRANConfig{E1: 0.15, E2: 0.15, Gamma: 0.98, EpsMin: 0.3}

// On 200 noisy samples (σ = 0.1), MRAN streaming them 10 times reaches the
// test error of a fixed network of 30 units (the paper's maximum) trained on
// them by batch L-BFGS, with fewer units; its unit count grows and then
// settles.
func TestMRANHermiteAgainstBatchLBFGS(t *testing.T) {
	X, T := noisySamples(200, 0.1, 1)
	m, err := rbf.NewMRAN(nil, 1, 1, hermiteCfg)
	if err != nil {
		t.Fatal(err)
	}
	var units []int
	for k := range 2000 {
		if _, _, err := m.Update([]float64{X[k%200]}, []float64{T[k%200]}); err != nil {
			t.Fatal(err)
		}
		if (k+1)%20 == 0 {
			units = append(units, m.Net.Units())
		}
	}
	mranRMS := testRMS(m.Net)
	const h = 30
	prog, err := rbf.NewBatchLoss(1, 1, h, X, T)
	if err != nil {
		t.Fatal(err)
	}
	n0 := rbf.New(1, 1)
	for j := range h {
		n0.AddUnit([]float64{0}, []float64{-4 + 8*(float64(j)+0.5)/h}, 8.0/h)
	}
	res, err := opt.LBFGSB{}.Minimize(opt.Problem{Objective: prog.Eval}, n0.ToBlocks(), opt.Settings{MaxIterations: 500})
	if err != nil {
		t.Fatal(err)
	}
	fixedRMS := testRMS(rbf.FromBlocks(1, 1, h, res.X))
	t.Logf("MRAN: %d units (added %d, pruned %d), test RMS %.4f; fixed %d units by L-BFGS (%d iterations): test RMS %.4f; units every 20 samples %v",
		m.Net.Units(), m.Added, m.Pruned, mranRMS, h, res.Iterations, fixedRMS, units)
	if mranRMS > fixedRMS || m.Net.Units() >= h {
		t.Errorf("MRAN %d units RMS %.4f vs fixed %d units RMS %.4f", m.Net.Units(), mranRMS, h, fixedRMS)
	}
	// Grows, then settles: the count after 20 samples is below the final
	// one, and over the last half of the run it changes by at most one unit.
	if units[0] >= units[len(units)-1] || units[len(units)-1] <= 2 {
		t.Errorf("network did not grow: %v", units)
	}
	lo, hi := units[len(units)/2], units[len(units)/2]
	for _, u := range units[len(units)/2:] {
		lo, hi = min(lo, u), max(hi, u)
	}
	if hi-lo > 1 {
		t.Errorf("unit count does not settle: %v", units)
	}
}

// A unit that stops contributing is pruned: train on the Hermite function,
// then on inputs in [−4, 0] only after adding a unit far away at x = 20,
// which never again contributes.
func TestMRANPrunesIdleUnit(t *testing.T) {
	net := rbf.New(1, 1)
	net.AddUnit([]float64{0.5}, []float64{0.3}, 1.5)
	net.AddUnit([]float64{0.5}, []float64{20}, 1)
	m, err := rbf.NewMRAN(net, 1, 1, rbf.MRANConfig{PruneWindow: 50})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 3))
	for range 60 {
		x := -2 + 4*rng.Float64()
		if _, _, err := m.Update([]float64{x}, []float64{math.Exp(-x * x)}); err != nil {
			t.Fatal(err)
		}
	}
	if m.Pruned < 1 {
		t.Fatalf("the unit at x = 20 was not pruned (units %d)", m.Net.Units())
	}
	for j := range m.Net.Units() {
		if _, c, _ := m.Net.Unit(j); c[0] > 10 {
			t.Errorf("unit at %g survived", c[0])
		}
	}
	// After pruning, the covariance must still be consistent with the
	// parameters: further updates keep learning.
	before := testGauss(m.Net)
	for range 500 {
		x := -2 + 4*rng.Float64()
		m.Update([]float64{x}, []float64{math.Exp(-x * x)})
	}
	if after := testGauss(m.Net); !(after < before) {
		t.Errorf("error did not decrease after pruning: %.4f → %.4f", before, after)
	}
}

func testGauss(n *rbf.Network) float64 {
	s := 0.0
	for i := range 41 {
		x := -2 + 4*float64(i)/40
		d := n.Predict(x) - math.Exp(-x*x)
		s += d * d
	}
	return math.Sqrt(s / 41)
}

func TestMRANUpdateDoesNotAllocate(t *testing.T) {
	m := fullMRAN(t)
	x, y := []float64{0.3}, []float64{hermite(0.3)}
	if a := testing.AllocsPerRun(100, func() { m.Update(x, y) }); a != 0 {
		t.Errorf("Update allocates %.0f times", a)
	}
}

// fullMRAN returns a trainer whose network has 30 units.
func fullMRAN(t testing.TB) *rbf.MRAN {
	net := rbf.New(1, 1)
	for j := range 30 {
		net.AddUnit([]float64{0.1}, []float64{-4 + 8*float64(j)/29}, 0.5)
	}
	m, err := rbf.NewMRAN(net, 1, 1, rbf.MRANConfig{PruneWindow: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func BenchmarkMRANUpdate30Units(b *testing.B) {
	m := fullMRAN(b)
	rng := rand.New(rand.NewPCG(1, 1))
	xs := make([]float64, 1024)
	for i := range xs {
		xs[i] = -4 + 8*rng.Float64()
	}
	x, y := []float64{0}, []float64{0}
	b.ResetTimer()
	for i := range b.N {
		x[0] = xs[i%1024]
		y[0] = hermite(x[0])
		m.Update(x, y)
	}
}
