package control

import (
	"fmt"
	"math"

	G "gorgonia.org/gorgonia"

	"github.com/wheelgrad/wheelgrad/ad"
)

// Mecanum is the robot that synthesis plans for: FORMATS.md's mecanum model
// (Luo et al. eqs. 3–5). Friction is the constant Mu unless Friction is set.
type Mecanum struct {
	R, Lab, M, Gravity, Ts float64
	Mu                     [4]float64
	Friction               Friction // command-dependent friction μ(ω_s), or nil
}

// Friction is a command-dependent friction model (Luo et al. end of §VI:
// μ_j as a function of the four commanded wheel speeds), in native and graph
// form. Graph receives the four commanded speeds as vectors over segments and
// returns the four μ vectors.
type Friction interface {
	Mu(ws [4]float64) [4]float64
	Graph(g *ad.Graph, ws [4]*G.Node) ([4]*G.Node, error)
}

// k is the friction slope of eq. 3: ω = ω_s·(1 − μ·k), k = M·g·r/(4·Ts).
func (m Mecanum) k() float64 { return m.M * m.Gravity * m.R / (4 * m.Ts) }

func (m Mecanum) validate() error {
	for _, v := range []float64{m.R, m.Lab, m.M, m.Gravity, m.Ts} {
		if !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("control: Mecanum constants must be positive and finite (r=%g lab=%g M=%g g=%g Ts=%g)", m.R, m.Lab, m.M, m.Gravity, m.Ts)
		}
	}
	return nil
}

// mu returns the friction for one command.
func (m Mecanum) mu(ws [4]float64) [4]float64 {
	if m.Friction != nil {
		return m.Friction.Mu(ws)
	}
	return m.Mu
}

// Body returns the body velocity (vx lateral, vy forward, wz) for one
// command: eq. 3 then B of eq. 4.
func (m Mecanum) Body(ws [4]float64) (vx, vy, wz float64) {
	mu := m.mu(ws)
	k := m.k()
	var w [4]float64
	for j := range w {
		w[j] = ws[j] * (1 - mu[j]*k)
	}
	vx = m.R / 4 * (-w[0] + w[1] - w[2] + w[3])
	vy = m.R / 4 * (w[0] + w[1] + w[2] + w[3])
	wz = m.R / (4 * m.Lab) * (w[0] - w[1] - w[2] + w[3])
	return
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
	a := m.R / 4
	b := m.R / (4 * m.Lab)
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
