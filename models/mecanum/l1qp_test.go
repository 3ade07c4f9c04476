package mecanum

import (
	"math"
	"slices"
	"testing"
)

// phiScale is the size of the sums φ(Δ) − φ(0) is made of, |½ΔᵀHΔ| +
// |gᵀΔ| + w·Σ_i (|s_i + a_iᵀΔ| + |s_i|): φ, a difference, is known to
// rounding of this (a small φ is mostly cancellation).
func phiScale(q *l1QP, H, g []float64, w float64, d []float64) float64 {
	n := q.n
	var quad, lin, l1 float64
	for i := range n {
		var t float64
		for j := range n {
			t += H[i*n+j] * d[j]
		}
		quad += 0.5 * d[i] * t
		lin += g[i] * d[i]
	}
	for i := range q.s {
		l1 += w * (math.Abs(q.s[i]+q.dotRow(i, d)) + math.Abs(q.s[i]))
	}
	return math.Abs(quad) + math.Abs(lin) + l1
}

// sameAsRef solves q from warm with solveRef and with solve (each on its
// own copy of q's buffers) and returns the largest differences of Δ
// (relative to ‖Δ‖∞) and of φ (relative to φ, and to phiScale), and
// whether the held sets (as sets) and the signs of the free terms agree;
// it also checks solve's φ against the objective computed at its Δ.
func sameAsRef(t *testing.T, name string, q *l1QP, H, g []float64, w float64, warm []int) (dd, dphi, dphiS float64, sameZ, sameSig bool) {
	t.Helper()
	a, b := *q, *q
	da, db := make([]float64, q.n), make([]float64, q.n)
	pa, err := a.solveRef(H, g, w, da, warm)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := b.solve(H, g, w, db, warm)
	if err != nil {
		t.Fatal(err)
	}
	S := phiScale(q, H, g, w, db)
	if direct := phiOf(q, H, g, w, db); math.Abs(direct-pb) > 1e-14*S {
		t.Errorf("%s: solve's φ %.17g, the objective at its Δ %.17g (sums of size %.3g)", name, pb, direct, S)
	}
	var dmax float64
	for j := range da {
		dmax = math.Max(dmax, math.Abs(da[j]))
		dd = math.Max(dd, math.Abs(da[j]-db[j]))
	}
	if dmax > 0 {
		dd /= dmax
	}
	dphi, dphiS = math.Abs(pa-pb)/math.Max(math.Abs(pa), 1e-300), math.Abs(pa-pb)/S
	za, zb := slices.Clone(a.Z), slices.Clone(b.Z)
	slices.Sort(za)
	slices.Sort(zb)
	sameZ, sameSig = slices.Equal(za, zb), true
	for i := range q.s {
		if !slices.Contains(za, i) && !slices.Contains(zb, i) && a.sig[i] != b.sig[i] {
			sameSig = false
		}
	}
	return dd, dphi, dphiS, sameZ, sameSig
}

// On every subproblem of two default identifications (recordL1Subs),
// each from its warm start, and again from a cold start, solve (which
// tests only the terms that can cross zero) returns what the full scan
// (solveRef) does: the same held set and signs, Δ within 1e-12 relative
// (to ‖Δ‖∞) and φ within 1e-14 of the sums it is the difference of
// (phiScale: φ itself can be 1e-8 of them, its last digits cancellation,
// computed from the residuals the full scan updates step by step and solve
// computes at Δ); and φ is the objective computed at its Δ to the same. Also
// with a new base point for the index at every line search (l1Rebase = 0).
func TestL1QPSameAsRef(t *testing.T) {
	subs := recordL1Subs(t)
	defer func(v int) { l1Rebase = v }(l1Rebase)
	for _, after := range []int{2, 0} {
		l1Rebase = after
		var worstD, worstPhi, worstPhiS float64
		var diffZ, diffSig, iters int
		for k, s := range subs {
			for _, warm := range [][]int{s.warm, nil} {
				dd, dphi, dphiS, sameZ, sameSig := sameAsRef(t, s.set, s.q, s.H, s.g, s.w, warm)
				worstD, worstPhi, worstPhiS = math.Max(worstD, dd), math.Max(worstPhi, dphi), math.Max(worstPhiS, dphiS)
				if !sameZ {
					diffZ++
					t.Errorf("rebase after %d·m, subproblem %d (%s, warm %v): held sets differ", after, k, s.set, warm != nil)
				}
				if !sameSig {
					diffSig++
					t.Errorf("rebase after %d·m, subproblem %d (%s, warm %v): signs differ", after, k, s.set, warm != nil)
				}
				if dd > 1e-12 || dphiS > 1e-14 {
					t.Errorf("rebase after %d·m, subproblem %d (%s, warm %v): Δ differs by %.3g (relative to ‖Δ‖∞), φ by %.3g of its sums' size", after, k, s.set, warm != nil, dd, dphiS)
				}
				c := *s.q
				c.solve(s.H, s.g, s.w, make([]float64, c.n), warm)
				iters += c.iters
			}
		}
		t.Logf("rebase after %d·m: %d subproblems × 2 starts (%d iterations): largest Δ difference %.3g (relative to ‖Δ‖∞), φ %.3g (relative to φ), %.3g (to its sums' size); held sets differ %d, signs %d",
			after, len(subs), iters, worstD, worstPhi, worstPhiS, diffZ, diffSig)
	}
}

// A line search that crosses many terms at once: 60 terms on μ_1 alone
// (three runs) with distances −0.01…−0.6, H = I and g = −10·e_1, w = 0.001:
// the first step, Δ_1 = 10, crosses all of them, each raising the slope
// by 2w, and the minimum is Δ_1 = 10 − 60w (every term crossed), the
// other entries 0; a second family of terms on the start poses, in pairs
// of the same row and distances ±(1…2) (never crossed, their pulls
// cancelling), leaves them at 0, and so does a zero row. Both solves end there, in two
// iterations (one line search and the check of the minimiser).
func TestL1QPManyCrossings(t *testing.T) {
	defer func(v int) { l1Rebase = v }(l1Rebase)
	const nb, w = 3, 0.001
	n := 4 + 3*nb
	q := &l1QP{n: n, nb: nb}
	for i := range 60 {
		q.s = append(q.s, -0.01*float64(i+1))
		q.a = append(q.a, [7]float64{1})
		q.run = append(q.run, int32(i%nb))
	}
	for i := range 30 {
		var a [7]float64
		a[4+i/2%3] = 1 + 0.1*float64(i/2)
		q.s = append(q.s, (1+float64(i)/30)*float64(1-2*(i%2)))
		q.a = append(q.a, a)
		q.run = append(q.run, int32(i/2%nb))
	}
	// and a zero row (its κ is +Inf): a constant term
	q.s, q.a, q.run = append(q.s, 0.5), append(q.a, [7]float64{}), append(q.run, 1)
	H, g := make([]float64, n*n), make([]float64, n)
	for j := range n {
		H[j*n+j] = 1
	}
	g[0] = -10
	for _, after := range []int{2, 0} {
		l1Rebase = after
		for _, ref := range []bool{false, true} {
			c := *q
			d := make([]float64, n)
			solve := c.solve
			if ref {
				solve = c.solveRef
			}
			phi, err := solve(H, g, w, d, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := 10 - 60*w
			if math.Abs(d[0]-want) > 1e-12*want || c.iters != 2 || len(c.Z) != 0 {
				t.Errorf("rebase after %d·m, ref %v: Δ_1 = %.17g (want %.17g) in %d iterations, %d held", after, ref, d[0], want, c.iters, len(c.Z))
			}
			for j := 1; j < n; j++ {
				if d[j] != 0 {
					t.Errorf("rebase after %d·m, ref %v: Δ_%d = %g, want 0", after, ref, j, d[j])
				}
			}
			if direct := phiOf(q, H, g, w, d); math.Abs(direct-phi) > 1e-12*math.Abs(phi) {
				t.Errorf("rebase after %d·m, ref %v: φ %.17g, the objective at Δ %.17g", after, ref, phi, direct)
			}
			for i := range 60 {
				if c.sig[i] != 1 {
					t.Errorf("rebase after %d·m, ref %v: term %d (distance %g) not crossed", after, ref, i, q.s[i])
					break
				}
			}
		}
	}
}
