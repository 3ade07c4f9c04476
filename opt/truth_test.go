package opt

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// stictionLoss is a tracked robot's identification in miniature: the robot
// moves at speed max(0, τ − μ) (drive minus stiction), logged at speed 1 at
// times t = 0.1 … 2. Where τ ≤ μ it never moves: the loss is the constant
// Σ d² and its gradient exactly zero, a plateau far from the optimum.
func stictionLoss(x, g []float64) (float64, error) {
	tau, mu := x[0], x[1]
	v := math.Max(0, tau-mu)
	var f, dv float64
	for k := 1; k <= 20; k++ {
		t := 0.1 * float64(k)
		r := v*t - 1*t
		f += r * r
		dv += 2 * r * t
	}
	if g != nil {
		g[0], g[1] = 0, 0
		if tau > mu {
			g[0], g[1] = dv, -dv
		}
	}
	return f, nil
}

func TestTruthZeroGradientAtStart(t *testing.T) {
	// The start is the exact minimum: the gradient is exactly zero there.
	obj := func(x, g []float64) (float64, error) {
		a, b := x[0]-1, x[1]-2
		if g != nil {
			g[0], g[1] = 2*a, 2*b
		}
		return a*a + b*b + 3, nil
	}
	res, err := LBFGSB{}.Minimize(Problem{Objective: obj}, []float64{1, 2}, Settings{Names: []string{"a", "b"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StartStationary || res.Status.Converged() || res.Status.Kind() != "failed" {
		t.Errorf("status %v (kind %s), want %v, not converged", res.Status, res.Status.Kind(), StartStationary)
	}
	if res.Iterations != 0 || res.X[0] != 1 || res.X[1] != 2 || len(res.Flat) != 0 {
		t.Errorf("x %v after %d iterations, flat %v: want the start back, nothing flat", res.X, res.Iterations, res.Flat)
	}
	t.Log(res.Reason)
}

func TestTruthFlatStart(t *testing.T) {
	// The start is on the plateau τ < μ: nothing moves.
	res, err := LBFGSB{}.Minimize(Problem{Objective: stictionLoss, Lower: []float64{0, 0}, Upper: []float64{10, 10}},
		[]float64{1, 2}, Settings{Names: []string{"tau", "mu"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != Flat || res.Status.Converged() || !slices.Equal(res.Flat, []int{0, 1}) {
		t.Fatalf("status %v, flat %v: want %v along x[0] and x[1]", res.Status, res.Flat, Flat)
	}
	if !strings.Contains(res.Reason, "x[0] (tau), x[1] (mu)") {
		t.Errorf("reason %q does not name the parameters", res.Reason)
	}
}

func TestTruthFirstStepOntoPlateau(t *testing.T) {
	// From τ − μ = 3 (speed 3, the data say 1) the first projected-gradient
	// step of L-BFGS-B runs into the corner τ = 0, μ = 10, where the robot
	// never moves: the loss there (Σ t²) is lower than at the start (4 Σ t²),
	// so the step is accepted, and the gradient is exactly zero. Before the
	// plateau probe this was "gradient converged" after 1 iteration, with τ
	// −100 % and μ +900 % off the line τ − μ = 1 of optima.
	p := Problem{Objective: stictionLoss, Lower: []float64{0, 0}, Upper: []float64{10, 10}}
	res, err := LBFGSB{}.Minimize(p, []float64{4, 1}, Settings{Names: []string{"tau", "mu"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%v: x %v, f %g after %d iterations; %s", res.Status, res.X, res.F, res.Iterations, res.Reason)
	if res.Status != Flat || !slices.Equal(res.Flat, []int{0, 1}) {
		t.Errorf("status %v, flat %v, want %v along both", res.Status, res.Flat, Flat)
	}
	if !slices.Equal(res.AtLower, []int{0}) || !slices.Equal(res.AtUpper, []int{1}) {
		t.Errorf("at bounds: lower %v upper %v, want [0] and [1]", res.AtLower, res.AtUpper)
	}
}

func TestTruthExactMinimumAfterAStepIsConverged(t *testing.T) {
	// f = ½ Σ x²: the first step x − ∇f lands exactly on the minimum, where
	// the gradient is exactly zero. f grows around it, so this is a minimum,
	// not a plateau: converged, with nothing flat.
	half := func(x, g []float64) (float64, error) {
		f, err := tfSphere(x, g)
		for i := range g {
			g[i] /= 2
		}
		return f / 2, err
	}
	res, err := LBFGSB{}.Minimize(Problem{Objective: half, Lower: []float64{-1, -1}, Upper: []float64{1, 1}}, []float64{0.5, -0.25}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != GradientConverged || res.F != 0 || len(res.Flat) != 0 {
		t.Errorf("status %v at f = %g, flat %v: want gradient converged at 0", res.Status, res.F, res.Flat)
	}
}

func TestTruthNonFiniteGradientAtStart(t *testing.T) {
	obj := func(x, g []float64) (float64, error) {
		f, err := tfSphere(x, g)
		if g != nil {
			g[1] = math.NaN()
		}
		return f, err
	}
	res, err := LBFGSB{}.Minimize(Problem{Objective: obj}, []float64{1, 2, 3}, Settings{Names: []string{"a", "b", "c"}})
	if err == nil || !strings.Contains(err.Error(), "gradient component 1 (b) is NaN") {
		t.Errorf("error %v, want one naming component 1 (b)", err)
	}
	if res == nil || res.Status != NonFinite || res.Status.Converged() || res.X[2] != 3 {
		t.Fatalf("result %+v, want status NonFinite at the start", res)
	}
}

func TestTruthParametersOnBounds(t *testing.T) {
	// Rosenbrock with x₀ ≤ 0.5: the constrained optimum has x₀ on its
	// upper bound; the run converges and says so.
	res, err := LBFGSB{}.Minimize(Problem{Objective: tfRosenbrock, Lower: []float64{-2, -2}, Upper: []float64{0.5, 2}},
		[]float64{-1.2, 1}, Settings{Names: []string{"p", "q"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Status.Converged() || !slices.Equal(res.AtUpper, []int{0}) || len(res.AtLower) != 0 {
		t.Fatalf("status %v, at lower %v, at upper %v: want converged with x[0] on its upper bound", res.Status, res.AtLower, res.AtUpper)
	}
	if !strings.Contains(res.Reason, "on the upper bound: x[0] (p)") {
		t.Errorf("reason %q does not name x[0] (p) on its upper bound", res.Reason)
	}
	// The same list for every method.
	nm, err := NelderMead{}.Minimize(Problem{Objective: tfRosenbrock, Lower: []float64{-2, -2}, Upper: []float64{0.5, 2}}, []float64{-1.2, 1}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Nelder–Mead: %v at %v; %s", nm.Status, nm.X, nm.Reason)
}

func TestTruthDerivativeFreeOnPlateau(t *testing.T) {
	// Nelder–Mead and CMA-ES started on the stiction plateau see one f
	// value everywhere they look: that is not convergence.
	p := Problem{Objective: stictionLoss, Lower: []float64{0, 0}, Upper: []float64{10, 10}}
	for _, m := range []Method{NelderMead{InitialStep: 0.1}, CMAES{Sigma0: 0.05, Seed: 1}} {
		res, err := m.Minimize(p, []float64{1, 3}, Settings{MaxEvaluations: 2000})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != Flat || !slices.Equal(res.Flat, []int{0, 1}) {
			t.Errorf("%T: %v, flat %v: want %v", m, res.Status, res.Flat, Flat)
		}
		t.Logf("%T: %s", m, res.Reason)
	}
	// Away from the plateau they converge as before.
	res, err := NelderMead{}.Minimize(p, []float64{4, 1}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Status.Converged() || len(res.Flat) != 0 {
		t.Errorf("Nelder–Mead from (4, 1): %v, flat %v", res.Status, res.Flat)
	}
}
