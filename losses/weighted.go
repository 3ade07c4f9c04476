package losses

import (
	"fmt"

	G "gorgonia.org/gorgonia"
)

// Weights are the weights of Luo et al. eq. 8, L = w1·L_sp + w2·L_gt.
type Weights struct {
	Spline      float64 // w1
	GroundTruth float64 // w2
}

// DefaultWeights are the paper's w1 = 0.8, w2 = 0.2 (§V). L_sp alone would
// not penalise a robot that never leaves its start (every point of the curve
// is as good as the right one), hence the ground-truth term.
func DefaultWeights() Weights { return Weights{Spline: 0.8, GroundTruth: 0.2} }

// Weighted builds w1·lsp + w2·lgt (eq. 8) from the two scalar loss nodes;
// a nil term must have weight 0.
func Weighted(w Weights, lsp, lgt *G.Node) (n *G.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			n, err = nil, fmt.Errorf("losses.Weighted: %v", r)
		}
	}()
	var terms []*G.Node
	for _, t := range []struct {
		w float64
		n *G.Node
	}{{w.Spline, lsp}, {w.GroundTruth, lgt}} {
		if t.w == 0 {
			continue
		}
		if t.n == nil {
			return nil, fmt.Errorf("losses.Weighted: a term of weight %v is nil", t.w)
		}
		terms = append(terms, G.Must(G.Mul(G.NewConstant(t.w), t.n)))
	}
	if len(terms) == 0 {
		return nil, fmt.Errorf("losses.Weighted: every weight is zero")
	}
	s := terms[0]
	for _, t := range terms[1:] {
		s = G.Must(G.Add(s, t))
	}
	return s, nil
}
