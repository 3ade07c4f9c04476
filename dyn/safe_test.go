package dyn_test

import (
	"testing"

	"github.com/wheelgrad/wheelgrad/dyn"
	"github.com/wheelgrad/wheelgrad/dyn/internal/testmodels"
)

// TestUntakenBranchNeverReachesTheGradient: for every op at its singular
// point (1/0, log 0, exp overflowing to Inf, tanh, sin, atan of NaN, the
// friction surrogates at temperature 0) in a branch Where does not take,
// the value and the gradient are the taken branch's, exactly, in the
// interpreter and in the generated code (the "double where" problem).
func TestUntakenBranchNeverReachesTheGradient(t *testing.T) {
	m := testmodels.Untaken
	if !m.Generated() {
		t.Fatal("the generated kernel of untaken is not in use")
	}
	const B, T = 2, 2
	S := m.NS()
	const pv = 2.0
	p := make([]float64, S)
	x0 := make([]float64, S*B)
	u := make([]float64, T*S*B)
	for k, c := range testmodels.UntakenCases {
		p[k] = pv
		for j := range B {
			x0[k*B+j] = float64(j + 1)
			for s := range T {
				u[(s*S+k)*B+j] = c.U
			}
		}
	}
	xTbar := make([]float64, S*B)
	for i := range xTbar {
		xTbar[i] = 1
	}
	for name, k := range map[string]dyn.Kernel{"interpreter": m.NewInterpreter(), "generated": m.NewKernel()} {
		sim, err := m.NewSimWith(k, B, T)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sim.Forward(p, nil, x0, u, nil); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		pbar, x0bar, ubar := make([]float64, S), make([]float64, S*B), make([]float64, T*S*B)
		if err := sim.Backward(p, nil, u, nil, 0, xTbar, pbar, x0bar, ubar); err != nil {
			t.Fatal(err)
		}
		for k, c := range testmodels.UntakenCases {
			// x_T = (x0·p + u0)·p + u1 in every lane.
			var wantP float64
			for j := range B {
				wantP += 2*x0[k*B+j]*pv + c.U
				if got := sim.Final()[k*B+j]; got != (x0[k*B+j]*pv+c.U)*pv+c.U {
					t.Errorf("%s %s: final state %v of lane %d", name, c.Name, got, j)
				}
				if x0bar[k*B+j] != pv*pv {
					t.Errorf("%s %s: ∂/∂x0 of lane %d = %v, want %v", name, c.Name, j, x0bar[k*B+j], pv*pv)
				}
				if g0, g1 := ubar[k*B+j], ubar[(S+k)*B+j]; g0 != pv || g1 != 1 {
					t.Errorf("%s %s: ∂/∂u of lane %d = %v, %v, want %v, 1", name, c.Name, j, g0, g1, pv)
				}
			}
			if pbar[k] != wantP {
				t.Errorf("%s %s: ∂/∂p = %v, want %v", name, c.Name, pbar[k], wantP)
			}
		}
	}
}

// TestLagAtZeroTemperature is the case: Where(Gt(T, 0),
// TanhClampSym(x, mu, T), Clamp(x, −mu, mu)) at T = 0.
func TestLagAtZeroTemperature(t *testing.T) {
	m := testmodels.Lag
	const B, T = 3, 40
	x0, u := lagData(B, T, 3)
	p, q := []float64{0.25, 1.3, 0.8}, []float64{0.01, 0}
	for name, k := range map[string]dyn.Kernel{"interpreter": m.NewInterpreter(), "generated": m.NewKernel()} {
		sim, err := m.NewSimWith(k, B, T)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sim.Forward(p, q, x0, u, nil); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		xTbar := make([]float64, m.NS()*B)
		for i := range xTbar {
			xTbar[i] = 1
		}
		pbar, x0bar, ubar := make([]float64, 3), make([]float64, len(x0)), make([]float64, len(u))
		if err := sim.Backward(p, q, u, nil, 0, xTbar, pbar, x0bar, ubar); err != nil {
			t.Fatal(err)
		}
		for _, s := range [][]float64{pbar, x0bar, ubar} {
			for i, v := range s {
				if v-v != 0 {
					t.Fatalf("%s: gradient %v at %d", name, v, i)
				}
			}
		}
		c, err := m.CheckRollout(k, p, q, x0, u, B, T, nil, 0, nil, 1)
		if err != nil {
			t.Fatal(err)
		}
		if c.RelErr > 1e-6 {
			t.Errorf("%s: %v", name, c)
		}
	}
}

// TestUntakenBranchStepJacobian is the same through one step's reverse
// (Stepper.Jacobian: the generated Reverse, not RollBack): ∂x'/∂x = p,
// ∂x'/∂u = 1, ∂x'/∂p = x for every op's lane, nothing else.
func TestUntakenBranchStepJacobian(t *testing.T) {
	m := testmodels.Untaken
	S := m.NS()
	p, x, u := make([]float64, S), make([]float64, S), make([]float64, S)
	for k, c := range testmodels.UntakenCases {
		p[k], x[k], u[k] = 2, 1.5, c.U
	}
	for name, k := range map[string]dyn.Kernel{"interpreter": m.NewInterpreter(), "generated": m.NewKernel()} {
		st, err := m.NewStepperWith(k)
		if err != nil {
			t.Fatal(err)
		}
		jx, ju, jp := make([]float64, S*S), make([]float64, S*S), make([]float64, S*S)
		if err := st.Jacobian(p, nil, x, u, jx, ju, jp); err != nil {
			t.Fatal(err)
		}
		for r, c := range testmodels.UntakenCases {
			for col := range S {
				wx, wu, wp := 0.0, 0.0, 0.0
				if col == r {
					wx, wu, wp = p[r], 1, x[r]
				}
				if jx[r*S+col] != wx || ju[r*S+col] != wu || jp[r*S+col] != wp {
					t.Errorf("%s %s: row %d column %d: ∂/∂x %v, ∂/∂u %v, ∂/∂p %v, want %v, %v, %v",
						name, c.Name, r, col, jx[r*S+col], ju[r*S+col], jp[r*S+col], wx, wu, wp)
				}
			}
		}
	}
}
