package dyn_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/dyn"
	"github.com/wheelgrad/wheelgrad/dyn/internal/testmodels"
)

// stepOnly hides a generated kernel's RolloutKernel methods, so that Sim
// calls its step kernel once per step.
type stepOnly struct{ dyn.Kernel }

// TestRolloutKernelEqualsStepKernel: the generated whole-rollout kernel
// (invariants hoisted, transcendentals taped) gives the values of the
// generated step kernel and its gradients to rounding, inputs included.
func TestRolloutKernelEqualsStepKernel(t *testing.T) {
	for _, m := range []*dyn.Model{testmodels.Kitchen, testmodels.Lag} {
		if _, ok := m.NewKernel().(dyn.RolloutKernel); !ok {
			t.Fatalf("%s: the generated kernel is not a RolloutKernel", m.Name())
		}
		B, T := 5, 60
		p, q, x0, u := randomProblem(m, B, T, 8)
		var ys [2][]float64
		var gs [2][3][]float64
		var cs [2]float64
		for i, k := range []dyn.Kernel{stepOnly{m.NewKernel()}, m.NewKernel()} {
			sim := m.NewSimWith(k, B, T)
			ys[i] = make([]float64, m.NY()*T*B)
			c, err := sim.Forward(p, q, x0, u, ys[i])
			if err != nil {
				t.Fatal(err)
			}
			cs[i] = c
			ybar := make([]float64, len(ys[i]))
			for j := range ybar {
				ybar[j] = math.Cos(float64(j))
			}
			xTbar := make([]float64, len(x0))
			for j := range xTbar {
				xTbar[j] = 0.3 * float64(j%3)
			}
			gs[i] = [3][]float64{make([]float64, len(p)), make([]float64, len(x0)), make([]float64, len(u))}
			sim.Backward(p, q, u, ybar, 0.7, xTbar, gs[i][0], gs[i][1], gs[i][2])
			// without the inputs' adjoints (the rollout kernel's other loop)
			pb, xb := make([]float64, len(p)), make([]float64, len(x0))
			sim.Backward(p, q, u, ybar, 0.7, xTbar, pb, xb, nil)
			for j := range pb {
				if pb[j] != gs[i][0][j] {
					t.Fatalf("%s: ∂/∂p[%d] %v without ubar, %v with", m.Name(), j, pb[j], gs[i][0][j])
				}
			}
			for j := range xb {
				if xb[j] != gs[i][1][j] {
					t.Fatalf("%s: ∂/∂x0[%d] %v without ubar, %v with", m.Name(), j, xb[j], gs[i][1][j])
				}
			}
		}
		if cs[0] != cs[1] {
			t.Errorf("%s: cost %v (step kernel) vs %v (rollout kernel)", m.Name(), cs[0], cs[1])
		}
		for j := range ys[0] {
			if ys[0][j] != ys[1][j] {
				t.Fatalf("%s: output %d: %v vs %v", m.Name(), j, ys[0][j], ys[1][j])
			}
		}
		for b := range 3 {
			for j := range gs[0][b] {
				if !close(gs[0][b][j], gs[1][b][j], 1e-12) {
					t.Fatalf("%s: gradient block %d [%d]: %v vs %v", m.Name(), b, j, gs[0][b][j], gs[1][b][j])
				}
			}
		}
	}
}

// TestCheckFiniteEveryPosition: a NaN or an infinity anywhere among the
// inputs (the fast all-finite check sums in blocks of four) is reported
// with its lane and step.
func TestCheckFiniteEveryPosition(t *testing.T) {
	m := testmodels.Lag
	B, T := 3, 5
	p, q, x0, u := randomProblem(m, B, T, 2)
	sim := m.NewSim(B, T)
	if err := sim.CheckFinite(p, q, x0, u); err != nil {
		t.Fatal(err)
	}
	for i := range u {
		for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
			v := u[i]
			u[i] = bad
			err := sim.CheckFinite(p, q, x0, u)
			u[i] = v
			want := fmt.Sprintf("of lane %d at step %d", i%B, i/(m.NU()*B))
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("%v at input %d: %v, want an error naming %q", bad, i, err, want)
			}
		}
	}
}

// TestInputsAreData: declaring the inputs data changes no value or
// gradient of the parameters.
func TestInputsAreData(t *testing.T) {
	const B, T = 3, 120
	x0, u := lagData(B, T, 4)
	q := []float64{0.01, 0.3}
	xm, ym := lagMeasurements(B, T, x0, u, q)
	p := []float64{0.3, 1.0, 0.5}
	f1, g1, err := lagLoss(t, B, T, 1, x0, u, q, xm, ym).ValueAndGrad(p)
	if err != nil {
		t.Fatal(err)
	}
	f2, g2, err := lagLoss(t, B, T, 1, x0, u, q, xm, ym, dyn.InputsAreData()).ValueAndGrad(p)
	if err != nil {
		t.Fatal(err)
	}
	if f1 != f2 {
		t.Errorf("loss %v, with InputsAreData %v", f1, f2)
	}
	for i := range g1 {
		if g1[i] != g2[i] {
			t.Errorf("∂L/∂p%d = %v, with InputsAreData %v", i, g1[i], g2[i])
		}
	}
}

// TestRolloutKernelNonFiniteInvariant: with T = 0 the Gain model's invariant
// 1/T is infinite on a branch not taken; the rollout kernel's reverse pass
// (handed to the step kernel then) gives the interpreter's finite gradient,
// with and without the inputs' adjoints; at T > 0 it takes its own loops.
func TestRolloutKernelNonFiniteInvariant(t *testing.T) {
	m := testmodels.Gain
	const B, T = 3, 20
	x0 := []float64{0.1, -0.2, 0.3}
	u := make([]float64, T*B)
	for i := range u {
		u[i] = math.Sin(float64(i))
	}
	p := []float64{1.3}
	for _, temp := range []float64{0, 0.5} {
		q := []float64{temp}
		var g [2][3][]float64
		for i, k := range []dyn.Kernel{m.NewInterpreter(), m.NewKernel()} {
			sim := m.NewSimWith(k, B, T)
			if _, err := sim.Forward(p, q, x0, u, nil); err != nil {
				t.Fatal(err)
			}
			g[i] = [3][]float64{make([]float64, 1), make([]float64, B), make([]float64, T*B)}
			sim.Backward(p, q, u, nil, 0, []float64{1, 2, 3}, g[i][0], g[i][1], g[i][2])
			pb, xb := make([]float64, 1), make([]float64, B)
			sim.Backward(p, q, u, nil, 0, []float64{1, 2, 3}, pb, xb, nil)
			if !close(pb[0], g[i][0][0], 1e-15) || !close(xb[0], g[i][1][0], 1e-15) {
				t.Errorf("T=%v kernel %d: without ubar %v %v, with %v %v", temp, i, pb, xb, g[i][0], g[i][1])
			}
		}
		for b := range 3 {
			for j := range g[0][b] {
				if math.IsNaN(g[1][b][j]) || !close(g[0][b][j], g[1][b][j], 1e-12) {
					t.Fatalf("T=%v: gradient block %d [%d]: interpreter %v, generated %v", temp, b, j, g[0][b][j], g[1][b][j])
				}
			}
		}
	}
}

// TestFinalJacobian: the seeded reverse sweep (all states at once) equals
// one reverse pass per state, for the generated kernels and the
// interpreter, and with a non-finite invariant (Gain at T = 0).
func TestFinalJacobian(t *testing.T) {
	type problem struct {
		m           *dyn.Model
		p, q, x0, u []float64
		B, T        int
	}
	var probs []problem
	for _, m := range []*dyn.Model{testmodels.Kitchen, testmodels.Lag} {
		p, q, x0, u := randomProblem(m, 4, 25, 6)
		probs = append(probs, problem{m, p, q, x0, u, 4, 25})
	}
	gu := make([]float64, 20*3)
	for i := range gu {
		gu[i] = math.Cos(float64(i))
	}
	for _, temp := range []float64{0, 0.5} {
		probs = append(probs, problem{testmodels.Gain, []float64{1.3}, []float64{temp}, []float64{0.1, -0.2, 0.3}, gu, 3, 20})
	}
	for _, pr := range probs {
		m := pr.m
		S, P, B := m.NS(), m.NP(), pr.B
		for _, k := range []dyn.Kernel{m.NewKernel(), m.NewInterpreter()} {
			sim := m.NewSimWith(k, B, pr.T)
			if _, err := sim.Forward(pr.p, pr.q, pr.x0, pr.u, nil); err != nil {
				t.Fatal(err)
			}
			jp, jx := make([]float64, S*P), make([]float64, S*S*B)
			if err := sim.FinalJacobian(pr.p, pr.q, pr.u, jp, jx); err != nil {
				t.Fatal(err)
			}
			for s := range S {
				e := make([]float64, S*B)
				for j := range B {
					e[s*B+j] = 1
				}
				pb, xb := make([]float64, P), make([]float64, S*B)
				sim.Backward(pr.p, pr.q, pr.u, nil, 0, e, pb, xb, nil)
				for i := range pb {
					if math.IsNaN(jp[s*P+i]) || !close(jp[s*P+i], pb[i], 1e-12) {
						t.Fatalf("%s %T: ∂x_T%d/∂p%d = %v, by one reverse pass %v", m.Name(), k, s, i, jp[s*P+i], pb[i])
					}
				}
				for i := range xb {
					if !close(jx[s*S*B+i], xb[i], 1e-12) {
						t.Fatalf("%s %T: ∂x_T%d/∂x0[%d] = %v, by one reverse pass %v", m.Name(), k, s, i, jx[s*S*B+i], xb[i])
					}
				}
			}
		}
	}
}
