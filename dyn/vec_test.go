package dyn_test

import (
	"math"
	"sort"
	"testing"

	"github.com/wheelgrad/wheelgrad/dyn"
	"gonum.org/v1/gonum/diff/fd"
)

// lerp is the native table look-up Interp1 stands for.
func lerp(x float64, k, v []float64) float64 {
	switch {
	case x <= k[0]:
		return v[0]
	case x >= k[len(k)-1]:
		return v[len(v)-1]
	}
	i := sort.SearchFloat64s(k, x) // k[i-1] < x ≤ k[i]
	return v[i-1] + (v[i]-v[i-1])*(x-k[i-1])/(k[i]-k[i-1])
}

// TestInterp1AndParamVec: a motor table whose six values are a vector
// parameter: values equal the native look-up (inside, at knots, beyond the
// ends), gradients to the table values and to x equal central differences
// off the knots, and at a knot ∂/∂x is the slope on its left.
func TestInterp1AndParamVec(t *testing.T) {
	knots := []float64{-1, -0.2, 0, 0.3, 1, 2}
	m, err := dyn.Define(dyn.Spec{Name: "table", State: []string{"x"}, Params: dyn.Vec("w", 6), Outputs: []string{"f"}}, func(s *dyn.Step) {
		x := s.State("x")
		s.Next("x", x)
		s.Output("f", dyn.Interp1(x, knots, s.ParamVec("w", 6)))
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Spec().Params; got[0] != "w0" || got[5] != "w5" {
		t.Fatalf("params %v", got)
	}
	w := []float64{0.5, -0.3, 0, 1.2, 0.7, 2}
	xs := []float64{-3, -1, -0.6, -0.2, -0.05, 0, 0.1, 0.3, 0.99, 1, 1.5, 2, 7}
	B := len(xs)
	sim := m.NewSim(B, 1, dyn.WithoutSelfCheck())
	f := func(w, xs []float64) []float64 {
		y := make([]float64, B)
		if _, err := sim.Forward(w, nil, xs, nil, y); err != nil {
			t.Fatal(err)
		}
		return y
	}
	y := f(w, xs)
	for j, x := range xs {
		if want := lerp(x, knots, w); math.Abs(y[j]-want) > 1e-15 {
			t.Errorf("f(%v) = %v, native %v", x, y[j], want)
		}
	}
	isKnot := func(x float64) bool {
		for _, k := range knots {
			if x == k {
				return true
			}
		}
		return false
	}
	for j, x := range xs {
		ybar := make([]float64, B)
		ybar[j] = 1
		gw, gx := make([]float64, 6), make([]float64, B)
		if err := sim.Backward(w, nil, nil, ybar, 0, nil, gw, gx, nil); err != nil {
			t.Fatal(err)
		}
		const h = 1e-6
		if isKnot(x) {
			i := sort.SearchFloat64s(knots, x)
			want := 0.0
			if i > 0 {
				want = (w[i] - w[i-1]) / (knots[i] - knots[i-1])
			}
			if math.Abs(gx[j]-want) > 1e-12 {
				t.Errorf("∂f/∂x at the knot %v = %v, want the left slope %v", x, gx[j], want)
			}
		} else {
			num := fd.Derivative(func(x float64) float64 { return lerp(x, knots, w) }, x, &fd.Settings{Formula: fd.Central, Step: h})
			if math.Abs(gx[j]-num) > 1e-8 {
				t.Errorf("∂f/∂x at %v = %v, central differences %v", x, gx[j], num)
			}
		}
		num := fd.Gradient(nil, func(w []float64) float64 { return lerp(x, knots, w) }, w, &fd.Settings{Formula: fd.Central, Step: h})
		for i := range w {
			if math.Abs(gw[i]-num[i]) > 1e-8 {
				t.Errorf("∂f(%v)/∂w%d = %v, central differences %v", x, i, gw[i], num[i])
			}
		}
	}
	if _, err := dyn.Define(dyn.Spec{Name: "bad", State: []string{"x"}}, func(s *dyn.Step) {
		s.Next("x", dyn.Interp1(s.State("x"), []float64{0, 0}, []dyn.X{s.Const(1), s.Const(2)}))
	}); err == nil {
		t.Error("knots not strictly increasing accepted")
	}
}
