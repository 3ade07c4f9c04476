package fit

import (
	"math"
	"strings"
	"testing"
)

// Three 2-s windows concatenated on one running clock without traj: the
// poses jump back to 0 at the start of the second and third.
func TestJumpsBack(t *testing.T) {
	var x, y []float64
	var rows []int
	for w := range 3 {
		for k := range 40 {
			x = append(x, 0.05*float64(k)*(1+0.1*float64(w)))
			y = append(y, 0.001*float64(k*k))
			rows = append(rows, w*40+k)
		}
	}
	got := JumpsBack(x, y, rows)
	if len(got) != 2 || got[0] != 40 || got[1] != 80 {
		t.Fatalf("jumps back at rows %v, want [40 80]", got)
	}
	ws := JumpsBackWarning("w.csv", x, y, rows, func(r int) int { return r + 2 })
	if len(ws) != 1 || !strings.Contains(ws[0].Msg, "lines 42, 82") || !strings.Contains(ws[0].Msg, "traj") {
		t.Errorf("warning %v", ws)
	}
	// one window: no jump; a loop that comes back slowly: no jump
	if j := JumpsBack(x[:40], y[:40], rows[:40]); j != nil {
		t.Errorf("one window: %v", j)
	}
	var cx, cy []float64
	for k := range 200 {
		a := 2 * math.Pi * float64(k) / 199
		cx, cy = append(cx, math.Sin(a)), append(cy, 1-math.Cos(a))
	}
	if j := JumpsBack(cx, cy, rows[:0:0]); j != nil {
		t.Errorf("no rows: %v", j)
	}
	all := make([]int, 200)
	for i := range all {
		all[i] = i
	}
	if j := JumpsBack(cx, cy, all); j != nil {
		t.Errorf("a circle back to its start: %v", j)
	}
}

// 20 s at 10 Hz: commanded driving 0–5 s, manual driving (zero commands,
// moving) 5–12 s, standing with a command 12–15 s, standing idle after.
func TestCommandMotionSpans(t *testing.T) {
	n := 201
	tt, x, y, psi := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	cmd := make([]float64, n)
	rows := make([]int, n)
	pos := 0.0
	for k := range n {
		tt[k] = 100 + 0.1*float64(k)
		s := tt[k] - 100
		switch {
		case s < 5:
			pos += 0.05
			cmd[k] = 0.5
		case s < 12:
			pos += 0.05
		case s < 15:
			cmd[k] = 0.5
		}
		x[k], rows[k] = pos, k
		if k%2 == 1 { // a stale sensor at half the rate
			x[k] = x[k-1]
		}
	}
	zero := func(k int) bool { return cmd[k] == 0 }
	manual, standing := CommandMotionSpans(tt, x, y, psi, rows, zero, 1)
	if len(manual) != 1 || math.Abs(manual[0].From-105) > 0.25 || math.Abs(manual[0].To-112) > 0.25 {
		t.Errorf("manual driving %v, want one span 105–112 s", manual)
	}
	if len(standing) != 1 || math.Abs(standing[0].From-112) > 0.25 || math.Abs(standing[0].To-115) > 0.25 {
		t.Errorf("standing with commands %v, want one span 112–115 s", standing)
	}
	ws := CommandMotionWarnings("raw.csv", tt, x, y, psi, rows, zero)
	if len(ws) != 2 || !strings.Contains(ws[0].Msg, "moves while every command is zero") || !strings.Contains(ws[0].Msg, "5.0–11.9 s") ||
		!strings.Contains(ws[1].Msg, "stands still while commanded") {
		t.Errorf("warnings %v", ws)
	}
	// commands that match the motion: nothing
	for k := range cmd {
		cmd[k] = 0
		if k > 0 && x[k] != x[k-1] || k+1 < n && x[k+1] != x[k] {
			cmd[k] = 0.5
		}
	}
	if m, s := CommandMotionSpans(tt, x, y, psi, rows, zero, 1); len(m) != 0 {
		t.Errorf("consistent commands: manual %v standing %v", m, s)
	}
}

func TestRunOutliers(t *testing.T) {
	errs := []float64{0.1, 0.12, 0.09, 0.2, 0.15, 0.11, 8.3, 0.13, math.NaN(), 0.14, 4.7}
	o := RunOutliers(errs, 5)
	if len(o) != 2 || o[0] != 6 || o[1] != 10 {
		t.Fatalf("outliers %v, want [6 10]", o)
	}
	ids := []string{"a", "b", "c", "d", "e", "f", "197", "h", "i", "j", "269"}
	ws := RunOutlierWarnings("w.csv", ids, errs)
	if len(ws) != 1 || !strings.Contains(ws[0].Msg, "197 (8.3 m), 269 (4.7 m)") {
		t.Errorf("warning %v", ws)
	}
	if o := RunOutliers([]float64{0.1, 0.12, 0.09, 0.2, 0.15, 0.11, 0.13}, 5); o != nil {
		t.Errorf("no outlier: %v", o)
	}
	if o := RunOutliers([]float64{0.1, 9, 0.1, 0.1}, 5); o != nil {
		t.Errorf("four runs: %v", o)
	}
}

func TestWorseThanNominalAndStaleCount(t *testing.T) {
	if w := WorseThanNominal("f", "2-s error", 0.247, 0.290, "m"); len(w) != 1 || !strings.Contains(w[0].Msg, "0.29 m calibrated vs 0.247 m nominal") {
		t.Errorf("worse: %v", w)
	}
	if w := WorseThanNominal("f", "2-s error", 0.3, 0.2, "m"); w != nil {
		t.Errorf("better: %v", w)
	}
	if w := StaleCountWarning("f", 3697, 7200, 180); len(w) != 1 || !strings.Contains(w[0].Msg, "3697 of 7200 poses (51 %) over 180 runs") {
		t.Errorf("stale: %v", w)
	}
	if w := StaleCountWarning("f", 5, 100, 1); w != nil {
		t.Errorf("5 %% stale: %v", w)
	}
}

// A velocity model's log (no poses): 5 s commanded, 7 s driven with zero
// commands, 3 s standing while commanded.
func TestCommandSpeedSpans(t *testing.T) {
	n := 201
	tt, v, w, cmd := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	rows := make([]int, n)
	for k := range n {
		tt[k], rows[k] = 0.1*float64(k), k
		switch s := tt[k]; {
		case s < 5:
			v[k], cmd[k] = 0.5, 0.5
		case s < 12:
			w[k] = -0.4
		case s < 15:
			cmd[k] = 0.5
		}
	}
	zero := func(k int) bool { return cmd[k] == 0 }
	manual, standing := CommandSpeedSpans(tt, v, w, rows, zero, 1)
	if len(manual) != 1 || math.Abs(manual[0].From-5) > 0.15 || math.Abs(manual[0].To-12) > 0.15 {
		t.Errorf("manual driving %v, want one span 5–12 s", manual)
	}
	if len(standing) != 1 || math.Abs(standing[0].From-12) > 0.15 || math.Abs(standing[0].To-15) > 0.15 {
		t.Errorf("standing with commands %v, want one span 12–15 s", standing)
	}
	ws := CommandSpeedWarnings("dd.csv", tt, v, w, rows, zero)
	if len(ws) != 2 || !strings.Contains(ws[0].Msg, "moves while every command is zero") || !strings.Contains(ws[1].Msg, "stands still") {
		t.Errorf("warnings %v", ws)
	}
	for k := range cmd {
		cmd[k] = math.Abs(v[k]) + math.Abs(w[k])
	}
	if m, s := CommandSpeedSpans(tt, v, w, rows, zero, 1); len(m)+len(s) != 0 {
		t.Errorf("consistent commands: manual %v standing %v", m, s)
	}
}
