package robots

import (
	"math"
	"testing"
)

// CheckFigure (for the tests of package robots_test too) fails unless f is a figure of at least n series, each with
// as many x as y values, at least one of them, all finite.
func CheckFigure(t *testing.T, what string, f *Figure, n int) {
	t.Helper()
	if f == nil {
		t.Fatalf("%s: no figure", what)
	}
	if len(f.Series) < n {
		t.Errorf("%s: %d series, want at least %d", what, len(f.Series), n)
	}
	for i, s := range f.Series {
		if len(s.X) == 0 || len(s.X) != len(s.Y) {
			t.Errorf("%s: series %d (%q) has %d x and %d y values", what, i, s.Name, len(s.X), len(s.Y))
		}
		for k := range s.X {
			if math.IsNaN(s.X[k]) || math.IsInf(s.X[k], 0) || math.IsNaN(s.Y[k]) || math.IsInf(s.Y[k], 0) {
				t.Fatalf("%s: series %d (%q), point %d: (%g, %g)", what, i, s.Name, k, s.X[k], s.Y[k])
			}
		}
	}
}
