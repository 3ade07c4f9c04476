package ad

import (
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"

	G "gorgonia.org/gorgonia"
)

// rosenLike builds f(a, b) = Σ_i (a·u_i − v_i)² + b·Σ_i sin(a·u_i)² over data
// vectors u, v: a scalar parameter a, a vector parameter b of length 1.
func rosenLike(u, v []float64) BuildFunc {
	return func(g *Graph, p []*G.Node) (*G.Node, error) {
		un, err := g.Input("u", u)
		if err != nil {
			return nil, err
		}
		vn := g.Const(v)
		au := G.Must(G.Mul(p[0], un))
		r := G.Must(G.Sub(au, vn))
		s := G.Must(G.Sin(au))
		s2 := G.Must(G.Square(s))
		b := G.Must(G.Sum(p[1]))
		t := G.Must(G.Mul(b, G.Must(G.Sum(s2))))
		return G.Add(G.Must(G.Sum(G.Must(G.Square(r)))), t)
	}
}

func rosenLikeNative(u, v []float64) func(x []float64) (float64, error) {
	return func(x []float64) (float64, error) {
		var f, s float64
		for i := range u {
			au := x[0] * u[i]
			f += (au - v[i]) * (au - v[i])
			s += math.Sin(au) * math.Sin(au)
		}
		return f + x[1]*s, nil
	}
}

func TestProgramValueAndGradMatchesNative(t *testing.T) {
	u := []float64{0.1, 0.5, -1.2, 2.0, 0.3}
	v := []float64{1, -2, 0.5, 0.25, 3}
	p, err := Compile([]Param{{Name: "a"}, {Name: "b", Shape: []int{1}}}, rosenLike(u, v))
	if err != nil {
		t.Fatal(err)
	}
	native := rosenLikeNative(u, v)
	for _, x := range [][]float64{{0.7, 0.3}, {-1.1, 2.5}, {3, -0.2}} {
		f, g, err := p.ValueAndGrad(x)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := native(x)
		if math.Abs(f-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Errorf("f(%v) = %.15g, native %.15g", x, f, want)
		}
		c, err := CheckGrad(native, g, x, 1e-6)
		if err != nil {
			t.Fatal(err)
		}
		if c.MaxRelErr > 1e-7 {
			t.Errorf("x=%v: %v", x, c)
		}
	}
	// SetInput changes the data without rebuilding.
	u2 := []float64{1, 1, 1, 1, 1}
	if err := p.SetInput("u", u2); err != nil {
		t.Fatal(err)
	}
	f, _, err := p.ValueAndGrad([]float64{0.5, 1})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := rosenLikeNative(u2, v)([]float64{0.5, 1})
	if math.Abs(f-want) > 1e-12*math.Abs(want) {
		t.Errorf("after SetInput f = %g, want %g", f, want)
	}
	if err := p.SetInput("u", []float64{1}); err == nil {
		t.Error("SetInput with the wrong length accepted")
	}
	if _, _, err := p.ValueAndGrad([]float64{1}); err == nil {
		t.Error("x of the wrong length accepted")
	}
}

func TestProgramUnreachableParamNamed(t *testing.T) {
	_, err := Compile([]Param{{Name: "mu"}, {Name: "Ts"}}, func(g *Graph, p []*G.Node) (*G.Node, error) {
		return G.Square(p[0]) // Ts never used
	})
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "Ts") || strings.Contains(err.Error(), "mu,") {
		t.Fatalf("err = %v, want ErrUnreachable naming Ts only", err)
	}
}

func TestProgramNodeBudget(t *testing.T) {
	// A scalar-per-step rollout: the pattern the guard exists to stop.
	build := func(steps int) BuildFunc {
		return func(g *Graph, p []*G.Node) (*G.Node, error) {
			s := p[0]
			for range steps {
				s = G.Must(G.Add(s, G.Must(G.Sin(s))))
			}
			return s, nil
		}
	}
	_, err := Compile([]Param{{Name: "x"}}, build(2000), WithMaxNodes(3000))
	if !errors.Is(err, ErrTooManyNodes) || !strings.Contains(err.Error(), "Scan") {
		t.Fatalf("err = %v, want ErrTooManyNodes suggesting Scan", err)
	}
	p, err := Compile([]Param{{Name: "x"}}, build(100), WithMaxNodes(3000))
	if err != nil {
		t.Fatal(err)
	}
	if p.Nodes() <= 200 || p.Nodes() > 3000 {
		t.Errorf("Nodes() = %d", p.Nodes())
	}
}

func TestProgramSelfCheck(t *testing.T) {
	u := []float64{0.1, 0.5, -1.2}
	v := []float64{1, -2, 0.5}
	p, err := Compile([]Param{{Name: "a"}, {Name: "b", Shape: []int{1}}}, rosenLike(u, v), WithSelfCheck([]float64{0.4, 0.2}, 1e-6))
	if err != nil {
		t.Fatal(err)
	}
	if rel, skipped := p.SelfCheck(); skipped != "" || rel > 1e-6 {
		t.Errorf("self-check relative error %g (skipped: %q)", rel, skipped)
	}
	// A deliberately wrong gradient is caught by the directional check.
	bad := func(x []float64) (float64, []float64, error) {
		f, g, err := p.ValueAndGrad(x)
		g[0] *= 1.01
		return f, g, err
	}
	rel, err := DirectionalCheck(bad, []float64{0.4, 0.2}, 1e-6, 1)
	if err != nil || rel < 1e-4 {
		t.Errorf("1%% gradient error reported as %g (%v)", rel, err)
	}
}

func TestProgramMemoryFlat(t *testing.T) {
	n := 2000
	u := make([]float64, n)
	v := make([]float64, n)
	for i := range u {
		u[i] = math.Sin(float64(i))
		v[i] = math.Cos(float64(i))
	}
	p, err := Compile([]Param{{Name: "a"}, {Name: "b", Shape: []int{1}}}, rosenLike(u, v))
	if err != nil {
		t.Fatal(err)
	}
	x := []float64{0.3, 0.1}
	grad := make([]float64, 2)
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	for range 100 {
		if _, err := p.ValueAndGradInto(x, grad); err != nil {
			t.Fatal(err)
		}
	}
	h0 := heap()
	for range 1000 {
		if _, err := p.ValueAndGradInto(x, grad); err != nil {
			t.Fatal(err)
		}
	}
	h1 := heap()
	runtime.KeepAlive(p)
	// 1,000 calls on 2,000-element vectors allocate ~100 MB in total; a leak of
	// even one vector per call would retain 16 MB.
	if h1 > h0+1<<20 {
		t.Errorf("heap grew from %d to %d bytes over 1,000 calls", h0, h1)
	}
	t.Logf("heap after 100 calls %d B, after 1,100 calls %d B", h0, h1)
}

func TestProgramErrors(t *testing.T) {
	if _, err := Compile(nil, nil); err == nil {
		t.Error("no params accepted")
	}
	if _, err := Compile([]Param{{Name: "a"}, {Name: "a"}}, nil); err == nil {
		t.Error("repeated names accepted")
	}
	_, err := Compile([]Param{{Name: "a", Shape: []int{3}}}, func(g *Graph, p []*G.Node) (*G.Node, error) {
		return G.Square(p[0]) // a vector, not a scalar loss
	})
	if err == nil || !strings.Contains(err.Error(), "scalar") {
		t.Errorf("vector loss: err = %v", err)
	}
}

// Gorgonia merges constants whose printed values are equal, and long tensors
// print truncated; Graph.Const must keep distinct data distinct.
func TestConstLongVectorsStayDistinct(t *testing.T) {
	a := make([]float64, 1000)
	b := make([]float64, 1000)
	b[500] = 1 // differs only where the printed form is elided
	p, err := Compile([]Param{{Name: "k"}}, func(g *Graph, pn []*G.Node) (*G.Node, error) {
		ca, cb := g.Const(a), g.Const(b)
		d := G.Must(G.Sub(cb, ca))
		return G.Mul(pn[0], G.Must(G.Sum(d)))
	})
	if err != nil {
		t.Fatal(err)
	}
	f, _, err := p.ValueAndGrad([]float64{3})
	if err != nil {
		t.Fatal(err)
	}
	if f != 3 {
		t.Fatalf("f = %g, want 3: two different constants were merged into one node", f)
	}
}

// A watched node that a later op consumes must report its own value, not the
// result of an op that overwrote its memory in place (gorgonia does that when
// values are read with Node.Value() after the run).
func TestWatchConsumedNode(t *testing.T) {
	p, err := Compile([]Param{{Name: "a", Shape: []int{3}}}, func(g *Graph, pn []*G.Node) (*G.Node, error) {
		s := G.Must(G.Add(pn[0], g.Const([]float64{1, 1, 1})))
		g.Watch("s", s)
		e := G.Must(G.Sub(s, g.Const([]float64{5, 5, 5})))
		return G.Sum(G.Must(G.Square(e)))
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Value([]float64{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	got := p.Output("s")
	for i, want := range []float64{2, 3, 4} {
		if got[i] != want {
			t.Fatalf("watched s = %v, want [2 3 4]", got)
		}
	}
}
