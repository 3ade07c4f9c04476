package control

import (
	"math"

	G "gorgonia.org/gorgonia"

	"github.com/wheelgrad/wheelgrad/ad"
)

// Drive is a robot whose four commands, each held over a control segment,
// set its body velocity directly: (vx, vy, wz), vx to the robot's right,
// vy along its forward axis (the body y axis, FORMATS.md), wz the yaw rate.
// The pose follows by explicit Euler at the angle at the start of each
// step. Plan, Synthesizer and RunMPC synthesise its commands through a
// gorgonia graph, so that the gradient may flow through command-dependent
// friction (the Mecanum robot of models/mecanum, mecanum.Drive).
type Drive interface {
	// Body is the body velocity for one command.
	Body(ws [4]float64) (vx, vy, wz float64)
	// BodyGraph is Body on the four command vectors over segments.
	BodyGraph(g *ad.Graph, ws [4]*G.Node) (vx, vy, wz *G.Node, err error)
	// PseudoInverse returns a command whose body velocity is (vx, vy, wz),
	// or the nearest the robot reaches: the initial guess of synthesis.
	PseudoInverse(vx, vy, wz float64) [4]float64
	Validate() error
}

// Pose is a planar pose.
type Pose struct{ X, Y, Theta float64 }

// Execute runs commands held for n steps of dt each (controls[i] is segment
// i) from p0 through d by explicit Euler at the angle at the start of each
// step (FORMATS.md), and returns the pose after every step and the world
// velocity of every step.
func Execute(d Drive, p0 Pose, controls [][4]float64, n int, dt float64) ([]Pose, [][2]float64) {
	poses := make([]Pose, 0, len(controls)*n)
	vel := make([][2]float64, 0, len(controls)*n)
	p := p0
	for _, ws := range controls {
		vx, vy, wz := d.Body(ws)
		for range n {
			c, s := math.Cos(p.Theta), math.Sin(p.Theta)
			vw := [2]float64{c*vx - s*vy, s*vx + c*vy}
			p.X += dt * vw[0]
			p.Y += dt * vw[1]
			p.Theta += dt * wz
			poses = append(poses, p)
			vel = append(vel, vw)
		}
	}
	return poses, vel
}
