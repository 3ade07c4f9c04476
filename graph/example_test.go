package graph_test

import (
	"fmt"
	"log"

	"github.com/wheelgrad/wheelgrad/graph"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// A heading integrated from yaw rates by explicit Euler, θ[k] = Δt·Σ_{j<k}
// ω[j], in one node, with the gradient of Σ θ with respect to the rates.
func ExampleCumSum() {
	g := G.NewGraph()
	omega := G.NewVector(g, tensor.Float64, G.WithShape(5), G.WithName("omega"),
		G.WithValue(tensor.New(tensor.WithBacking([]float64{0, 0.5, 1, 1, 0.5}))))
	turned, err := graph.CumSum(omega, true) // exclusive: heading at the start of each step
	if err != nil {
		log.Fatal(err)
	}
	theta := G.Must(G.HadamardProd(G.NewConstant(0.1), turned)) // Δt = 0.1 s
	loss := G.Must(G.Sum(theta))
	grads, err := G.Grad(loss, omega)
	if err != nil {
		log.Fatal(err)
	}
	var thetaV G.Value
	G.Read(theta, &thetaV) // intermediate values must be read, see the package doc

	m := G.NewTapeMachine(g)
	defer m.Close()
	if err := m.RunAll(); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("theta  %.2f\n", thetaV.Data())
	fmt.Printf("dL/dω  %.1f\n", grads[0].Value().Data())
	// Output:
	// theta  [0.00 0.00 0.05 0.15 0.25]
	// dL/dω  [0.4 0.3 0.2 0.1 0.0]
}

// The Kikuuwe friction of Park, Lee, Kuipers eq. 4: the friction
// acceleration is the stick acceleration μ̄ limited to ±μ, and the gradient
// reaches μ only for the wheels that slip.
func ExampleClampSym() {
	g := G.NewGraph()
	mubar := G.NewVector(g, tensor.Float64, G.WithShape(4), G.WithName("mubar"),
		G.WithValue(tensor.New(tensor.WithBacking([]float64{-0.2, 0.5, 2, 3}))))
	mu := G.NewScalar(g, tensor.Float64, G.WithName("mu"), G.WithValue(1.0))
	f, err := graph.ClampSym(mubar, mu)
	if err != nil {
		log.Fatal(err)
	}
	grads, err := G.Grad(G.Must(G.Sum(f)), mubar, mu)
	if err != nil {
		log.Fatal(err)
	}
	var fV G.Value
	G.Read(f, &fV)
	m := G.NewTapeMachine(g)
	defer m.Close()
	if err := m.RunAll(); err != nil {
		log.Fatal(err)
	}
	fmt.Println("friction", fV.Data())
	fmt.Println("d/dmubar", grads[0].Value().Data())
	fmt.Println("d/dmu   ", grads[1].Value().Data())
	// Output:
	// friction [-0.2 0.5 1 1]
	// d/dmubar [1 1 0 0]
	// d/dmu    2
}
