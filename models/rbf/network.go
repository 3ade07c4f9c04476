package rbf

import (
	"errors"
	"fmt"
	"math"
)

// Network is a Gaussian RBF network (eqs. 16–17). W holds α₀ (Out values),
// then for each unit α_j (Out), δ_j (In) and σ_j (1): eq. 23's layout.
type Network struct {
	In, Out int
	W       []float64
}

// New returns a network with no hidden units (y = α₀ = 0).
func New(in, out int) *Network {
	return &Network{In: in, Out: out, W: make([]float64, out)}
}

// stride is the number of parameters of one hidden unit.
func (n *Network) stride() int { return n.Out + n.In + 1 }

// Units is the number of hidden units.
func (n *Network) Units() int { return (len(n.W) - n.Out) / n.stride() }

// Unit returns views of unit j's weight α_j, centre δ_j and width σ_j.
func (n *Network) Unit(j int) (alpha, center []float64, sigma float64) {
	o := n.Out + j*n.stride()
	return n.W[o : o+n.Out], n.W[o+n.Out : o+n.Out+n.In], n.W[o+n.Out+n.In]
}

// AddUnit appends a hidden unit.
func (n *Network) AddUnit(alpha, center []float64, sigma float64) {
	n.W = append(n.W, alpha...)
	n.W = append(n.W, center...)
	n.W = append(n.W, sigma)
}

// Validate checks dimensions and finiteness.
func (n *Network) Validate() error {
	if n.In < 1 || n.Out < 1 {
		return fmt.Errorf("rbf: network of %d inputs and %d outputs", n.In, n.Out)
	}
	if (len(n.W)-n.Out)%n.stride() != 0 || len(n.W) < n.Out {
		return fmt.Errorf("rbf: %d parameters do not fit %d inputs and %d outputs", len(n.W), n.In, n.Out)
	}
	for i, v := range n.W {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("rbf: parameter %d is not finite", i)
		}
	}
	for j := range n.Units() {
		if _, _, s := n.Unit(j); s == 0 {
			return errors.New("rbf: a unit has zero width")
		}
	}
	return nil
}

// Eval writes f(x) into y (len Out).
func (n *Network) Eval(x, y []float64) {
	copy(y, n.W[:n.Out])
	st := n.stride()
	for o := n.Out; o < len(n.W); o += st {
		phi := n.phi(x, o)
		for k := range n.Out {
			y[k] += n.W[o+k] * phi
		}
	}
}

// Predict returns f(x) for a scalar-output network.
func (n *Network) Predict(x ...float64) float64 {
	y := make([]float64, n.Out)
	n.Eval(x, y)
	return y[0]
}

// phi is eq. 17 for the unit starting at offset o of W.
func (n *Network) phi(x []float64, o int) float64 {
	c := n.W[o+n.Out : o+n.Out+n.In]
	s := n.W[o+n.Out+n.In]
	d2 := 0.0
	for i, xi := range x {
		d := xi - c[i]
		d2 += d * d
	}
	return math.Exp(-d2 / (s * s))
}

// Gradient writes ∂f_k/∂W_i into g[i·Out + k] (len(W)·Out) and f(x) into y.
func (n *Network) Gradient(x, y, g []float64) {
	out, in := n.Out, n.In
	copy(y, n.W[:out])
	for i := range out * out {
		g[i] = 0
	}
	for k := range out {
		g[k*out+k] = 1
	}
	st := n.stride()
	for o := out; o < len(n.W); o += st {
		c := n.W[o+out : o+out+in]
		s := n.W[o+out+in]
		d2 := 0.0
		for i, xi := range x {
			d := xi - c[i]
			d2 += d * d
		}
		phi := math.Exp(-d2 / (s * s))
		for k := range out {
			y[k] += n.W[o+k] * phi
		}
		// ∂/∂α_jk' : φ on output k'.
		for k := range out {
			for kk := range out {
				g[(o+k)*out+kk] = 0
			}
			g[(o+k)*out+k] = phi
		}
		inv := 1 / (s * s)
		for i := range in {
			f := 2 * (x[i] - c[i]) * inv * phi
			for k := range out {
				g[(o+out+i)*out+k] = n.W[o+k] * f
			}
		}
		fs := 2 * d2 * inv / s * phi
		for k := range out {
			g[(o+out+in)*out+k] = n.W[o+k] * fs
		}
	}
}

// Clone returns a deep copy.
func (n *Network) Clone() *Network {
	return &Network{In: n.In, Out: n.Out, W: append([]float64(nil), n.W...)}
}
