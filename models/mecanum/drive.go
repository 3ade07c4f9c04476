package mecanum

import (
	"fmt"

	G "gorgonia.org/gorgonia"

	"github.com/wheelgrad/wheelgrad/ad"
	"github.com/wheelgrad/wheelgrad/graph"
)

// Drive is the robot that control synthesis plans for (control.Drive):
// FORMATS.md's mecanum model, eq. 3's wheel speeds under friction and eq.
// 4's body velocity, in native and graph form. Friction overrides the
// parameters' friction when set (tests, or a "true" robot in MPC).
type Drive struct {
	Params   Params
	Friction Friction
}

// NewDrive plans with p: its constant μ, or its friction network.
func NewDrive(p Params) (Drive, error) {
	if err := p.Validate(); err != nil {
		return Drive{}, err
	}
	d := Drive{Params: p}
	if p.Friction != nil {
		d.Friction = NetFriction{Net: p.Friction}
	}
	return d, nil
}

// Friction is a command-dependent friction model (Luo et al. end of §VI:
// μ_j as a function of the four commanded wheel speeds), in native and graph
// form. Graph receives the four commanded speeds as vectors over segments and
// returns the four μ vectors.
type Friction interface {
	Mu(ws [4]float64) [4]float64
	Graph(g *ad.Graph, ws [4]*G.Node) ([4]*G.Node, error)
}

// Validate checks the parameters (μ may be missing when Friction is set).
func (d Drive) Validate() error {
	p := d.Params
	if d.Friction != nil && p.Mu == nil {
		p.Mu = []float64{0, 0, 0, 0} // friction comes from the override
	}
	return p.Validate()
}

// mu returns the friction for one command.
func (d Drive) mu(ws [4]float64) [4]float64 {
	if d.Friction != nil {
		return d.Friction.Mu(ws)
	}
	return d.Params.MuAt(ws)
}

// Body returns the body velocity (vx lateral, vy forward, wz) for one
// command: eq. 3 then B of eq. 4.
func (d Drive) Body(ws [4]float64) (vx, vy, wz float64) {
	return d.Params.Velocity(ws, d.mu(ws))
}

// BodyGraph is Body on the four command vectors (one entry per control
// segment): the wheel speeds under friction of eq. 3 (through the friction
// model's graph when set) and B of eq. 4, summed wheel by wheel.
func (d Drive) BodyGraph(g *ad.Graph, ws [4]*G.Node) (vx, vy, wz *G.Node, err error) {
	var b errBuilder
	k := d.Params.K()
	var om [4]*G.Node
	if d.Friction != nil {
		mus, err := d.Friction.Graph(g, ws)
		if err != nil {
			return nil, nil, nil, err
		}
		for j := range om {
			f := b.do(G.Sub(g.Scalar(1), b.do(G.Mul(mus[j], g.Scalar(k)))))
			om[j] = b.do(G.HadamardProd(ws[j], f))
		}
	} else {
		for j := range om {
			om[j] = b.do(G.Mul(ws[j], g.Scalar(1-d.Params.Mu[j]*k)))
		}
	}
	lin := func(c [4]float64) *G.Node {
		var acc *G.Node
		for j := range om {
			t := b.do(G.Mul(om[j], g.Scalar(c[j])))
			if acc == nil {
				acc = t
			} else {
				acc = b.do(G.Add(acc, t))
			}
		}
		return acc
	}
	B := d.Params.BMatrix()
	vx, vy, wz = lin(B[0]), lin(B[1]), lin(B[2])
	return vx, vy, wz, b.err
}

// PseudoInverse returns the commanded wheel speeds that produce the body
// velocity (vx, vy, wz) under constant friction: ω = B⁺·v (B has full row
// rank, so B⁺ = Bᵀ(BBᵀ)⁻¹, which for this B is diagonal scaling), then
// ω_s = ω / (1 − μ·k). With command-dependent friction it iterates the
// fixed point ω_s = ω / (1 − μ(ω_s)·k) a few times.
func (d Drive) PseudoInverse(vx, vy, wz float64) [4]float64 {
	// B rows are orthogonal: r/4·(−1,1,−1,1), r/4·(1,1,1,1), r/(4 lab)·(1,−1,−1,1),
	// each of squared norm 4·(row scale)², so B⁺ = Bᵀ·diag(1/(4·scale²)).
	a := d.Params.R / 4
	b := d.Params.R / (4 * d.Params.Lab)
	cx, cy, cz := vx/(4*a), vy/(4*a), wz/(4*b)
	w := [4]float64{-cx + cy + cz, cx + cy - cz, -cx + cy - cz, cx + cy + cz}
	ws := w
	k := d.Params.K()
	for range 20 {
		mu := d.mu(ws)
		for j := range ws {
			f := 1 - mu[j]*k
			if f < 0.05 {
				f = 0.05 // friction at or above the stall limit: no command reaches this speed
			}
			ws[j] = w[j] / f
		}
		if d.Friction == nil {
			break
		}
	}
	return ws
}

// NetFriction is the 4-16-4 friction network FrictionNet
// (h = tanh(W1·ω_s/scale + b1), μ = mu_max·σ(W2·h + b2)) as a Friction: the
// graph form evaluates it on vectors over segments, so the synthesis
// gradient flows through μ(ω_s) to the commands.
type NetFriction struct{ Net *FrictionNet }

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
		return mu, fmt.Errorf("mecanum: friction network graph: %w", b.err)
	}
	return mu, nil
}

// errBuilder threads the first error through a chain of gorgonia calls.
type errBuilder struct{ err error }

func (b *errBuilder) do(n *G.Node, err error) *G.Node {
	if b.err == nil && err != nil {
		b.err = err
	}
	if b.err != nil {
		return nil
	}
	return n
}
