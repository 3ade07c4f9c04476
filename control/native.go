package control

import "math"

// NativeLoss is the synthesis loss computed by the native float64 rollout,
// term by term as the graph computes it: the reference the graph is tested
// against, and the breakdown printed by `wheelgrad follow -v`.
func (s *Synthesizer) NativeLoss(x []float64) (total float64, terms Weights) {
	p, r := s.plan, s.ref
	st := p.stride()
	controls := unflatten(x)
	m := len(r.T) - 1
	xs := make([]float64, 0, m)
	ys := make([]float64, 0, m)
	ths := make([]float64, 0, m)
	vxs := make([]float64, 0, m)
	vys := make([]float64, 0, m)
	// Velocity of each step is the world velocity at the step's start angle.
	pose := p.Start
	k := 0
	for _, ws := range controls {
		vx, vy, wz := p.Model.Body(ws)
		for range p.N {
			c, sn := math.Cos(pose.Theta), math.Sin(pose.Theta)
			vwx, vwy := c*vx-sn*vy, sn*vx+c*vy
			pose.X += p.Dt * vwx
			pose.Y += p.Dt * vwy
			pose.Theta += p.Dt * wz
			k++
			if k%st == 0 {
				xs, ys, ths = append(xs, pose.X), append(ys, pose.Y), append(ths, pose.Theta)
				vxs, vys = append(vxs, vwx), append(vys, vwy)
			}
		}
	}
	n := float64(m)
	for i := range m {
		dx, dy := xs[i]-r.X[i+1], ys[i]-r.Y[i+1]
		terms.Position += (dx*dx + dy*dy) / (n * scalePos * scalePos)
		dvx, dvy := vxs[i]-r.VX[i+1], vys[i]-r.VY[i+1]
		terms.Velocity += (dvx*dvx + dvy*dvy) / (n * scaleVel * scaleVel)
		if !math.IsNaN(r.Theta[i+1]) {
			terms.Heading += 2 * (1 - math.Cos(ths[i]-r.Theta[i+1])) / (n * scaleHeading * scaleHeading)
		}
	}
	if p.K > 1 {
		for j := range 4 {
			for i := 1; i < p.K; i++ {
				d := controls[i][j] - controls[i-1][j]
				terms.Smooth += d * d / (float64(4*(p.K-1)) * scaleSmooth * scaleSmooth)
			}
		}
	}
	w := p.Weights
	terms.Position *= w.Position
	terms.Velocity *= w.Velocity
	terms.Heading *= w.Heading
	terms.Smooth *= w.Smooth
	total = terms.Position + terms.Velocity + terms.Heading + terms.Smooth
	return total, terms
}
