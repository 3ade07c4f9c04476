package losses

import (
	"fmt"
	"math"

	G "gorgonia.org/gorgonia"

	"github.com/wheelgrad/wheelgrad/graph"
)

// VelocityL1 is the calibration loss of Park, Lee, Kuipers eq. 22 on one
// batch of samples: Σ |v̂ − ṽ| + c_ω·Σ |ω̂ − ω̃| over every element of the
// predicted velocities v, w and the measured vMeas, wMeas (all of one shape,
// e.g. one step of M segments). The paper chose the L1 norm so that stretches
// corrupted by unmodelled effects (castor hang-ups, bumps) weigh less than
// under L2.
//
// eps nil gives the exact |·| (gradient sign(e), 0 at e = 0); a node eps > 0
// gives graph.SmoothAbs of width eps, a smooth L1 for quasi-Newton methods
// that can be annealed towards the exact loss by changing eps between runs.
func VelocityL1(v, w, vMeas, wMeas *G.Node, cw float64, eps *G.Node) (*G.Node, error) {
	if v == nil || w == nil || vMeas == nil || wMeas == nil {
		return nil, fmt.Errorf("losses.VelocityL1: nil node")
	}
	if !(cw >= 0) || math.IsInf(cw, 0) {
		return nil, fmt.Errorf("losses.VelocityL1: c_ω = %v must be finite and ≥ 0", cw)
	}
	for _, m := range []*G.Node{w, vMeas, wMeas} {
		if !m.Shape().Eq(v.Shape()) {
			return nil, fmt.Errorf("losses.VelocityL1: shapes %v, %v, %v, %v differ", v.Shape(), w.Shape(), vMeas.Shape(), wMeas.Shape())
		}
	}
	abs := func(x *G.Node) (*G.Node, error) {
		if eps == nil {
			return G.Abs(x)
		}
		return graph.SmoothAbs(x, eps)
	}
	term := func(p, m *G.Node) (*G.Node, error) {
		d, err := G.Sub(p, m)
		if err != nil {
			return nil, err
		}
		a, err := abs(d)
		if err != nil {
			return nil, err
		}
		return G.Sum(a)
	}
	lv, err := term(v, vMeas)
	if err != nil {
		return nil, fmt.Errorf("losses.VelocityL1: v: %w", err)
	}
	if cw == 0 {
		return lv, nil
	}
	lw, err := term(w, wMeas)
	if err != nil {
		return nil, fmt.Errorf("losses.VelocityL1: ω: %w", err)
	}
	lw, err = G.Mul(lw, G.NewConstant(cw))
	if err != nil {
		return nil, err
	}
	return G.Add(lv, lw)
}

// VelocityL1Float is the native twin of VelocityL1 (eps ≤ 0: exact |·|).
// Slices of different lengths are an error.
func VelocityL1Float(v, w, vMeas, wMeas []float64, cw, eps float64) (float64, error) {
	if err := sameLen("VelocityL1Float", len(v), w, vMeas, wMeas); err != nil {
		return 0, err
	}
	abs := math.Abs
	if eps > 0 {
		abs = func(x float64) float64 { return graph.SmoothAbsFloat(x, eps) }
	}
	var lv, lw float64
	for i := range v {
		lv += abs(v[i] - vMeas[i])
		lw += abs(w[i] - wMeas[i])
	}
	return lv + cw*lw, nil
}

// SegmentsL1 is eq. 22 summed over the N steps of a batch of segments: step
// n's predicted v[n], w[n] (one [M] node each) against its measurements.
func SegmentsL1(v, w, vMeas, wMeas []*G.Node, cw float64, eps *G.Node) (*G.Node, error) {
	if len(v) == 0 || len(w) != len(v) || len(vMeas) != len(v) || len(wMeas) != len(v) {
		return nil, fmt.Errorf("losses.SegmentsL1: %d, %d, %d, %d steps", len(v), len(w), len(vMeas), len(wMeas))
	}
	terms := make(G.Nodes, len(v))
	for n := range v {
		t, err := VelocityL1(v[n], w[n], vMeas[n], wMeas[n], cw, eps)
		if err != nil {
			return nil, fmt.Errorf("step %d: %w", n, err)
		}
		terms[n] = t
	}
	if len(terms) == 1 {
		return terms[0], nil
	}
	return G.ReduceAdd(terms)
}
