// Package control synthesises the wheel commands that drive a robot model
// along a path (Luo et al. §VII-B): reference paths (circle, figure 8,
// waypoint files), heading modes, control synthesis by gradient through the
// model, and receding-horizon re-planning.
//
// Angles follow FORMATS.md: the Mecanum robot's forward axis is its body y
// axis, which points along the world direction (−sin θ, cos θ); travelling in
// direction φ forwards therefore means θ = φ − π/2.
package control
