package ad

import (
	"fmt"
	"math"
	"testing"

	G "gorgonia.org/gorgonia"
)

// batchRollout is a batched nonlinear rollout over B segments of N steps:
// s_{k+1} = s_k + h·(a·u_k − b·sin(s_k)) elementwise on [B] vectors, loss
// Σ_segments Σ_k |s_k − target|² / B. It has the shape of the Park et al.
// calibration (vectors over segments, one node group per step).
func batchRollout(u, target [][]float64, steps int, h float64, batch int) ShardBuildFunc {
	return func(g *Graph, p []*G.Node, lo, hi int) (*G.Node, error) {
		m := hi - lo
		s := g.Const(make([]float64, m))
		var loss *G.Node
		hn := g.Scalar(h)
		inv := g.Scalar(1 / float64(batch))
		for k := range steps {
			uk := make([]float64, m)
			tk := make([]float64, m)
			for j := range m {
				uk[j] = u[lo+j][k]
				tk[j] = target[lo+j][k]
			}
			drive := G.Must(G.Mul(p[0], g.Const(uk)))
			fric := G.Must(G.Mul(p[1], G.Must(G.Sin(s))))
			s = G.Must(G.Add(s, G.Must(G.Mul(hn, G.Must(G.Sub(drive, fric))))))
			e := G.Must(G.Sum(G.Must(G.Square(G.Must(G.Sub(s, g.Const(tk)))))))
			if loss == nil {
				loss = e
			} else {
				loss = G.Must(G.Add(loss, e))
			}
		}
		return G.Mul(loss, inv)
	}
}

func batchRolloutNative(u, target [][]float64, steps int, h float64) func(x []float64) (float64, error) {
	return func(x []float64) (float64, error) {
		var loss float64
		for j := range u {
			s := 0.0
			for k := range steps {
				s += h * (x[0]*u[j][k] - x[1]*math.Sin(s))
				loss += (s - target[j][k]) * (s - target[j][k])
			}
		}
		return loss / float64(len(u)), nil
	}
}

func makeBatch(batch, steps int) (u, target [][]float64) {
	u = make([][]float64, batch)
	target = make([][]float64, batch)
	for j := range batch {
		u[j] = make([]float64, steps)
		target[j] = make([]float64, steps)
		for k := range steps {
			u[j][k] = math.Sin(0.1*float64(k) + float64(j))
			target[j][k] = 0.5 * math.Cos(0.07*float64(k*j%13))
		}
	}
	return u, target
}

func TestShardedEqualsUnsharded(t *testing.T) {
	const batch, steps, h = 37, 20, 0.06
	u, target := makeBatch(batch, steps)
	params := []Param{{Name: "alpha"}, {Name: "beta"}}
	one, err := CompileSharded(params, batch, 1, batchRollout(u, target, steps, h, batch))
	if err != nil {
		t.Fatal(err)
	}
	native := batchRolloutNative(u, target, steps, h)
	x := []float64{1.3, 0.4}
	f1, g1, err := one.ValueAndGrad(x)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := native(x)
	if math.Abs(f1-want) > 1e-12*math.Abs(want) {
		t.Errorf("unsharded f = %.16g, native %.16g", f1, want)
	}
	c, _ := CheckGrad(native, g1, x, 1e-6)
	if c.MaxRelErr > 1e-7 {
		t.Errorf("gradient vs finite differences: %v", c)
	}
	for _, k := range []int{2, 3, 5, 37} {
		sh, err := CompileSharded(params, batch, k, batchRollout(u, target, steps, h, batch))
		if err != nil {
			t.Fatal(err)
		}
		for range 2 { // twice: machines are reused
			f, g, err := sh.ValueAndGrad(x)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(f-f1) > 1e-12*math.Abs(f1) {
				t.Errorf("%d shards: f = %.16g, unsharded %.16g", k, f, f1)
			}
			for i := range g {
				if math.Abs(g[i]-g1[i]) > 1e-12*math.Max(1, math.Abs(g1[i])) {
					t.Errorf("%d shards: grad[%d] = %.16g, unsharded %.16g", k, i, g[i], g1[i])
				}
			}
		}
	}
	if f, err := one.Eval(x, nil); err != nil || f != f1 {
		t.Errorf("Eval without gradient: %g, %v; want %g", f, err, f1)
	}
	if _, err := CompileSharded(params, 0, 2, batchRollout(u, target, steps, h, batch)); err == nil {
		t.Error("empty batch accepted")
	}
}

// BenchmarkValueAndGrad is the acceptance benchmark of the core: a batched
// graph of 4,096 segments × 50 steps, unsharded and over all cores.
func BenchmarkValueAndGrad(b *testing.B) {
	const batch, steps, h = 4096, 50, 0.06
	u, target := makeBatch(batch, steps)
	params := []Param{{Name: "alpha"}, {Name: "beta"}}
	for _, shards := range []int{1, 0} {
		name := "unsharded"
		if shards == 0 {
			name = "sharded"
		}
		b.Run(name, func(b *testing.B) {
			p, err := CompileSharded(params, batch, shards, batchRollout(u, target, steps, h, batch))
			if err != nil {
				b.Fatal(err)
			}
			x := []float64{1.3, 0.4}
			grad := make([]float64, 2)
			b.ReportMetric(float64(len(p.shards)), "shards")
			b.ResetTimer()
			for b.Loop() {
				if _, err := p.ValueAndGradInto(x, grad); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func ExampleCompileSharded() {
	// Σ_i (a·u_i − 1)² over 1,000 items, split over two machines.
	u := make([]float64, 1000)
	for i := range u {
		u[i] = float64(i%10) / 10
	}
	s, err := CompileSharded([]Param{{Name: "a"}}, len(u), 2, func(g *Graph, p []*G.Node, lo, hi int) (*G.Node, error) {
		r := G.Must(G.Sub(G.Must(G.Mul(p[0], g.Const(u[lo:hi]))), g.Scalar(1)))
		return G.Sum(G.Must(G.Square(r)))
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	f, grad, _ := s.ValueAndGrad([]float64{2})
	fmt.Printf("f = %.1f, df/da = %.1f\n", f, grad[0])
	// Output: f = 340.0, df/da = 240.0
}
