package dyn_test

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"

	"github.com/wheelgrad/wheelgrad/dyn"
)

// TestFilterModelJacobians checks the filter adapter's ∂f/∂x, ∂f/∂p,
// ∂h/∂x and ∂h/∂p against central differences (gonum's diff/fd) of its own
// values, and its values against the Stepper's.
func TestFilterModelJacobians(t *testing.T) {
	m := dyn.MustDefine(dyn.Spec{
		Name: "pend", State: []string{"th", "om"}, Input: []string{"u"},
		Params: []string{"g", "c"}, Settings: []string{"dt"}, Outputs: []string{"s", "w"},
	}, func(s *dyn.Step) {
		th, om, dt := s.State("th"), s.State("om"), s.Setting("dt")
		s.Next("th", th.Add(dt.Mul(om)))
		acc := s.Input("u").Sub(s.Param("g").Mul(dyn.Sin(th))).Sub(s.Param("c").Mul(om))
		s.Next("om", om.Add(dt.Mul(acc)))
		s.Output("s", dyn.Sin(th))
		s.Output("w", om.Mul(s.Param("c")))
	})
	f := m.NewStepper().Filter([]float64{0.05})
	x, u, p := []float64{0.7, -0.3}, []float64{0.2}, []float64{9.8, 0.4}
	fx, fp, hx, hp := make([]float64, 4), make([]float64, 4), make([]float64, 4), make([]float64, 4)
	xn, y := make([]float64, 2), make([]float64, 2)
	if err := f.Predict(x, u, p, xn, fx, fp); err != nil {
		t.Fatal(err)
	}
	if err := f.Observe(x, u, p, y, hx, hp); err != nil {
		t.Fatal(err)
	}
	wantXn := []float64{0.7 + 0.05*-0.3, -0.3 + 0.05*(0.2-9.8*math.Sin(0.7)-0.4*-0.3)}
	wantY := []float64{math.Sin(0.7), -0.3 * 0.4}
	for i := range 2 {
		if math.Abs(xn[i]-wantXn[i]) > 1e-15 || math.Abs(y[i]-wantY[i]) > 1e-15 {
			t.Fatalf("x' = %v, y = %v; want %v, %v", xn, y, wantXn, wantY)
		}
	}
	check := func(what string, got []float64, at []float64, fn func(out, in []float64) error) {
		t.Helper()
		want := mat.NewDense(2, len(at), nil)
		fd.Jacobian(want, func(out, in []float64) {
			if err := fn(out, in); err != nil {
				t.Fatal(err)
			}
		}, at, &fd.JacobianSettings{Formula: fd.Central})
		for i, w := range want.RawMatrix().Data {
			if math.Abs(got[i]-w) > 1e-8*math.Max(1, math.Abs(w)) {
				t.Errorf("%s = %v, central differences %v", what, got, want.RawMatrix().Data)
				return
			}
		}
	}
	check("∂f/∂x", fx, x, func(out, in []float64) error { return f.Predict(in, u, p, out, nil, nil) })
	check("∂f/∂p", fp, p, func(out, in []float64) error { return f.Predict(x, u, in, out, nil, nil) })
	check("∂h/∂x", hx, x, func(out, in []float64) error { return f.Observe(in, u, p, out, nil, nil) })
	check("∂h/∂p", hp, p, func(out, in []float64) error { return f.Observe(x, u, in, out, nil, nil) })

	noOut := dyn.MustDefine(dyn.Spec{Name: "decay", State: []string{"x"}, Params: []string{"k"}}, func(s *dyn.Step) {
		s.Next("x", s.State("x").Mul(s.Param("k")))
	})
	g := noOut.NewStepper().Filter(nil)
	if err := g.Observe([]float64{1}, nil, []float64{0.5}, make([]float64, 1), nil, nil); err == nil || !strings.Contains(err.Error(), "Outputs") {
		t.Errorf("a model without outputs observed: %v", err)
	}
	if err := g.Predict([]float64{1, 2}, nil, []float64{0.5}, make([]float64, 2), nil, nil); err == nil {
		t.Error("two states given to a one-state model")
	}
}
