package rbf

import (
	"fmt"

	G "gorgonia.org/gorgonia"

	"github.com/wheelgrad/wheelgrad/ad"
)

// BuildNetwork adds the network (eqs. 16–17) to a graph, evaluated on a
// batch of N inputs X (N×In matrix node): bias (Out), alpha (H×Out), centers
// (H×In) and sigma (H) are parameter nodes. It returns the N×Out outputs.
// The squared distances come from ‖x‖² − 2x·δ + ‖δ‖², so the whole batch is
// three matrix products rather than N·H scalar nodes.
func BuildNetwork(g *ad.Graph, X, bias, alpha, centers, sigma *G.Node) (y *G.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("rbf: building the network graph: %v", r)
		}
	}()
	n, h, in := X.Shape()[0], centers.Shape()[0], centers.Shape()[1]
	// outer(a, b) = a·bᵀ as a matrix product of an n×1 and a 1×h matrix
	// (whose gradient gorgonia gets right, unlike OuterProd's in 0.9.17).
	outer := func(a, b *G.Node) *G.Node {
		return G.Must(G.Mul(G.Must(G.Reshape(a, []int{a.Shape()[0], 1})), G.Must(G.Reshape(b, []int{1, b.Shape()[0]}))))
	}
	onesN := g.Const(ones(n))
	onesH := g.Const(ones(h))
	// ‖x‖² is data: the caller's X is a constant, but it is formed in the
	// graph so that X may also be an input node.
	xx := G.Must(G.Mul(G.Must(G.Square(X)), g.Const(ones(in))))       // N
	cc := G.Must(G.Mul(G.Must(G.Square(centers)), g.Const(ones(in)))) // H
	xc := G.Must(G.Mul(X, G.Must(G.Transpose(centers))))              // N×H
	d2 := G.Must(G.Sub(G.Must(G.Add(outer(xx, onesH), outer(onesN, cc))), G.Must(G.Mul(g.Scalar(2), xc))))
	inv := G.Must(G.Inverse(G.Must(G.Square(sigma)))) // H
	phi := G.Must(G.Exp(G.Must(G.Neg(G.Must(G.HadamardProd(d2, outer(onesN, inv)))))))
	y = G.Must(G.Add(G.Must(G.Mul(phi, alpha)), outer(onesN, bias)))
	return y, nil
}

func ones(n int) []float64 {
	o := make([]float64, n)
	for i := range o {
		o[i] = 1
	}
	return o
}

// Params returns the parameter blocks of a network of h units for ad
// programs: bias [Out], alpha [h, Out], centers [h, In], sigma [h].
func Params(in, out, h int) []ad.Param {
	return []ad.Param{{Name: "bias", Shape: []int{out}}, {Name: "alpha", Shape: []int{h, out}}, {Name: "centers", Shape: []int{h, in}}, {Name: "sigma", Shape: []int{h}}}
}

// ToBlocks converts a network's W (eq. 23 layout) into the flat x of the ad
// program of Params; FromBlocks is its inverse.
func (n *Network) ToBlocks() []float64 {
	h, st := n.Units(), n.stride()
	x := make([]float64, 0, len(n.W))
	x = append(x, n.W[:n.Out]...)
	for j := range h {
		x = append(x, n.W[n.Out+j*st:n.Out+j*st+n.Out]...)
	}
	for j := range h {
		o := n.Out + j*st + n.Out
		x = append(x, n.W[o:o+n.In]...)
	}
	for j := range h {
		x = append(x, n.W[n.Out+j*st+n.Out+n.In])
	}
	return x
}

// FromBlocks returns the network of h units whose ad-program parameters are x.
func FromBlocks(in, out, h int, x []float64) *Network {
	n := New(in, out)
	copy(n.W, x[:out])
	for j := range h {
		n.AddUnit(x[out+j*out:out+(j+1)*out], x[out+h*out+j*in:out+h*out+(j+1)*in], x[out+h*out+h*in+j])
	}
	return n
}

// NewBatchLoss compiles ½ Σ_i ‖f(x_i) − t_i‖² over the rows of X (N×in,
// row-major) and T (N×out) for a network of h units, as an ad.Program whose
// Eval plugs into opt.Problem (a fixed-size network trained in batch).
// The network's outputs on X are watched as "y".
func NewBatchLoss(in, out, h int, X, T []float64) (*ad.Program, error) {
	n := len(X) / in
	if len(X) != n*in || len(T) != n*out || n == 0 {
		return nil, fmt.Errorf("rbf: %d inputs and %d targets for %d×%d", len(X), len(T), in, out)
	}
	return ad.Compile(Params(in, out, h), func(g *ad.Graph, p []*G.Node) (*G.Node, error) {
		xn := g.Const(X, n, in)
		y, err := BuildNetwork(g, xn, p[0], p[1], p[2], p[3])
		if err != nil {
			return nil, err
		}
		g.Watch("y", y)
		r := G.Must(G.Sub(y, g.Const(T, n, out)))
		return G.Sum(G.Must(G.Mul(g.Scalar(0.5), G.Must(G.Sum(G.Must(G.Square(r)))))))
	})
}
