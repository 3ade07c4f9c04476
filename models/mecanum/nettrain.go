package mecanum

import (
	"fmt"
	"math/rand/v2"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/wheelgrad/wheelgrad/ad"
	"github.com/wheelgrad/wheelgrad/graph"
	"github.com/wheelgrad/wheelgrad/opt"
)

// netParams is the layout of a FrictionNet as optimisation variables.
func netParams(h int) []ad.Param {
	return []ad.Param{{Name: "W1", Shape: []int{h, 4}}, {Name: "b1", Shape: []int{h}}, {Name: "W2", Shape: []int{4, h}}, {Name: "b2", Shape: []int{4}}}
}

func (n *FrictionNet) flatten() []float64 {
	var x []float64
	for _, r := range n.W1 {
		x = append(x, r...)
	}
	x = append(x, n.B1...)
	for _, r := range n.W2 {
		x = append(x, r...)
	}
	return append(x, n.B2...)
}

func (n *FrictionNet) unflatten(x []float64) {
	h := len(n.B1)
	k := 0
	for i := range h {
		copy(n.W1[i], x[k:k+4])
		k += 4
	}
	copy(n.B1, x[k:k+h])
	k += h
	for o := range 4 {
		copy(n.W2[o], x[k:k+h])
		k += h
	}
	copy(n.B2, x[k:k+4])
}

func newNet(h int, scale, muMax float64, seed uint64) *FrictionNet {
	rng := rand.New(rand.NewPCG(seed, 16))
	n := &FrictionNet{Scale: scale, MuMax: muMax, B1: make([]float64, h), B2: make([]float64, 4)}
	for range h {
		r := make([]float64, 4)
		for j := range r {
			r[j] = rng.NormFloat64() / 2
		}
		n.W1 = append(n.W1, r)
	}
	for range 4 {
		r := make([]float64, h)
		for j := range r {
			r[j] = rng.NormFloat64() / 4
		}
		n.W2 = append(n.W2, r)
	}
	return n
}

// netLoss builds the mean squared error of the network's μ against the
// targets over N samples, plus decay·|w|²/2 (the few trajectories of the
// paper — 8 — leave a 148-weight network underdetermined). The network
// itself is the graph of FrictionNet.Predict, one [N, ·] matrix per layer.
func netLoss(g *ad.Graph, p []*G.Node, in, target []float64, n, h int, scale, muMax, decay float64) (loss *G.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			loss, err = nil, fmt.Errorf("mecanum: friction network graph: %v", r)
		}
	}()
	must := G.Must
	xs := make([]float64, len(in))
	for i, v := range in {
		xs[i] = v / scale
	}
	X := g.Const(xs, n, 4)
	ones := g.Const(onesN(n), n, 1)
	A := must(G.Add(must(G.Mul(X, must(G.Transpose(p[0])))), must(G.Mul(ones, must(G.Reshape(p[1], tensor.Shape{1, h}))))))
	H := must(G.Tanh(A))
	Z := must(G.Add(must(G.Mul(H, must(G.Transpose(p[2])))), must(G.Mul(ones, must(G.Reshape(p[3], tensor.Shape{1, 4}))))))
	mu, err := graph.Bounded(Z, 0, muMax)
	if err != nil {
		return nil, err
	}
	g.Watch("mu", mu)
	e := must(G.Sub(mu, g.Const(target, n, 4)))
	loss = must(G.Mul(g.Scalar(1/float64(n)), must(G.Sum(must(G.Square(e))))))
	if decay > 0 {
		var reg *G.Node
		for _, w := range []*G.Node{p[0], p[2]} {
			s := must(G.Sum(must(G.Square(must(G.Reshape(w, tensor.Shape{w.Shape().TotalSize()}))))))
			if reg == nil {
				reg = s
			} else {
				reg = must(G.Add(reg, s))
			}
		}
		loss = must(G.Add(loss, must(G.Mul(g.Scalar(decay/2), reg))))
	}
	return loss, nil
}

// TrainFrictionNet fits the 4-16-4 network of §VI (end) to per-trajectory
// friction estimates: cmds[i] is trajectory i's constant command, mus[i] its
// identified μ. The graph is compiled once and L-BFGS-B minimises the mean
// squared error with a small weight decay from a seeded start.
func TrainFrictionNet(cmds, mus [][4]float64, decay float64, seed uint64) (*FrictionNet, *opt.Result, error) {
	n := len(cmds)
	if n == 0 || len(mus) != n {
		return nil, nil, fmt.Errorf("mecanum: %d commands and %d μ estimates", n, len(mus))
	}
	var in, tg []float64
	scale := 0.0
	for i := range n {
		in = append(in, cmds[i][:]...)
		tg = append(tg, mus[i][:]...)
		for _, w := range cmds[i] {
			scale = max(scale, abs(w))
		}
	}
	if scale == 0 {
		scale = 1
	}
	const muMax = 2
	net := newNet(NetHidden, scale, muMax, seed)
	prog, err := ad.Compile(netParams(NetHidden), func(g *ad.Graph, p []*G.Node) (*G.Node, error) {
		return netLoss(g, p, in, tg, n, NetHidden, scale, muMax, decay)
	})
	if err != nil {
		return nil, nil, err
	}
	res, err := opt.LBFGSB{}.Minimize(opt.Problem{Objective: prog.Eval}, net.flatten(), opt.Settings{MaxIterations: 2000, GradientTol: 1e-9})
	if err != nil {
		return nil, nil, err
	}
	net.unflatten(res.X)
	return net, res, nil
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}
