package mecanum

import (
	"fmt"
	"math"
)

// FrictionNet is the 4-16-4 network of §VI (end): the friction coefficients
// as a function of the four commanded wheel speeds,
//
//	h = tanh(W1·(ω_s/scale) + b1),   μ = mu_max·σ(W2·h + b2),
//
// with 16 hidden units. The output sigmoid keeps μ in (0, mu_max) like the
// bounded form of eq. 14 (the paper does not say how its outputs are
// bounded); scale brings commands of tens of rad/s to order one.
type FrictionNet struct {
	Scale float64     `json:"scale"`
	MuMax float64     `json:"mu_max"`
	W1    [][]float64 `json:"W1"` // [16][4]
	B1    []float64   `json:"b1"` // [16]
	W2    [][]float64 `json:"W2"` // [4][16]
	B2    []float64   `json:"b2"` // [4]
}

// NetHidden is the hidden width of the paper's network.
const NetHidden = 16

// Validate checks the shapes and that every number is finite.
func (n *FrictionNet) Validate() error {
	if !(n.Scale > 0) || math.IsInf(n.Scale, 0) || !(n.MuMax > 0) || math.IsInf(n.MuMax, 0) {
		return fmt.Errorf("scale = %v and mu_max = %v must be positive and finite", n.Scale, n.MuMax)
	}
	h := len(n.B1)
	if h == 0 || len(n.W1) != h || len(n.W2) != 4 || len(n.B2) != 4 {
		return fmt.Errorf("shapes W1 %d×·, b1 %d, W2 %d×·, b2 %d: want W1 H×4, b1 H, W2 4×H, b2 4", len(n.W1), len(n.B1), len(n.W2), len(n.B2))
	}
	check := func(name string, v []float64, want int) error {
		if len(v) != want {
			return fmt.Errorf("%s row has %d values, want %d", name, len(v), want)
		}
		for _, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("%s has a non-finite value", name)
			}
		}
		return nil
	}
	for _, r := range n.W1 {
		if err := check("W1", r, 4); err != nil {
			return err
		}
	}
	for _, r := range n.W2 {
		if err := check("W2", r, h); err != nil {
			return err
		}
	}
	if err := check("b1", n.B1, h); err != nil {
		return err
	}
	return check("b2", n.B2, 4)
}

// Predict returns μ for the command w (native twin of the graph in
// TrainFrictionNet).
func (n *FrictionNet) Predict(w [4]float64) [4]float64 {
	h := make([]float64, len(n.B1))
	for i := range h {
		a := n.B1[i]
		for j := range 4 {
			a += n.W1[i][j] * w[j] / n.Scale
		}
		h[i] = math.Tanh(a)
	}
	var mu [4]float64
	for o := range 4 {
		a := n.B2[o]
		for i := range h {
			a += n.W2[o][i] * h[i]
		}
		mu[o] = n.MuMax * sigmoid(a)
	}
	return mu
}

// sigmoid in the two-sided form that keeps full relative precision.
func sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	q := math.Exp(z)
	return q / (1 + q)
}
