package losses

import (
	"fmt"
	"math"

	G "gorgonia.org/gorgonia"
)

// GroundTruthLoss is the native ground-truth loss of Luo et al. eq. 6,
//
//	L_gt = Σ_k |p_k − p_gt,k|,
//
// the sum of the distances between predicted and measured positions (not
// squared: a few bad camera samples pull less). When dpx is non-nil the
// gradient w·(p_k − p_gt,k)/d_k is added to dpx, dpy, scaled by w. A zero
// distance contributes the subgradient 0. Slices of different lengths are
// an error (dpx, dpy: nil or of px's length).
func GroundTruthLoss(px, py, gx, gy []float64, w float64, dpx, dpy []float64) (float64, error) {
	if err := sameLen("GroundTruthLoss", len(px), py, gx, gy); err != nil {
		return 0, err
	}
	if err := gradLen("GroundTruthLoss", len(px), dpx, dpy); err != nil {
		return 0, err
	}
	var l float64
	for k := range px {
		dx, dy := px[k]-gx[k], py[k]-gy[k]
		d := math.Hypot(dx, dy)
		l += d
		if dpx != nil && d > 0 {
			dpx[k] += w * dx / d
			dpy[k] += w * dy / d
		}
	}
	return w * l, nil
}

// sameLen checks that every slice has n entries.
func sameLen(fn string, n int, ss ...[]float64) error {
	for _, s := range ss {
		if len(s) != n {
			return fmt.Errorf("losses.%s: slices of lengths %d and %d", fn, n, len(s))
		}
	}
	return nil
}

// gradLen checks gradient outputs: both nil, or both of length n.
func gradLen(fn string, n int, dpx, dpy []float64) error {
	if dpx == nil && dpy == nil {
		return nil
	}
	if len(dpx) != n || len(dpy) != n {
		return fmt.Errorf("losses.%s: gradient slices of lengths %d and %d for %d points", fn, len(dpx), len(dpy), n)
	}
	return nil
}

// GroundTruth builds eq. 6 in a graph over arrays of any shape (e.g. a batch
// [B, T] of control rows) of which only the rows with mask = 1 (camera
// samples) count:
//
//	L_gt = Σ mask ⊙ sqrt(Δx² + Δy² + (1 − mask)).
//
// The (1 − mask) inside the root keeps it away from zero on the rows that do
// not count, whose gradient would otherwise be 0·∞. mask must be 0 or 1; gx,
// gy may hold anything on the rows with mask 0.
func GroundTruth(px, py, gx, gy, mask *G.Node) (*G.Node, error) {
	return maskedDistance("GroundTruth", px, py, gx, gy, mask)
}

func maskedDistance(fn string, px, py, gx, gy, mask *G.Node) (n *G.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			n, err = nil, fmt.Errorf("losses.%s: %v", fn, r)
		}
	}()
	for _, a := range []*G.Node{py, gx, gy, mask} {
		if !a.Shape().Eq(px.Shape()) {
			return nil, fmt.Errorf("losses.%s: shapes %v and %v differ", fn, a.Shape(), px.Shape())
		}
	}
	dx := G.Must(G.Sub(px, gx))
	dy := G.Must(G.Sub(py, gy))
	one := G.NewConstant(1.0)
	om := G.Must(G.Sub(one, mask))
	d2 := G.Must(G.Add(G.Must(G.Add(G.Must(G.Square(dx)), G.Must(G.Square(dy)))), om))
	d := G.Must(G.HadamardProd(mask, G.Must(G.Sqrt(d2))))
	return G.Sum(d)
}
