package main

import "testing"

// TestGeneratedForward: the generated value-only and forward-mode kernels
// of Robot equal the interpreter on synthetic logs (exact clamp: robots
// stop and restart).
func TestGeneratedForward(t *testing.T) {
	d, err := synth(3, 2000, cmdNoise, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range [][]float64{start, truth} {
		if _, err := Robot.CheckGeneratedForward(p, []float64{dt}, d.x0, d.u, d.B, d.T, 1e-10); err != nil {
			t.Error(err)
		}
	}
}
