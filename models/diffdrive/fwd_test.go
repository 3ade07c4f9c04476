package diffdrive

import "testing"

// TestGeneratedForward: the generated value-only and forward-mode kernels
// of the step and calibration models equal the interpreter on a batch of
// segments, exact and smoothed.
func TestGeneratedForward(t *testing.T) {
	p := Paper()
	bt := testBatch(t, 60, 50, 10, p)
	x0, u := bt.StepData()
	z := perturbed(p)
	for _, sm := range []Smoothing{{}, {T: 0.05}, {Eps: 0.005}, {T: 0.05, Eps: 0.005}} {
		if _, err := CalibModel(sm).CheckGeneratedForward(z[:], calibSettings(p.L, p.H, 1, sm), x0, u, bt.M, bt.N, 1e-10); err != nil {
			t.Error(err)
		}
	}
	su := make([]float64, bt.N*2*bt.M)
	for n := range bt.N {
		copy(su[(n*2)*bt.M:(n*2+2)*bt.M], u[(n*4)*bt.M:(n*4+2)*bt.M])
	}
	if _, err := StepModel.CheckGeneratedForward(z[:], []float64{p.H, p.L}, x0, su, bt.M, bt.N, 1e-10); err != nil {
		t.Error(err)
	}
}
