package dyn_test

import (
	"fmt"
	"math"

	G "gorgonia.org/gorgonia"

	"github.com/wheelgrad/wheelgrad/ad"
	"github.com/wheelgrad/wheelgrad/dyn"
)

// A velocity lag driving a point along x, written once.
var lag = dyn.MustDefine(dyn.Spec{
	Name:     "lag",
	State:    []string{"x", "v"},
	Input:    []string{"u"},
	Params:   []string{"tau"},
	Settings: []string{"dt"},
	Outputs:  []string{"x"},
}, func(s *dyn.Step) {
	x, v, dt := s.State("x"), s.State("v"), s.Setting("dt")
	a := s.Input("u").Sub(v).Div(s.Param("tau"))
	s.Next("x", x.Add(dt.Mul(v)))
	s.Next("v", v.Add(dt.Mul(a)))
	s.Output("x", x.Add(dt.Mul(v)))
})

// Native rollout and gradient: two runs (lanes) of 100 steps under a
// constant command, and the derivative of the summed final positions with
// respect to tau, the initial states and every command. (Check by hand:
// x(1 s) = 1 − τ(1 − e^{−1/τ}) ≈ 0.568 for τ = 0.5, and ∂x/∂τ ≈ −0.59 per
// lane.)
func ExampleModel_NewSim() {
	const B, T = 2, 100
	sim := lag.NewSim(B, T)
	tau, dt := []float64{0.5}, []float64{0.01}
	x0 := []float64{0, 1, 0, 0} // x of both lanes, then v of both lanes
	u := make([]float64, T*B)   // [T][U][B]
	for i := range u {
		u[i] = 1
	}
	if _, err := sim.Forward(tau, dt, x0, u, nil); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("final x: %.4f %.4f\n", sim.Final()[0], sim.Final()[1])
	xTbar := []float64{1, 1, 0, 0} // d(x_T of lane 0 + x_T of lane 1)
	dtau, dx0, du := make([]float64, 1), make([]float64, len(x0)), make([]float64, len(u))
	if err := sim.Backward(tau, dt, u, nil, 0, xTbar, dtau, dx0, du); err != nil {
		panic(err)
	}
	fmt.Printf("d/dtau %.4f, d/dx0 %v, d/du first step %.4f\n", dtau[0], dx0[:2], du[0])
	// Output:
	// final x: 0.5663 1.5663
	// d/dtau -1.1935, d/dx0 [1 1], d/du first step 0.0086
}

// The same model as one gorgonia node in a loss: fit tau to positions.
func ExampleRollout() {
	const B, T = 1, 200
	u := make([]float64, T)
	for i := range u {
		u[i] = math.Sin(0.05 * float64(i))
	}
	x0 := []float64{0, 0}
	meas := make([]float64, T) // positions of a robot with tau = 0.3
	truth := lag.NewSim(B, T)
	if _, err := truth.Forward([]float64{0.3}, []float64{0.01}, x0, u, meas); err != nil {
		fmt.Println(err)
		return
	}
	prog, err := ad.Compile([]ad.Param{{Name: "tau", Shape: []int{1}}}, func(g *ad.Graph, p []*G.Node) (*G.Node, error) {
		dt, err := g.Input("dt", []float64{0.01})
		if err != nil {
			return nil, err
		}
		tr, err := dyn.Rollout(lag, p[0], dt, g.Const(x0), g.Const(u), B, T)
		if err != nil {
			return nil, err
		}
		x, err := tr.Output("x")
		if err != nil {
			return nil, err
		}
		r, err := G.Sub(x, g.Const(meas))
		if err != nil {
			return nil, err
		}
		return G.Sum(G.Must(G.Square(r)))
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	f, grad, err := prog.ValueAndGrad([]float64{0.5})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("loss %.6f, gradient %.6f (descent points to a smaller tau: %v)\n", f, grad[0], grad[0] > 0)
	// Output:
	// loss 0.274375, gradient 2.035484 (descent points to a smaller tau: true)
}

// The Jacobians of one step, for an EKF.
func ExampleStepper_Jacobian() {
	st := lag.NewStepper()
	jx, jp := make([]float64, 4), make([]float64, 2)
	if err := st.Jacobian([]float64{0.5}, []float64{0.01}, []float64{0, 1}, []float64{2}, jx, nil, jp); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("∂(x', v')/∂(x, v):", jx)
	fmt.Println("∂(x', v')/∂tau:", jp)
	// Output:
	// ∂(x', v')/∂(x, v): [1 0.01 0 0.98]
	// ∂(x', v')/∂tau: [0 -0.04]
}
