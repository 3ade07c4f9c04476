package tire

import (
	"testing"

	fitpkg "github.com/wheelgrad/wheelgrad/fit"
)

// The verdicts judge a stiffness against the box Identify searches
// (capped at MaxStiffness, 372 N per unit slip at the defaults), not the
// physical [1, 1e5] (issue 26.2): Ky = 80 is well inside its box, and
// Kx = 238 ± 162 spans more than a quarter of it.
func TestFitBoundsVerdicts(t *testing.T) {
	p := Jackal()
	lo, hi := FitBounds(p, "Kx")
	if lo != 1 || !(hi < 400) || hi != p.MaxStiffness() {
		t.Fatalf("FitBounds(Kx) = [%g, %g], want [1, MaxStiffness %g]", lo, hi, p.MaxStiffness())
	}
	ky := fitpkg.Param{Name: "Ky", Value: 80, Std: 2, Lower: lo, Upper: hi}
	if ws := fitpkg.OnBound([]fitpkg.Param{ky}); len(ws) != 0 {
		t.Errorf("Ky = 80 on [%g, %g]: %v", lo, hi, ws)
	}
	if v := ky.Verdict(); v != fitpkg.Determined {
		t.Errorf("Ky = 80 ± 2: %v", v)
	}
	kx := fitpkg.Param{Name: "Kx", Value: 238, Std: 162, Lower: lo, Upper: hi}
	if kx.Determined() {
		t.Errorf("Kx = 238 ± 162 on [%g, %g] judged %v", lo, hi, kx.Verdict())
	}
	if lo, hi := FitBounds(p, "mu"); lo != 1e-3 || hi != 5 {
		t.Errorf("FitBounds(mu) = [%g, %g]", lo, hi)
	}
}
