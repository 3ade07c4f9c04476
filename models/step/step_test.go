package step

import (
	"math"
	"testing"

	"github.com/wheelgrad/wheelgrad/fit"
	"github.com/wheelgrad/wheelgrad/models/step/steptest"
	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"
)

func dragModel(t testing.TB) *Model {
	t.Helper()
	m, err := New(Config{Name: "dragcar", Model: steptest.DragCar, Dt: "dt", AfterStep: true, Pose: [3]string{"x", "y", "th"},
		Params:  []fit.Param{{Name: "tau", Unit: "s", Value: 0.5, Lower: 0.01, Upper: 5}, {Name: "k", Value: 1, Lower: 0.1, Upper: 5}, {Name: "d", Unit: "1/s", Value: 0.1, Lower: 0, Upper: 5}},
		Outputs: []Output{{Name: "x", Unit: "m"}, {Name: "y", Unit: "m"}}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestStepJacobian: the residual Jacobian identify's least squares uses
// (forward mode, interpolated between grid outputs, start-state blocks per
// run) equals central differences of its residuals from the native
// value-only rollout, at the start and at another point.
func TestStepJacobian(t *testing.T) {
	s := dragModel(t)
	path := steptest.DragLog(t, 2, 300, 1)
	d := newDiag(nil)
	runs, dt, err := s.readAll([]Source{{Path: path}}, fit.GapsError, d)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(dt-0.02) > 2e-5 {
		t.Errorf("step %v, want 0.02", dt)
	}
	bt := s.batch(runs, dt)
	free := []int{0, 1, 2}
	n := len(free) + 4*bt.B
	lo, hi := make([]float64, n), make([]float64, n)
	for i := range lo {
		lo[i], hi[i] = math.Inf(-1), math.Inf(1)
	}
	lp, _, err := bt.problem(s.Defaults().Values, free, []float64{0.005, 0.005}, lo, hi)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range [][]float64{
		{0.5, 1, 0.1, 0, 0, 1, 0.2, 1, -1, 2, 0},
		{0.3, 1.2, 0.3, 0.1, -0.2, 0.5, 0.4, -1, 1, -2, 0.1},
	} {
		r, J := make([]float64, lp.M), mat.NewDense(lp.M, n, nil)
		if err := lp.Residuals(x, r, J); err != nil {
			t.Fatal(err)
		}
		var worst float64
		col := mat.NewDense(lp.M, 1, nil)
		for c := range n {
			fd.Jacobian(col, func(r, d []float64) {
				xd := append([]float64(nil), x...)
				xd[c] += d[0]
				if err := lp.Residuals(xd, r, nil); err != nil {
					t.Fatal(err)
				}
			}, []float64{0}, &fd.JacobianSettings{Formula: fd.Central, Step: 1e-6 * math.Max(1, math.Abs(x[c]))})
			var scale float64
			for i := range lp.M {
				scale = math.Max(scale, math.Abs(J.At(i, c)))
			}
			for i := range lp.M {
				worst = math.Max(worst, math.Abs(col.At(i, 0)-J.At(i, c))/math.Max(scale, 1e-12))
			}
		}
		if worst > 1e-6 {
			t.Errorf("x %v: Jacobian off central differences by %.2g of its largest entry", x, worst)
		}
		// lbfgsb's gradient (reverse pass) against central differences of
		// its loss, which is ½‖r‖² of the same residuals.
		f, err := bt.objective(s.Defaults().Values, free, []float64{0.005, 0.005})
		if err != nil {
			t.Fatal(err)
		}
		g := make([]float64, n)
		v, err := f(x, g)
		if err != nil {
			t.Fatal(err)
		}
		var half float64
		for _, ri := range r {
			half += 0.5 * ri * ri
		}
		if math.Abs(v-half) > 1e-12*half {
			t.Errorf("x %v: loss %v, ½‖r‖² %v", x, v, half)
		}
		for c := range n {
			num := fd.Derivative(func(d float64) float64 {
				xd := append([]float64(nil), x...)
				xd[c] += d
				v, err := f(xd, nil)
				if err != nil {
					t.Fatal(err)
				}
				return v
			}, 0, &fd.Settings{Formula: fd.Central, Step: 1e-6 * math.Max(1, math.Abs(x[c]))})
			if math.Abs(num-g[c]) > 1e-5*math.Max(1, math.Abs(num)) {
				t.Errorf("x %v: gradient %d = %v, central differences %v", x, c, g[c], num)
			}
		}
	}
}
