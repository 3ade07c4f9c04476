package skidsteer

import "testing"

// TestGeneratedForward: the generated value-only and forward-mode kernels
// of Model equal the interpreter on three runs.
func TestGeneratedForward(t *testing.T) {
	tt, vc, wc, p0 := runs(3, 2)
	x0, u, T := batch(tt, vc, wc, p0)
	if _, err := Model.CheckGeneratedForward(Table2[1].A[:], nil, x0, u, len(tt), T, 1e-10); err != nil {
		t.Error(err)
	}
}
