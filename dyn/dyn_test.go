package dyn_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/dyn"
	"github.com/wheelgrad/wheelgrad/dyn/internal/testmodels"
	"github.com/wheelgrad/wheelgrad/graph"
)

// oneOp defines y = f(a, b, c) as a one-step model with states a, b, c.
func oneOp(t *testing.T, f func(s *dyn.Step, a, b, c dyn.X) dyn.X) *dyn.Model {
	t.Helper()
	m, err := dyn.Define(dyn.Spec{Name: "op", State: []string{"a", "b", "c"}, Outputs: []string{"y"}}, func(s *dyn.Step) {
		a, b, c := s.State("a"), s.State("b"), s.State("c")
		s.Next("a", a)
		s.Next("b", b)
		s.Next("c", c)
		s.Output("y", f(s, a, b, c))
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestOpsMatchGo pins every op's value to the Go expression it stands for,
// and its reverse pass to central differences, at random points (both
// signs, near zero, and the ties of Min/Max/Clamp).
func TestOpsMatchGo(t *testing.T) {
	const T = 0.3
	cases := []struct {
		name string
		f    func(s *dyn.Step, a, b, c dyn.X) dyn.X
		g    func(a, b, c float64) float64
		pos  bool // a > 0 only
	}{
		{"add", func(s *dyn.Step, a, b, c dyn.X) dyn.X { return a.Add(b) }, func(a, b, c float64) float64 { return a + b }, false},
		{"sub", func(s *dyn.Step, a, b, c dyn.X) dyn.X { return a.Sub(b) }, func(a, b, c float64) float64 { return a - b }, false},
		{"mul", func(s *dyn.Step, a, b, c dyn.X) dyn.X { return a.Mul(b) }, func(a, b, c float64) float64 { return a * b }, false},
		{"div", func(s *dyn.Step, a, b, c dyn.X) dyn.X { return a.Div(b) }, func(a, b, c float64) float64 { return a / b }, false},
		{"square", func(s *dyn.Step, a, b, c dyn.X) dyn.X { return a.Square() }, func(a, b, c float64) float64 { return a * a }, false},
		{"consts", func(s *dyn.Step, a, b, c dyn.X) dyn.X { return a.AddC(2).MulC(3).SubC(1).DivC(4).RSubC(5) },
			func(a, b, c float64) float64 { return 5 - ((a+2)*3-1)/4 }, false},
		{"neg", func(s *dyn.Step, a, b, c dyn.X) dyn.X { return a.Neg() }, func(a, b, c float64) float64 { return -a }, false},
		{"sin", func(s *dyn.Step, a, b, c dyn.X) dyn.X { return dyn.Sin(a) }, func(a, b, c float64) float64 { return math.Sin(a) }, false},
		{"cos", func(s *dyn.Step, a, b, c dyn.X) dyn.X { return dyn.Cos(a) }, func(a, b, c float64) float64 { return math.Cos(a) }, false},
		{"tan", func(s *dyn.Step, a, b, c dyn.X) dyn.X { return dyn.Tan(a) }, func(a, b, c float64) float64 { return math.Tan(a) }, false},
		{"atan", func(s *dyn.Step, a, b, c dyn.X) dyn.X { return dyn.Atan(a) }, func(a, b, c float64) float64 { return math.Atan(a) }, false},
		{"atan2", func(s *dyn.Step, a, b, c dyn.X) dyn.X { return dyn.Atan2(a, b) }, func(a, b, c float64) float64 { return math.Atan2(a, b) }, false},
		{"exp", func(s *dyn.Step, a, b, c dyn.X) dyn.X { return dyn.Exp(a) }, func(a, b, c float64) float64 { return math.Exp(a) }, false},
		{"log", func(s *dyn.Step, a, b, c dyn.X) dyn.X { return dyn.Log(a) }, func(a, b, c float64) float64 { return math.Log(a) }, true},
		{"log1p", func(s *dyn.Step, a, b, c dyn.X) dyn.X { return dyn.Log1p(a) }, func(a, b, c float64) float64 { return math.Log1p(a) }, true},
		{"sqrt", func(s *dyn.Step, a, b, c dyn.X) dyn.X { return dyn.Sqrt(a) }, func(a, b, c float64) float64 { return math.Sqrt(a) }, true},
		{"tanh", func(s *dyn.Step, a, b, c dyn.X) dyn.X { return dyn.Tanh(a) }, func(a, b, c float64) float64 { return math.Tanh(a) }, false},
		{"abs", func(s *dyn.Step, a, b, c dyn.X) dyn.X { return dyn.Abs(a) }, func(a, b, c float64) float64 { return math.Abs(a) }, false},
		{"sign", func(s *dyn.Step, a, b, c dyn.X) dyn.X { return dyn.Sign(a).Mul(b) }, func(a, b, c float64) float64 {
			return map[bool]float64{true: 1, false: -1}[a > 0] * b
		}, false},
		{"min", func(s *dyn.Step, a, b, c dyn.X) dyn.X { return dyn.Min(a, b) }, func(a, b, c float64) float64 { return math.Min(a, b) }, false},
		{"max", func(s *dyn.Step, a, b, c dyn.X) dyn.X { return dyn.Max(a, b) }, func(a, b, c float64) float64 { return math.Max(a, b) }, false},
		{"clamp", func(s *dyn.Step, a, b, c dyn.X) dyn.X { return dyn.Clamp(a, b.AddC(-1), c.AddC(1)) },
			func(a, b, c float64) float64 { return graph.ClampFloat(a, b-1, c+1) }, false},
		{"where", func(s *dyn.Step, a, b, c dyn.X) dyn.X { return dyn.Where(dyn.Gt(a, b), a.Mul(c), b.Sub(c)) },
			func(a, b, c float64) float64 {
				if a > b {
					return a * c
				}
				return b - c
			}, false},
		{"cmp", func(s *dyn.Step, a, b, c dyn.X) dyn.X {
			return dyn.Ge(a, b).MulC(1).Add(dyn.Lt(a, b).MulC(10)).Add(dyn.Le(b, c).MulC(100)).Mul(c)
		}, func(a, b, c float64) float64 {
			r := 0.0
			if a >= b {
				r++
			}
			if a < b {
				r += 10
			}
			if b <= c {
				r += 100
			}
			return r * c
		}, false},
		{"softplus", func(s *dyn.Step, a, b, c dyn.X) dyn.X { return dyn.Softplus(a, s.Const(T)) },
			func(a, b, c float64) float64 { return graph.SoftplusFloat(a, T) }, false},
		{"softclamp", func(s *dyn.Step, a, b, c dyn.X) dyn.X { return dyn.SoftClamp(a, b.AddC(-1), c.AddC(1), s.Const(T)) },
			func(a, b, c float64) float64 { return graph.SoftClampFloat(a, b-1, c+1, T) }, false},
		{"tanhclamp", func(s *dyn.Step, a, b, c dyn.X) dyn.X { return dyn.TanhClampSym(a, dyn.Abs(b).AddC(0.1), s.Const(T)) },
			func(a, b, c float64) float64 { return graph.TanhClampSymFloat(a, math.Abs(b)+0.1, T) }, false},
		{"smoothabs", func(s *dyn.Step, a, b, c dyn.X) dyn.X { return dyn.SmoothAbs(a, s.Const(T)) },
			func(a, b, c float64) float64 { return graph.SmoothAbsFloat(a, T) }, false},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const B = 64
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := oneOp(t, tc.f)
			x0 := make([]float64, 3*B)
			for i := range x0 {
				x0[i] = 2 * rng.NormFloat64()
				if i%B == 7 { // ties: a = b = c
					x0[i] = 0.5
				}
			}
			if tc.pos {
				for j := range B {
					x0[j] = math.Abs(x0[j]) + 0.01
				}
			}
			sim, err := m.NewSimWith(m.NewInterpreter(), B, 1)
			if err != nil {
				t.Fatal(err)
			}
			y := make([]float64, B)
			if _, err := sim.Forward(nil, nil, x0, nil, y); err != nil {
				t.Fatal(err)
			}
			for j := range B {
				want := tc.g(x0[j], x0[B+j], x0[2*B+j])
				if tc.name == "sign" && x0[j] == 0 {
					continue
				}
				if d := math.Abs(y[j] - want); d > 1e-14*math.Max(1, math.Abs(want)) {
					t.Fatalf("lane %d (a, b, c = %v, %v, %v): %v, want %v", j, x0[j], x0[B+j], x0[2*B+j], y[j], want)
				}
			}
			// Gradient: away from kinks (ties excluded) against central differences.
			for j := range x0 {
				if j%B == 7 {
					x0[j] = 0.5 + 0.37*float64(j/B) // distinct, no ties
				}
			}
			c, err := m.CheckRollout(m.NewInterpreter(), nil, nil, x0, nil, B, 1, nil, 0, nil, 3)
			if err != nil {
				t.Fatal(err)
			}
			if c.RelErr > 1e-6 {
				t.Errorf("%v", c)
			}
		})
	}
}

// lagNative is a hand-written twin of testmodels.Lag (one lane).
func lagNative(p, q, x, u []float64) []float64 {
	tau, k, c := p[0], p[1], p[2]
	dt, T := q[0], q[1]
	X, Y, th, v := x[0], x[1], x[2], x[3]
	drive := (k*u[0] - v) / tau
	stick := -v/dt - drive
	var fr float64
	if T > 0 {
		fr = graph.TanhClampSymFloat(stick, c, T)
	} else {
		fr = graph.ClampFloat(stick, -c, c)
	}
	return []float64{X + dt*v*math.Cos(th), Y + dt*v*math.Sin(th), th + dt*u[1], v + dt*(drive+fr)}
}

func lagData(B, T int, seed uint64) (x0, u []float64) {
	rng := rand.New(rand.NewPCG(seed, 9))
	x0 = make([]float64, 4*B)
	for j := range B {
		x0[2*B+j] = rng.Float64() * 6
		x0[3*B+j] = 0.2 * rng.Float64()
	}
	u = make([]float64, T*2*B)
	for t := range T {
		for j := range B {
			u[(t*2)*B+j] = math.Sin(0.05*float64(t)+float64(j)) + 0.2*rng.NormFloat64()
			u[(t*2+1)*B+j] = 0.5 * math.Cos(0.03*float64(t)*float64(j+1))
		}
	}
	return
}

// TestLagMatchesNativeTwin: the interpreter and the generated kernel both
// equal a hand-written rollout of the same model to 1e-12, exact clamp and
// surrogate alike.
func TestLagMatchesNativeTwin(t *testing.T) {
	m := testmodels.Lag
	if !m.Generated() {
		t.Fatal("generated kernel not registered")
	}
	const B, T = 5, 300
	x0, u := lagData(B, T, 1)
	p := []float64{0.25, 1.3, 0.8}
	for _, temp := range []float64{0, 0.2} {
		q := []float64{0.01, temp}
		for name, k := range map[string]dyn.Kernel{"interpreter": m.NewInterpreter(), "generated": m.NewKernel()} {
			sim, err := m.NewSimWith(k, B, T)
			if err != nil {
				t.Fatal(err)
			}
			y := make([]float64, 2*T*B)
			if _, err := sim.Forward(p, q, x0, u, y); err != nil {
				t.Fatal(err)
			}
			for j := range B {
				x := []float64{x0[j], x0[B+j], x0[2*B+j], x0[3*B+j]}
				for s := range T {
					if d := math.Abs(y[s*B+j] - x[0]); d > 1e-12 {
						t.Fatalf("%s T=%v lane %d step %d: x = %v, native %v", name, temp, j, s, y[s*B+j], x[0])
					}
					if d := math.Abs(y[(T+s)*B+j] - x[1]); d > 1e-12 {
						t.Fatalf("%s T=%v lane %d step %d: y = %v, native %v", name, temp, j, s, y[(T+s)*B+j], x[1])
					}
					x = lagNative(p, q, x, []float64{u[(s*2)*B+j], u[(s*2+1)*B+j]})
				}
				for k := range 4 {
					if d := math.Abs(sim.Final()[k*B+j] - x[k]); d > 1e-12 {
						t.Fatalf("%s: final state %d lane %d: %v, native %v", name, k, j, sim.Final()[k*B+j], x[k])
					}
				}
			}
		}
	}
}

// TestGeneratedEqualsInterpreter: values and every gradient of the
// generated kernels equal the interpreter's (same ops, same order).
func TestGeneratedEqualsInterpreter(t *testing.T) {
	for _, m := range []*dyn.Model{testmodels.Kitchen, testmodels.Lag} {
		B, T := 7, 40
		p, q, x0, u := randomProblem(m, B, T, 4)
		var ys [2][]float64
		var gs [2][3][]float64
		var cs [2]float64
		for i, k := range []dyn.Kernel{m.NewInterpreter(), m.NewKernel()} {
			sim, err := m.NewSimWith(k, B, T)
			if err != nil {
				t.Fatal(err)
			}
			ys[i] = make([]float64, m.NY()*T*B)
			c, err := sim.Forward(p, q, x0, u, ys[i])
			if err != nil {
				t.Fatal(err)
			}
			cs[i] = c
			ybar := make([]float64, len(ys[i]))
			for j := range ybar {
				ybar[j] = math.Sin(float64(j))
			}
			gs[i] = [3][]float64{make([]float64, len(p)), make([]float64, len(x0)), make([]float64, len(u))}
			if err := sim.Backward(p, q, u, ybar, 0.7, nil, gs[i][0], gs[i][1], gs[i][2]); err != nil {
				t.Fatal(err)
			}
		}
		if !close(cs[0], cs[1], 1e-12) {
			t.Errorf("%s: cost %v vs %v", m.Name(), cs[0], cs[1])
		}
		for j := range ys[0] {
			if !close(ys[0][j], ys[1][j], 1e-12) {
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

func close(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

func randomProblem(m *dyn.Model, B, T int, seed uint64) (p, q, x0, u []float64) {
	rng := rand.New(rand.NewPCG(seed, 5))
	switch m.Name() {
	case "lag":
		p, q = []float64{0.25, 1.3, 0.8}, []float64{0.01, 0.2}
		x0, u = lagData(B, T, seed)
		return
	}
	p = []float64{0.7, 0.4, 0.9}
	q = []float64{0.2, 0.05}
	x0 = make([]float64, m.NS()*B)
	for i := range x0 {
		x0[i] = rng.NormFloat64()
	}
	u = make([]float64, T*m.NU()*B)
	for i := range u {
		u[i] = rng.NormFloat64()
	}
	return
}

// TestReverseMatchesCentralDifferences checks the generated gradient of
// every model against central differences of its native rollout, for
// parameters, initial states and inputs (directional), and coordinate by
// coordinate for the parameters.
func TestReverseMatchesCentralDifferences(t *testing.T) {
	for _, m := range []*dyn.Model{testmodels.Kitchen, testmodels.Lag} {
		for name, k := range map[string]dyn.Kernel{"interpreter": m.NewInterpreter(), "generated": m.NewKernel()} {
			B, T := 6, 50
			p, q, x0, u := randomProblem(m, B, T, 11)
			for seed := range uint64(3) {
				c, err := m.CheckRollout(k, p, q, x0, u, B, T, nil, 0, nil, seed)
				if err != nil {
					t.Fatal(err)
				}
				if c.RelErr > 1e-6 {
					t.Errorf("%s %s seed %d: %v", m.Name(), name, seed, c)
				}
			}
			// Coordinate-wise for the parameters: F = Σ outputs·w + cost.
			sim, err := m.NewSimWith(k, B, T)
			if err != nil {
				t.Fatal(err)
			}
			y := make([]float64, m.NY()*T*B)
			w := make([]float64, len(y))
			for i := range w {
				w[i] = math.Cos(float64(i))
			}
			F := func(p []float64) float64 {
				c, err := sim.Forward(p, q, x0, u, y)
				if err != nil {
					t.Fatal(err)
				}
				for i := range y {
					c += w[i] * y[i]
				}
				return c
			}
			F(p)
			g := make([]float64, len(p))
			if err := sim.Backward(p, q, u, w, 1, nil, g, nil, nil); err != nil {
				t.Fatal(err)
			}
			for i, num := range centralGradient(p, F) {
				if !close(g[i], num, 1e-6) {
					t.Errorf("%s %s: ∂/∂p%d = %v, central differences %v", m.Name(), name, i, g[i], num)
				}
			}
		}
	}
}

// TestWhereShieldsNaN: a branch that Where does not take may be NaN or
// Inf (sqrt of a negative number, 1/0) without reaching the value or the
// gradient.
func TestWhereShieldsNaN(t *testing.T) {
	m := testmodels.Kitchen
	const B, T = 4, 3
	p, q, x0, u := randomProblem(m, B, T, 2)
	// lane 0: a < 0 (sqrt(a) NaN untaken); lane 1: b = 0 exactly (1/b Inf untaken);
	x0[0], x0[B+1] = -0.5, 0
	for name, k := range map[string]dyn.Kernel{"interpreter": m.NewInterpreter(), "generated": m.NewKernel()} {
		sim, err := m.NewSimWith(k, B, T)
		if err != nil {
			t.Fatal(err)
		}
		y := make([]float64, m.NY()*T*B)
		if _, err := sim.Forward(p, q, x0, u, y); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ybar := make([]float64, len(y))
		for i := range ybar {
			ybar[i] = 1
		}
		gp, gx, gu := make([]float64, len(p)), make([]float64, len(x0)), make([]float64, len(u))
		if err := sim.Backward(p, q, u, ybar, 1, nil, gp, gx, gu); err != nil {
			t.Fatal(err)
		}
		for _, s := range [][]float64{y, gp, gx, gu} {
			for i, v := range s {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("%s: non-finite value %v at %d", name, v, i)
				}
			}
		}
	}
}

func TestJacobian(t *testing.T) {
	m := testmodels.Lag
	p, q := []float64{0.25, 1.3, 0.8}, []float64{0.01, 0.3}
	x, u := []float64{0.1, -0.2, 0.7, 0.4}, []float64{0.9, 0.3}
	st := m.NewStepper()
	jx, ju, jp := make([]float64, 16), make([]float64, 8), make([]float64, 12)
	if err := st.Jacobian(p, q, x, u, jx, ju, jp); err != nil {
		t.Fatal(err)
	}
	next := func(p, x, u []float64) []float64 {
		xn := make([]float64, 4)
		if _, err := st.Step(p, q, x, u, xn, nil); err != nil {
			t.Fatal(err)
		}
		return xn
	}
	for _, blk := range []struct {
		name string
		z    []float64
		j    []float64
		f    func(z []float64) []float64
	}{
		{"x", x, jx, func(z []float64) []float64 { return next(p, z, u) }},
		{"u", u, ju, func(z []float64) []float64 { return next(p, x, z) }},
		{"p", p, jp, func(z []float64) []float64 { return next(z, x, u) }},
	} {
		n := len(blk.z)
		for i, num := range centralJacobian(4, blk.z, blk.f) {
			if !close(blk.j[i], num, 1e-6) {
				t.Errorf("∂x'%d/∂%s%d = %v, central differences %v", i/n, blk.name, i%n, blk.j[i], num)
			}
		}
	}
	if xn := next(p, x, u); !close(xn[0], lagNative(p, q, x, u)[0], 1e-15) {
		t.Errorf("Stepper.Step %v, native %v", xn, lagNative(p, q, x, u))
	}
}

func TestDefineErrors(t *testing.T) {
	for _, c := range []struct {
		spec dyn.Spec
		def  func(s *dyn.Step)
		want string
	}{
		{dyn.Spec{Name: "m"}, func(s *dyn.Step) {}, "at least one state"},
		{dyn.Spec{Name: "m", State: []string{"x", "x"}}, func(s *dyn.Step) {}, "declared twice"},
		{dyn.Spec{Name: "m", State: []string{"x y"}}, func(s *dyn.Step) {}, "not an identifier"},
		{dyn.Spec{Name: "m", State: []string{"x", "v"}}, func(s *dyn.Step) { s.Next("x", s.State("v")) }, `state "v" has no Next`},
		{dyn.Spec{Name: "m", State: []string{"x"}}, func(s *dyn.Step) { s.Next("x", s.Param("mu")) }, `no param named "mu"`},
		{dyn.Spec{Name: "m", State: []string{"x"}}, func(s *dyn.Step) { s.Next("y", s.State("x")) }, "not a state"},
		{dyn.Spec{Name: "m", State: []string{"x"}, Outputs: []string{"o"}}, func(s *dyn.Step) { s.Next("x", s.State("x")) }, `output "o" is never set`},
		{dyn.Spec{Name: "m", State: []string{"x"}}, func(s *dyn.Step) {
			s.Next("x", s.State("x"))
			s.Next("x", s.State("x"))
		}, "declared twice"},
	} {
		_, err := dyn.Define(c.spec, c.def)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.spec, err, c.want)
		}
	}
}

func TestSimErrorsNameTheLane(t *testing.T) {
	m := testmodels.Lag
	const B, T = 3, 10
	x0, u := lagData(B, T, 1)
	sim := m.NewSim(B, T)
	p, q := []float64{0.25, 1.3, 0.8}, []float64{0.01, 0}
	u[(4*2+1)*B+2] = math.NaN()
	_, err := sim.Forward(p, q, x0, u, nil)
	if err == nil || !strings.Contains(err.Error(), "input w of lane 2 at step 4") {
		t.Errorf("NaN input: %v", err)
	}
	u[(4*2+1)*B+2] = 0
	_, err = sim.Forward([]float64{math.Inf(1), 1, 1}, q, x0, u, nil)
	if err == nil || !strings.Contains(err.Error(), "parameter tau") {
		t.Errorf("Inf parameter: %v", err)
	}
	// Divergence: a negative time constant with a long step blows up.
	_, err = m.NewSim(B, 2000).Forward([]float64{-1e-3, 1, 0}, []float64{0.5, 0}, x0, make([]float64, 2000*2*B), nil)
	if err == nil || !strings.Contains(err.Error(), "diverged") {
		t.Errorf("divergence: %v", err)
	}
	if _, err := sim.Forward(p, q, x0[:2], u, nil); err == nil {
		t.Error("short x0 accepted")
	}
}
