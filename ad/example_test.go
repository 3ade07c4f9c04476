package ad_test

import (
	"fmt"

	G "gorgonia.org/gorgonia"

	"github.com/wheelgrad/wheelgrad/ad"
	"github.com/wheelgrad/wheelgrad/opt"
)

// Identify a wheel's Coulomb friction μ and viscous coefficient b from
// measured accelerations: a_i = u_i − μ·tanh(v_i/0.05) − b·v_i, fitted by
// least squares with μ ∈ [0, 2], b ≥ 0. The graph is built and compiled once;
// L-BFGS-B calls it for every evaluation.
func Example() {
	v := []float64{-1, -0.5, -0.1, 0.05, 0.2, 0.6, 1.2}
	u := []float64{0.2, 0.5, 0.1, 0.9, 1.0, 0.4, 1.5}
	acc := make([]float64, len(v))
	for i := range v { // synthetic truth μ = 0.3, b = 0.8
		acc[i] = u[i] - 0.3*tanh(v[i]/0.05) - 0.8*v[i]
	}

	prog, err := ad.Compile([]ad.Param{{Name: "mu"}, {Name: "b"}}, func(g *ad.Graph, p []*G.Node) (*G.Node, error) {
		mu, b := p[0], p[1]
		fric := G.Must(G.Mul(mu, G.Must(G.Tanh(g.Const(scale(v, 1/0.05))))))
		pred := G.Must(G.Sub(G.Must(G.Sub(g.Const(u), fric)), G.Must(G.Mul(b, g.Const(v)))))
		r := G.Must(G.Sub(pred, g.Const(acc)))
		return G.Sum(G.Must(G.Square(r)))
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := opt.LBFGSB{}.Minimize(opt.Problem{
		Objective: prog.Eval,
		Lower:     []float64{0, 0},
		Upper:     []float64{2, inf},
	}, []float64{1, 0}, opt.Settings{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("mu = %.4f, b = %.4f (%s)\n", res.X[0], res.X[1], res.Status)
	// Output: mu = 0.3000, b = 0.8000 (gradient converged)
}
