package dyn_test

import (
	"math"
	"testing"

	"github.com/wheelgrad/wheelgrad/dyn"
)

// lagModel is a lag behind a dead time of n samples: state w (the lagged
// value) and the dead time's register; output the step's mean of w.
func lagModel(t *testing.T, n int) *dyn.Model {
	t.Helper()
	m, err := dyn.Define(dyn.Spec{Name: "lag", State: append([]string{"w"}, dyn.DeadTimeStates("q", n)...),
		Input: []string{"u", "dt"}, Params: []string{"tau", "d"}, Outputs: []string{"mean", "ud"}},
		func(s *dyn.Step) {
			dt := s.Input("dt")
			ud := dyn.DeadTime(s, "q", n, s.Input("u"), s.Param("d"), dt)
			next, mean := dyn.Lag(s.State("w"), ud, dt, s.Param("tau"))
			s.Next("w", next)
			s.Output("mean", mean)
			s.Output("ud", ud)
		})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// lagRef is the lag and dead time in plain Go, from the continuous-time
// definitions: the delayed command is the held command at t − d, averaged
// over each step (a step of length h sees the older sample for the
// fraction of the step that d reaches past a whole sample), and the lag is
// integrated in closed form over the step.
func lagRef(w0 float64, hist []float64, u []float64, h, tau, d float64) (means, uds []float64) {
	n := len(hist)
	// all[j] is the command held over step j − n (hist are steps −1 … −n).
	all := make([]float64, 0, n+len(u))
	for k := n - 1; k >= 0; k-- {
		all = append(all, hist[k])
	}
	all = append(all, u...)
	w := w0
	s := d / h
	whole := math.Floor(s)
	f := s - whole
	for j := range u {
		i := n + j - int(whole)
		ud := (1-f)*all[i] + f*all[max(i-1, 0)]
		a := math.Exp(-h / tau)
		means = append(means, ud+(w-ud)*tau/h*(1-a))
		uds = append(uds, ud)
		w = ud + (w-ud)*a
	}
	return means, uds
}

func TestLagAndDeadTimeMatchClosedForm(t *testing.T) {
	const n, T, h = 4, 12, 0.05
	m := lagModel(t, n)
	hist := []float64{0.3, -0.2, 0.5, 0.1} // q1 … q4
	u := []float64{1, 1, 2, 2, -1, 0.5, 0.5, 0.5, 3, 3, 0, 0}
	for _, c := range []struct{ tau, d float64 }{{0.2, 0}, {0.9, 0.05}, {0.3, 0.0731}, {1.9, 0.17}, {0.01, 0.2}} {
		x0 := append([]float64{0.4}, hist...)
		in := make([]float64, 0, 2*T)
		for k := range T {
			in = append(in, u[k], h)
		}
		sim := m.NewSim(1, T)
		y := make([]float64, 2*T)
		if _, err := sim.Forward([]float64{c.tau, c.d}, nil, x0, in, y); err != nil {
			t.Fatal(err)
		}
		means, uds := lagRef(0.4, hist, u, h, c.tau, c.d)
		for k := range T {
			if math.Abs(y[T+k]-uds[k]) > 1e-12 || math.Abs(y[k]-means[k]) > 1e-12 {
				t.Errorf("τ = %g, d = %g, step %d: delayed %g mean %g, want %g and %g", c.tau, c.d, k, y[T+k], y[k], uds[k], means[k])
			}
		}
		// the state after the last step is the lag's exact end value
		w := 0.4
		for k := range T {
			w = uds[k] + (w-uds[k])*math.Exp(-h/c.tau)
		}
		if got := sim.Final()[0]; math.Abs(got-w) > 1e-12 {
			t.Errorf("τ = %g, d = %g: final %g, want %g", c.tau, c.d, got, w)
		}
	}
}

// A padded step (dt = 0) changes nothing and yields finite gradients.
func TestLagPaddingKeepsState(t *testing.T) {
	const n = 3
	m := lagModel(t, n)
	x0 := []float64{0.7, 1, 2, 3}
	sim := m.NewSim(1, 2)
	in := []float64{5, 0, 5, 0}
	y := make([]float64, 4)
	if _, err := sim.Forward([]float64{0.5, 0.07}, nil, x0, in, y); err != nil {
		t.Fatal(err)
	}
	for i, v := range sim.Final() {
		if v != x0[i] {
			t.Errorf("state %d: %g after padding, want %g", i, v, x0[i])
		}
	}
	if y[0] != 0.7 {
		t.Errorf("mean over a padded step %g, want the state 0.7", y[0])
	}
	pbar, x0bar, ubar := make([]float64, 2), make([]float64, n+1), make([]float64, 4)
	sim.Backward([]float64{0.5, 0.07}, nil, in, []float64{1, 1, 1, 1}, 0, []float64{1, 1, 1, 1}, pbar, x0bar, ubar)
	for _, g := range [][]float64{pbar, x0bar, ubar} {
		for _, v := range g {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("non-finite gradient over padding: %v %v %v", pbar, x0bar, ubar)
			}
		}
	}
}

// The generated reverse pass agrees with central differences of the native
// rollout, the delay included (away from whole samples, where it has kinks).
func TestLagGradient(t *testing.T) {
	const n, B, T = 5, 3, 20
	m := lagModel(t, n)
	x0 := make([]float64, (n+1)*B)
	for i := range x0 {
		x0[i] = math.Sin(float64(i))
	}
	u := make([]float64, T*2*B)
	for k := range T {
		for j := range B {
			u[(k*2)*B+j] = math.Cos(float64(k*B+j)) * 3
			u[(k*2+1)*B+j] = 0.05 + 0.01*float64(j)
		}
	}
	for _, p := range [][]float64{{0.4, 0.083}, {1.9, 0.1317}, {0.05, 0.01}} {
		c, err := m.CheckRollout(m.NewInterpreter(), p, nil, x0, u, B, T, nil, 0, nil, 7)
		if err != nil {
			t.Fatal(err)
		}
		if c.RelErr > dyn.DefaultCheckTol {
			t.Errorf("τ, d = %v: %v", p, c)
		}
	}
}

// At d = 0 the gradient to the dead time is the right derivative (a fit
// starting without dead time sees whether one helps).
func TestDeadTimeRightDerivativeAtZero(t *testing.T) {
	const n, T, h = 3, 6, 0.05
	m := lagModel(t, n)
	x0 := []float64{0.2, 1, -1, 0.5}
	u := make([]float64, 0, 2*T)
	for k := range T {
		u = append(u, float64(k%3)-0.5, h)
	}
	f := func(d float64) float64 {
		sim := m.NewSim(1, T)
		if _, err := sim.Forward([]float64{0.3, d}, nil, x0, u, nil); err != nil {
			t.Fatal(err)
		}
		return sim.Final()[0]
	}
	sim := m.NewSim(1, T)
	if _, err := sim.Forward([]float64{0.3, 0}, nil, x0, u, nil); err != nil {
		t.Fatal(err)
	}
	pbar := make([]float64, 2)
	xT := make([]float64, n+1)
	xT[0] = 1
	sim.Backward([]float64{0.3, 0}, nil, u, nil, 0, xT, pbar, nil, nil)
	const e = 1e-7
	right := (f(e) - f(0)) / e
	if math.Abs(pbar[1]-right) > 1e-5*max(1, math.Abs(right)) || right == 0 {
		t.Errorf("∂w/∂d at d = 0: %g (reverse pass), right difference %g", pbar[1], right)
	}
}

// lagDeadModel is LagDeadTime over n samples: state w and the register;
// output the step's mean.
func lagDeadModel(t *testing.T, n int) *dyn.Model {
	t.Helper()
	m, err := dyn.Define(dyn.Spec{Name: "lagdead", State: append([]string{"w"}, dyn.DeadTimeStates("q", n)...),
		Input: []string{"u", "dt"}, Params: []string{"tau", "d"}, Outputs: []string{"mean"}},
		func(s *dyn.Step) {
			next, mean := dyn.LagDeadTime(s, "q", n, s.State("w"), s.Input("u"), s.Param("d"), s.Input("dt"), s.Param("tau"))
			s.Next("w", next)
			s.Output("mean", mean)
		})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// LagDeadTime equals a fine integration of the continuous system
// τ·ω̇ = u(t − d) − ω with the command held over each step (and the
// register's values before the first).
func TestLagDeadTimeMatchesContinuous(t *testing.T) {
	const n, T, h, sub = 4, 12, 0.05, 4000
	m := lagDeadModel(t, n)
	hist := []float64{0.3, -0.2, 0.5, 0.1}
	u := []float64{1, 1, 2, 2, -1, 0.5, 0.5, 0.5, 3, 3, 0, 0}
	cmd := func(tt float64) float64 { // the held command at time tt (step k over [kh, (k+1)h))
		k := int(math.Floor(tt/h + 1e-12))
		if k < 0 {
			return hist[min(-k-1, n-1)]
		}
		return u[k]
	}
	for _, c := range []struct{ tau, d float64 }{{0.2, 0}, {0.9, 0.05}, {0.3, 0.0731}, {1.9, 0.17}, {0.05, 0.2}, {0.4, 0.1}} {
		x0 := append([]float64{0.4}, hist...)
		in := make([]float64, 0, 2*T)
		for k := range T {
			in = append(in, u[k], h)
		}
		sim := m.NewSim(1, T)
		y := make([]float64, T)
		if _, err := sim.Forward([]float64{c.tau, c.d}, nil, x0, in, y); err != nil {
			t.Fatal(err)
		}
		w := 0.4
		for k := range T {
			integral := 0.0
			dd := h / sub
			for i := range sub {
				t0 := float64(k)*h + float64(i)*dd
				v := cmd(t0 + dd/2 - c.d)
				a := math.Exp(-dd / c.tau)
				integral += v*dd + (w-v)*c.tau*(1-a)
				w = v + (w-v)*a
			}
			if math.Abs(y[k]-integral/h) > 2e-3 {
				t.Errorf("τ = %g, d = %g, step %d: mean %g, continuous %g", c.tau, c.d, k, y[k], integral/h)
			}
		}
		if got := sim.Final()[0]; math.Abs(got-w) > 2e-3 {
			t.Errorf("τ = %g, d = %g: final %g, continuous %g", c.tau, c.d, got, w)
		}
	}
}

// Its reverse pass agrees with central differences, and the gradient of
// the window's integral to d is continuous across a whole sample (where
// DeadTime followed by Lag jumps).
func TestLagDeadTimeGradient(t *testing.T) {
	const n, B, T = 5, 3, 20
	m := lagDeadModel(t, n)
	x0 := make([]float64, (n+1)*B)
	for i := range x0 {
		x0[i] = math.Sin(float64(i))
	}
	u := make([]float64, T*2*B)
	for k := range T {
		for j := range B {
			u[(k*2)*B+j] = math.Cos(float64(k*B+j)) * 3
			u[(k*2+1)*B+j] = 0.05
		}
	}
	for _, p := range [][]float64{{0.4, 0.083}, {1.9, 0.1317}, {0.05, 0.01}} {
		c, err := m.CheckRollout(m.NewInterpreter(), p, nil, x0, u, B, T, nil, 0, nil, 7)
		if err != nil {
			t.Fatal(err)
		}
		if c.RelErr > dyn.DefaultCheckTol {
			t.Errorf("τ, d = %v: %v", p, c)
		}
	}
	// The integral of the lagged speed over the window (what moves a pose)
	// from a steady history (the register filled with the initial speed,
	// as a fit starts it): smooth in d; the end value ω(T) is not (a switch
	// leaving the window at T kinks it, in the continuous system too).
	steady := append([]float64(nil), x0...)
	for k := 1; k <= n; k++ {
		copy(steady[k*B:(k+1)*B], x0[:B])
	}
	grad := func(m *dyn.Model, d float64) float64 {
		sim := m.NewSim(B, T)
		p := []float64{0.3, d}
		ybar := make([]float64, m.NY()*T*B)
		for i := range T * B {
			ybar[i] = 1 // output 0 is the mean in both models
		}
		if _, err := sim.Forward(p, nil, steady, u, make([]float64, len(ybar))); err != nil {
			t.Fatal(err)
		}
		pbar := make([]float64, 2)
		sim.Backward(p, nil, u, ybar, 0, nil, pbar, nil, nil)
		return pbar[1]
	}
	const e = 1e-6
	jump := math.Abs(grad(m, 0.1+e) - grad(m, 0.1-e))
	jumpLinear := math.Abs(grad(lagModel(t, n), 0.1+e) - grad(lagModel(t, n), 0.1-e))
	t.Logf("∂/∂d jump across a whole sample: %g (LagDeadTime), %g (DeadTime then Lag)", jump, jumpLinear)
	if !(jump < 1e-3*jumpLinear) {
		t.Errorf("∂/∂d jumps by %g across a whole sample (DeadTime then Lag: %g)", jump, jumpLinear)
	}
}
