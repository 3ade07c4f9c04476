package dyn_test

import (
	"errors"
	"math"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/wheelgrad/wheelgrad/ad"
	"github.com/wheelgrad/wheelgrad/dyn"
	"github.com/wheelgrad/wheelgrad/dyn/internal/testmodels"
	G "gorgonia.org/gorgonia"
)

// blockingKernel holds its first Forward and Reverse inside the kernel until
// released, so that a second call on the same Sim or Stepper overlaps it
// deterministically.
type blockingKernel struct {
	dyn.Kernel
	in, out chan struct{}
	first   *atomic.Bool
}

func (k blockingKernel) Forward(n int, p, q, x, u, xn, y []float64, ys int) float64 {
	if k.first.CompareAndSwap(true, false) {
		k.in <- struct{}{}
		<-k.out
	}
	return k.Kernel.Forward(n, p, q, x, u, xn, y, ys)
}

func newBlocking(m *dyn.Model) blockingKernel {
	k := blockingKernel{Kernel: m.NewInterpreter(), in: make(chan struct{}), out: make(chan struct{}), first: new(atomic.Bool)}
	k.first.Store(true)
	return k
}

// TestConcurrentUseIsAnError: a second goroutine calling a Sim or Stepper
// while a call runs gets ErrConcurrentUse, not a wrong number (the issue's
// shared Sim gave 22–97 % wrong results with no error).
func TestConcurrentUseIsAnError(t *testing.T) {
	m := testmodels.Lag
	const B, T = 3, 20
	x0, u := lagData(B, T, 1)
	p, q := []float64{0.25, 1.3, 0.8}, []float64{0.01, 0.2}

	k := newBlocking(m)
	sim, err := m.NewSimWith(k, B, T)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() {
		_, err := sim.Forward(p, q, x0, u, nil)
		done <- err
	}()
	<-k.in // the first Forward is inside the kernel
	if _, err := sim.Forward(p, q, x0, u, nil); !errors.Is(err, dyn.ErrConcurrentUse) {
		t.Errorf("Forward during a Forward: %v, want ErrConcurrentUse", err)
	}
	pbar := make([]float64, 3)
	if err := sim.Backward(p, q, u, nil, 0, make([]float64, 4*B), pbar, nil, nil); !errors.Is(err, dyn.ErrConcurrentUse) {
		t.Errorf("Backward during a Forward: %v, want ErrConcurrentUse", err)
	}
	k.out <- struct{}{}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// Once the first call returned, the Sim is free again.
	if _, err := sim.Forward(p, q, x0, u, nil); err != nil {
		t.Errorf("Forward after the first returned: %v", err)
	}

	k = newBlocking(m)
	st, err := m.NewStepperWith(k)
	if err != nil {
		t.Fatal(err)
	}
	x, xn := []float64{0, 0, 0, 0.5}, make([]float64, 4)
	go func() {
		_, err := st.Step(p, q, x, u[:2], xn, nil)
		done <- err
	}()
	<-k.in
	if _, err := st.Step(p, q, x, u[:2], make([]float64, 4), nil); !errors.Is(err, dyn.ErrConcurrentUse) {
		t.Errorf("Step during a Step: %v, want ErrConcurrentUse", err)
	}
	if err := st.Jacobian(p, q, x, u[:2], make([]float64, 16), nil, nil); !errors.Is(err, dyn.ErrConcurrentUse) {
		t.Errorf("Jacobian during a Step: %v, want ErrConcurrentUse", err)
	}
	k.out <- struct{}{}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestConcurrentSimsRace runs one Sim per goroutine (the supported use) and
// one shared Sim hammered by several: under -race the first is clean, and
// the shared one never returns a wrong result, only ErrConcurrentUse.
func TestConcurrentSimsRace(t *testing.T) {
	m := testmodels.Lag
	const B, T, G = 2, 200, 4
	x0, u := lagData(B, T, 2)
	p, q := []float64{0.25, 1.3, 0.8}, []float64{0.01, 0.2}
	ref := m.NewSim(B, T)
	want, err := ref.Forward(p, q, x0, u, make([]float64, m.NY()*T*B))
	if err != nil {
		t.Fatal(err)
	}
	wantX := ref.Final()[0]
	shared := m.NewSim(B, T)
	errs := make(chan error, G)
	for range G {
		go func() {
			own := m.NewSim(B, T)
			for range 20 {
				if _, err := own.Forward(p, q, x0, u, nil); err != nil {
					errs <- err
					return
				}
				if own.Final()[0] != wantX {
					errs <- errors.New("own Sim: wrong final state")
					return
				}
				c, err := shared.Forward(p, q, x0, u, nil)
				if err != nil && !errors.Is(err, dyn.ErrConcurrentUse) {
					errs <- err
					return
				}
				if err == nil && c != want {
					errs <- errors.New("shared Sim: a wrong cost without an error")
					return
				}
			}
			errs <- nil
		}()
	}
	for range G {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestKernelOfAnotherModelIsRefused: NewSimWith and NewStepperWith refuse a
// kernel that computes another step (the loss 0 and gradient 0,
// or panic).
func TestKernelOfAnotherModelIsRefused(t *testing.T) {
	for _, c := range []struct {
		name string
		m    *dyn.Model
		k    dyn.Kernel
	}{
		{"kitchen's generated kernel to lag", testmodels.Lag, testmodels.Kitchen.NewKernel()},
		{"lag's generated kernel to kitchen", testmodels.Kitchen, testmodels.Lag.NewKernel()},
		{"lag's interpreter to gain", testmodels.Gain, testmodels.Lag.NewInterpreter()},
	} {
		if _, err := c.m.NewSimWith(c.k, 2, 3); err == nil || !strings.Contains(err.Error(), "another model") {
			t.Errorf("NewSimWith, %s: %v", c.name, err)
		}
		if _, err := c.m.NewStepperWith(c.k); err == nil || !strings.Contains(err.Error(), "another model") {
			t.Errorf("NewStepperWith, %s: %v", c.name, err)
		}
	}
	// Its own kernels are accepted.
	for _, k := range []dyn.Kernel{testmodels.Lag.NewKernel(), testmodels.Lag.NewInterpreter()} {
		if _, err := testmodels.Lag.NewSimWith(k, 2, 3); err != nil {
			t.Error(err)
		}
	}
}

// TestStaleKernelIsAnError: after UseGenerated refused a stale kernel, the
// model's Sims, Steppers and ops fail with ErrStaleKernel instead of
// running the interpreter silently, unless they opt into it.
func TestStaleKernelIsAnError(t *testing.T) {
	def := func(s *dyn.Step) {
		v := s.State("v")
		s.Next("v", v.Add(s.Input("u").Sub(v).Div(s.Param("tau")).MulC(0.01)))
	}
	spec := dyn.Spec{Name: "edited", State: []string{"v"}, Input: []string{"u"}, Params: []string{"tau"}}
	m := dyn.MustDefine(spec, def)
	old := dyn.MustDefine(dyn.Spec{Name: "edited", State: []string{"v"}, Input: []string{"u"}, Params: []string{"tau"}},
		func(s *dyn.Step) { // the definition before an edit
			v := s.State("v")
			s.Next("v", v.Add(s.Input("u").Sub(v).Div(s.Param("tau")).MulC(0.02)))
		})
	if err := m.UseGenerated(old.NewInterpreter(), old.Hash()); !errors.Is(err, dyn.ErrStaleKernel) {
		t.Fatalf("UseGenerated of a stale kernel: %v", err)
	}
	if !errors.Is(m.Stale(), dyn.ErrStaleKernel) || m.Generated() {
		t.Fatalf("Stale %v, Generated %v", m.Stale(), m.Generated())
	}
	p, x0, u := []float64{0.3}, []float64{0, 1}, []float64{1, 1, 1, 1, 1, 1}
	const B, T = 2, 3
	if _, err := m.NewSim(B, T).Forward(p, nil, x0, u, nil); !errors.Is(err, dyn.ErrStaleKernel) {
		t.Errorf("NewSim of a stale model: Forward returned %v", err)
	}
	if _, err := m.NewSimWith(m.NewKernel(), B, T); !errors.Is(err, dyn.ErrStaleKernel) {
		t.Errorf("NewSimWith(NewKernel()) of a stale model: %v", err)
	}
	if _, err := m.NewSimWith(old.NewInterpreter(), B, T); !errors.Is(err, dyn.ErrStaleKernel) {
		t.Errorf("NewSimWith(the stale kernel): %v", err)
	}
	if _, err := m.NewStepper().Step(p, nil, x0[:1], u[:1], make([]float64, 1), nil); !errors.Is(err, dyn.ErrStaleKernel) {
		t.Errorf("NewStepper of a stale model: Step returned %v", err)
	}
	_, err := ad.Compile([]ad.Param{{Name: "tau", Shape: []int{1}}}, func(g *ad.Graph, ps []*G.Node) (*G.Node, error) {
		tr, err := dyn.Rollout(m, ps[0], nil, g.Const(x0), g.Const(u), B, T)
		if err != nil {
			return nil, err
		}
		y, err := tr.Output("v")
		if err != nil {
			return nil, err
		}
		return G.Sum(y)
	}, ad.WithoutSelfCheck())
	if !errors.Is(err, dyn.ErrStaleKernel) {
		t.Errorf("Rollout of a stale model: %v", err)
	}
	// Opting into the interpreter works and computes the current definition.
	sims := []*dyn.Sim{m.NewSim(B, T, dyn.WithInterpreter())}
	if s, err := m.NewSimWith(m.NewInterpreter(), B, T); err != nil {
		t.Error(err)
	} else {
		sims = append(sims, s)
	}
	want := dyn.MustDefine(spec, def).NewSim(B, T)
	if _, err := want.Forward(p, nil, x0, u, nil); err != nil {
		t.Fatal(err)
	}
	for _, s := range sims {
		if _, err := s.Forward(p, nil, x0, u, nil); err != nil {
			t.Error(err)
		} else if s.Final()[1] != want.Final()[1] {
			t.Errorf("interpreter %v, want %v", s.Final(), want.Final())
		}
	}
}

// TestBackwardErrors: Backward reports misuse instead of panicking or
// returning numbers of another rollout.
func TestBackwardErrors(t *testing.T) {
	m := testmodels.Lag
	const B, T = 2, 5
	x0, u := lagData(B, T, 1)
	p, q := []float64{0.25, 1.3, 0.8}, []float64{0.01, 0.2}
	sim := m.NewSim(B, T, dyn.WithoutSelfCheck())
	pbar, xTbar := make([]float64, 3), make([]float64, 4*B)
	if err := sim.Backward(p, q, u, nil, 0, xTbar, pbar, nil, nil); err == nil || !strings.Contains(err.Error(), "without a successful Forward") {
		t.Errorf("Backward before Forward: %v", err)
	}
	if _, err := sim.Forward(p, q, x0, u, nil); err != nil {
		t.Fatal(err)
	}
	if err := sim.Backward(p, q, u[:3], nil, 0, xTbar, pbar, nil, nil); err == nil || !strings.Contains(err.Error(), "inputs") {
		t.Errorf("short u: %v", err)
	}
	if err := sim.Backward(p, q, u, nil, 0, xTbar[:3], pbar, nil, nil); err == nil || !strings.Contains(err.Error(), "xTbar") {
		t.Errorf("short xTbar: %v", err)
	}
	if err := sim.Backward(p, q, u, nil, 0, xTbar, pbar[:1], nil, nil); err == nil || !strings.Contains(err.Error(), "pbar") {
		t.Errorf("short pbar: %v", err)
	}
	if err := sim.Backward(p, q, u, nil, 0, xTbar, pbar, nil, nil); err != nil {
		t.Errorf("a right call: %v", err)
	}
	// After a Forward that failed (a NaN input), no Backward of stale states.
	bad := append([]float64(nil), u...)
	bad[3] = math.NaN()
	if _, err := sim.Forward(p, q, x0, bad, nil); err == nil {
		t.Fatal("a NaN input accepted")
	}
	if err := sim.Backward(p, q, bad, nil, 0, xTbar, pbar, nil, nil); err == nil || !strings.Contains(err.Error(), "without a successful Forward") {
		t.Errorf("Backward after a failed Forward: %v", err)
	}
}

// TestUnusedIsReported: a parameter or input that reaches no result is an
// error of the definition (a typo, or a parameter an optimiser would move
// without effect), unless the Spec allows it; then Unused lists it.
func TestUnusedIsReported(t *testing.T) {
	spec := dyn.Spec{Name: "m", State: []string{"x"}, Input: []string{"u", "dt"}, Params: []string{"k", "mu"}}
	def := func(s *dyn.Step) { s.Next("x", s.State("x").Add(s.Input("u").Mul(s.Param("k")))) }
	_, err := dyn.Define(spec, def)
	if err == nil || !strings.Contains(err.Error(), "parameter mu, input dt") {
		t.Errorf("unused parameter and input: %v", err)
	}
	spec.AllowUnused = true
	m, err := dyn.Define(spec, def)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(m.Unused(), ", "); got != "parameter mu, input dt" {
		t.Errorf("Unused: %q", got)
	}
}

// TestShapeMisuseIsAnError: wrong sizes given to a Sim, a Stepper or the
// op are errors, never a panic (issue 26.6).
func TestShapeMisuseIsAnError(t *testing.T) {
	m := testmodels.Lag
	p, q := []float64{0.25, 1.3, 0.8}, []float64{0.01, 0.2}
	x0, u := lagData(1, 5, 1)
	call := func(what string, f func() error) {
		t.Helper()
		defer func() {
			if r := recover(); r != nil {
				t.Errorf("%s: panic %v", what, r)
			}
		}()
		if err := f(); err == nil {
			t.Errorf("%s: no error", what)
		}
	}
	call("NewSim(-1, 5)", func() error { _, err := m.NewSim(-1, 5).Forward(p, q, x0, u, nil); return err })
	call("NewSim(1, 0)", func() error { _, err := m.NewSim(1, 0).Forward(p, q, x0, u, nil); return err })
	st := m.NewStepper()
	xn := make([]float64, m.NS())
	call("Step with a short state", func() error { _, err := st.Step(p, q, x0[:1], u[:m.NU()], xn, nil); return err })
	call("Step with short parameters", func() error { _, err := st.Step(p[:1], q, x0, u[:m.NU()], xn, nil); return err })
	call("Step into a short next state", func() error { _, err := st.Step(p, q, x0, u[:m.NU()], xn[:1], nil); return err })
	call("Rollout with nil nodes", func() error { _, err := dyn.Rollout(m, nil, nil, nil, nil, 1, 5); return err })
	g := G.NewGraph()
	pn := G.NewVector(g, G.Float64, G.WithShape(1), G.WithName("p"))
	call("Rollout with a parameter node of the wrong size", func() error { _, err := dyn.Rollout(m, pn, nil, nil, nil, 1, 5); return err })
}
