package control

import "testing"

// BenchmarkTrack evaluates 100 s of a figure 8 at 240 Hz (24,000 poses
// against 6,000 samples of the curve).
func BenchmarkTrack(b *testing.B) {
	f := Figure8{A: 1, T: 100}
	dt := 1.0 / 240
	n := int(f.T / dt)
	poses := make([]Pose, n)
	vel := make([][2]float64, n)
	for k := range poses {
		x, y, vx, vy := f.At(float64(k+1) * dt)
		poses[k] = Pose{X: x + 0.001, Y: y}
		vel[k] = [2]float64{vx, vy}
	}
	for b.Loop() {
		Track(f, 0, dt, poses, vel)
	}
}
