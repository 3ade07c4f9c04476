package losses

import (
	"strings"
	"testing"
)

// The native losses refuse slices of different lengths with an error
// naming the function, never an index panic (issue 26.6).
func TestNativeLossShapes(t *testing.T) {
	a, b := []float64{1, 2, 3}, []float64{1, 2}
	s, err := NewSpline([]float64{0, 1, 2, 3}, []float64{0, 1, 2, 3}, []float64{0, 0, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func() error{
		"GroundTruthLoss": func() error { _, err := GroundTruthLoss(a, a, b, a, 1, nil, nil); return err },
		"GroundTruthLoss gradient": func() error {
			_, err := GroundTruthLoss(a, a, a, a, 1, make([]float64, 2), make([]float64, 3))
			return err
		},
		"SplineLoss":      func() error { _, err := SplineLoss(s, a, b, nil, 1, ImplicitClosest, nil, nil, nil); return err },
		"SplineLoss hint": func() error { _, err := SplineLoss(s, a, a, b, 1, ImplicitClosest, nil, nil, nil); return err },
		"VelocityL1Float": func() error { _, err := VelocityL1Float(a, a, a, b, 1, 0); return err },
	} {
		err := f()
		if err == nil || !strings.Contains(err.Error(), "losses.") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := GroundTruthLoss(a, a, a, a, 1, nil, nil); err != nil {
		t.Errorf("equal lengths: %v", err)
	}
}
