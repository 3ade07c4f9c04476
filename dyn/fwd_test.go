package dyn_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/dyn"
	"github.com/wheelgrad/wheelgrad/dyn/internal/testmodels"
)

// fwdCase is a model at a point: Kitchen (every op, Where over NaN and Inf
// branches), Lag with its exact clamp (T = 0: robots stop and restart, the
// clamp switches) and with the tanh surrogate.
type fwdCase struct {
	name        string
	m           *dyn.Model
	B, T        int
	p, q, x0, u []float64
	kinked      bool // exact kinks: central differences may straddle one
}

func fwdCases() []fwdCase {
	var cs []fwdCase
	p, q, x0, u := randomProblem(testmodels.Kitchen, 5, 40, 3)
	cs = append(cs, fwdCase{name: "kitchen", m: testmodels.Kitchen, B: 5, T: 40, p: p, q: q, x0: x0, u: u, kinked: true})
	for _, temp := range []float64{0, 0.2} {
		x0, u := lagData(4, 300, 2)
		cs = append(cs, fwdCase{name: "lag-T" + map[bool]string{true: "0", false: "0.2"}[temp == 0], m: testmodels.Lag, B: 4, T: 300,
			p: []float64{0.25, 1.3, 0.8}, q: []float64{0.01, temp}, x0: x0, u: u, kinked: temp == 0})
	}
	// Eight parameters, each in its own term.
	m, B, T := testmodels.Wide8, 3, 200
	rng := rand.New(rand.NewPCG(5, 5))
	wp, wx0, wu := make([]float64, m.NP()), make([]float64, m.NS()*B), make([]float64, T*B)
	for i := range wp {
		wp[i] = 0.5 + rng.Float64()
	}
	for i := range wx0 {
		wx0[i] = rng.NormFloat64()
	}
	for i := range wu {
		wu[i] = 2 * math.Sin(0.05*float64(i/B)+float64(i%B))
	}
	cs = append(cs, fwdCase{name: "wide8", m: m, B: B, T: T, p: wp, q: []float64{0.02}, x0: wx0, u: wu})
	// Copysign, Min, Max, Clamp, Atan2, Abs, Sign with parameters on both sides.
	m, B, T = testmodels.Edges, 5, 120
	ex0, eu := make([]float64, 2*B), make([]float64, T*B)
	for i := range ex0 {
		ex0[i] = rng.NormFloat64()
	}
	for i := range eu {
		eu[i] = 1.5 * math.Sin(0.1*float64(i/B)+float64(i%B))
	}
	cs = append(cs, fwdCase{name: "edges", m: m, B: B, T: T, p: []float64{0.8, 0.3}, x0: ex0, u: eu, kinked: true})
	// Gain: at T = 0 the branch Where does not take divides by zero.
	for _, temp := range []float64{0, 0.5} {
		cs = append(cs, fwdCase{name: fmt.Sprintf("gain-T%v", temp), m: testmodels.Gain, B: 2, T: 50, p: []float64{1.3},
			q: []float64{temp}, x0: []float64{0.1, -0.2}, u: eu[:100]})
	}
	return cs
}

func kernels(m *dyn.Model) map[string]dyn.Kernel {
	return map[string]dyn.Kernel{"interpreter": m.NewInterpreter(), "generated": m.NewKernel()}
}

// TestJacobianMatchesReverse: for random weights v (outputs), c (cost) and
// w (final state), the forward-mode Jacobian contracted with them equals
// the reverse pass's gradient of ⟨v, Y⟩ + c·cost + ⟨w, XT⟩, for the
// parameters and, column by column, each lane's initial states.
func TestJacobianMatchesReverse(t *testing.T) {
	for _, c := range fwdCases() {
		for kname, k := range kernels(c.m) {
			m, B, T := c.m, c.B, c.T
			S, NP := m.NS(), m.NP()
			sim, err := m.NewSimWith(k, B, T)
			if err != nil {
				t.Fatal(err)
			}
			j, err := sim.NewJac(dyn.Wrt{X0: true})
			if err != nil {
				t.Fatal(err)
			}
			if err := sim.Jacobian(c.p, c.q, c.x0, c.u, j); err != nil {
				t.Fatalf("%s %s: %v", c.name, kname, err)
			}
			rng := rand.New(rand.NewPCG(7, 7))
			v, w := make([]float64, len(j.Y)), make([]float64, S*B)
			for i := range v {
				v[i] = rng.NormFloat64()
			}
			for i := range w {
				w[i] = rng.NormFloat64()
			}
			cbar := 0.0
			if m.HasCost() {
				cbar = 0.7
			}
			// Backward right after Jacobian rolls forward again first.
			pbar, x0bar := make([]float64, NP), make([]float64, S*B)
			if err := sim.Backward(c.p, c.q, c.u, v, cbar, w, pbar, x0bar, nil); err != nil {
				t.Fatal(err)
			}
			D := j.D
			fwd := make([]float64, NP+S*B) // the same contraction from J
			for i, vi := range v {
				lane := i % B
				for d := range D {
					g := vi * j.JY[i*D+d]
					if d < NP {
						fwd[d] += g
					} else {
						fwd[NP+(d-NP)*B+lane] += g
					}
				}
			}
			for i, wi := range w {
				lane := i % B
				for d := range D {
					g := wi * j.JXT[i*D+d]
					if d < NP {
						fwd[d] += g
					} else {
						fwd[NP+(d-NP)*B+lane] += g
					}
				}
			}
			for lane := range B {
				for d := range D {
					g := cbar * j.JCost[lane*D+d]
					if d < NP {
						fwd[d] += g
					} else {
						fwd[NP+(d-NP)*B+lane] += g
					}
				}
			}
			rev := append(append([]float64(nil), pbar...), x0bar...)
			for i := range rev {
				if !close(fwd[i], rev[i], 1e-10) || math.IsNaN(fwd[i]) {
					t.Errorf("%s %s: component %d: forward %v, reverse %v", c.name, kname, i, fwd[i], rev[i])
				}
			}
			// And the values are Forward's.
			y := make([]float64, len(j.Y))
			cost, err := sim.Forward(c.p, c.q, c.x0, c.u, y)
			if err != nil {
				t.Fatal(err)
			}
			if !close(cost, j.Cost, 1e-13) {
				t.Errorf("%s %s: cost %v, Forward %v", c.name, kname, j.Cost, cost)
			}
			for i := range y {
				if y[i] != j.Y[i] {
					t.Fatalf("%s %s: output %d: %v, Forward %v", c.name, kname, i, j.Y[i], y[i])
				}
			}
			for i, x := range sim.Final() {
				if x != j.XT[i] {
					t.Fatalf("%s %s: final state %d: %v, Forward %v", c.name, kname, i, j.XT[i], x)
				}
			}
		}
	}
}

// TestJacobianMatchesCentralDifferences: every column of the Jacobian of
// the outputs equals fourth-order central differences of the native
// rollout (Forward) in that direction, for the parameters and for each
// lane's initial states (perturbed in all lanes at once: the columns are
// block-diagonal). Models with exact kinks get the check's three step
// sizes (a stencil straddling a kink misses in one lane, by O(1); a wrong
// tangent misses at every h).
func TestJacobianMatchesCentralDifferences(t *testing.T) {
	for _, c := range fwdCases() {
		for kname, k := range kernels(c.m) {
			m, B, T := c.m, c.B, c.T
			S, NP := m.NS(), m.NP()
			sim, err := m.NewSimWith(k, B, T)
			if err != nil {
				t.Fatal(err)
			}
			j, err := sim.NewJac(dyn.Wrt{X0: true})
			if err != nil {
				t.Fatal(err)
			}
			if err := sim.Jacobian(c.p, c.q, c.x0, c.u, j); err != nil {
				t.Fatal(err)
			}
			ny := len(j.Y)
			y := make([]float64, ny)
			F := func(p, x0 []float64) []float64 {
				if _, err := sim.Forward(p, c.q, x0, c.u, y); err != nil {
					t.Fatal(err)
				}
				return append(append([]float64(nil), y...), sim.Final()...)
			}
			for d := range j.D {
				z := c.p
				idx := []int{d}
				if d >= NP {
					z, idx = c.x0, nil
					for lane := range B {
						idx = append(idx, (d-NP)*B+lane)
					}
				}
				best := math.Inf(1)
				for _, h := range []float64{1e-5, 1e-6, 1e-7} {
					at := func(s float64) []float64 {
						zz := append([]float64(nil), z...)
						for _, i := range idx {
							zz[i] += s * h * math.Max(1, math.Abs(z[i]))
						}
						if d < NP {
							return F(zz, c.x0)
						}
						return F(c.p, zz)
					}
					f1, f2, f3, f4 := at(1), at(-1), at(2), at(-2)
					var num2, err2 float64
					for i := range f1 {
						sc := h * math.Max(1, math.Abs(z[idx[0]]))
						if d >= NP {
							sc = h * math.Max(1, math.Abs(z[idx[i%B]]))
						}
						nd := (8*(f1[i]-f2[i]) - (f3[i] - f4[i])) / (12 * sc)
						var an float64
						if i < ny {
							an = j.JY[i*j.D+d]
						} else {
							an = j.JXT[(i-ny)*j.D+d]
						}
						num2 += nd * nd
						err2 += (an - nd) * (an - nd)
					}
					rel := math.Sqrt(err2 / math.Max(num2, 1e-300))
					if num2 == 0 {
						rel = math.Sqrt(err2)
					}
					best = math.Min(best, rel)
					if !c.kinked {
						break
					}
				}
				if best > 1e-6 {
					t.Errorf("%s %s: column %d (of %d params, %d states): relative error %.3g against central differences", c.name, kname, d, NP, S, best)
				}
			}
		}
	}
}

// TestJacobianGeneratedEqualsInterpreter: the generated tangent kernel and
// the interpreter's forward mode agree to rounding, for all parameters and
// for a subset in another order, with and without the initial states.
func TestJacobianGeneratedEqualsInterpreter(t *testing.T) {
	for _, c := range fwdCases() {
		np := c.m.NP()
		ws := []dyn.Wrt{{}, {X0: true}, {Params: []int{}, X0: true}}
		if np > 1 {
			ws = append(ws, dyn.Wrt{Params: []int{np - 1, 0}}, dyn.Wrt{Params: []int{1}, X0: true})
		}
		for _, w := range ws {
			var js [2]*dyn.Jac
			for i, k := range []dyn.Kernel{c.m.NewInterpreter(), c.m.NewKernel()} {
				sim, err := c.m.NewSimWith(k, c.B, c.T)
				if err != nil {
					t.Fatal(err)
				}
				j, err := sim.NewJac(w)
				if err != nil {
					t.Fatal(err)
				}
				if err := sim.Jacobian(c.p, c.q, c.x0, c.u, j); err != nil {
					t.Fatal(err)
				}
				js[i] = j
			}
			if !close(js[0].Cost, js[1].Cost, 1e-12) {
				t.Errorf("%s %+v: cost %v vs %v", c.name, w, js[0].Cost, js[1].Cost)
			}
			for b, pair := range [][2][]float64{{js[0].Y, js[1].Y}, {js[0].JY, js[1].JY}, {js[0].XT, js[1].XT}, {js[0].JXT, js[1].JXT}, {js[0].JCost, js[1].JCost}} {
				if len(pair[0]) != len(pair[1]) {
					t.Fatalf("%s %+v: block %d: %d vs %d values", c.name, w, b, len(pair[0]), len(pair[1]))
				}
				for i := range pair[0] {
					if !close(pair[0][i], pair[1][i], 1e-11) {
						t.Fatalf("%s %+v: block %d [%d]: interpreter %v, generated %v", c.name, w, b, i, pair[0][i], pair[1][i])
					}
				}
			}
		}
	}
}

// TestJacobianSubsetIsColumns: a subset of the parameters gives the same
// columns as all of them.
func TestJacobianSubsetIsColumns(t *testing.T) {
	c := fwdCases()[1]
	for kname, k := range kernels(c.m) {
		sim, err := c.m.NewSimWith(k, c.B, c.T)
		if err != nil {
			t.Fatal(err)
		}
		all, _ := sim.NewJac(dyn.Wrt{X0: true})
		sub, err := sim.NewJac(dyn.Wrt{Params: []int{2, 0}, X0: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := sim.Jacobian(c.p, c.q, c.x0, c.u, all); err != nil {
			t.Fatal(err)
		}
		if err := sim.Jacobian(c.p, c.q, c.x0, c.u, sub); err != nil {
			t.Fatal(err)
		}
		col := []int{2, 0, 3, 4, 5, 6}
		for r := range len(all.JY) / all.D {
			for cc, fc := range col {
				if sub.JY[r*sub.D+cc] != all.JY[r*all.D+fc] {
					t.Fatalf("%s: row %d column %d: %v, all-parameter column %d: %v", kname, r, cc, sub.JY[r*sub.D+cc], fc, all.JY[r*all.D+fc])
				}
			}
		}
	}
}

// TestJacobianWhereShieldsNaN: lanes whose untaken Where branch is NaN or
// Inf (sqrt of a negative, 1/0) get finite tangents.
func TestJacobianWhereShieldsNaN(t *testing.T) {
	m := testmodels.Kitchen
	const B, T = 4, 3
	p, q, x0, u := randomProblem(m, B, T, 2)
	x0[0], x0[B+1] = -0.5, 0
	for kname, k := range kernels(m) {
		sim, err := m.NewSimWith(k, B, T)
		if err != nil {
			t.Fatal(err)
		}
		j, _ := sim.NewJac(dyn.Wrt{X0: true})
		if err := sim.Jacobian(p, q, x0, u, j); err != nil {
			t.Fatalf("%s: %v", kname, err)
		}
		for _, s := range [][]float64{j.JY, j.JXT, j.JCost} {
			for i, v := range s {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("%s: non-finite tangent %v at %d", kname, v, i)
				}
			}
		}
	}
}

// TestSqrtAtZeroTangent: √ of a value that is 0 and does not depend on the
// parameters has a zero tangent, not 0·Inf (the forward-mode twin of the
// reverse pass's zero-adjoint rule); where it does depend, the slope is
// infinite, as the reverse pass says.
func TestSqrtAtZeroTangent(t *testing.T) {
	m, err := dyn.Define(dyn.Spec{Name: "sqrt0", State: []string{"x"}, Params: []string{"k"}}, func(s *dyn.Step) {
		x, k := s.State("x"), s.Param("k")
		s.Next("x", dyn.Sqrt(x).Add(k.Mul(x)))
	})
	if err != nil {
		t.Fatal(err)
	}
	sim, err := m.NewSimWith(m.NewInterpreter(), 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	j, _ := sim.NewJac(dyn.Wrt{})
	if err := sim.Jacobian([]float64{0.5}, nil, []float64{0}, nil, j); err != nil {
		t.Fatal(err)
	}
	for i, v := range j.JY {
		if v != 0 {
			t.Errorf("∂y%d/∂k = %v at x = 0, want 0", i, v)
		}
	}
}

func TestJacobianErrors(t *testing.T) {
	m := testmodels.Lag
	sim := m.NewSim(2, 5)
	if _, err := sim.NewJac(dyn.Wrt{Params: []int{3}}); err == nil || !strings.Contains(err.Error(), "parameter 3") {
		t.Errorf("out-of-range parameter: %v", err)
	}
	if _, err := sim.NewJac(dyn.Wrt{Params: []int{1, 1}}); err == nil || !strings.Contains(err.Error(), "parameter k twice") {
		t.Errorf("repeated parameter: %v", err)
	}
	j, _ := m.NewSim(3, 5).NewJac(dyn.Wrt{})
	x0, u := lagData(2, 5, 1)
	if err := sim.Jacobian([]float64{0.25, 1.3, 0.8}, []float64{0.01, 0}, x0, u, j); err == nil || !strings.Contains(err.Error(), "Jac.Y") {
		t.Errorf("Jac of another Sim: %v", err)
	}
	j, _ = sim.NewJac(dyn.Wrt{})
	j.JY, j.JXT, j.JCost, j.Y = nil, nil, nil, nil // only the final state and cost
	if err := sim.Jacobian([]float64{0.25, 1.3, 0.8}, []float64{0.01, 0}, x0, u, j); err != nil {
		t.Errorf("nil blocks: %v", err)
	}
	if _, err := m.NewSim(2, 2000).NewJac(dyn.Wrt{}); err != nil {
		t.Fatal(err)
	}
	// Divergence is located like Forward's.
	big := m.NewSim(2, 2000)
	jb, _ := big.NewJac(dyn.Wrt{})
	x0b, _ := lagData(2, 1, 1)
	err := big.Jacobian([]float64{-1e-3, 1, 0}, []float64{0.5, 0}, x0b, make([]float64, 2000*2*2), jb)
	if err == nil || !strings.Contains(err.Error(), "diverged") {
		t.Errorf("divergence: %v", err)
	}
}

// TestValueEqualsForward: the value-only rollout gives Forward's outputs,
// cost and final state exactly (the same ops), with the generated kernel
// and the interpreter, and a Backward after it gives Forward's gradient.
func TestValueEqualsForward(t *testing.T) {
	for _, c := range fwdCases() {
		for kname, k := range kernels(c.m) {
			m := c.m
			sim, err := m.NewSimWith(k, c.B, c.T)
			if err != nil {
				t.Fatal(err)
			}
			y1, y2 := make([]float64, m.NY()*c.T*c.B), make([]float64, m.NY()*c.T*c.B)
			c1, err := sim.Forward(c.p, c.q, c.x0, c.u, y1)
			if err != nil {
				t.Fatal(err)
			}
			xT := append([]float64(nil), sim.Final()...)
			g1 := make([]float64, m.NP())
			if err := sim.Backward(c.p, c.q, c.u, y1, 1, nil, g1, nil, nil); err != nil {
				t.Fatal(err)
			}
			c2, err := sim.Value(c.p, c.q, c.x0, c.u, y2)
			if err != nil {
				t.Fatal(err)
			}
			if c1 != c2 {
				t.Errorf("%s %s: cost %v, Forward %v", c.name, kname, c2, c1)
			}
			for i := range y1 {
				if y1[i] != y2[i] {
					t.Fatalf("%s %s: output %d: %v, Forward %v", c.name, kname, i, y2[i], y1[i])
				}
			}
			for i := range xT {
				if xT[i] != sim.Final()[i] {
					t.Fatalf("%s %s: final state %d: %v, Forward %v", c.name, kname, i, sim.Final()[i], xT[i])
				}
			}
			g2 := make([]float64, m.NP())
			if err := sim.Backward(c.p, c.q, c.u, y1, 1, nil, g2, nil, nil); err != nil {
				t.Fatal(err)
			}
			for i := range g1 {
				if g1[i] != g2[i] {
					t.Errorf("%s %s: gradient %d after Value %v, after Forward %v", c.name, kname, i, g2[i], g1[i])
				}
			}
		}
	}
	// Errors as Forward's: divergence located, short data refused.
	m := testmodels.Lag
	x0, _ := lagData(3, 1, 1)
	_, err := m.NewSim(3, 2000).Value([]float64{-1e-3, 1, 0}, []float64{0.5, 0}, x0, make([]float64, 2000*2*3), nil)
	if err == nil || !strings.Contains(err.Error(), "diverged") {
		t.Errorf("divergence: %v", err)
	}
	if _, err := m.NewSim(3, 10).Value([]float64{0.2, 1, 1}, []float64{0.01, 0}, x0[:2], make([]float64, 10*2*3), nil); err == nil {
		t.Error("short x0 accepted")
	}
}

// TestJacExpand: the spread-out Jacobian's initial-state columns are
// central differences of the outputs in each single lane's initial state.
func TestJacExpand(t *testing.T) {
	m := testmodels.Lag
	const B, T = 3, 60
	x0, u := lagData(B, T, 4)
	p, q := []float64{0.25, 1.3, 0.8}, []float64{0.01, 0.2}
	sim := m.NewSim(B, T)
	j, _ := sim.NewJac(dyn.Wrt{Params: []int{1}, X0: true})
	if err := sim.Jacobian(p, q, x0, u, j); err != nil {
		t.Fatal(err)
	}
	W := 1 + 4*B
	full := make([]float64, len(j.Y)*W)
	if err := j.Expand(full, B); err != nil {
		t.Fatal(err)
	}
	y := make([]float64, len(j.Y))
	num := centralJacobian(len(y), x0, func(z []float64) []float64 {
		if _, err := sim.Forward(p, q, z, u, y); err != nil {
			t.Fatal(err)
		}
		return y
	})
	for i := range y {
		for c := 1; c < W; c++ {
			if n := num[i*(W-1)+c-1]; !close(full[i*W+c], n, 1e-6) {
				t.Fatalf("row %d column %d: %v, central differences %v", i, c, full[i*W+c], n)
			}
		}
	}
	if err := j.Expand(full[1:], B); err == nil {
		t.Error("short destination accepted")
	}
}

// TestJacobianRows: a Jacobian stored at chosen rows (Wrt.Rows) equals the
// full Jacobian's rows there, exactly, with the generated kernel (Lag's is
// generated with ObservedRows and skips the other rows; the others store
// every row and gather) and the interpreter, for all parameters, a subset,
// and the initial states; Y, XT, JXT, JCost and the cost are unchanged,
// and Expand spreads the rows' lanes.
func TestJacobianRows(t *testing.T) {
	for _, c := range fwdCases() {
		var rows []int
		for r := 1; r < c.T*c.B; r += 3 {
			rows = append(rows, r)
		}
		if rows[len(rows)-1] != c.T*c.B-1 {
			rows = append(rows, c.T*c.B-1)
		}
		np := c.m.NP()
		ws := []dyn.Wrt{{}, {X0: true}}
		if np > 1 {
			ws = append(ws, dyn.Wrt{Params: []int{np - 1, 0}, X0: true})
		}
		for kname, k := range kernels(c.m) {
			_, at := k.(dyn.TangentRollerAt)
			for _, w := range ws {
				sim, err := c.m.NewSimWith(k, c.B, c.T)
				if err != nil {
					t.Fatal(err)
				}
				full, err := sim.NewJac(w)
				if err != nil {
					t.Fatal(err)
				}
				w.Rows = rows
				part, err := sim.NewJac(w)
				if err != nil {
					t.Fatal(err)
				}
				if err := sim.Jacobian(c.p, c.q, c.x0, c.u, full); err != nil {
					t.Fatal(err)
				}
				if err := sim.Jacobian(c.p, c.q, c.x0, c.u, part); err != nil {
					t.Fatal(err)
				}
				name := fmt.Sprintf("%s %s (RollTangentAt %v) %v", c.name, kname, at, w.Params)
				K, D, TB := len(rows), full.D, c.T*c.B
				if len(part.JY) != c.m.NY()*K*D {
					t.Fatalf("%s: %d Jacobian values, want %d", name, len(part.JY), c.m.NY()*K*D)
				}
				for o := range c.m.NY() {
					for kk, r := range rows {
						for d := range D {
							if a, b := part.JY[(o*K+kk)*D+d], full.JY[(o*TB+r)*D+d]; a != b && !(math.IsNaN(a) && math.IsNaN(b)) {
								t.Fatalf("%s: output %d row %d column %d: %v, full Jacobian %v", name, o, r, d, a, b)
							}
						}
					}
				}
				for b, pair := range [][2][]float64{{part.Y, full.Y}, {part.XT, full.XT}, {part.JXT, full.JXT}, {part.JCost, full.JCost}} {
					for i := range pair[0] {
						if pair[0][i] != pair[1][i] && !(math.IsNaN(pair[0][i]) && math.IsNaN(pair[1][i])) {
							t.Fatalf("%s: block %d [%d]: %v vs %v", name, b, i, pair[0][i], pair[1][i])
						}
					}
				}
				if part.Cost != full.Cost && !(math.IsNaN(part.Cost) && math.IsNaN(full.Cost)) {
					t.Errorf("%s: cost %v vs %v", name, part.Cost, full.Cost)
				}
				if w.X0 {
					P, S := len(part.Params), c.m.NS()
					W := P + S*c.B
					ef, ep := make([]float64, len(full.JY)/D*W), make([]float64, len(part.JY)/D*W)
					if err := full.Expand(ef, c.B); err != nil {
						t.Fatal(err)
					}
					if err := part.Expand(ep, c.B); err != nil {
						t.Fatal(err)
					}
					for o := range c.m.NY() {
						for kk, r := range rows {
							for d := range W {
								if a, b := ep[(o*K+kk)*W+d], ef[(o*TB+r)*W+d]; a != b && !(math.IsNaN(a) && math.IsNaN(b)) {
									t.Fatalf("%s: expanded output %d row %d column %d: %v vs %v", name, o, r, d, a, b)
								}
							}
						}
					}
				}
			}
		}
	}
	sim := testmodels.Lag.NewSim(2, 5)
	for _, rows := range [][]int{{3, 3}, {4, 2}, {-1}, {10}} {
		if _, err := sim.NewJac(dyn.Wrt{Rows: rows}); err == nil {
			t.Errorf("rows %v accepted", rows)
		}
	}
	if _, ok := testmodels.Lag.NewKernel().(dyn.TangentRollerAt); !ok {
		t.Error("Lag's kernel, generated with ObservedRows, has no RollTangentAt")
	}
}

// TestInlineTrigExact: Lag's tangent kernel (generated with InlineTrig)
// computes its Sin/Cos pair inline, by math.Sincos's steps: its outputs and
// final state equal Forward's bit for bit with the heading swept over
// thousands of octants both ways, near multiples of π/4, at ±0, and beyond
// 2²⁹ (where it calls math.Sincos), and its Jacobian the interpreter's.
func TestInlineTrigExact(t *testing.T) {
	m := testmodels.Lag
	const B, T = 6, 400
	x0, u := lagData(B, T, 4)
	for j, th := range []float64{0, math.Copysign(0, -1), math.Pi / 4, -3 * math.Pi / 4, 1e9, -7e8} {
		x0[2*B+j] = th
		x0[3*B+j] = 0.5
	}
	for tt := range T {
		for j := range B {
			u[(tt*2+1)*B+j] = []float64{0, 0, 1e-3, -2e-3, 40, -3e3}[j] * (1 + 0.1*math.Sin(float64(tt)))
		}
	}
	// with dt = 0.01, lane 5 turns by about −30 rad a step: ~5,000 octants
	if _, err := m.CheckGeneratedForward([]float64{0.25, 1.3, 0.8}, []float64{0.01, 0}, x0, u, B, T, 1e-10); err != nil {
		t.Fatal(err)
	}
}
