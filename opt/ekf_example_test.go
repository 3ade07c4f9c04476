package opt_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/wheelgrad/wheelgrad/dyn"
	"github.com/wheelgrad/wheelgrad/opt"
)

// A user's model, written once in dyn: a cart whose speed v follows the
// command u at the rate k (1/s; 1/k is the time constant); its position x
// is measured.
var cart = dyn.MustDefine(dyn.Spec{
	Name: "cart", State: []string{"x", "v"}, Input: []string{"u"},
	Params: []string{"k"}, Settings: []string{"dt"}, Outputs: []string{"x"},
}, func(s *dyn.Step) {
	x, v, dt := s.State("x"), s.State("v"), s.Setting("dt")
	s.Next("x", x.Add(dt.Mul(v)))
	s.Next("v", v.Add(dt.Mul(s.Input("u").Sub(v).Mul(s.Param("k")))))
	s.Output("x", x) // the measurement: the position the filter holds
})

// Joint state and parameter estimation: the filter's state is [x, v, k],
// k unknown (start 1 ± 3, true 2); the position is measured with 1 cm noise
// every 10 ms under a square-wave command. The model is perfect, so the
// process noise Q is nil.
func ExampleJoint() {
	const dt, kTrue = 0.01, 2.0
	model := cart.NewStepper().Filter([]float64{dt})
	joint := &opt.Joint{NX: 2, Process: model, Observer: model}
	ekf, err := opt.NewEKF([]float64{0, 0, 1}, []float64{1e-4, 1e-4, 9})
	if err != nil {
		panic(err)
	}

	truth, next := []float64{0, 0}, []float64{0, 0}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 1000 {
		u := []float64{math.Copysign(1, math.Sin(float64(i)*dt*2))}
		if err := model.Predict(truth, u, []float64{kTrue}, next, nil, nil); err != nil { // the simulated cart
			panic(err)
		}
		copy(truth, next)
		if err := ekf.Predict(joint, u, nil); err != nil {
			panic(err)
		}
		z := []float64{truth[0] + 0.01*rng.NormFloat64()}
		if _, err := ekf.Update(joint, u, z, []float64{0.01 * 0.01}); err != nil {
			panic(err)
		}
	}
	fmt.Printf("k = %.3f ± %.3f (true %.0f)\n", ekf.X[2], math.Sqrt(ekf.P[8]), kTrue)
	fmt.Printf("NIS per update %.2f (1 expected)\n", ekf.NIS/float64(ekf.Updates))
	// Output:
	// k = 1.998 ± 0.003 (true 2)
	// NIS per update 0.99 (1 expected)
}
