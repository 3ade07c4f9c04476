package mecanum

import (
	"math"
	"slices"
)

// solveRef is l1QP.solve as it was before its iterations were made to
// cost what they touch (an O(m) pass over every term per iteration): the
// reference the new solve is checked and timed against (l1qp_test.go,
// BenchmarkL1QPSolve). It keeps its own copy (and heldRef, held's) so
// that it stays the reference when solve changes; it sets q.iters as
// solve does.
func (q *l1QP) solveRef(H, g []float64, w float64, out []float64, warm []int) (float64, error) {
	n, m := q.n, len(q.s)
	q.L = append(q.L[:0], H...)
	L := q.L
	if err := cholesky(n, L); err != nil {
		return 0, err
	}
	d := out
	clear(d)
	q.r = append(q.r[:0], q.s...)
	q.sig, q.ap = grow(q.sig, m), grow(q.ap, m)
	q.y, q.p, q.hp, q.gs = grow(q.y, n), grow(q.p, n), grow(q.hp, n), grow(q.gs, n)
	if cap(q.inZ) < m {
		q.inZ = make([]bool, m)
	}
	r, sig, ap, inZ := q.r, q.sig, q.ap, q.inZ[:m]
	p, hp, gs := q.p, q.hp, q.gs
	clear(inZ)
	q.an = grow(q.an, m)
	tiny := 1.0
	for _, v := range q.s {
		tiny += w * math.Abs(v)
	}
	tiny *= 1e-15
	for i := range m {
		var t float64
		for _, v := range q.a[i] {
			t += v * v
		}
		q.an[i] = math.Sqrt(t)
	}
	if len(q.pl) != q.nb {
		q.pl = make([][7]float64, q.nb)
	}
	for i := range m {
		sig[i] = 1
		if q.s[i] < 0 {
			sig[i] = -1
		}
	}
	q.signSum(gs)
	if len(q.K) != n {
		q.K = make([][]float64, n)
		for j := range q.K {
			q.K[j] = make([]float64, n)
		}
	}
	q.kz = q.kz[:0] // K's columns are H's: none made yet
	Z := q.Z[:0]
	if len(warm) > 0 && len(warm) <= n {
		// start on the held set of the last subproblem: Δ its minimiser
		// for the signs of s (the start need only satisfy Z's constraints;
		// the signs are then those of the residuals there)
		for _, i := range warm {
			if i < m && !inZ[i] {
				inZ[i] = true
				Z = append(Z, i)
				q.addRow(i, -sig[i], gs)
			}
		}
		if nu, ok := q.heldRef(Z, g, w, L); ok {
			q.step(nu, d)
			for j := range n {
				d[j] += q.p[j]
			}
			q.along(d, r)
			for i := range m {
				r[i] += q.s[i]
				if inZ[i] {
					r[i] = 0
				} else if r[i] < 0 {
					sig[i] = -1
				} else if r[i] > 0 {
					sig[i] = 1
				}
			}
			q.signSum(gs)
		} else {
			for _, i := range Z {
				inZ[i] = false
				q.addRow(i, sig[i], gs)
			}
			Z = Z[:0]
		}
	}
	const maxIter = 1000
	released, bland := -1, false
	q.iters = 0
	for iter := 0; iter < maxIter; iter++ {
		q.iters++
		nu, ok := q.heldRef(Z, g, w, L)
		if !ok {
			break // the held rows became dependent: stop where we are
		}
		q.step(nu, d)
		pHp := mulHp(n, H, p, hp)
		// a step too short to lower φ measurably is none: it only walks
		// into terms whose residuals are rounding (a degenerate corner)
		if pHp > tiny && len(Z) < n {
			var pn float64
			for _, v := range p {
				pn += v * v
			}
			pn = 1e-11 * math.Sqrt(pn)
			// ap = A·p (along) and the terms that cross zero before α = 1,
			// in one pass over the rows
			for rr := range q.pl {
				for j := range 7 {
					q.pl[rr][j] = p[q.col(int32(rr), j)]
				}
			}
			cands := q.cands[:0]
			for i := range q.a {
				a, pl := &q.a[i], &q.pl[q.run[i]]
				t := a[0]*pl[0] + a[1]*pl[1] + a[2]*pl[2] + a[3]*pl[3] + a[4]*pl[4] + a[5]*pl[5] + a[6]*pl[6]
				ap[i] = t
				// a row (numerically) in the span of the held rows does not
				// move along p: its rounding is no crossing
				if inZ[i] || sig[i]*t >= 0 || math.Abs(t) <= pn*q.an[i] {
					continue
				}
				if a := -r[i] / t; a < 1 {
					cands = append(cands, l1Cross{a: math.Max(a, 0), i: i})
				}
			}
			slices.SortFunc(cands, func(x, y l1Cross) int {
				if x.a < y.a {
					return -1
				}
				if x.a > y.a {
					return 1
				}
				return 0
			})
			q.cands = cands
			C, alpha, stop := 0.0, 1.0, -1
			nflip := 0
			for _, c := range cands {
				if am := 1 - C/pHp; am <= c.a {
					alpha = am
					break
				}
				if (c.a-1)*pHp+C+2*w*math.Abs(ap[c.i]) >= 0 {
					alpha, stop = c.a, c.i
					break
				}
				C += 2 * w * math.Abs(ap[c.i])
				nflip++
			}
			if stop < 0 && nflip == len(cands) {
				alpha = 1 - C/pHp
			}
			for j := range n {
				d[j] += alpha * p[j]
			}
			for i := range m {
				r[i] += alpha * ap[i]
			}
			for _, c := range cands[:nflip] {
				q.addRow(c.i, -2*sig[c.i], gs)
				sig[c.i] = -sig[c.i]
			}
			if stop >= 0 && stop == released {
				// the term just released is held again: at a degenerate
				// corner (more terms at their kinks than the held set
				// says) the largest multiplier can cycle; Bland's rule
				// (release the first violating term) cannot
				bland = true
			}
			released = -1
			if stop >= 0 {
				inZ[stop] = true
				Z = append(Z, stop)
				r[stop] = 0
				q.addRow(stop, -sig[stop], gs)
			}
			if !(alpha == 1 && C == 0 && stop < 0) {
				continue
			}
		}
		// at the minimiser for (Z, σ): release the worst held term
		var i int
		if Z, i = q.release(Z, nu, w, bland); i < 0 {
			break
		}
		released = i
	}
	q.Z = Z
	phi := quadValue(n, H, g, d)
	for i := range m {
		phi += w * (math.Abs(r[i]) - math.Abs(q.s[i]))
	}
	return phi, nil
}

// heldRef is l1QP.held as it was (solveRef's): it solves the quadratic of the held set Z and the signs (gs): y =
// H⁻¹(g + w·Σσ_i a_i) in q.y, K = H⁻¹A_Zᵀ in q.K and the multipliers ν of
// Z's constraints (returned; false if Z's rows are dependent).
func (q *l1QP) heldRef(Z []int, g []float64, w float64, L []float64) ([]float64, bool) {
	n := q.n
	y := q.y
	for j := range n {
		y[j] = g[j] + w*q.gs[j]
	}
	cholSolve(n, L, y)
	z := len(Z)
	if z == 0 {
		return nil, true
	}
	if z > n {
		return nil, false
	}
	q.S = grow(q.S, z*z)
	q.nu = grow(q.nu, z)
	S, rhs := q.S, q.nu
	for a, i := range Z {
		if a < len(q.kz) && q.kz[a] == i {
			continue // K's column of term i, from an earlier call
		}
		k := q.K[a]
		clear(k)
		q.addRow(i, 1, k)
		cholSolve(n, L, k)
		if a < len(q.kz) {
			q.kz[a] = i
		} else {
			q.kz = append(q.kz, i)
		}
	}
	for a, i := range Z {
		rhs[a] = q.s[i] - q.dotRow(i, y)
		for b := range z {
			S[a*z+b] = q.dotRow(i, q.K[b])
		}
	}
	if err := cholesky(z, S); err != nil {
		return nil, false
	}
	cholSolve(z, S, rhs)
	return rhs, true
}
