package dyn_test

import (
	"math"
	"testing"

	"github.com/wheelgrad/wheelgrad/dyn"
)

// cone is a point moving along x whose output is its distance to x = 1
// written as √(d²), as a camera loss writes a distance: a cone at d = 0 the
// step language does not mark as a switch.
func cone(t *testing.T, name string) *dyn.Model {
	t.Helper()
	m, err := dyn.Define(dyn.Spec{Name: name, State: []string{"x"}, Input: []string{"u"}, Params: []string{"a"}, Settings: []string{"dt"}, Outputs: []string{"dist"}},
		func(s *dyn.Step) {
			x, dt, a := s.State("x"), s.Setting("dt"), s.Param("a")
			xn := x.Add(dt.Mul(a.Mul(s.Input("u"))))
			d := xn.Sub(s.Const(1))
			s.Output("dist", dyn.Sqrt(d.Mul(d)))
			s.Next("x", xn)
		})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestSelfCheckOffACone: a rollout whose first step ends 1e-8 from the
// cone's tip disagrees with central differences at the point (a clean
// disagreement of order 1, not a switch), and the built-in check of the
// first Backward passes by agreeing at points moved off it (5 of 6 false
// failures on valid Mecanum logs were this); a wrong derivative still
// fails (TestSelfCheckCatchesWrongKernel and the others).
func TestSelfCheckOffACone(t *testing.T) {
	const B, T = 3, 5
	p, q := []float64{1}, []float64{0.1}
	x0 := []float64{1 - 0.1*0.5 + 1e-8, 0, -2} // lane 0 lands 1e-8 past the tip
	u := make([]float64, B*T)
	for i := range u {
		u[i] = 0.5
	}
	m := cone(t, "cone")
	c, err := m.CheckRollout(m.NewInterpreter(), p, q, x0, u, B, T, nil, 0, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	if c.RelErr <= dyn.DefaultCheckTol || c.Stencil == "straddled" {
		t.Fatalf("the test point is not on the cone for the differences: %v", c)
	}
	sim := cone(t, "cone2").NewSim(B, T)
	if _, err := sim.Forward(p, q, x0, u, nil); err != nil {
		t.Fatal(err)
	}
	ybar := make([]float64, B*T)
	for i := range ybar {
		ybar[i] = 1 + 0.1*float64(i%7)
	}
	err = sim.Backward(p, q, u, ybar, 0, nil, make([]float64, 1), nil, nil)
	if err != nil {
		t.Fatalf("the self-check failed a correct gradient at a cone: %v", err)
	}
	last, ok := sim.Model().LastSelfCheck()
	if !ok || last.RelErr > dyn.DefaultCheckTol || math.IsNaN(last.Analytic) {
		t.Errorf("not checked or not passed: %v", last)
	}
	t.Logf("check at the point: %v; built-in: %v", c, last)
}
