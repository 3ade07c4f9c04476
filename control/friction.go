package control

import (
	"fmt"

	G "gorgonia.org/gorgonia"

	"github.com/wheelgrad/wheelgrad/ad"
	"github.com/wheelgrad/wheelgrad/graph"
	"github.com/wheelgrad/wheelgrad/models/mecanum"
)

// NetFriction is the 4-16-4 friction network of models/mecanum
// (h = tanh(W1·ω_s/scale + b1), μ = mu_max·σ(W2·h + b2)) as a Friction: the
// graph form evaluates it on vectors over segments, so the synthesis
// gradient flows through μ(ω_s) to the commands.
type NetFriction struct{ Net *mecanum.FrictionNet }

// Mu is the network's native prediction.
func (f NetFriction) Mu(ws [4]float64) [4]float64 { return f.Net.Predict(ws) }

// Graph builds the network on the four command vectors. The output
// sigmoid is graph.Bounded, which keeps precision where G.Sigmoid saturates.
func (f NetFriction) Graph(g *ad.Graph, ws [4]*G.Node) ([4]*G.Node, error) {
	n := f.Net
	var b errBuilder
	var mu [4]*G.Node
	h := make([]*G.Node, len(n.B1))
	for i := range h {
		acc := g.Scalar(n.B1[i])
		for j := range 4 {
			t := b.do(G.Mul(ws[j], g.Scalar(n.W1[i][j]/n.Scale)))
			acc = b.do(G.Add(t, acc)) // vector + scalar broadcasts
		}
		h[i] = b.do(G.Tanh(acc))
	}
	for o := range mu {
		acc := b.do(G.Add(b.do(G.Mul(h[0], g.Scalar(n.W2[o][0]))), g.Scalar(n.B2[o])))
		for i := 1; i < len(h); i++ {
			acc = b.do(G.Add(acc, b.do(G.Mul(h[i], g.Scalar(n.W2[o][i])))))
		}
		mu[o] = b.do(graph.Bounded(acc, 0, n.MuMax))
	}
	if b.err != nil {
		return mu, fmt.Errorf("control: friction network graph: %w", b.err)
	}
	return mu, nil
}
