package control

import (
	"math"

	G "gorgonia.org/gorgonia"

	"github.com/wheelgrad/wheelgrad/ad"
	"github.com/wheelgrad/wheelgrad/models/mecanum"
)

// Mecanum is the robot that synthesis plans for: FORMATS.md's mecanum model
// (Luo et al. eqs. 3–5) as models/mecanum defines it. Friction overrides the
// parameters' friction when set (tests, or a "true" robot in MPC).
type Mecanum struct {
	Params   mecanum.Params
	Friction Friction
}

// NewMecanum plans with p: its constant μ, or its friction network.
func NewMecanum(p mecanum.Params) (Mecanum, error) {
	if err := p.Validate(); err != nil {
		return Mecanum{}, err
	}
	m := Mecanum{Params: p}
	if p.Friction != nil {
		m.Friction = NetFriction{Net: p.Friction}
	}
	return m, nil
}

// Friction is a command-dependent friction model (Luo et al. end of §VI:
// μ_j as a function of the four commanded wheel speeds), in native and graph
// form. Graph receives the four commanded speeds as vectors over segments and
// returns the four μ vectors.
type Friction interface {
	Mu(ws [4]float64) [4]float64
	Graph(g *ad.Graph, ws [4]*G.Node) ([4]*G.Node, error)
}

// k is the friction slope of eq. 3: ω = ω_s·(1 − μ·k).
func (m Mecanum) k() float64 { return m.Params.K() }

func (m Mecanum) validate() error {
	p := m.Params
	if m.Friction != nil && p.Mu == nil {
		p.Mu = []float64{0, 0, 0, 0} // friction comes from the override
	}
	return p.Validate()
}

// mu returns the friction for one command.
func (m Mecanum) mu(ws [4]float64) [4]float64 {
	if m.Friction != nil {
		return m.Friction.Mu(ws)
	}
	return m.Params.MuAt(ws)
}

// Body returns the body velocity (vx lateral, vy forward, wz) for one
// command: eq. 3 then B of eq. 4.
func (m Mecanum) Body(ws [4]float64) (vx, vy, wz float64) {
	return m.Params.Velocity(ws, m.mu(ws))
}

// Pose is a planar pose.
type Pose struct{ X, Y, Theta float64 }

// Rollout integrates commands held for n steps of dt each (controls[i] is
// segment i) from p0 with explicit Euler at the angle at the start of each
// step (FORMATS.md), calling visit after every step with the step index
// (1-based: the pose at time k·dt).
func (m Mecanum) Rollout(p0 Pose, controls [][4]float64, n int, dt float64, visit func(k int, p Pose)) Pose {
	p := p0
	k := 0
	for _, ws := range controls {
		vx, vy, wz := m.Body(ws)
		for range n {
			c, s := math.Cos(p.Theta), math.Sin(p.Theta)
			p.X += dt * (c*vx - s*vy)
			p.Y += dt * (s*vx + c*vy)
			p.Theta += dt * wz
			k++
			if visit != nil {
				visit(k, p)
			}
		}
	}
	return p
}

// PseudoInverse returns the commanded wheel speeds that produce the body
// velocity (vx, vy, wz) under constant friction: ω = B⁺·v (B has full row
// rank, so B⁺ = Bᵀ(BBᵀ)⁻¹, which for this B is diagonal scaling), then
// ω_s = ω / (1 − μ·k). With command-dependent friction it iterates the
// fixed point ω_s = ω / (1 − μ(ω_s)·k) a few times.
func (m Mecanum) PseudoInverse(vx, vy, wz float64) [4]float64 {
	// B rows are orthogonal: r/4·(−1,1,−1,1), r/4·(1,1,1,1), r/(4 lab)·(1,−1,−1,1),
	// each of squared norm 4·(row scale)², so B⁺ = Bᵀ·diag(1/(4·scale²)).
	a := m.Params.R / 4
	b := m.Params.R / (4 * m.Params.Lab)
	cx, cy, cz := vx/(4*a), vy/(4*a), wz/(4*b)
	w := [4]float64{-cx + cy + cz, cx + cy - cz, -cx + cy - cz, cx + cy + cz}
	ws := w
	k := m.k()
	for range 20 {
		mu := m.mu(ws)
		for j := range ws {
			f := 1 - mu[j]*k
			if f < 0.05 {
				f = 0.05 // friction at or above the stall limit: no command reaches this speed
			}
			ws[j] = w[j] / f
		}
		if m.Friction == nil {
			break
		}
	}
	return ws
}
