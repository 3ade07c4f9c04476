package diffdrive

import (
	"fmt"
	"math"

	G "gorgonia.org/gorgonia"

	"github.com/wheelgrad/wheelgrad/ad"
	"github.com/wheelgrad/wheelgrad/graph"
)

// PrimitiveRollout builds the model of eqs. 3–5, 19–21 over the Batch b from
// gorgonia's primitive ops and the graph package's friction clamps: N steps on
// [M] vectors, about 40 nodes per step. It is the reference the fused op is
// tested against, and the slow path (plain primitives allocate every
// intermediate [M] vector on every run).
//
// zeta is the [6] parameter node (c1, c2, α, β, γ, μ). With T nil the
// friction is the exact graph.ClampSym; with a scalar node T it is
// graph.TanhClampSym at temperature T. It returns the predicted v and ω after
// each step (one [M] node per step), for a loss such as losses.SegmentsL1.
// Unlike the native model a locked wheel's speed is the rounded sum
// ṡ + h·s̈ + h·μ̄ (≈ 1e-17), not exactly 0.
func PrimitiveRollout(g *ad.Graph, zeta, T *G.Node, b *Batch, l, h float64) (v, w []*G.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("diffdrive.PrimitiveRollout: %v", r)
		}
	}()
	if err := b.Check(); err != nil {
		return nil, nil, err
	}
	m := G.Must
	z := make([]*G.Node, 6)
	for i := range z {
		z[i] = m(G.Slice(zeta, G.S(i)))
	}
	c1, c2, mu := z[0], z[1], z[5]
	hc := g.Scalar(h)
	ah := m(G.Mul(z[2], hc))
	bh := m(G.Mul(z[3], hc))
	gh := m(G.Sub(g.Scalar(1), m(G.Mul(z[4], hc))))
	negInvH := g.Scalar(-1 / h)
	half, invL := g.Scalar(0.5), g.Scalar(1/l)
	M := b.M
	sR, aR, sL, aL := g.Const(b.Init[iSdR]), g.Const(b.Init[iSddR]), g.Const(b.Init[iSdL]), g.Const(b.Init[iSddL])
	wheel := func(sd, sdd, V *G.Node) (*G.Node, *G.Node, error) {
		mubar := m(G.Sub(m(G.Mul(sd, negInvH)), sdd))
		var fr *G.Node
		var err error
		if T == nil {
			fr, err = graph.ClampSym(mubar, mu)
		} else {
			fr, err = graph.TanhClampSym(mubar, mu, T)
		}
		if err != nil {
			return nil, nil, err
		}
		sdN := m(G.Add(sd, m(G.Mul(hc, m(G.Add(sdd, fr))))))
		sddN := m(G.Add(m(G.Sub(m(G.Mul(sdd, gh)), m(G.Mul(sd, bh)))), m(G.Mul(V, ah))))
		return sdN, sddN, nil
	}
	for n := range b.N {
		ufs := b.UF[n*M : (n+1)*M]
		absUF := make([]float64, M)
		for j, f := range ufs {
			absUF[j] = math.Abs(f)
		}
		uf := g.Const(ufs)
		gain := m(G.Sub(g.Scalar(1), m(G.Mul(g.Const(absUF), c2))))
		gu := m(G.Mul(m(G.HadamardProd(gain, g.Const(b.UL[n*M:(n+1)*M]))), c1))
		VR, VL := m(G.Add(uf, gu)), m(G.Sub(uf, gu))
		var err error
		if sR, aR, err = wheel(sR, aR, VR); err != nil {
			return nil, nil, err
		}
		if sL, aL, err = wheel(sL, aL, VL); err != nil {
			return nil, nil, err
		}
		v = append(v, m(G.Mul(m(G.Add(sR, sL)), half)))
		w = append(w, m(G.Mul(m(G.Sub(sR, sL)), invL)))
	}
	return v, w, nil
}

// MeasuredNodes returns the measured v and ω of each step of b as [M]
// constants, the counterparts of PrimitiveRollout's predictions.
func MeasuredNodes(g *ad.Graph, b *Batch) (v, w []*G.Node) {
	for n := range b.N {
		v = append(v, g.Const(b.V[n*b.M:(n+1)*b.M]))
		w = append(w, g.Const(b.W[n*b.M:(n+1)*b.M]))
	}
	return v, w
}
