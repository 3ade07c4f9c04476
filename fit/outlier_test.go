package fit

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// One tracker sample 1.9 m off among 2,000 noisy ones is named by its line
// and columns; clean noise gives no warning.
func TestPoseOutlierWarnings(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := 2000
	x, y, rows := make([]float64, n), make([]float64, n), make([]int, n)
	for i := range n {
		x[i] = 0.01*float64(i) + 0.003*rng.NormFloat64()
		y[i] = 0.5 + 0.003*rng.NormFloat64()
		rows[i] = i
	}
	if ws := PoseOutlierWarnings("log.csv", x, y, rows, nil); len(ws) != 0 {
		t.Fatalf("clean noise: %v", ws)
	}
	y[700] += 1.9
	ws := PoseOutlierWarnings("log.csv", x, y, rows, func(r int) int { return r + 2 })
	if len(ws) != 1 || ws[0].Row != 702 || !strings.Contains(ws[0].String(), "log.csv: line 702: columns x, y") || !strings.Contains(ws[0].Msg, "1.9 m") {
		t.Fatalf("one outlier: %v", ws)
	}
}

// A spike is warned, a step and a ramp are not.
func TestSpikeWarnings(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	n := 600
	v, rows := make([]float64, n), make([]int, n)
	for i := range n {
		switch {
		case i < 200:
			v[i] = 0
		case i < 400:
			v[i] = 0.3 // a step
		default:
			v[i] = 0.3 + 0.002*float64(i-400) // a ramp
		}
		v[i] += 0.001 * rng.NormFloat64()
		rows[i] = i
	}
	if ws := SpikeWarnings("log.csv", "v", v, rows, nil); len(ws) != 0 {
		t.Fatalf("step and ramp: %v", ws)
	}
	v[300] = 1e30
	ws := SpikeWarnings("log.csv", "v", v, rows, nil)
	if len(ws) != 1 || ws[0].Row != 301 || !strings.Contains(ws[0].Msg, "column v: 1e+30 jumps") {
		t.Fatalf("spike: %v", ws)
	}
}
