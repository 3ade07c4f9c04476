package ad

import (
	"errors"
	"math"
	"strings"
	"sync"
	"testing"

	G "gorgonia.org/gorgonia"

	"github.com/wheelgrad/wheelgrad/graph"
)

// Parameters are bound to valid values (x0, or 1) before the build
// function runs, so graph ops whose build-time checks read a node's value
// accept parameter nodes (they refused the 0 that parameters were bound to).
func TestParamsBoundBeforeBuild(t *testing.T) {
	x := []float64{-2, -0.3, 0, 0.4, 3}
	for name, op := range map[string]func(g *Graph, p *G.Node) (*G.Node, error){
		"TanhClampSym": func(g *Graph, p *G.Node) (*G.Node, error) { return graph.TanhClampSym(g.Const(x), p, g.Scalar(0.1)) },
		"SoftClamp": func(g *Graph, p *G.Node) (*G.Node, error) {
			return graph.SoftClamp(g.Const(x), G.Must(G.Neg(p)), p, g.Scalar(0.1))
		},
		"SmoothAbs": func(g *Graph, p *G.Node) (*G.Node, error) { return graph.SmoothAbs(g.Const(x), p) },
		"Clamp":     func(g *Graph, p *G.Node) (*G.Node, error) { return graph.Clamp(g.Const(x), G.Must(G.Neg(p)), p) },
	} {
		for _, opts := range [][]Option{nil, {WithX0([]float64{0.7})}} {
			prog, err := Compile([]Param{{Name: "mu"}}, func(g *Graph, p []*G.Node) (*G.Node, error) {
				y, err := op(g, p[0])
				if err != nil {
					return nil, err
				}
				return G.Sum(G.Must(G.Square(y)))
			}, opts...)
			if err != nil {
				t.Errorf("%s with a parameter node: %v", name, err)
				continue
			}
			if _, _, err := prog.ValueAndGrad([]float64{0.5}); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
	}
	if _, err := Compile([]Param{{Name: "mu"}}, func(g *Graph, p []*G.Node) (*G.Node, error) { return G.Sum(p[0]) }, WithX0([]float64{1, 2})); err == nil {
		t.Error("WithX0 of the wrong length accepted")
	}
}

// A scalar input anneals a temperature without rebuilding the graph.
func TestScalarInput(t *testing.T) {
	prog, err := Compile([]Param{{Name: "x"}}, func(g *Graph, p []*G.Node) (*G.Node, error) {
		T, err := g.ScalarInput("T", 2)
		if err != nil {
			return nil, err
		}
		return G.Mul(T, G.Must(G.Square(p[0])))
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, T := range []float64{2, 0.5} {
		if T != 2 {
			if err := prog.SetInput("T", []float64{T}); err != nil {
				t.Fatal(err)
			}
		}
		f, g, err := prog.ValueAndGrad([]float64{3})
		if err != nil || f != 9*T || g[0] != 6*T {
			t.Errorf("T = %v: f = %v, g = %v, %v", T, f, g, err)
		}
	}
	if err := prog.SetInput("T", []float64{math.NaN()}); err == nil || !strings.Contains(err.Error(), `"T"`) {
		t.Errorf("NaN temperature: %v", err)
	}
}

// A loss of shape [1] is accepted; a larger one is an error saying its shape.
func TestLossShape(t *testing.T) {
	prog, err := Compile([]Param{{Name: "x", Shape: []int{1}}}, func(g *Graph, p []*G.Node) (*G.Node, error) {
		return G.Square(p[0]) // shape [1]
	})
	if err != nil {
		t.Fatal(err)
	}
	if f, g, err := prog.ValueAndGrad([]float64{3}); err != nil || f != 9 || g[0] != 6 {
		t.Errorf("[1] loss: %v %v %v", f, g, err)
	}
	_, err = Compile([]Param{{Name: "x", Shape: []int{2}}}, func(g *Graph, p []*G.Node) (*G.Node, error) { return G.Square(p[0]) })
	if err == nil || !strings.Contains(err.Error(), "shape (2)") {
		t.Errorf("vector loss: %v", err)
	}
}

// NaN or Inf in x, in data, or produced by the graph is an error that says
// where, never a silent NaN loss.
func TestNaNIsAnError(t *testing.T) {
	build := func(g *Graph, p []*G.Node) (*G.Node, error) {
		d, err := g.Input("data", []float64{1, 2})
		if err != nil {
			return nil, err
		}
		return G.Sum(G.Must(G.Mul(G.Must(G.Log(p[0])), d)))
	}
	prog, err := Compile([]Param{{Name: "theta", Shape: []int{2}}}, build)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := prog.ValueAndGrad([]float64{1, math.NaN()}); err == nil || !strings.Contains(err.Error(), "theta[1]") {
		t.Errorf("NaN in x: %v", err)
	}
	if _, _, err := prog.ValueAndGrad([]float64{1, -1}); err == nil || !strings.Contains(err.Error(), "the loss is NaN") {
		t.Errorf("log of a negative parameter: %v", err)
	}
	if err := prog.SetInput("data", []float64{1, math.Inf(1)}); err == nil || !strings.Contains(err.Error(), "index 1") {
		t.Errorf("Inf in data: %v", err)
	}
	_, err = Compile([]Param{{Name: "theta"}}, func(g *Graph, p []*G.Node) (*G.Node, error) {
		if _, err := g.Input("bad", []float64{0, math.NaN()}); err != nil {
			return nil, err
		}
		return p[0], nil
	})
	if err == nil || !strings.Contains(err.Error(), `"bad"`) {
		t.Errorf("NaN in an input at build: %v", err)
	}
}

// The self-check is on by default and catches gorgonia's wrong G.Concat
// gradient (33 parts of [8]); graph.Concat passes it.
func TestDefaultSelfCheckCatchesConcat(t *testing.T) {
	build := func(ours bool) BuildFunc {
		return func(g *Graph, p []*G.Node) (*G.Node, error) {
			var parts G.Nodes
			for j := range 33 {
				parts = append(parts, G.Must(G.Mul(p[0], g.Scalar(float64(j+1)))))
			}
			var cat *G.Node
			var err error
			if ours {
				cat, err = graph.Concat(parts...)
			} else {
				cat, err = G.Concat(0, parts...)
			}
			if err != nil {
				return nil, err
			}
			w := make([]float64, 33*8)
			for i := range w {
				w[i] = math.Sin(float64(i))
			}
			return G.Sum(G.Must(G.HadamardProd(cat, g.Const(w))))
		}
	}
	params := []Param{{Name: "x", Shape: []int{8}}}
	if _, err := Compile(params, build(false)); err == nil || !strings.Contains(err.Error(), "self-check failed") {
		t.Errorf("G.Concat's wrong gradient passed the default self-check: %v", err)
	}
	p, err := Compile(params, build(true))
	if err != nil {
		t.Fatalf("graph.Concat: %v", err)
	}
	if rel, skipped := p.SelfCheck(); skipped != "" || rel > 1e-8 {
		t.Errorf("graph.Concat self-check %g (%q)", rel, skipped)
	}
	if _, err := Compile(params, build(false), WithoutSelfCheck()); err != nil {
		t.Errorf("WithoutSelfCheck: %v", err)
	}
}

// One Program from 4 goroutines: each call either runs or returns
// ErrConcurrentUse, never a panic inside gorgonia; 4 Clones run in parallel
// and agree with the serial result. Run with -race.
func TestConcurrentUse(t *testing.T) {
	u := []float64{0.1, 0.5, -1.2}
	v := []float64{1, -2, 0.5}
	p, err := Compile([]Param{{Name: "a"}, {Name: "b", Shape: []int{1}}}, rosenLike(u, v))
	if err != nil {
		t.Fatal(err)
	}
	x := []float64{0.4, 0.2}
	want, wantG, err := p.ValueAndGrad(x)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok, refused := 0, 0
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				f, _, err := p.ValueAndGrad(x)
				mu.Lock()
				switch {
				case errors.Is(err, ErrConcurrentUse):
					refused++
				case err != nil:
					t.Errorf("concurrent call: %v", err)
				case f != want:
					t.Errorf("concurrent call: f = %v, want %v", f, want)
				default:
					ok++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if ok == 0 {
		t.Error("no call succeeded")
	}
	t.Logf("%d calls ran, %d refused as concurrent", ok, refused)
	clones := make([]*Program, 4)
	for i := range clones {
		if clones[i], err = p.Clone(); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range clones {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				f, g, err := c.ValueAndGrad(x)
				if err != nil || f != want || g[0] != wantG[0] || g[1] != wantG[1] {
					t.Errorf("clone: %v %v %v, want %v %v", f, g, err, want, wantG)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// Scan detects concurrent use too, and its Clone runs alongside.
func TestScanConcurrentUse(t *testing.T) {
	s := newPendulumScan(t, 3, 20, false)
	r := pendulumData(3, 50)
	x := []float64{2, 0.3}
	want, _, err := s.Value(x, r)
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Clone()
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for _, sc := range []*Scan{s, c, s, c} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f, _, err := sc.Value(x, r)
			if err != nil && !errors.Is(err, ErrConcurrentUse) {
				t.Errorf("scan: %v", err)
			}
			if err == nil && f != want {
				t.Errorf("scan: %v, want %v", f, want)
			}
		}()
	}
	wg.Wait()
}

// reshapeRollout is a 5-step rollout s' = a·s + 1 whose loss Σ‖s‖² reads
// each state through a [2,2] reshape, with G.Reshape or graph.Reshape.
func reshapeRollout(t *testing.T, ours bool) float64 {
	t.Helper()
	prog, err := Compile([]Param{{Name: "a"}}, func(g *Graph, p []*G.Node) (*G.Node, error) {
		s := g.Const([]float64{1, 2, 3, 4})
		var loss *G.Node
		for range 5 {
			var m *G.Node
			var err error
			if ours {
				m, err = graph.Reshape(s, 2, 2)
			} else {
				m, err = G.Reshape(s, []int{2, 2})
			}
			if err != nil {
				return nil, err
			}
			// The next state is built before the loss term reads the view
			// (the order in which the overwrite shows).
			next := G.Must(G.Add(G.Must(G.Mul(s, p[0])), g.Scalar(1)))
			term := G.Must(G.Sum(G.Must(G.Square(m))))
			if loss == nil {
				loss = term
			} else {
				loss = G.Must(G.Add(loss, term))
			}
			s = next
		}
		return loss, nil
	}, WithoutSelfCheck())
	if err != nil {
		t.Fatal(err)
	}
	f, err := prog.Value([]float64{0.9})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// Gorgonia 0.9.17's G.Reshape returns a view of its input, which a later
// in-place op on the input overwrites: a rollout's loss comes out 351.94
// instead of 331.38. If this fails after an upgrade, gorgonia fixed it:
// revisit graph.Reshape's doc comment. graph.Reshape copies and is right.
func TestGorgoniaReshapeViewIsOverwritten(t *testing.T) {
	want := 0.0
	s := []float64{1, 2, 3, 4}
	for range 5 {
		for i := range s {
			want += s[i] * s[i]
		}
		for i := range s {
			s[i] = 0.9*s[i] + 1
		}
	}
	if got := reshapeRollout(t, false); math.Abs(got-want) < 1e-9 {
		t.Errorf("G.Reshape gave the right value %v: gorgonia may have fixed its views", got)
	}
	if got := reshapeRollout(t, true); math.Abs(got-want) > 1e-9 {
		t.Errorf("graph.Reshape: %v, want %v", got, want)
	}
}
