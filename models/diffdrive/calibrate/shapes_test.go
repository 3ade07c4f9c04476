package calibrate

import (
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/models/diffdrive"
)

// Columns of unequal length are an error from Calibrate and from the
// model's SimulateSpeeds, not an index panic (issue 26.6).
func TestShapes(t *testing.T) {
	full := func(n int) []float64 { return make([]float64, n) }
	_, err := Calibrate(Log{UF: full(100), UL: full(100), VR: full(50), VL: full(100)}, diffdrive.Paper(), Options{})
	if err == nil || !strings.Contains(err.Error(), "lengths 100, 100, 50, 100") {
		t.Errorf("Calibrate with a short vr: %v", err)
	}
	if err := diffdrive.Paper().SimulateSpeeds(diffdrive.State{}, full(10), full(10), full(3), full(10)); err == nil {
		t.Error("SimulateSpeeds into a short vr: no error")
	}
	if err := diffdrive.Paper().SimulateSpeeds(diffdrive.State{}, full(10), full(10), full(10), full(10)); err != nil {
		t.Errorf("SimulateSpeeds: %v", err)
	}
}
