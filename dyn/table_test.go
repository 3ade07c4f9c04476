package dyn_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/interp"

	"github.com/wheelgrad/wheelgrad/dyn"
	"github.com/wheelgrad/wheelgrad/dyn/internal/testmodels"
)

// bilinear is the native grid look-up Interp2 stands for: the cell of
// (x, y) (clamped to the grid), linear along each axis.
func bilinear(x, y float64, xk, yk, v []float64) float64 {
	cell := func(k []float64, z float64) (int, float64) {
		z = math.Max(k[0], math.Min(z, k[len(k)-1]))
		i := max(sort.SearchFloat64s(k, z)-1, 0) // k[i] < z ≤ k[i+1]
		return i, (z - k[i]) / (k[i+1] - k[i])
	}
	i, s := cell(xk, x)
	j, t := cell(yk, y)
	ny := len(yk)
	return (1-s)*((1-t)*v[i*ny+j]+t*v[i*ny+j+1]) + s*((1-t)*v[(i+1)*ny+j]+t*v[(i+1)*ny+j+1])
}

func isKnot(k []float64, z float64) bool { return slices.Contains(k, z) }

// lookup defines a model whose output is one table look-up of the states
// (x, y) with the parameters as the table, and returns f(points) and its
// gradients to the table (per point) and to the points.
func lookup(t *testing.T, np int, f func(s *dyn.Step, x, y dyn.X, w []dyn.X) dyn.X) func(w, xs, ys []float64) (val, gw [][]float64, gx, gy []float64) {
	t.Helper()
	m, err := dyn.Define(dyn.Spec{Name: "lookup", State: []string{"x", "y"}, Params: dyn.Vec("w", np), Outputs: []string{"f"}, AllowUnused: true}, func(s *dyn.Step) {
		x, y := s.State("x"), s.State("y")
		s.Next("x", x)
		s.Next("y", y)
		s.Output("f", f(s, x, y, s.ParamVec("w", np)))
	})
	if err != nil {
		t.Fatal(err)
	}
	return func(w, xs, ys []float64) (val, gw [][]float64, gx, gy []float64) {
		B := len(xs)
		sim := m.NewSim(B, 1, dyn.WithoutSelfCheck())
		y := make([]float64, B)
		if _, err := sim.Forward(w, nil, append(slices.Clone(xs), ys...), nil, y); err != nil {
			t.Fatal(err)
		}
		gx, gy = make([]float64, B), make([]float64, B)
		for j := range B {
			ybar := make([]float64, B)
			ybar[j] = 1
			g, g0 := make([]float64, np), make([]float64, 2*B)
			if err := sim.Backward(w, nil, nil, ybar, 0, nil, g, g0, nil); err != nil {
				t.Fatal(err)
			}
			val, gw = append(val, []float64{y[j]}), append(gw, g)
			gx[j], gy[j] = g0[j], g0[B+j]
		}
		return val, gw, gx, gy
	}
}

// TestInterp2MatchesBilinear: values equal the native bilinear look-up
// inside the grid, on its knots and beyond it; gradients to x, y and every
// table value equal central differences of the native look-up off the
// knots; on a knot ∂/∂x is the slope of the cell on its left (0 beyond).
func TestInterp2MatchesBilinear(t *testing.T) {
	xk, yk := []float64{-1, 0, 0.5, 2}, []float64{0, 1, 3}
	run := lookup(t, 12, func(s *dyn.Step, x, y dyn.X, w []dyn.X) dyn.X { return dyn.Interp2(x, y, xk, yk, w) })
	rng := rand.New(rand.NewPCG(1, 9))
	w := make([]float64, 12)
	for i := range w {
		w[i] = rng.NormFloat64()
	}
	xs := []float64{-3, -1, -0.3, 0, 0.2, 0.5, 1.1, 2, 4, 0.7, 0.25, -0.6}
	ys := []float64{-1, 0, 0.4, 1, 2.2, 3, 5, 0.5, 1, 1.7, 3, 2.5}
	val, gw, gx, gy := run(w, xs, ys)
	for j := range xs {
		x, y := xs[j], ys[j]
		if want := bilinear(x, y, xk, yk, w); math.Abs(val[j][0]-want) > 1e-14 {
			t.Errorf("f(%v, %v) = %v, native %v", x, y, val[j][0], want)
		}
		num := centralGradient(w, func(w []float64) float64 { return bilinear(x, y, xk, yk, w) })
		for i := range w {
			if math.Abs(gw[j][i]-num[i]) > 1e-9 {
				t.Errorf("∂f(%v, %v)/∂w%d = %v, central differences %v", x, y, i, gw[j][i], num[i])
			}
		}
		for _, c := range []struct {
			name string
			z, g float64
			k    []float64
			f    func(z float64) float64
		}{
			{"x", x, gx[j], xk, func(z float64) float64 { return bilinear(z, y, xk, yk, w) }},
			{"y", y, gy[j], yk, func(z float64) float64 { return bilinear(x, z, xk, yk, w) }},
		} {
			var want float64
			switch {
			case c.z <= c.k[0] || c.z > c.k[len(c.k)-1]:
				want = 0 // beyond the grid (and at its first knot: the left side)
			case isKnot(c.k, c.z):
				want = fd.Derivative(c.f, c.z, &fd.Settings{Formula: fd.Backward, Step: 1e-7}) // the left side
			default:
				want = centralGradient([]float64{c.z}, func(z []float64) float64 { return c.f(z[0]) })[0]
			}
			if math.Abs(c.g-want) > 1e-6 {
				t.Errorf("∂f/∂%s at (%v, %v) = %v, want %v", c.name, x, y, c.g, want)
			}
		}
	}
}

// fdSlopes are Hermite1's default slopes, natively.
func fdSlopes(k, v []float64) []float64 {
	n := len(k)
	sec := make([]float64, n-1)
	for i := range sec {
		sec[i] = (v[i+1] - v[i]) / (k[i+1] - k[i])
	}
	m := make([]float64, n)
	m[0], m[n-1] = sec[0], sec[n-2]
	for i := 1; i < n-1; i++ {
		m[i] = 0.5 * (sec[i-1] + sec[i])
	}
	return m
}

// TestHermite1MatchesGonum: values equal gonum/interp's PiecewiseCubic
// fitted with the same slopes (given as parameters, or Hermite1's default
// finite-difference slopes), inside, on the knots and beyond the ends;
// gradients to x, the values and the slopes equal central differences of
// gonum's look-up; on a knot ∂f/∂x is the knot's slope (the table is C¹),
// beyond the ends 0.
func TestHermite1MatchesGonum(t *testing.T) {
	k := []float64{-1, -0.2, 0, 0.3, 1, 2}
	n := len(k)
	native := func(x float64, w []float64, given bool) float64 {
		v, m := w[:n], fdSlopes(k, w[:n])
		if given {
			m = w[n:]
		}
		var pc interp.PiecewiseCubic
		pc.FitWithDerivatives(k, v, m)
		return pc.Predict(x)
	}
	rng := rand.New(rand.NewPCG(2, 9))
	w := make([]float64, 2*n)
	for i := range w {
		w[i] = rng.NormFloat64()
	}
	xs := []float64{-3, -1, -0.6, -0.2, -0.05, 0, 0.1, 0.3, 0.99, 1, 1.5, 2, 7}
	for _, given := range []bool{true, false} {
		run := lookup(t, 2*n, func(s *dyn.Step, x, _ dyn.X, w []dyn.X) dyn.X {
			if given {
				return dyn.Hermite1(x, k, w[:n], w[n:])
			}
			return dyn.Hermite1(x, k, w[:n], nil)
		})
		val, gw, gx, _ := run(w, xs, make([]float64, len(xs)))
		slopes := fdSlopes(k, w[:n])
		if given {
			slopes = w[n:]
		}
		for j, x := range xs {
			if want := native(x, w, given); math.Abs(val[j][0]-want) > 1e-14 {
				t.Errorf("given %v: f(%v) = %v, gonum %v", given, x, val[j][0], want)
			}
			num := centralGradient(w, func(w []float64) float64 { return native(x, w, given) })
			for i := range w {
				if math.Abs(gw[j][i]-num[i]) > 1e-9 {
					t.Errorf("given %v: ∂f(%v)/∂w%d = %v, central differences %v", given, x, i, gw[j][i], num[i])
				}
			}
			var want float64
			switch {
			case x < k[0] || x > k[n-1] || x == k[0]:
				want = 0 // beyond the ends, and the left side of the first knot
			case isKnot(k, x):
				want = slopes[slices.Index(k, x)]
			default:
				want = centralGradient([]float64{x}, func(z []float64) float64 { return native(z[0], w, given) })[0]
			}
			if math.Abs(gx[j]-want) > 1e-8 {
				t.Errorf("given %v: ∂f/∂x at %v = %v, want %v", given, x, gx[j], want)
			}
		}
	}
}

// tablesProblem is testmodels.Tables over B lanes and T steps, with the
// commands of lanes 0 and 1 on motor-table knots and the initial states of
// lane 2 on the drag map's and grade table's knots.
func tablesProblem(B, T int) (p, q, x0, u []float64) {
	rng := rand.New(rand.NewPCG(4, 4))
	m := testmodels.Tables
	p = make([]float64, m.NP())
	for i := range p {
		p[i] = 0.5 * rng.NormFloat64()
	}
	copy(p, []float64{-1.2, -0.5, 0, 0.6, 1.1}) // a motor table
	q = []float64{0.05}
	x0 = make([]float64, 2*B)
	for l := range B {
		x0[l], x0[B+l] = 4*rng.Float64(), 2*rng.NormFloat64()
	}
	x0[2], x0[B+2] = testmodels.GradeKnots[1], testmodels.DragV[3]
	u = make([]float64, T*B)
	for i := range u {
		u[i] = math.Sin(0.3*float64(i)) * 1.2
	}
	u[0], u[1] = testmodels.MotorKnots[1], testmodels.MotorKnots[3]
	return p, q, x0, u
}

// TestTablesRollout: a rollout through Hermite1, Interp2 and a Hermite1
// with slopes: the generated kernel is in use and equals the interpreter.
// Starting on knots (lanes 0–2), the built-in self-check of the first
// backward run (the reverse pass against finite differences of the native
// rollout, one-sided or lane by lane where a stencil crosses a knot) passes
// conclusively; off the knots CheckRollout's central differences agree for
// both kernels, and coordinate-wise for every table value; the generated
// forward mode equals the interpreter's.
func TestTablesRollout(t *testing.T) {
	m := testmodels.Tables
	if !m.Generated() {
		t.Fatal("Tables runs without its generated kernel")
	}
	const B, T = 5, 40
	p, q, x0, u := tablesProblem(B, T)
	sim := m.NewSim(B, T)
	if _, err := sim.Forward(p, q, x0, u, nil); err != nil {
		t.Fatal(err)
	}
	g := make([]float64, len(p))
	if err := sim.Backward(p, q, u, nil, 0, []float64{1, 0, 0, 0, 0, 0, 0, 1, 0, 0}, g, nil, nil); err != nil {
		t.Fatalf("self-check on knots: %v", err)
	}
	if c, ok := m.LastSelfCheck(); !ok || c.Stencil == "straddled" || !(c.RelErr <= 1e-6) {
		t.Errorf("self-check on knots: %v (ran %v)", c, ok)
	} else {
		t.Logf("self-check on knots: %v", c)
	}
	u[0], u[1], x0[2], x0[B+2] = u[0]+0.013, u[1]-0.021, x0[2]+0.017, x0[B+2]-0.011 // off the knots
	ys := map[string][]float64{}
	for name, k := range map[string]dyn.Kernel{"interpreter": m.NewInterpreter(), "generated": m.NewKernel()} {
		for seed := range uint64(3) {
			c, err := m.CheckRollout(k, p, q, x0, u, B, T, nil, 0, nil, seed)
			if err != nil {
				t.Fatal(err)
			}
			if c.RelErr > 1e-6 {
				t.Errorf("%s seed %d: %v", name, seed, c)
			}
		}
		sim, err := m.NewSimWith(k, B, T, dyn.WithoutSelfCheck())
		if err != nil {
			t.Fatal(err)
		}
		y := make([]float64, m.NY()*T*B)
		wt := make([]float64, len(y))
		for i := range wt {
			wt[i] = math.Cos(float64(i))
		}
		F := func(p []float64) float64 {
			c, err := sim.Forward(p, q, x0, u, y)
			if err != nil {
				t.Fatal(err)
			}
			for i := range y {
				c += wt[i] * y[i]
			}
			return c
		}
		F(p)
		ys[name] = slices.Clone(y)
		g := make([]float64, len(p))
		if err := sim.Backward(p, q, u, wt, 1, nil, g, nil, nil); err != nil {
			t.Fatal(err)
		}
		for i, num := range centralGradient(p, F) {
			if !close(g[i], num, 1e-6) {
				t.Errorf("%s: ∂/∂%s = %v, central differences %v", name, m.Spec().Params[i], g[i], num)
			}
		}
	}
	if d := maxAbsDiff(ys["generated"], ys["interpreter"]); d > 1e-13 {
		t.Errorf("generated and interpreted rollouts differ by %g", d)
	}
	if d, err := m.CheckGeneratedForward(p, q, x0, u, B, T, 1e-10); err != nil {
		t.Errorf("generated forward mode: %v (largest difference %g)", err, d)
	}
}

func maxAbsDiff(a, b []float64) float64 {
	d := 0.0
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
	}
	return d
}

// TestTableDefinitionErrors: bad knots or table sizes are errors of the
// definition.
func TestTableDefinitionErrors(t *testing.T) {
	for name, def := range map[string]func(s *dyn.Step) dyn.X{
		"Interp2 x knots not increasing": func(s *dyn.Step) dyn.X {
			return dyn.Interp2(s.State("x"), s.State("x"), []float64{0, 0}, []float64{0, 1}, make4(s))
		},
		"Interp2 too few values": func(s *dyn.Step) dyn.X {
			return dyn.Interp2(s.State("x"), s.State("x"), []float64{0, 1}, []float64{0, 1}, make4(s)[:3])
		},
		"Interp2 one y knot": func(s *dyn.Step) dyn.X {
			return dyn.Interp2(s.State("x"), s.State("x"), []float64{0, 1, 2, 3}, []float64{0}, make4(s))
		},
		"Hermite1 NaN knot": func(s *dyn.Step) dyn.X {
			return dyn.Hermite1(s.State("x"), []float64{0, math.NaN(), 2, 3}, make4(s), nil)
		},
		"Hermite1 slopes": func(s *dyn.Step) dyn.X {
			return dyn.Hermite1(s.State("x"), []float64{0, 1, 2, 3}, make4(s), make4(s)[:2])
		},
	} {
		if _, err := dyn.Define(dyn.Spec{Name: "bad", State: []string{"x"}}, func(s *dyn.Step) {
			s.Next("x", def(s))
		}); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func make4(s *dyn.Step) []dyn.X {
	return []dyn.X{s.Const(1), s.Const(2), s.Const(3), s.Const(4)}
}
