package diffdrive

import (
	"testing"

	"github.com/wheelgrad/wheelgrad/ad"
	"github.com/wheelgrad/wheelgrad/dataset"
)

// testBatch is a small calibration batch from a synthetic training log.
func testBatch(t testing.TB, seconds float64, N, stride int, p Params) *Batch {
	t.Helper()
	lg, err := Synthesize(p, SynthConfig{Drive: Training, Seconds: seconds, Noise: 0.01, HangupEvery: 30, SpikeRate: 0.002, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	ar, al := make([]float64, len(lg.T)), make([]float64, len(lg.T))
	if err := dataset.Derivative5(ar, lg.VR, p.H); err != nil {
		t.Fatal(err)
	}
	_ = dataset.Derivative5(al, lg.VL, p.H)
	starts, err := dataset.SegmentStarts(len(lg.T), N, stride, 2)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewBatch(lg.UF, lg.UL, lg.VR, lg.VL, ar, al, p.L, starts, N)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// perturbed is a point away from the truth, where the gradient is not small.
func perturbed(p Params) [6]float64 {
	z := p.Zeta()
	f := [6]float64{1.1, 0.8, 0.9, 1.15, 1.2, 0.85}
	for i := range z {
		z[i] *= f[i]
	}
	return z
}

// The loss of the kernel equals eq. 22 evaluated on Simulate's rollouts.
func TestAdjointLossMatchesSimulate(t *testing.T) {
	p := Paper()
	b := testBatch(t, 120, 50, 7, p)
	a, err := NewAdjoint(b, p.L, p.H, LossSpec{CW: 0.7})
	if err != nil {
		t.Fatal(err)
	}
	z := perturbed(p)
	q := p.WithZeta(z)
	got := a.Loss(z, Smoothing{})
	var want float64
	uf, ul := make([]float64, b.N+1), make([]float64, b.N+1)
	for j := range b.M {
		for n := range b.N {
			uf[n], ul[n] = b.UF[n*b.M+j], b.UL[n*b.M+j]
		}
		tr, _ := q.Simulate(State{b.Init[0][j], b.Init[1][j], b.Init[2][j], b.Init[3][j]}, uf, ul)
		for n := range b.N {
			dv := tr.V[n+1] - b.V[n*b.M+j]
			dw := tr.W[n+1] - b.W[n*b.M+j]
			if dv < 0 {
				dv = -dv
			}
			if dw < 0 {
				dw = -dw
			}
			want += dv + 0.7*dw
		}
	}
	if d := got - want; d > 1e-12*want || d < -1e-12*want {
		t.Fatalf("kernel loss %.17g, eq. 22 on Simulate %.17g", got, want)
	}
}

// The hand-written adjoint against central differences of the native loss,
// for the exact model and loss and for both surrogates.
func TestAdjointGradientFiniteDifferences(t *testing.T) {
	p := Paper()
	b := testBatch(t, 60, 50, 5, p)
	for _, sm := range []Smoothing{{}, {T: 0.05, Eps: 0.01}, {T: 0.5, Eps: 0.1}} {
		for _, cw := range []float64{1, 0.3} {
			a, err := NewAdjoint(b, p.L, p.H, LossSpec{CW: cw})
			if err != nil {
				t.Fatal(err)
			}
			z := perturbed(p)
			_, g := a.LossGrad(z, sm)
			f := func(x []float64) (float64, error) {
				return a.Loss([6]float64(x), sm), nil
			}
			c, err := ad.CheckGrad(f, g[:], z[:], 1e-6)
			if err != nil {
				t.Fatal(err)
			}
			tol := 1e-6
			if sm.Eps == 0 {
				tol = 1e-4 // kinks of |·| and of the clamp between the difference points
			}
			t.Logf("%+v cw=%v: %v", sm, cw, c)
			if c.MaxRelErr > tol {
				t.Errorf("%+v cw=%v: %v", sm, cw, c)
			}
		}
	}
}
