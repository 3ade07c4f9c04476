package p3dx

import (
	"math"
	"testing"
)

// The robot holds a constant reference (the PI's integral beats Coulomb
// friction), does not move before its command delay has passed, and is
// deterministic for a seed.
func TestDrive(t *testing.T) {
	rb := Default()
	n := 60
	v, w := make([]float64, n), make([]float64, n)
	for k := 10; k < n; k++ {
		v[k], w[k] = 0.2, 0.3
	}
	lg := rb.Drive(v, w, 1)
	// sent at t = 1 s, arriving at 1.17 ± 0.01 s: the windows ending at ≤ 1.1 s are still
	for k := 0; k <= 11; k++ {
		if lg.TrueV[k] != 0 || lg.TrueW[k] != 0 {
			t.Errorf("row %d: moving (%v, %v) before the command arrived", k, lg.TrueV[k], lg.TrueW[k])
		}
	}
	if lg.TrueV[13] == 0 {
		t.Errorf("row 13: still at rest 0.3 s after the command")
	}
	var mv, mw float64
	for k := 40; k < n; k++ {
		mv += lg.TrueV[k] / 20
		mw += lg.TrueW[k] / 20
	}
	if math.Abs(mv-0.2) > 2e-3 || math.Abs(mw-0.3) > 5e-3 {
		t.Errorf("steady (%v, %v), want (0.2, 0.3)", mv, mw)
	}
	again := rb.Drive(v, w, 1)
	for k := range lg.V {
		if lg.V[k] != again.V[k] || lg.T[k] != again.T[k] {
			t.Fatalf("row %d differs between runs of one seed", k)
		}
	}
}

// Stiction: at a slow reversal the wheels stay stuck while the reference
// passes through zero (the threshold the experimental model describes).
func TestStictionAtReversal(t *testing.T) {
	rb := Default()
	rb.NoiseV, rb.NoiseW = 0, 0
	var v []float64
	for k := range 80 {
		v = append(v, 0.1-0.2*float64(k)/79) // 0.1 → −0.1 m/s over 8 s
	}
	lg := rb.Drive(v, make([]float64, len(v)), 2)
	still := 0
	for k := 30; k < 70; k++ {
		if lg.TrueV[k] == 0 {
			still++
		}
	}
	if still < 2 {
		t.Errorf("the robot passed through zero without sticking (%d still samples)", still)
	}
}
