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

// A long horizon through chunk graphs of bounded size: 2,000 steps of
// x' = x + h·(u − k·x) for 4 runs, loss h·Σ x², through 20 chunks of 100
// steps; the gradient with respect to k is stitched across the chunks.
func ExampleNewScan() {
	const h, runs, steps = 0.01, 4, 2000
	scan, err := ad.NewScan(ad.ScanSpec{
		Params: []ad.Param{{Name: "k"}},
		State:  []int{runs},
		Inputs: []int{runs},
		Chunk:  100,
		Step: func(g *ad.Graph, p, s, in []*G.Node) ([]*G.Node, *G.Node, error) {
			dx := G.Must(G.Sub(in[0], G.Must(G.Mul(p[0], s[0]))))
			next := G.Must(G.Add(s[0], G.Must(G.Mul(g.Scalar(h), dx))))
			loss := G.Must(G.Mul(g.Scalar(h), G.Must(G.Sum(G.Must(G.Square(next))))))
			return []*G.Node{next}, loss, nil
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	u := make([]float64, steps*runs)
	for i := range u {
		u[i] = 1
	}
	f, grad, _, err := scan.ValueAndGrad([]float64{2}, ad.Rollout{State0: [][]float64{{0, 0.5, 1, 2}}, Inputs: [][]float64{u}, Steps: steps})
	if err != nil {
		fmt.Println(err)
		return
	}
	// x tends to u/k = 0.5 from each start (loss ≈ 20 s × 4 runs × 0.25 = 20): a stronger k lowers it.
	fmt.Printf("loss %.4f, dloss/dk %.4f\n", f, grad[0])
	// Output: loss 21.4019, dloss/dk -20.4143
}
