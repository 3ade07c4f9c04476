package fit

import (
	"math"
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
	if ws := PoseOutlierWarnings("log.csv", nil, x, y, rows, 0, nil); len(ws) != 0 {
		t.Fatalf("clean noise: %v", ws)
	}
	y[700] += 1.9
	ws := PoseOutlierWarnings("log.csv", nil, x, y, rows, 0, func(r int) int { return r + 2 })
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

// A sparse tracker on a robot that stands still, then drives — fresh
// poses 0.1–1.3 s apart, stamped on arrival up to 0.3 s late, as the
// Warthog's ICP — deviates from the path interpolated at its times by
// its motion and timing, not by noise: the dense test (no times) raises
// false alarms, the time-aware one none; a sample 1.9 m off is still
// named.
func TestPoseOutliersSparseTracker(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	// arc length along a circle of 3 m radius: still for 20 s, then 10 s
	// at 1.5 m/s, and again
	arc := func(s float64) float64 {
		cycles, r := math.Floor(s/30), math.Mod(s, 30)
		return 15*cycles + 1.5*max(0, r-20)
	}
	var ts, x, y []float64
	var rows []int
	for k, s := 0, 0.0; s < 300; k++ {
		th := arc(s-0.3*rng.Float64()) / 3 // the pose was taken before it arrived
		ts = append(ts, s)
		x, y = append(x, 3*math.Sin(th)+0.002*rng.NormFloat64()), append(y, 3-3*math.Cos(th)+0.002*rng.NormFloat64())
		rows = append(rows, k)
		s += 0.1 + 1.2*rng.Float64()
	}
	if got := PoseOutliers(nil, x, y, rows, OutlierK, 0); len(got) < 20 {
		t.Fatalf("the dense test on a sparse tracker: %d alarms; the test below proves nothing unless the dense test fails here", len(got))
	}
	if ws := PoseOutlierWarnings("icp.csv", ts, x, y, rows, 3, nil); len(ws) != 0 {
		t.Fatalf("sparse tracker, time-aware: %d warnings: %v", len(ws), ws[0])
	}
	y[100] += 1.9
	ws := PoseOutlierWarnings("icp.csv", ts, x, y, rows, 3, nil)
	if len(ws) != 1 || ws[0].Row != 101 || !strings.Contains(ws[0].Msg, "beyond where the robot can be") {
		t.Fatalf("a 1.9-m outlier on the sparse tracker: %v", ws)
	}
}

// Values beyond a column's limit are warned once per column, naming the
// largest one's line and the count; NaN cells and values within it are not.
func TestImplausible(t *testing.T) {
	c := ColumnLimit{Name: "vc", Max: 20, Unit: "m/s"}
	v := []float64{0, 1.5, math.NaN(), -19, 3}
	if ws := Implausible("log.csv", c, v, nil, nil); len(ws) != 0 {
		t.Fatalf("plausible column: %v", ws)
	}
	v[1], v[3] = 1e308, math.Inf(-1)
	ws := Implausible("log.csv", c, v, nil, func(r int) int { return r + 2 })
	if len(ws) != 1 || ws[0].Row != 5 || !strings.Contains(ws[0].String(), "log.csv: line 5: column vc: -Inf m/s is beyond what the robot can do (|vc| ≤ 20 m/s) (2 rows beyond it, the first at line 3)") {
		t.Fatalf("two implausible values: %v", ws)
	}
}
