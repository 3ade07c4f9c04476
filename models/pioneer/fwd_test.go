package pioneer

import "testing"

// TestGeneratedForward: the generated value-only and forward-mode kernels
// of both forms equal the interpreter on two runs (a step, a stop, a
// backwards step: every limit acts).
func TestGeneratedForward(t *testing.T) {
	runs := testRuns(120)
	for _, form := range []string{FormPhysical, FormExperimental} {
		p := Default(form)
		b := newBatch(p, runs, 2, 2, 20, 3)
		if _, err := b.m.CheckGeneratedForward(p.vector(), b.q, b.x0, b.u, b.B, b.T, 1e-10); err != nil {
			t.Errorf("%s: %v", form, err)
		}
	}
}
