package losses

import (
	"math"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"

	"github.com/wheelgrad/wheelgrad/ad"
)

func randVec(rng *rand.Rand, n int, s float64) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = s * rng.NormFloat64()
	}
	return x
}

// The graph equals its native twin and its gradient (with respect to the
// predictions, here parameters) equals central differences of the twin, for
// the exact and the smooth |·|.
func TestVelocityL1MatchesNative(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n = 40
	vm, wm := randVec(rng, n, 0.5), randVec(rng, n, 1)
	x0 := append(randVec(rng, n, 0.5), randVec(rng, n, 1)...)
	for _, eps := range []float64{0, 0.05} {
		for _, cw := range []float64{1, 0.25, 0} {
			prog, err := ad.Compile([]ad.Param{{Name: "v", Shape: []int{n}}, {Name: "w", Shape: []int{n}}},
				func(g *ad.Graph, p []*G.Node) (*G.Node, error) {
					var e *G.Node
					if eps > 0 {
						var err error
						if e, err = g.Input("eps", []float64{eps}); err != nil {
							return nil, err
						}
						e, _ = G.Slice(e, G.S(0))
					}
					return VelocityL1(p[0], p[1], g.Const(vm), g.Const(wm), cw, e)
				}, ad.WithUnusedParams())
			if err != nil {
				t.Fatal(err)
			}
			f, grad, err := prog.ValueAndGrad(x0)
			if err != nil {
				t.Fatal(err)
			}
			native := func(x []float64) (float64, error) {
				return VelocityL1Float(x[:n], x[n:], vm, wm, cw, eps)
			}
			want, _ := native(x0)
			if math.Abs(f-want) > 1e-12*math.Abs(want) {
				t.Errorf("eps=%v cw=%v: graph %v, native %v", eps, cw, f, want)
			}
			c, err := ad.CheckGrad(native, grad, x0, 1e-6)
			if err != nil {
				t.Fatal(err)
			}
			// Round-off of the differences is about |f|·1e-16/1e-6 ≈ 5e-9.
			if c.MaxRelErr > 1e-5 || c.MaxAbsErr > 1e-7 {
				t.Errorf("eps=%v cw=%v: %v", eps, cw, c)
			}
		}
	}
}

// L1 is the point of eq. 22: one corrupted sample moves the loss by its
// size, not its square.
func TestVelocityL1IsLinearInOutliers(t *testing.T) {
	v := []float64{0, 0, 0}
	m := []float64{0, 0, 10}
	if got, _ := VelocityL1Float(v, v, m, v, 1, 0); got != 10 {
		t.Errorf("loss %v, want 10", got)
	}
	if got, _ := VelocityL1Float(v, v, v, m, 0.5, 0); got != 5 {
		t.Errorf("c_ω-weighted loss %v, want 5", got)
	}
}

func TestVelocityL1Errors(t *testing.T) {
	g := G.NewGraph()
	a := G.NewVector(g, G.Float64, G.WithShape(3), G.WithName("a"))
	b := G.NewVector(g, G.Float64, G.WithShape(4), G.WithName("b"))
	if _, err := VelocityL1(a, a, a, b, 1, nil); err == nil {
		t.Error("shape mismatch accepted")
	}
	if _, err := VelocityL1(a, a, a, a, math.NaN(), nil); err == nil {
		t.Error("NaN c_ω accepted")
	}
	if _, err := SegmentsL1(nil, nil, nil, nil, 1, nil); err == nil {
		t.Error("no steps accepted")
	}
}
