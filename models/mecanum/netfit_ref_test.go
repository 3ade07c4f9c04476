package mecanum

import (
	"fmt"
	"math"
)

// evalAdjoint is NetFit's loss with the hand-written reverse pass through
// the Euler rollout (eq. 5), eqs. 3–4 and the network: NetFit.Eval before
// it ran on NetModel's generated reverse pass, kept as the reference the
// generated gradient is tested against.
func (f *NetFit) evalAdjoint(x, grad []float64) (float64, error) {
	if len(x) != f.Dim() || (grad != nil && len(grad) != f.Dim()) {
		return 0, fmt.Errorf("mecanum: x has %d values, the network fit has %d", len(x), f.Dim())
	}
	H := f.H
	nw, nb := f.NetWeights(), len(f.runs)
	W1, b1 := x[:4*H], x[4*H:5*H]
	W2, b2 := x[5*H:9*H], x[9*H:9*H+4]
	if grad != nil {
		clear(grad)
	}
	B := f.P.BMatrix()
	K := f.P.K()
	ell := f.ell
	norm := 1 / (NetUnit * NetUnit * float64(f.ncam))
	var L float64
	var in [4]float64
	for ri := range f.runs {
		s := &f.runs[ri]
		if s.px == nil { // the reference's scratch, at its first use
			n := len(s.dt)
			// each row's index among the distinct consecutive commands
			s.cmd, s.cmds = make([]int, n), nil
			for i := range n {
				if i == 0 || s.w[i] != s.w[i-1] {
					s.cmds = append(s.cmds, s.w[i])
				}
				s.cmd[i] = len(s.cmds) - 1
			}
			s.px, s.py, s.pt = make([]float64, n), make([]float64, n), make([]float64, n)
			s.sn, s.cs = make([]float64, n), make([]float64, n)
			s.vel, s.velb = make([][3]float64, len(s.cmds)), make([][3]float64, len(s.cmds))
			s.mu, s.mub = make([][4]float64, len(s.cmds)), make([][4]float64, len(s.cmds))
			s.hid = make([][]float64, len(s.cmds))
			for c := range s.hid {
				s.hid[c] = make([]float64, H)
			}
		}
		// the network at each distinct command
		for c, w := range s.cmds {
			for j := range 4 {
				in[j] = w[j] / f.Scale
			}
			h := s.hid[c]
			for i := range H {
				a := b1[i]
				for j := range 4 {
					a += W1[i*4+j] * in[j]
				}
				h[i] = math.Tanh(a)
			}
			for o := range 4 {
				a := b2[o]
				for i := range H {
					a += W2[o*H+i] * h[i]
				}
				s.mu[c][o] = f.MuMax * sigmoid(a)
			}
			var v [3]float64
			for j := range 4 {
				om := w[j] * (1 - s.mu[c][j]*K)
				for r := range 3 {
					v[r] += B[r][j] * om
				}
			}
			s.vel[c] = v
		}
		// rollout
		px, py, th := x[nw+ri], x[nw+nb+ri], x[nw+2*nb+ri]
		n := len(s.dt)
		for i := range n {
			s.px[i], s.py[i], s.pt[i] = px, py, th
			sn, cs := math.Sincos(th)
			s.sn[i], s.cs[i] = sn, cs
			dt := s.dt[i]
			if dt == 0 {
				continue
			}
			v := &s.vel[s.cmd[i]]
			vx, vy, wz := v[0], v[1], v[2]
			px += dt * (cs*vx - sn*vy)
			py += dt * (sn*vx + cs*vy)
			th += dt * wz
		}
		d := f.Delay(x, ri)
		for k, i := range s.cam {
			ex, ey, qx, qy, _, _ := s.residual(k, i, d, ell)
			L += norm * (ex*ex + ey*ey + qx*qx + qy*qy)
		}
		if grad == nil {
			continue
		}
		// reverse pass
		for c := range s.velb {
			s.velb[c] = [3]float64{}
		}
		var xb, yb, tb, db float64
		k := len(s.cam) - 1
		for i := n - 1; i >= 0; i-- {
			sn, cs := s.sn[i], s.cs[i]
			if dt := s.dt[i]; dt != 0 {
				// adjoint of pose i+1 → step i
				c := s.cmd[i]
				vx, vy := s.vel[c][0], s.vel[c][1]
				vb := &s.velb[c]
				vb[0] += dt * (cs*xb + sn*yb)
				vb[1] += dt * (-sn*xb + cs*yb)
				vb[2] += dt * tb
				tb += dt * (xb*(-sn*vx-cs*vy) + yb*(cs*vx-sn*vy))
			}
			if k >= 0 && s.cam[k] == i {
				ex, ey, qx, qy, hsn, hcs := s.residual(k, i, d, ell)
				gx, gy := 2*norm*(ex+qx), 2*norm*(ey+qy)
				gth := 2 * norm * (qx*(-ell*hcs) + qy*(-ell*hsn))
				xb += gx
				yb += gy
				tb += gth
				if f.Delays {
					c := s.cmd[i]
					v := s.vel[c]
					tb += d * (gx*(-sn*v[0]-cs*v[1]) + gy*(cs*v[0]-sn*v[1]))
					vb := &s.velb[c]
					vb[0] += d * (gx*cs + gy*sn)
					vb[1] += d * (-gx*sn + gy*cs)
					vb[2] += d * gth
					db += gx*(cs*v[0]-sn*v[1]) + gy*(sn*v[0]+cs*v[1]) + gth*v[2]
				}
				k--
			}
		}
		grad[nw+ri] += xb
		grad[nw+nb+ri] += yb
		grad[nw+2*nb+ri] += tb
		if f.Delays {
			grad[nw+3*nb+ri] += db
		}
		// through the network
		gW1, gb1 := grad[:4*H], grad[4*H:5*H]
		gW2, gb2 := grad[5*H:9*H], grad[9*H:9*H+4]
		for c, w := range s.cmds {
			vb := s.velb[c]
			for j := range 4 {
				s.mub[c][j] = -K * w[j] * (B[0][j]*vb[0] + B[1][j]*vb[1] + B[2][j]*vb[2])
			}
			h := s.hid[c]
			var zb [4]float64
			for o := range 4 {
				m := s.mu[c][o]
				zb[o] = s.mub[c][o] * m * (1 - m/f.MuMax)
				gb2[o] += zb[o]
				for i := range H {
					gW2[o*H+i] += zb[o] * h[i]
				}
			}
			for i := range H {
				hb := 0.0
				for o := range 4 {
					hb += W2[o*H+i] * zb[o]
				}
				ab := hb * (1 - h[i]*h[i])
				gb1[i] += ab
				for j := range 4 {
					gW1[i*4+j] += ab * w[j] / f.Scale
				}
			}
		}
	}
	if f.Decay > 0 {
		for _, r := range [][3]float64{{0, float64(4 * H), InputDecay}, {float64(5 * H), float64(9 * H), 1}} {
			d := f.Decay * r[2]
			for i := int(r[0]); i < int(r[1]); i++ {
				L += d / 2 * x[i] * x[i]
				if grad != nil {
					grad[i] += d * x[i]
				}
			}
		}
	}
	return L, nil
}

// residual returns camera sample k's position and marker residuals against
// the pose δ after row i, and the sine and cosine of that pose's heading.
func (s *netRun) residual(k, i int, d, ell float64) (ex, ey, qx, qy, hsn, hcs float64) {
	hx, hy := s.px[i], s.py[i]
	hsn, hcs = s.sn[i], s.cs[i]
	if d != 0 {
		v := s.vel[s.cmd[i]]
		hx += d * (hcs*v[0] - hsn*v[1])
		hy += d * (hsn*v[0] + hcs*v[1])
		hsn, hcs = math.Sincos(s.pt[i] + d*v[2])
	}
	ex, ey = hx-s.gx[k], hy-s.gy[k]
	qx, qy = hx-ell*hsn-s.qx[k], hy+ell*hcs-s.qy[k]
	return
}
