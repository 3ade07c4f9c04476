package diffdrive

import (
	"math"
	"testing"

	G "gorgonia.org/gorgonia"

	"github.com/wheelgrad/wheelgrad/ad"
	"github.com/wheelgrad/wheelgrad/losses"
)

var zetaParam = []ad.Param{{Name: "zeta", Shape: []int{6}}}

// compilePrimitive is the reference: PrimitiveRollout + losses.SegmentsL1,
// exact when smooth is false, else with T and Eps read from the "smooth"
// input.
func compilePrimitive(t testing.TB, b *Batch, p Params, cw float64, sm Smoothing, smooth bool) *ad.Program {
	t.Helper()
	prog, err := ad.Compile(zetaParam, func(g *ad.Graph, x []*G.Node) (*G.Node, error) {
		s, err := g.Input("smooth", []float64{sm.T, sm.Eps})
		if err != nil {
			return nil, err
		}
		var T, eps *G.Node
		if smooth {
			T, eps = G.Must(G.Slice(s, G.S(0))), G.Must(G.Slice(s, G.S(1)))
		}
		v, w, err := PrimitiveRollout(g, x[0], T, b, p.L, p.H)
		if err != nil {
			return nil, err
		}
		g.Watch("v0", v[0])
		g.Watch("wlast", w[len(w)-1])
		vm, wm := MeasuredNodes(g, b)
		return losses.SegmentsL1(v, w, vm, wm, cw, eps)
	}, ad.WithMaxNodes(60000))
	if err != nil {
		t.Fatal(err)
	}
	return prog
}

func compileFused(t testing.TB, b *Batch, p Params, cw float64, sm Smoothing) *ad.Program {
	t.Helper()
	prog, err := ad.Compile(zetaParam, func(g *ad.Graph, x []*G.Node) (*G.Node, error) {
		s, err := g.Input("smooth", []float64{sm.T, sm.Eps})
		if err != nil {
			return nil, err
		}
		return FusedLoss(g, x[0], s, b, p.L, p.H, cw)
	})
	if err != nil {
		t.Fatal(err)
	}
	return prog
}

func relDiff(a, b float64) float64 {
	return math.Abs(a-b) / math.Max(math.Max(math.Abs(a), math.Abs(b)), 1e-300)
}

// Forward values: the primitive graph's predictions and both graphs' losses
// equal the native model to 1e-12.
func TestGraphsMatchNative(t *testing.T) {
	p := Paper()
	b := testBatch(t, 60, 20, 9, p)
	z := perturbed(p)
	for _, sm := range []Smoothing{{}, {T: 0.05, Eps: 0.01}} {
		a, _ := NewAdjoint(b, p.L, p.H, LossSpec{CW: 0.8})
		want := a.Loss(z, sm)
		vN, wN := a.Predictions()
		prim := compilePrimitive(t, b, p, 0.8, sm, sm != Smoothing{})
		fused := compileFused(t, b, p, 0.8, sm)
		fp, err := prim.Value(z[:])
		if err != nil {
			t.Fatal(err)
		}
		ff, err := fused.Value(z[:])
		if err != nil {
			t.Fatal(err)
		}
		if relDiff(fp, want) > 1e-12 || relDiff(ff, want) > 1e-12 {
			t.Errorf("%+v: loss primitive %.17g, fused %.17g, native %.17g", sm, fp, ff, want)
		}
		v0, wl := prim.Output("v0"), prim.Output("wlast")
		for j := range b.M {
			if math.Abs(v0[j]-vN[j]) > 1e-12 || math.Abs(wl[j]-wN[(b.N-1)*b.M+j]) > 1e-12 {
				t.Fatalf("%+v segment %d: primitive (%v, %v), native (%v, %v)", sm, j, v0[j], wl[j], vN[j], wN[(b.N-1)*b.M+j])
			}
		}
	}
}

// Gradients: the fused op against the primitive graph (1e-9) and both against
// central differences of the native model.
func TestFusedGradientMatchesPrimitiveAndFiniteDifferences(t *testing.T) {
	p := Paper()
	b := testBatch(t, 60, 20, 9, p)
	z := perturbed(p)
	for _, sm := range []Smoothing{{}, {T: 0.05, Eps: 0.01}, {T: 0.5, Eps: 0.2}} {
		for _, cw := range []float64{1, 0.4} {
			prim := compilePrimitive(t, b, p, cw, sm, sm != Smoothing{})
			fused := compileFused(t, b, p, cw, sm)
			fp, gp, err := prim.ValueAndGrad(z[:])
			if err != nil {
				t.Fatal(err)
			}
			ff, gf, err := fused.ValueAndGrad(z[:])
			if err != nil {
				t.Fatal(err)
			}
			if relDiff(fp, ff) > 1e-12 {
				t.Errorf("%+v: loss primitive %v, fused %v", sm, fp, ff)
			}
			for i := range gp {
				if relDiff(gp[i], gf[i]) > 1e-9 {
					t.Errorf("%+v cw=%v: ∂L/∂%s primitive %.15g, fused %.15g", sm, cw, ZetaNames[i], gp[i], gf[i])
				}
			}
			a, _ := NewAdjoint(b, p.L, p.H, LossSpec{CW: cw})
			_, ga := a.LossGrad(z, sm)
			for i := range ga {
				if relDiff(ga[i], gf[i]) > 1e-12 {
					t.Errorf("%+v: ∂L/∂%s native adjoint %.17g, fused %.17g", sm, ZetaNames[i], ga[i], gf[i])
				}
			}
			native := func(x []float64) (float64, error) { return a.Loss([6]float64(x), sm), nil }
			for name, g := range map[string][]float64{"primitive": gp, "fused": gf} {
				c, err := ad.CheckGrad(native, g, z[:], 1e-6)
				if err != nil {
					t.Fatal(err)
				}
				tol := 1e-6
				if sm.Eps == 0 {
					tol = 1e-4 // kinks of |·| and the clamp between the difference points
				}
				if c.MaxRelErr > tol {
					t.Errorf("%s %+v cw=%v: %v", name, sm, cw, c)
				}
			}
		}
	}
}

// Annealing changes the smoothing input of a compiled fused program between
// runs; each setting must give the native value of that setting.
func TestFusedAnnealingInput(t *testing.T) {
	p := Paper()
	b := testBatch(t, 40, 10, 7, p)
	z := perturbed(p)
	fused := compileFused(t, b, p, 1, Smoothing{T: 1, Eps: 1})
	a, _ := NewAdjoint(b, p.L, p.H, LossSpec{CW: 1})
	for _, sm := range []Smoothing{{T: 1, Eps: 1}, {T: 0.1, Eps: 0.03}, {}} {
		if err := fused.SetInput("smooth", []float64{sm.T, sm.Eps}); err != nil {
			t.Fatal(err)
		}
		f, g, err := fused.ValueAndGrad(z[:])
		if err != nil {
			t.Fatal(err)
		}
		wf, wg := a.LossGrad(z, sm)
		if relDiff(f, wf) > 1e-13 {
			t.Errorf("%+v: fused %v, native %v", sm, f, wf)
		}
		for i := range g {
			if relDiff(g[i], wg[i]) > 1e-12 {
				t.Errorf("%+v: ∂L/∂%s fused %v, native %v", sm, ZetaNames[i], g[i], wg[i])
			}
		}
	}
}
