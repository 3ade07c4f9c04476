package dyn_test

import (
	"math"
	"testing"

	"github.com/wheelgrad/wheelgrad/dyn"
)

// lagValueSteps are the commands and step lengths of the native-form
// tests: steps of different lengths, a padded step (dt = 0) and a negative
// one (treated as padding).
var lagValueSteps = []struct{ u, dt float64 }{
	{1, 0.05}, {1, 0.05}, {2.5, 0.02}, {-1, 0.07}, {-1, 0}, {0.5, 0.05}, {0.5, 0.0005},
	{3, 0.05}, {3, -0.01}, {-2, 0.1}, {0, 0.05}, {0.25, 0.033}, {0.25, 0.05}, {-0.75, 0.05},
}

func closeTo(a, b float64) bool { return math.Abs(a-b) <= 1e-14*max(1, math.Abs(b)) }

// LagValue is Lag: its end and mean values equal those of the step
// language's Lag (the interpreter that the generated kernels are checked
// against) to 1e-14 at every step, for time constants from none (τ = 0)
// through much shorter and much longer than the steps.
func TestLagValueMatchesLag(t *testing.T) {
	m, err := dyn.Define(dyn.Spec{Name: "lagvalue", State: []string{"w"}, Input: []string{"u", "dt"},
		Params: []string{"tau"}, Outputs: []string{"mean"}},
		func(s *dyn.Step) {
			next, mean := dyn.Lag(s.State("w"), s.Input("u"), s.Input("dt"), s.Param("tau"))
			s.Next("w", next)
			s.Output("mean", mean)
		})
	if err != nil {
		t.Fatal(err)
	}
	T := len(lagValueSteps)
	in := make([]float64, 0, 2*T)
	for _, st := range lagValueSteps {
		in = append(in, st.u, st.dt)
	}
	for _, tau := range []float64{0, 1e-4, 0.01, 0.2, 0.95, 1.9, 40} {
		sim, err := m.NewSimWith(m.NewInterpreter(), 1, T)
		if err != nil {
			t.Fatal(err)
		}
		y := make([]float64, T)
		if _, err := sim.Forward([]float64{tau}, nil, []float64{0.4}, in, y); err != nil {
			t.Fatal(err)
		}
		w := 0.4
		for k, st := range lagValueSteps {
			next, mean := dyn.LagValue(w, st.u, st.dt, tau)
			if got := sim.State(k + 1)[0]; !closeTo(next, got) || !closeTo(mean, y[k]) {
				t.Errorf("τ = %g, step %d (u %g, dt %g): LagValue next %.17g mean %.17g, Lag %.17g and %.17g", tau, k, st.u, st.dt, next, mean, got, y[k])
			}
			if !(st.dt > 0) && (next != w || mean != w) {
				t.Errorf("τ = %g, padded step %d: next %g mean %g, want the state %g", tau, k, next, mean, w)
			}
			if tau == 0 && st.dt > 0 && (next != st.u || mean != st.u) {
				t.Errorf("no lag, step %d: next %g mean %g, want the command %g", k, next, mean, st.u)
			}
			w = next
		}
	}
}

// LagDeadTimeValue is LagDeadTime: with q(k) read from the same command
// history that LagDeadTime's register holds, its end and mean values equal
// the step language's to 1e-14, for dead times of none, fractions of a
// sample, whole samples, the register's length and beyond (clamped).
func TestLagDeadTimeValueMatchesLagDeadTime(t *testing.T) {
	const n = 4
	m := lagDeadModel(t, n)
	hist := []float64{0.3, -0.2, 0.5, 0.1} // q1 … q4 before the first step
	T := len(lagValueSteps)
	in := make([]float64, 0, 2*T)
	for _, st := range lagValueSteps {
		in = append(in, st.u, st.dt)
	}
	for _, tau := range []float64{0, 0.01, 0.3, 1.9} {
		for _, d := range []float64{0, 0.0137, 0.05, 0.1, 0.1731, 0.2, 0.35, 5} {
			sim, err := m.NewSimWith(m.NewInterpreter(), 1, T)
			if err != nil {
				t.Fatal(err)
			}
			y := make([]float64, T)
			x0 := append([]float64{0.4}, hist...)
			if _, err := sim.Forward([]float64{tau, d}, nil, x0, in, y); err != nil {
				t.Fatal(err)
			}
			// reg[0] is the current input, reg[k] the one k steps back; a
			// padded step does not shift it (as DeadTime's register)
			reg := append([]float64{0}, hist...)
			w := 0.4
			for k, st := range lagValueSteps {
				reg[0] = st.u
				next, mean := dyn.LagDeadTimeValue(w, func(k int) float64 { return reg[k] }, n, d, st.dt, tau)
				if got := sim.State(k + 1)[0]; !closeTo(next, got) || !closeTo(mean, y[k]) {
					t.Errorf("τ = %g, d = %g, step %d (u %g, dt %g): LagDeadTimeValue next %.17g mean %.17g, LagDeadTime %.17g and %.17g", tau, d, k, st.u, st.dt, next, mean, got, y[k])
				}
				if st.dt > 0 {
					copy(reg[1:], reg[:n])
				}
				w = next
			}
		}
	}
}

// Without a dead time, LagDeadTimeValue is LagValue (to rounding), and a
// NaN dead time gives NaN, not an index out of the register.
func TestLagDeadTimeValueEdges(t *testing.T) {
	q := func(k int) float64 { return []float64{2, -1, 3}[k] }
	for _, tau := range []float64{0, 0.05, 0.7} {
		a, b := dyn.LagDeadTimeValue(0.4, q, 2, 0, 0.05, tau)
		c, d := dyn.LagValue(0.4, 2, 0.05, tau)
		if !closeTo(a, c) || !closeTo(b, d) {
			t.Errorf("τ = %g, no dead time: %g, %g; LagValue %g, %g", tau, a, b, c, d)
		}
	}
	if a, b := dyn.LagDeadTimeValue(0.4, q, 2, math.NaN(), 0.05, 0.3); !math.IsNaN(a) || !math.IsNaN(b) {
		t.Errorf("NaN dead time: %g, %g", a, b)
	}
}
