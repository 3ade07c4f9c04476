package mecanum

import (
	"math"
	"strings"
	"testing"
)

// A run built in code with columns shorter than T is an error from NewFit
// and NewNetFit and NaN poses from Simulate, not an index panic (issue
// 26.6).
func TestRunShapes(t *testing.T) {
	n := 10
	ts := make([]float64, n)
	for k := range ts {
		ts[k] = 0.1 * float64(k)
	}
	full := func() []float64 { return make([]float64, n) }
	for name, r := range map[string]Run{
		"short W": {T: ts, W: make([][4]float64, 5), X: full(), Y: full(), Theta: full()},
		"short X": {T: ts, W: make([][4]float64, n), X: make([]float64, 3), Y: full(), Theta: full()},
		"long X":  {T: ts, W: make([][4]float64, n), X: make([]float64, n+2), Y: make([]float64, n+2), Theta: make([]float64, n+2)},
	} {
		if err := r.Check(); err == nil || !strings.Contains(err.Error(), "mecanum: run") {
			t.Errorf("%s: Check: %v", name, err)
		}
		if _, err := NewFit(DefaultParams(), []Run{r}, Config{}); err == nil {
			t.Errorf("%s: NewFit: no error", name)
		}
		if _, err := NewNetFit(DefaultParams(), []Run{r}, 4, 0); err == nil {
			t.Errorf("%s: NewNetFit: no error", name)
		}
		if x, _, _ := Simulate(DefaultParams(), &r); len(x) != n || !math.IsNaN(x[0]) {
			t.Errorf("%s: Simulate: %v", name, x)
		}
	}
	for _, good := range []Run{{T: ts, W: make([][4]float64, n)}, {T: ts, W: make([][4]float64, n), X: []float64{1}, Y: []float64{2}, Theta: []float64{0}}} {
		if err := good.Check(); err != nil {
			t.Errorf("a good run: %v", err)
		}
		if x, _, _ := Simulate(DefaultParams(), &good); math.IsNaN(x[n-1]) {
			t.Errorf("a good run: %v", x)
		}
	}
}
