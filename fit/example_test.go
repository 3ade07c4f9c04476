package fit_test

import (
	"fmt"
	"math"

	"github.com/wheelgrad/wheelgrad/fit"
	"github.com/wheelgrad/wheelgrad/opt"
	"gonum.org/v1/gonum/mat"
)

// A model y = (a/b)·x + c determines a/b and c but not a and b apart:
// Identifiability names the combination, σ of a and b is infinite, and σ
// of c is the model y = k·x + c's: sqrt(14.25/14.75) = 0.983.
func ExampleIdentifiability() {
	const a, b = 2.0, 1.0
	x := []float64{0.5, 1, 2, 3}
	jtj := mat.NewSymDense(3, nil)
	for _, v := range x {
		j := []float64{v / b, -a * v / (b * b), 1} // ∂y/∂(a, b, c)
		for r := range 3 {
			for s := r; s < 3; s++ {
				jtj.SetSym(r, s, jtj.At(r, s)+j[r]*j[s])
			}
		}
	}
	id, err := fit.Identifiability([]string{"a", "b", "c"}, jtj)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range id.Null {
		fmt.Println("not determined:", d.Text)
	}
	fmt.Printf("σ (unit residual variance): a %g, b %g, c %.3f\n", id.Std[0], id.Std[1], id.Std[2])
	// Output:
	// not determined: 0.894·a + 0.447·b
	// σ (unit residual variance): a +Inf, b +Inf, c 0.983
}

// MATLAB compare's fit % of a prediction.
func ExampleChannel_Fit() {
	c := fit.Channel{Name: "x", Unit: "m"}
	for k, y := range []float64{0, 0.1, 0.2, 0.3, 0.4} {
		c.Add(0, float64(k), y, y+0.01*float64(k%2)) // off by 1 cm on odd samples
	}
	f, nrmse, rms := c.Fit()
	fmt.Printf("fit %.1f %%, NRMSE %.4f, RMS %.4f m\n", f, nrmse, rms)
	// Output:
	// fit 95.5 %, NRMSE 0.0447, RMS 0.0063 m
}

// A report as one JSON object: σ that cannot be computed is null with its
// reason.
func ExampleReport_JSON() {
	r := fit.Report{
		Model: "diffdrive",
		Params: []fit.Param{
			{Name: "c1", Value: 0.41, Std: 0.002, Lower: math.Inf(-1), Upper: math.Inf(1)},
			{Name: "c2", Value: 1.3, Std: math.NaN(), StdReason: "the EKF gives no σ", Lower: 0, Upper: math.Inf(1)},
		},
		Residual: fit.Residual{Name: "wheel speed", Unit: "m/s", RMS: 0.012},
		Status:   fit.NewStatus("lbfgsb", &opt.Result{Status: opt.GradientConverged, Iterations: 31, F: 0.2}),
		Warnings: []fit.Warning{fit.Warnf("log.csv", "t steps by a median 10 s between rows")},
	}
	b, _ := r.JSON()
	fmt.Println(string(b))
	// Output:
	// {"model":"diffdrive","status":"converged","converged":true,"params":[{"name":"c1","value":0.41,"std":0.002,"lower":null,"upper":null,"held":false,"determined":true,"verdict":"determined"},{"name":"c2","value":1.3,"std":null,"std_reason":"the EKF gives no σ","lower":0,"upper":null,"held":false,"determined":true}],"residual_rms":0.012,"residual":"wheel speed","residual_unit":"m/s","warnings":[{"message":"log.csv: t steps by a median 10 s between rows","file":"log.csv"}]}
}
