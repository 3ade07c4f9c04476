package dyn_test

import (
	"math"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/ad"
	"github.com/wheelgrad/wheelgrad/dyn"
	G "gorgonia.org/gorgonia"
)

// stiction is a wheel with Coulomb friction as an exact clamp (Kikuuwe):
// the friction that would stop the wheel, clamped to ±c. With k·u = c
// exactly the wheel sits on the clamp's limit: the derivative is
// one-sided there, and central differences straddle the kink.
func stiction(t *testing.T, name string) *dyn.Model {
	t.Helper()
	m, err := dyn.Define(dyn.Spec{Name: name, State: []string{"v", "x"}, Input: []string{"u"}, Params: []string{"k", "c", "b"}, Settings: []string{"dt"}},
		func(s *dyn.Step) {
			v, x, dt := s.State("v"), s.State("x"), s.Setting("dt")
			k, c, b := s.Param("k"), s.Param("c"), s.Param("b")
			drive := k.Mul(s.Input("u")).Sub(b.Mul(v))
			stick := v.Neg().Div(dt).Sub(drive)
			vn := v.Add(dt.Mul(drive.Add(dyn.Clamp(stick, c.Neg(), c))))
			s.Next("v", vn)
			s.Next("x", x.Add(dt.Mul(dyn.Max(vn, s.Const(0)))))
		})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// onTheKink: every lane at rest with the drive exactly at the stiction
// limit (k·u = c) for every step.
func onTheKink(B, T int) (p, q, x0, u []float64) {
	p, q = []float64{1, 0.5, 0.2}, []float64{0.01}
	x0 = make([]float64, 2*B)
	u = make([]float64, T*B)
	for i := range u {
		u[i] = 0.5
	}
	return
}

// TestCheckIsRightAtAKink: at a point on a switch, the check takes the
// one-sided difference on the side where every switch keeps its branch
// (one lane, one step), or moves the point off the switches (many lanes
// crossing on both sides), and passes; the op's built-in check, which
// failed such a run and every later one, passes too.
func TestCheckIsRightAtAKink(t *testing.T) {
	m := stiction(t, "stiction")
	for _, k := range []dyn.Kernel{m.NewInterpreter()} {
		p, q, x0, u := onTheKink(1, 1)
		for seed := range uint64(4) {
			c, err := m.CheckRollout(k, p, q, x0, u, 1, 1, nil, 0, nil, seed)
			if err != nil {
				t.Fatal(err)
			}
			if c.Stencil != "forward" && c.Stencil != "backward" {
				t.Errorf("seed %d: %v: want a one-sided stencil on the kink", seed, c)
			}
			if c.RelErr > 1e-6 || !strings.Contains(c.Switch, "clamp") {
				t.Errorf("seed %d: %v", seed, c)
			}
		}
	}
	const B, T = 4, 30
	p, q, x0, u := onTheKink(B, T)
	prog, err := ad.Compile([]ad.Param{{Name: "p", Shape: []int{3}}}, func(g *ad.Graph, ps []*G.Node) (*G.Node, error) {
		tr, err := dyn.Rollout(m, ps[0], g.Const(q), g.Const(x0), g.Const(u), B, T)
		if err != nil {
			return nil, err
		}
		y, err := tr.Output("x")
		if err != nil {
			return nil, err
		}
		return G.Sum(y)
	}, ad.WithoutSelfCheck())
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := prog.ValueAndGrad(p); err != nil {
		t.Fatalf("the op's self-check at a kink: %v", err)
	}
	c, ok := m.LastSelfCheck()
	if passed, _ := m.SelfChecked(); !ok || !passed {
		t.Fatalf("not checked: %v", c)
	}
	if c.Analytic == 0 || c.RelErr > dyn.DefaultCheckTol {
		t.Errorf("the op's check on the kink says little or fails: %v", c)
	}
	t.Logf("op's check on the kink: %v", c)

	// The Sim path, on a fresh model (the check runs once per model).
	m2 := stiction(t, "stiction2")
	sim := m2.NewSim(B, T)
	if _, err := sim.Forward(p, q, x0, u, nil); err != nil {
		t.Fatal(err)
	}
	xTbar := make([]float64, 2*B)
	for i := range xTbar {
		xTbar[i] = 1
	}
	if err := sim.Backward(p, q, u, nil, 0, xTbar, make([]float64, 3), nil, nil); err != nil {
		t.Fatalf("Sim's self-check at a kink: %v", err)
	}
	if passed, _ := m2.SelfChecked(); !passed {
		c, _ := m2.LastSelfCheck()
		t.Errorf("Sim's first Backward did not check: %v", c)
	}
}

// TestProgramCompilesAtAKink: ad.Compile's own check (on by default) of a
// loss around the rollout, at the stiction kink, moves off the kink instead
// of failing the compile (and never blames G.Concat).
func TestProgramCompilesAtAKink(t *testing.T) {
	m := stiction(t, "stictionad")
	const B, T = 4, 30
	p, q, x0, u := onTheKink(B, T)
	prog, err := ad.Compile([]ad.Param{{Name: "p", Shape: []int{3}}}, func(g *ad.Graph, ps []*G.Node) (*G.Node, error) {
		tr, err := dyn.Rollout(m, ps[0], g.Const(q), g.Const(x0), g.Const(u), B, T)
		if err != nil {
			return nil, err
		}
		y, err := tr.Output("x")
		if err != nil {
			return nil, err
		}
		return G.Sum(y)
	}, ad.WithX0(p))
	if err != nil {
		t.Fatal(err)
	}
	if rel, skipped := prog.SelfCheck(); skipped != "" || rel > ad.DefaultSelfCheckTol {
		t.Errorf("ad's check: %v %q", rel, skipped)
	}
}

// signBroken is a kernel whose reverse pass is wrong in lanes where state 0
// is negative (a data-dependent bug, as real ones are).
type signBroken struct{ dyn.Kernel }

func (k signBroken) Reverse(n int, p, q, x, u, axn, ay []float64, ys int, ac float64, ax, au, ap []float64) {
	k.Kernel.Reverse(n, p, q, x, u, axn, ay, ys, ac, ax, au, ap)
	for j := range n {
		if x[j] < 0 {
			ax[j] *= 0.5
		}
	}
}

// TestSimSelfCheckNamesTheLane: the Sim path is checked on its first
// Backward, and a failure names the lane, the step and whether the kernel
// or an instruction is wrong (never an unrelated op).
func TestSimSelfCheckNamesTheLane(t *testing.T) {
	def := func(s *dyn.Step) {
		v := s.State("v")
		s.Next("v", v.Add(s.Input("u").Sub(v).Div(s.Param("tau")).MulC(0.01)))
	}
	spec := dyn.Spec{Name: "lane", State: []string{"v"}, Input: []string{"u"}, Params: []string{"tau"}}
	const B, T = 3, 10
	p, x0, u := []float64{0.3}, []float64{1, -1, 2}, make([]float64, T*B)
	run := func(m *dyn.Model, opts ...dyn.OpOption) error {
		sim, err := m.NewSimWith(signBroken{m.NewInterpreter()}, B, T, opts...)
		if err != nil {
			return err
		}
		if _, err := sim.Forward(p, nil, x0, u, nil); err != nil {
			return err
		}
		return sim.Backward(p, nil, u, nil, 0, []float64{1, 1, 1}, make([]float64, 1), nil, nil)
	}
	err := run(dyn.MustDefine(spec, def))
	if err == nil {
		t.Fatal("a wrong reverse pass passed the Sim's first Backward")
	}
	for _, want := range []string{"self-check failed", "lane 1 disagrees most", "step 0", "∂/∂state v", "the kernel dyn_test.signBroken is wrong"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}
	if strings.Contains(err.Error(), "Concat") {
		t.Errorf("the error blames an unrelated op: %v", err)
	}
	if err := run(dyn.MustDefine(spec, def), dyn.WithoutSelfCheck()); err != nil {
		t.Errorf("WithoutSelfCheck: %v", err)
	}
}

// A stencil that leaves the model's domain is no evidence against the
// gradient: at τ = 0 a gain √(τ + 1e-9) is finite with a finite derivative,
// but a central difference steps τ below −1e-9, where the rollout is NaN.
// Before, the first Backward failed ("self-check: … became NaN"): the
// Warthog's no-lag fit (τ held at 0) stopped so. Now the check is
// inconclusive and the gradient is returned.
func TestSelfCheckStencilOutsideDomain(t *testing.T) {
	m, err := dyn.Define(dyn.Spec{Name: "domain_edge", State: []string{"x"}, Input: []string{"u"}, Params: []string{"tau"}},
		func(s *dyn.Step) {
			x, u, tau := s.State("x"), s.Input("u"), s.Param("tau")
			s.Next("x", x.Add(u.Mul(dyn.Sqrt(tau.Add(s.Const(1e-9))))))
		})
	if err != nil {
		t.Fatal(err)
	}
	sim := m.NewSim(1, 3)
	p, x0, u := []float64{0}, []float64{0}, []float64{1, 1, 1}
	if _, err := sim.Forward(p, nil, x0, u, nil); err != nil {
		t.Fatal(err)
	}
	pbar := make([]float64, 1)
	if err := sim.Backward(p, nil, u, nil, 0, []float64{1}, pbar, nil, nil); err != nil {
		t.Fatalf("Backward: %v", err)
	}
	if want := 3 * 0.5 / math.Sqrt(1e-9); math.Abs(pbar[0]/want-1) > 1e-9 {
		t.Errorf("∂x_T/∂τ = %g, want %g", pbar[0], want)
	}
}
