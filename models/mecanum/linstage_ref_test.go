package mecanum

// eval is the model's loss at x̄ + δ and, when grad is not nil, its
// gradient (the closest point held, which is the exact gradient of the
// distance wherever the closest point is a stationary point; with
// ImplicitClosest the same correction as Fit.eval's). linearStage's
// steps evaluate the model by hessEval; eval, on Fit.sampleTerms as
// Fit.eval is, is the tests' reference for it (TestHessEval).
func (m *linEq8) eval(d, grad []float64) float64 {
	f := m.f
	nb := len(f.segs)
	if grad != nil {
		clear(grad)
	}
	var L float64
	// the terms come run by run (linearize): δ's 7 entries of a run are
	// gathered, and its gradient scattered, once per run
	for lo := 0; lo < len(m.terms); {
		run := m.terms[lo].run
		hi := lo + 1
		for hi < len(m.terms) && m.terms[hi].run == run {
			hi++
		}
		seg := &f.segs[run]
		idx := [7]int{0, 1, 2, 3, 4 + run, 4 + nb + run, 4 + 2*nb + run}
		var dv, g7 [7]float64
		for j, k := range idx {
			dv[j] = d[k]
		}
		for i := lo; i < hi; i++ {
			t := &m.terms[i]
			e, q := t.e, t.q
			for j := range 7 {
				e[0] += t.gp[0][j] * dv[j]
				e[1] += t.gp[1][j] * dv[j]
				q[0] += t.gq[0][j] * dv[j]
				q[1] += t.gq[1][j] * dv[j]
			}
			gp, gq, _ := f.sampleTerms(&L, seg, t.k, e[0]+seg.gx[t.k], e[1]+seg.gy[t.k], q[0], q[1], false, &m.warm[i])
			gx, gy, hx, hy := gp[0], gp[1], gq[0], gq[1]
			if grad != nil {
				for j := range 7 {
					g7[j] += gx*t.gp[0][j] + gy*t.gp[1][j] + hx*t.gq[0][j] + hy*t.gq[1][j]
				}
			}
		}
		if grad != nil {
			for j, k := range idx {
				grad[k] += g7[j]
			}
		}
		lo = hi
	}
	if f.Cfg.Prior > 0 {
		for j := range 4 {
			e := m.x[j] + d[j] - f.Cfg.PriorMu[j]
			L += f.Cfg.Prior * e * e
			if grad != nil {
				grad[j] += 2 * f.Cfg.Prior * e
			}
		}
	}
	return L
}
