package graph

import (
	"math"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

func boundedCase(lo, hi float64, z ...float64) opCase {
	return opCase{
		name:   "Bounded",
		args:   []arg{vecArg("z", z...)},
		build:  func(in []*G.Node) (*G.Node, error) { return Bounded(in[0], lo, hi) },
		native: elementwise(func(z float64, _ []float64) float64 { return BoundedFloat(z, lo, hi) }),
	}
}

func TestBoundedFD(t *testing.T) {
	checkOp(t, boundedCase(0, 1, -6, -1, -0.2, 0, 0.3, 2, 7), 1e-15, 1e-8)
	checkOp(t, boundedCase(0.05, 1.5, -3, 0, 1, 25, -25), 1e-15, 1e-8)
}

// TestBoundedTails: value and gradient keep their relative accuracy in the
// tails, where G.Sigmoid returns exactly 1 (z > 19) and σ(1 − σ) is 0.
func TestBoundedTails(t *testing.T) {
	z := []float64{-40, -25, -19.5, 19.5, 25, 40}
	lo, hi := 0.0, 1.0
	r := runGraph(t, boundedCase(lo, hi, z...), []float64{1, 1, 1, 1, 1, 1})
	for i, zi := range z {
		e := math.Exp(-math.Abs(zi))
		want := e / ((1 + e) * (1 + e)) // σ'(z), accurate on both sides
		if g := r.grads[0][i]; math.Abs(g-want) > 1e-13*want {
			t.Errorf("d/dz Bounded(%v) = %v, want %v", zi, g, want)
		}
		sig := 1 / (1 + math.Exp(-zi))
		if y := r.out[i]; math.Abs(y-sig) > 1e-15*sig {
			t.Errorf("Bounded(%v) = %.17g, want %.17g", zi, y, sig)
		}
	}
}

func TestBoundedInverse(t *testing.T) {
	for _, c := range []struct{ lo, hi, x float64 }{{0, 1, 0.3}, {0.05, 1.5, 1.2}, {-2, 2, -1.999}, {0, 1, 1e-12}, {0, 1, 0.5}} {
		z := BoundedInverse(c.x, c.lo, c.hi)
		if back := BoundedFloat(z, c.lo, c.hi); math.Abs(back-c.x) > 1e-15*math.Max(1, math.Abs(c.x)) {
			t.Errorf("BoundedFloat(BoundedInverse(%v, %v, %v)) = %v", c.x, c.lo, c.hi, back)
		}
	}
	if z := BoundedInverse(0, 0, 1); !math.IsInf(z, -1) {
		t.Errorf("BoundedInverse(lo) = %v, want −Inf", z)
	}
	if z := BoundedInverse(1, 0, 1); !math.IsInf(z, 1) {
		t.Errorf("BoundedInverse(hi) = %v, want +Inf", z)
	}
	for _, c := range []struct{ x, lo, hi float64 }{{2, 0, 1}, {-1, 0, 1}, {0.5, 1, 0}, {math.NaN(), 0, 1}, {0.5, 0, math.NaN()}} {
		if z := BoundedInverse(c.x, c.lo, c.hi); !math.IsNaN(z) {
			t.Errorf("BoundedInverse(%v, %v, %v) = %v, want NaN", c.x, c.lo, c.hi, z)
		}
	}
}

func TestBoundedErrors(t *testing.T) {
	g := G.NewGraph()
	z := G.NewVector(g, tensor.Float64, G.WithShape(3), G.WithName("z"))
	for _, r := range [][2]float64{{1, 1}, {2, 1}, {0, math.Inf(1)}, {math.NaN(), 1}} {
		if _, err := Bounded(z, r[0], r[1]); err == nil {
			t.Errorf("Bounded(z, %v, %v): no error", r[0], r[1])
		}
	}
	if _, err := Bounded(nil, 0, 1); err == nil {
		t.Error("Bounded(nil): no error")
	}
}
