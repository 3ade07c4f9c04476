package pioneer

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"

	"github.com/wheelgrad/wheelgrad/models/pioneer/p3dx"
)

// The least-squares residuals' forward-mode Jacobian against central
// differences of the value-only residuals, for both forms at a fixed
// temperature, and ½‖r‖² against the batch's summed cost (the loss
// L-BFGS-B minimises).
func TestLSQJacobian(t *testing.T) {
	runs := testRuns(120)
	for _, form := range []string{FormPhysical, FormExperimental} {
		p := Default(form)
		if form == FormPhysical {
			*p.Phi = 0.03
		}
		x := p.vector()
		names := ExperimentalParamNames
		if form == FormPhysical {
			names = PhysicalParamNames
		}
		var idx []int
		var sc, z []float64
		for k, n := range names {
			if lo, hi := bounds(n, p.Ts); !math.IsInf(lo, 0) && !math.IsInf(hi, 0) {
				idx = append(idx, k)
				sc = append(sc, scale(n, x[k], p.Ts))
				z = append(z, x[k]/sc[len(sc)-1])
			}
		}
		const norm = 1.0 / 240
		b := newBatch(p, runs, 2, 2, 20, 3)
		l, err := newLSQ(b, idx, sc, x, norm)
		if err != nil {
			t.Fatal(err)
		}
		b.setT(0.01)
		m := len(l.rows)
		r := make([]float64, m)
		J := mat.NewDense(m, len(z), nil)
		if err := l.residuals(z, r, J); err != nil {
			t.Fatal(err)
		}
		var half float64
		for _, v := range r {
			half += v * v / 2
		}
		c, err := b.run(x, 0.01, nil)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(half-c*norm) > 1e-12*c*norm {
			t.Errorf("%s: ½‖r‖² = %.15g, the batch's cost × norm %.15g", form, half, c*norm)
		}
		num := mat.NewDense(m, len(z), nil)
		fd.Jacobian(num, func(y, zz []float64) {
			if err := l.residuals(zz, y, nil); err != nil {
				t.Fatal(err)
			}
		}, z, &fd.JacobianSettings{Formula: fd.Central, Step: 1e-6})
		for j := range z {
			var d, s float64
			for i := range m {
				d = math.Max(d, math.Abs(J.At(i, j)-num.At(i, j)))
				s = math.Max(s, math.Abs(num.At(i, j)))
			}
			if d > 1e-5*s+1e-9 {
				t.Errorf("%s: ∂r/∂%s differs from central differences by %.3g (largest entry %.3g)", form, names[idx[j]], d, s)
			}
			if s == 0 && names[idx[j]] != "vmax" && names[idx[j]] != "wmax" {
				t.Errorf("%s: ∂r/∂%s = 0: the test drives do not exercise it", form, names[idx[j]])
			}
		}
	}
}

// Least squares (the default) against L-BFGS-B on the test drive of
// TestIdentifyTrueRobot: the exact loss at least as low (to 1e-9
// relative), in fewer evaluations, converged; parameters the exact loss
// does not depend on (the saturations: the drive stays below them) keep
// their start values.
func TestLSQBeatsLBFGSB(t *testing.T) {
	rb := p3dx.Default()
	v, w := p3dx.Cases(1, 5)
	r := toRun(rb.Drive(v, w, 9))
	forms := []string{FormExperimental, FormPhysical}
	if testing.Short() {
		forms = forms[:1]
	}
	for _, form := range forms {
		o := IdentifyOptions{Delays: []int{1, 2, 3}, Temps: []float64{0.02, 0.002}, MaxIter: 60}
		var res [2]*Result
		for i, m := range []string{MethodLBFGSB, MethodLSQ} {
			o.Method = m
			var err error
			if res[i], err = Identify(Default(form), []*Run{r}, o); err != nil {
				t.Fatal(err)
			}
		}
		lb, ls := res[0], res[1]
		t.Logf("%s: loss %.10g (L-BFGS-B %.10g), %d evaluations (%d), %v (%v)", form, ls.Loss, lb.Loss, ls.Evaluations, lb.Evaluations, ls.Runtime, lb.Runtime)
		if !(ls.Loss <= lb.Loss*(1+1e-9)) {
			t.Errorf("%s: least squares ends at %.10g, L-BFGS-B at %.10g", form, ls.Loss, lb.Loss)
		}
		if ls.Evaluations >= lb.Evaluations {
			t.Errorf("%s: least squares took %d evaluations, L-BFGS-B %d", form, ls.Evaluations, lb.Evaluations)
		}
		if !ls.Opt.Status.Converged() {
			t.Errorf("%s: status %v", form, ls.Opt.Status)
		}
		start := Default(form)
		if ls.Params.Vmax != start.Vmax || ls.Params.Wmax != start.Wmax {
			t.Errorf("%s: vmax %v, wmax %v moved from the start %v, %v (the drive never reaches them)", form, ls.Params.Vmax, ls.Params.Wmax, start.Vmax, start.Wmax)
		}
	}
}

// An unknown method is an error naming the methods.
func TestIdentifyUnknownMethod(t *testing.T) {
	_, err := Identify(Default(FormExperimental), testRuns(20), IdentifyOptions{Method: "cmaes"})
	if err == nil || err.Error() != `pioneer: unknown method "cmaes" (one of [lsq lbfgsb])` {
		t.Errorf("error %v", err)
	}
}
