package dyn_test

import (
	"math"
	"strings"
	"testing"

	G "gorgonia.org/gorgonia"

	"github.com/wheelgrad/wheelgrad/ad"
	"github.com/wheelgrad/wheelgrad/dyn"
	"github.com/wheelgrad/wheelgrad/dyn/internal/testmodels"
)

// lagLoss is Σ (x − xm)² + (y − ym)² over a rollout of testmodels.Lag,
// built in gorgonia around the Rollout op, with chunks rollouts chained
// through Final (chunks = 1: one op).
func lagLoss(t testing.TB, B, T, chunks int, x0, u, q, xm, ym []float64, opts ...dyn.OpOption) *ad.Program {
	t.Helper()
	m := testmodels.Lag
	prog, err := ad.Compile([]ad.Param{{Name: "p", Shape: []int{3}}}, func(g *ad.Graph, ps []*G.Node) (*G.Node, error) {
		qn, err := g.Input("q", q)
		if err != nil {
			return nil, err
		}
		state := g.Const(x0)
		var loss *G.Node
		Tc := T / chunks
		for c := range chunks {
			un := g.Const(u[c*Tc*2*B : (c+1)*Tc*2*B])
			tr, err := dyn.Rollout(m, ps[0], qn, state, un, B, Tc, opts...)
			if err != nil {
				return nil, err
			}
			for name, meas := range map[string][]float64{"x": xm, "y": ym} {
				o, err := tr.Output(name)
				if err != nil {
					return nil, err
				}
				d, err := G.Sub(o, g.Const(meas[c*Tc*B:(c+1)*Tc*B]))
				if err != nil {
					return nil, err
				}
				s, err := G.Sum(G.Must(G.Square(d)))
				if err != nil {
					return nil, err
				}
				if loss == nil {
					loss = s
				} else if loss, err = G.Add(loss, s); err != nil {
					return nil, err
				}
			}
			if state, err = tr.Final(); err != nil {
				return nil, err
			}
		}
		return loss, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return prog
}

// lagLossNative is the same loss from the native rollout.
func lagLossNative(p []float64, B, T int, x0, u, q, xm, ym []float64) float64 {
	sim := testmodels.Lag.NewSim(B, T)
	y := make([]float64, 2*T*B)
	if _, err := sim.Forward(p, q, x0, u, y); err != nil {
		return math.NaN()
	}
	var L float64
	for i := range T * B {
		L += (y[i]-xm[i])*(y[i]-xm[i]) + (y[T*B+i]-ym[i])*(y[T*B+i]-ym[i])
	}
	return L
}

func lagMeasurements(B, T int, x0, u, q []float64) (xm, ym []float64) {
	truth := []float64{0.25, 1.2, 0.6}
	sim := testmodels.Lag.NewSim(B, T)
	y := make([]float64, 2*T*B)
	if _, err := sim.Forward(truth, q, x0, u, y); err != nil {
		panic(err)
	}
	xm, ym = y[:T*B], y[T*B:]
	for i := range xm {
		xm[i] += 0.01 * math.Sin(float64(7*i))
		ym[i] += 0.01 * math.Cos(float64(5*i))
	}
	return
}

// TestRolloutOpMatchesNative: the graph's loss equals the native rollout's
// to 1e-12, its gradient equals central differences of the native loss, and
// a rollout cut into chunks chained through Final gives the same value and
// gradient as one op.
func TestRolloutOpMatchesNative(t *testing.T) {
	const B, T = 4, 400
	x0, u := lagData(B, T, 3)
	for _, temp := range []float64{0, 0.3} {
		q := []float64{0.01, temp}
		xm, ym := lagMeasurements(B, T, x0, u, q)
		p := []float64{0.3, 1.0, 0.5}
		var grads [][]float64
		for _, chunks := range []int{1, 4} {
			prog := lagLoss(t, B, T, chunks, x0, u, q, xm, ym)
			f, g, err := prog.ValueAndGrad(p)
			if err != nil {
				t.Fatal(err)
			}
			want := lagLossNative(p, B, T, x0, u, q, xm, ym)
			if !close(f, want, 1e-12) {
				t.Errorf("T=%v chunks=%d: graph loss %.15g, native %.15g", temp, chunks, f, want)
			}
			num, err := ad.FiniteDiff(func(p []float64) (float64, error) {
				return lagLossNative(p, B, T, x0, u, q, xm, ym), nil
			}, p, 1e-6)
			if err != nil {
				t.Fatal(err)
			}
			for i := range p {
				if !close(g[i], num[i], 1e-6) {
					t.Errorf("T=%v chunks=%d: ∂L/∂p%d = %.10g, central differences %.10g", temp, chunks, i, g[i], num[i])
				}
			}
			grads = append(grads, g)
		}
		for i := range p {
			if !close(grads[0][i], grads[1][i], 1e-12) {
				t.Errorf("T=%v: chunked gradient %v, single %v", temp, grads[1], grads[0])
			}
		}
	}
	if ok, rel := testmodels.Lag.SelfChecked(); !ok || rel > dyn.DefaultCheckTol {
		t.Errorf("self-check: passed %v, error %v", ok, rel)
	}
}

// brokenKernel is the Lag kernel with a wrong reverse pass (a dropped
// factor), which the built-in check must catch.
type brokenKernel struct{ dyn.Kernel }

func (k brokenKernel) Reverse(n int, p, q, x, u, axn, ay []float64, ys int, ac float64, ax, au, ap []float64) {
	k.Kernel.Reverse(n, p, q, x, u, axn, ay, ys, ac, ax, au, ap)
	ap[0] *= 0.9
}

func TestSelfCheckCatchesAWrongGradient(t *testing.T) {
	// A fresh model with Lag's definition, so that Lag's own check state is
	// not touched; its "generated" kernel is the broken one.
	m := dyn.MustDefine(dyn.Spec{Name: "lagcopy", State: []string{"v"}, Input: []string{"u"}, Params: []string{"tau"}},
		func(s *dyn.Step) {
			v := s.State("v")
			s.Next("v", v.Add(s.Input("u").Sub(v).Div(s.Param("tau")).MulC(0.01)))
		})
	if err := m.UseGenerated(brokenKernel{m.NewInterpreter()}, m.Hash()); err != nil {
		t.Fatal(err)
	}
	if err := m.UseGenerated(brokenKernel{m.NewInterpreter()}, "0123"); err == nil {
		t.Error("a kernel with another hash was accepted")
	}
	const B, T = 2, 30
	build := func(opts ...dyn.OpOption) error {
		var adOpts []ad.Option
		if len(opts) > 0 { // both checks off: ad's (at compile) and dyn's (first run)
			adOpts = append(adOpts, ad.WithoutSelfCheck())
		}
		prog, err := ad.Compile([]ad.Param{{Name: "tau", Shape: []int{1}}}, func(g *ad.Graph, ps []*G.Node) (*G.Node, error) {
			tr, err := dyn.Rollout(m, ps[0], nil, g.Const([]float64{0, 1}), g.Const(make([]float64, T*B)), B, T, opts...)
			if err != nil {
				return nil, err
			}
			y, err := tr.Output("v")
			if err != nil {
				return nil, err
			}
			return G.Sum(y)
		}, adOpts...)
		if err != nil {
			return err
		}
		_, _, err = prog.ValueAndGrad([]float64{0.2})
		return err
	}
	if err := build(); err == nil || !strings.Contains(err.Error(), "self-check failed") {
		t.Errorf("a wrong reverse pass was not caught: %v", err)
	}
	if err := build(dyn.WithoutSelfCheck()); err != nil {
		t.Errorf("without the check: %v", err)
	}
}
