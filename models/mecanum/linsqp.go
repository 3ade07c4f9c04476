package mecanum

import (
	"errors"
	"math"
	"slices"

	"github.com/wheelgrad/wheelgrad/losses"
)

// sqpState holds one second-order model of linEq8 at a point δ_k
// (hessEval) and the buffers of its subproblem (l1QP).
type sqpState struct {
	n    int
	F    float64   // linEq8 at δ_k
	g, H []float64 // gradient and Hessian of the smooth part (n, n×n)
	qp   l1QP      // the spline terms: distances and rows at δ_k
	blk  [][7][7]float64
	g7   [][7]float64
	// the spline terms' other branches at δ_k (branches) and a buffer
	br []branch
	cl []losses.Closest
	ap []float64
	zw []int
	// onBranches' buffers: the distances while it solves from Δ, the
	// step from there, g + HΔ, and the terms assign moved
	sv, ds, gw []float64
	mv         []bool
}

// branch is one branch of a spline term's distance at the point of a
// hessEval: its distance s and row a (as l1QP's s_i and a_i) and the
// term i. A term with other branches (losses.Spline.Branches) has a
// group of them in sqpState.br, its nearest (the one in l1QP) first.
type branch struct {
	i     int
	first bool
	s     float64
	a     [7]float64
}

func newSQPState(n, terms, runs int) *sqpState {
	return &sqpState{n: n, g: make([]float64, n), H: make([]float64, n*n),
		qp:  l1QP{n: n, nb: runs, s: make([]float64, 0, terms), a: make([][7]float64, 0, terms), run: make([]int32, 0, terms), pl: make([][7]float64, runs)},
		blk: make([][7][7]float64, runs), g7: make([][7]float64, runs)}
}

// normPair adds a sample's two norm terms, w·|e| for e = e(δ) with rows G,
// the position's (w2, e, Gp) and the marker's (w3, q, Gq), to the run's
// gradient g7 and block blk of the Hessian (w·Gᵀv̂v̂ᵀG/|e|, v̂ ⊥ e), and
// returns their values. (|e| by math.Sqrt: e is a position error, far
// from math.Hypot's overflow, and Hypot was a seventh of hessEval's time.)
// Both Hessians go into the block in one pass, each entry gaining the
// position's share and then the marker's, the sums of one term at a time
// to the bit: with one pass per term, the block's loads and stores were a
// quarter of hessEval's time (BenchmarkHessEval: 330 → 240 µs).
func normPair(blk *[7][7]float64, g7 *[7]float64, w2 float64, e [2]float64, Gp *[2][7]float64, w3 float64, q [2]float64, Gq *[2][7]float64) (float64, float64) {
	var v1, v2 [7]float64
	c1, L1 := normGrad(g7, w2, e, Gp, &v1)
	c2, L2 := normGrad(g7, w3, q, Gq, &v2)
	for p := range 7 {
		a1, a2 := c1*v1[p], c2*v2[p]
		bp := &blk[p]
		for k := p; k < 7; k++ {
			bp[k] = bp[k] + a1*v1[k] + a2*v2[k]
		}
	}
	return L1, L2
}

// normGrad adds the gradient of w·|e| (rows G) to g7 and returns its
// value and the weight c = w/|e| of its Hessian c·vvᵀ, v = Gᵀv̂ (v̂ ⊥ e) in
// v; c = 0 for a term that is zero (w = 0 or e = 0).
func normGrad(g7 *[7]float64, w float64, e [2]float64, G *[2][7]float64, v *[7]float64) (c, L float64) {
	r := math.Sqrt(e[0]*e[0] + e[1]*e[1])
	if w == 0 || r == 0 {
		return 0, 0
	}
	inv := 1 / r
	ux, uy := e[0]*inv, e[1]*inv
	wx, wy := w*ux, w*uy
	for j := range 7 {
		g7[j] += wx*G[0][j] + wy*G[1][j]
		v[j] = -uy*G[0][j] + ux*G[1][j]
	}
	return w * inv, w * r
}

// hessEval evaluates linEq8 at δ into st: the loss (st.F, the same as
// eval's) and a model of it in Δ = δ' − δ,
//
//	F + gᵀΔ + ½ΔᵀHΔ + w1·Σ_i (|s_i + a_iᵀΔ| − s_i),
//
// second order in the position and marker terms (a norm's Hessian
// w·Gᵀv̂v̂ᵀG/|e|, v̂ ⊥ e), and for the spline term the distance's
// first-order model across the curve (s_i the distance, a_i the row of
// its normal, so the kink where the point crosses the curve is kept). The
// curve's own curvature is left out: measured on the three sets of
// TestLinearStage, its convex part (the Hessian of the distance to a
// curve, −(n·c″)/(|c′|²·(|c′|² − (P − c)·c″))·c′c′ᵀ at an interior
// closest point) changed no step count, as the model's error is the
// curve's bends along the much longer slides of the points.
func (m *linEq8) hessEval(d []float64, st *sqpState) {
	f := m.f
	nb := len(f.segs)
	n := st.n
	w1, w2, w3 := f.Cfg.Weights.Spline, f.Cfg.Weights.GroundTruth, f.Cfg.Heading
	win := f.Cfg.window()
	clear(st.blk)
	clear(st.g7)
	q := &st.qp
	q.s, q.a, q.run = q.s[:0], q.a[:0], q.run[:0]
	st.br = st.br[:0]
	var L float64
	for i := range m.terms {
		t := &m.terms[i]
		seg := &f.segs[t.run]
		idx := [7]int{0, 1, 2, 3, 4 + t.run, 4 + nb + t.run, 4 + 2*nb + t.run}
		e, qm := t.e, t.q
		for j := range 7 {
			dv := d[idx[j]]
			e[0] += t.gp[0][j] * dv
			e[1] += t.gp[1][j] * dv
			qm[0] += t.gq[0][j] * dv
			qm[1] += t.gq[1][j] * dv
		}
		blk, g7 := &st.blk[t.run], &st.g7[t.run]
		l2, l3 := normPair(blk, g7, w2, e, &t.gp, w3, qm, &t.gq)
		L += l2
		L += l3
		if w1 != 0 {
			px, py := e[0]+seg.gx[t.k], e[1]+seg.gy[t.k]
			if i > 0 && m.terms[i-1].run == t.run {
				// a first search starts from the last sample's memory
				seg.spline.Seed(&m.warm[i], &m.warm[i-1], seg.tcam[t.k], win)
			}
			c := seg.spline.ClosestWarm(px, py, seg.tcam[t.k], win, &m.warm[i])
			L += w1 * c.Dist
			row := normalRow(px, py, &c, &t.gp)
			q.s = append(q.s, c.Dist)
			q.a = append(q.a, row)
			q.run = append(q.run, int32(t.run))
			if R := m.branchR; R > 0 {
				m.branches(st, i, seg, px, py, R, c, row)
			}
		}
	}
	clear(st.g)
	clear(st.H)
	for run := range st.blk {
		idx := [7]int{0, 1, 2, 3, 4 + run, 4 + nb + run, 4 + 2*nb + run}
		for p := range 7 {
			st.g[idx[p]] += st.g7[run][p]
			for q := p; q < 7; q++ {
				v := st.blk[run][p][q]
				st.H[idx[p]*n+idx[q]] += v
				if p != q {
					st.H[idx[q]*n+idx[p]] += v
				}
			}
		}
	}
	if f.Cfg.Prior > 0 {
		for j := range 4 {
			e := m.x[j] + d[j] - f.Cfg.PriorMu[j]
			L += f.Cfg.Prior * e * e
			st.g[j] += 2 * f.Cfg.Prior * e
			st.H[j*n+j] += 2 * f.Cfg.Prior
		}
	}
	st.F = L
}

// branches adds term i's other branches within R of its distance c.Dist
// (losses.Spline.Branches) to st.br, its nearest (row) first, if it has
// any. A term is searched with 2R, and searched again only once it has
// moved R/2 from there; until then, only a term that had branches within
// 2R is searched (with R): a distance changes no faster than the point
// moves, so a branch that comes within R of the nearest in between was
// within 2R at the search. (A valley can also form on a segment as the
// point moves, which this does not see: the branches improve the model,
// and the loss is evaluated exactly whatever they are.)
func (m *linEq8) branches(st *sqpState, i int, seg *seg, px, py, R float64, c losses.Closest, row [7]float64) {
	t, mb := &m.terms[i], &m.brAt[i]
	cl := st.cl[:0]
	if dx, dy := px-mb.x, py-mb.y; !(dx*dx+dy*dy <= 0.25*R*R) {
		cl = seg.spline.Branches(px, py, 2*R, c, &m.warm[i], cl)
		mb.x, mb.y, mb.any = px, py, len(cl) > 0
		k := 0
		for _, b := range cl {
			if b.Dist < c.Dist+R {
				cl[k] = b
				k++
			}
		}
		cl = cl[:k]
	} else if mb.any {
		cl = seg.spline.Branches(px, py, R, c, &m.warm[i], cl)
	}
	st.cl = cl
	if len(cl) == 0 {
		return
	}
	k := len(st.qp.s) - 1
	st.br = append(st.br, branch{k, true, c.Dist, row})
	for j := range cl {
		st.br = append(st.br, branch{k, false, cl[j].Dist, normalRow(px, py, &cl[j], &t.gp)})
	}
}

// normalRow is the row of the distance from P to the curve across it, at
// its closest point c: the unit normal n toward P times the position's
// rows G. The normal is (P − c)/|P − c| where |P − c| lies far above its
// rounding (1e-9 of the coordinates' size), and otherwise the tangent's
// perpendicular at an interior closest point (where P − c is normal to
// the curve), with the sign of P − c: a point on the curve (a term held at
// its kink) is 1e-17 or so from it, and there P − c is rounding, its
// direction noise. The held term's row then pointed anywhere, the
// subproblem's step left the curve where it meant to follow it, and steps
// predicted to lower the loss raised it by as much (on a demo-like set,
// nine such steps in a row ended one linearisation).
func normalRow(px, py float64, c *losses.Closest, G *[2][7]float64) (row [7]float64) {
	var nx, ny float64
	if c.Dist > 1e-9*(1+math.Abs(px)+math.Abs(py)) {
		// far above the rounding of P − c: its direction (one division)
		inv := 1 / c.Dist
		nx, ny = (px-c.X)*inv, (py-c.Y)*inv
	} else if l := math.Sqrt(c.DX*c.DX + c.DY*c.DY); c.Interior && l > 0 {
		nx, ny = -c.DY/l, c.DX/l
		if (px-c.X)*nx+(py-c.Y)*ny < 0 {
			nx, ny = -nx, -ny
		}
	} else if c.Dist > 0 {
		nx, ny = (px-c.X)/c.Dist, (py-c.Y)/c.Dist
	} else if l > 0 {
		nx, ny = -c.DY/l, c.DX/l
	}
	for j := range 7 {
		row[j] = nx*G[0][j] + ny*G[1][j]
	}
	return row
}

// errNotPD: a matrix of l1QP.solve is not positive definite.
var errNotPD = errors.New("mecanum: not positive definite")

// cholesky factors the n×n positive definite a in place (lower triangle).
func cholesky(n int, a []float64) error {
	for j := range n {
		s := a[j*n+j]
		for k := range j {
			s -= a[j*n+k] * a[j*n+k]
		}
		if !(s > 0) {
			return errNotPD
		}
		l := math.Sqrt(s)
		a[j*n+j] = l
		for i := j + 1; i < n; i++ {
			t := a[i*n+j]
			for k := range j {
				t -= a[i*n+k] * a[j*n+k]
			}
			a[i*n+j] = t / l
		}
	}
	return nil
}

// cholSolve solves (LLᵀ)x = b in place (b becomes x).
func cholSolve(n int, l, b []float64) {
	for i := range n {
		t := b[i]
		for k := range i {
			t -= l[i*n+k] * b[k]
		}
		b[i] = t / l[i*n+i]
	}
	for i := n - 1; i >= 0; i-- {
		t := b[i]
		for k := i + 1; k < n; k++ {
			t -= l[k*n+i] * b[k]
		}
		b[i] = t / l[i*n+i]
	}
}

// l1QP is the subproblem of sqp over the spline terms: their distances
// s_i and rows a_i (7 entries: μ and the start pose of run[i]) with the
// problem's size, and solve's buffers.
type l1QP struct {
	n, nb int
	s     []float64
	a     [][7]float64
	run   []int32
	// buffers
	L, y, p, hp, gs, nu []float64
	r, ap, sig, an      []float64
	inZ                 []bool
	Z                   []int
	K                   [][]float64
	kz                  []int // the terms whose H⁻¹a_i are K's first columns
	S                   []float64
	Sc                  []float64 // S's rows kept by held (stride n)
	scZ                 []int     // the terms of Sc's rows
	pl                  [][7]float64
	cands               []l1Cross
	iters               int // the active-set iterations of the last solve
	// solve's scan index (rebase): the base point d0, each term's bucket
	// of κ (bk; kb the key of the lowest), the terms by run and bucket
	// (ord, bstart; fill a buffer), the terms whose sign changed since d0
	// (extra, inX); per run, d's entries (pd), ‖(d − d0)_k‖ and ‖p_k‖ (nd,
	// np: bounds) and the last bucket tested in this line search (jS)
	d0        []float64
	smax      float64   // max|s_i| / min‖a_i‖ (≥ every |s_i|/‖a_i‖)
	ian       []float64 // 1/‖a_i‖
	bk        []uint8
	ord       []int32
	bstart    []int32
	fill      []int32
	kb        int
	extra, jS []int32
	nd, np    []float64
	inX       []bool
	pd        [][7]float64
	// counters for tests and benchmarks: terms tested, rebases
	tested, rebases int
}

// bounds sets q.nd[r] = ‖(d − d0)_r‖, padded for rounding (see solve),
// and q.np[r] = ‖p_r‖ over run r's 7 entries.
func (q *l1QP) bounds(r int, d, p []float64) {
	var pp, dd, dn, d0n float64
	for j := range 7 {
		c := q.col(int32(r), j)
		x := d[c] - q.d0[c]
		pp += p[c] * p[c]
		dd += x * x
		dn += d[c] * d[c]
		d0n += q.d0[c] * q.d0[c]
	}
	q.nd[r] = math.Sqrt(dd) + 1e-13*(math.Sqrt(dn)+math.Sqrt(d0n))
	q.np[r] = math.Sqrt(pp)
}

// l1Rebase: solve's index takes d as its base point again once the terms
// tested because d moved from the base reach l1Rebase·m (about the cost
// of the rebase). A variable for the tests, which also take 0: a new base
// at every line search.
var l1Rebase = 2

// l1QPRecord, when set (by tests and benchmarks: nil otherwise), is
// handed each subproblem as solve begins: the terms (q), H, g, w and the
// warm start, to be copied.
var l1QPRecord func(q *l1QP, H, g []float64, w float64, warm []int)

// sortCrosses sorts crossings by step and then by term: by insertion when
// they are few (a line search's usually are, and after its first stage
// mostly sorted already).
func sortCrosses(c []l1Cross) {
	less := func(x, y *l1Cross) bool { return x.a < y.a || x.a == y.a && x.i < y.i }
	if len(c) > 32 {
		slices.SortFunc(c, func(x, y l1Cross) int {
			if less(&x, &y) {
				return -1
			}
			if less(&y, &x) {
				return 1
			}
			return 0
		})
		return
	}
	for k := 1; k < len(c); k++ {
		for j := k; j > 0 && less(&c[j], &c[j-1]); j-- {
			c[j], c[j-1] = c[j-1], c[j]
		}
	}
}

// l1Cross is a crossing of solve's line search: the step a at which term
// i reaches zero and its a_iᵀp (t).
type l1Cross struct {
	a, t float64
	i    int
}

// col is the column of entry j of a row of run r.
func (q *l1QP) col(r int32, j int) int {
	if j < 4 {
		return j
	}
	return 4 + (j-4)*q.nb + int(r)
}

// addRow adds c·a_i to v.
func (q *l1QP) addRow(i int, c float64, v []float64) {
	a := &q.a[i]
	for j := range 7 {
		v[q.col(q.run[i], j)] += c * a[j]
	}
}

// dotRow is a_iᵀv.
func (q *l1QP) dotRow(i int, v []float64) float64 {
	a := &q.a[i]
	var t float64
	for j := range 7 {
		t += a[j] * v[q.col(q.run[i], j)]
	}
	return t
}

func grow(b []float64, n int) []float64 {
	if cap(b) < n {
		return make([]float64, n)
	}
	return b[:n]
}

// held solves the quadratic of the held set Z and the signs (gs): y =
// H⁻¹(g + w·Σσ_i a_i) in q.y, K = H⁻¹A_Zᵀ in q.K and the multipliers ν of
// Z's constraints (returned; false if Z's rows are dependent). S = A_Z K
// is kept between calls (q.Sc, its rows' terms in q.scZ): an entry
// a_iᵀH⁻¹a_j depends only on the two terms (H is one solve's), so the rows
// of the longest prefix of Z that is unchanged are reused, and only the
// lower triangle (all cholesky reads) is computed.
func (q *l1QP) held(Z []int, g []float64, w float64, L []float64) ([]float64, bool) {
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
	q.Sc = grow(q.Sc, n*n)
	S, rhs := q.S, q.nu
	if len(q.kz) == 0 {
		q.scZ = q.scZ[:0] // a new solve (K's columns are made again)
	}
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
	v := 0
	for v < z && v < len(q.scZ) && q.scZ[v] == Z[v] {
		v++
	}
	q.scZ = q.scZ[:v]
	for a, i := range Z {
		rhs[a] = q.s[i] - q.dotRow(i, y)
		if a >= v {
			for b := range a + 1 {
				q.Sc[a*n+b] = q.dotRow(i, q.K[b])
			}
			q.scZ = append(q.scZ, i)
		}
		copy(S[a*z:a*z+a+1], q.Sc[a*n:a*n+a+1])
	}
	if err := cholesky(z, S); err != nil {
		return nil, false
	}
	cholSolve(z, S, rhs)
	return rhs, true
}

// step sets q.p to Δ* − d, Δ* = −y − Kν the minimiser held solved for.
func (q *l1QP) step(nu, d []float64) {
	for j := range q.n {
		v := -q.y[j]
		for b := range nu {
			v -= q.K[b][j] * nu[b]
		}
		q.p[j] = v - d[j]
	}
}

// rowScale sets out to the diagonal of w·Σ_i a_i·a_iᵀ/s̄ (s̄ the mean
// distance, at least 1 µm): the spline term's curvature were it a sum of
// squares at its residuals' size (IRLS's matrix), the scale of sqp's
// damping in directions that no smooth term curves.
func (q *l1QP) rowScale(w float64, out []float64) {
	clear(q.pl)
	var sbar float64
	for i := range q.a {
		a, pl := &q.a[i], &q.pl[q.run[i]]
		for j := range 7 {
			pl[j] += a[j] * a[j]
		}
		sbar += math.Abs(q.s[i])
	}
	sbar = math.Max(sbar/math.Max(float64(len(q.s)), 1), 1e-6)
	clear(out)
	for r := range q.pl {
		for j := range 7 {
			out[q.col(int32(r), j)] += w * q.pl[r][j] / sbar
		}
	}
}

// along sets out_i = a_iᵀv for every term.
func (q *l1QP) along(v, out []float64) {
	for r := range q.pl {
		for j := range 7 {
			q.pl[r][j] = v[q.col(int32(r), j)]
		}
	}
	for i := range q.a {
		a, pl := &q.a[i], &q.pl[q.run[i]]
		out[i] = a[0]*pl[0] + a[1]*pl[1] + a[2]*pl[2] + a[3]*pl[3] + a[4]*pl[4] + a[5]*pl[5] + a[6]*pl[6]
	}
}

// signSum sets gs to Σ_{i∉Z} σ_i·a_i.
func (q *l1QP) signSum(gs []float64) {
	clear(q.pl)
	for i := range q.a {
		if q.inZ[i] {
			continue
		}
		a, pl, c := &q.a[i], &q.pl[q.run[i]], q.sig[i]
		for j := range 7 {
			pl[j] += c * a[j]
		}
	}
	clear(gs)
	for r := range q.pl {
		for j := range 7 {
			gs[q.col(int32(r), j)] += q.pl[r][j]
		}
	}
}

// l1Buckets is the number of κ classes per run of solve's scan index
// (rebase): four per octave, the top one at the largest κ's, the lowest
// holding all κ 32 octaves below it and less.
const l1Buckets = 128

// l1Key is the octave-quarter of x ≥ 0: its exponent and first two
// mantissa bits, non-decreasing in x (the bits of a non-negative float64
// are ordered as its values).
func l1Key(x float64) int { return int(math.Float64bits(x) >> 50) }

// bucket is the class of x ≥ 0 in the index (l1Key from q.kb, clamped):
// bucket(x) > bucket(y) implies x > y.
func (q *l1QP) bucket(x float64) int {
	return min(max(l1Key(x)-q.kb, 0), l1Buckets-1)
}

// rebase makes d the base point d0 of solve's index: q.r = s + A·d for
// the free terms (0 for the held ones); with setSig (the warm start) the
// free terms take the signs of their nonzero residuals and gs becomes
// Σσ_i·a_i over them. Each term's κ_i = |r_i|/‖a_i‖ (0 for a held term and
// for one whose sign σ_i is not its residual's) puts it in a bucket (the
// top one at q.smax + max_k‖d_k‖, above every κ), q.ord lists the terms
// by run and then by bucket, q.bstart the start of each (run, bucket) in
// it, and q.extra is emptied.
func (q *l1QP) rebase(d []float64, setSig bool) {
	m, r, sig, inZ := len(q.s), q.r, q.sig, q.inZ
	nb := q.nb
	dmax := 0.0
	for rr := range nb {
		var t float64
		for j := range 7 {
			v := d[q.col(int32(rr), j)]
			q.pd[rr][j] = v
			t += v * v
		}
		dmax = math.Max(dmax, math.Sqrt(t))
	}
	clear(q.pl)
	q.d0 = append(q.d0[:0], d...)
	q.kb = l1Key(q.smax+dmax) - (l1Buckets - 1)
	if cap(q.bstart) < nb*l1Buckets+1 {
		q.bstart = make([]int32, nb*l1Buckets+1)
	}
	q.bstart = q.bstart[:nb*l1Buckets+1]
	if cap(q.bk) < m {
		q.bk = make([]uint8, m)
	}
	q.bk = q.bk[:m]
	cnt := q.bstart
	clear(cnt)
	for i := range m {
		k := 0.0
		if inZ[i] {
			r[i] = 0
		} else {
			a, pd := &q.a[i], &q.pd[q.run[i]]
			ri := (a[0]*pd[0] + a[1]*pd[1] + a[2]*pd[2] + a[3]*pd[3] + a[4]*pd[4] + a[5]*pd[5] + a[6]*pd[6]) + q.s[i]
			r[i] = ri
			if setSig {
				if ri < 0 {
					sig[i] = -1
				} else if ri > 0 {
					sig[i] = 1
				}
				pl, c := &q.pl[q.run[i]], sig[i]
				for j := range 7 {
					pl[j] += c * a[j]
				}
			}
			if sig[i]*ri > 0 {
				k = math.Abs(ri) * q.ian[i]
			}
		}
		b := q.bucket(k)
		q.bk[i] = uint8(b)
		cnt[int(q.run[i])*l1Buckets+b+1]++
	}
	if setSig {
		clear(q.gs)
		for rr := range nb {
			for j := range 7 {
				q.gs[q.col(int32(rr), j)] += q.pl[rr][j]
			}
		}
	}
	for j := 1; j < len(cnt); j++ {
		cnt[j] += cnt[j-1]
	}
	if cap(q.ord) < m {
		q.ord = make([]int32, m)
	}
	q.ord = q.ord[:m]
	q.fill = append(q.fill[:0], q.bstart[:nb*l1Buckets]...)
	for i := range m {
		c := int(q.run[i])*l1Buckets + int(q.bk[i])
		q.ord[q.fill[c]] = int32(i)
		q.fill[c]++
	}
	clear(q.inX)
	q.extra = q.extra[:0]
}

// flag puts term i on q.extra: its sign changed since the base point.
func (q *l1QP) flag(i int) {
	if !q.inX[i] {
		q.inX[i] = true
		q.extra = append(q.extra, int32(i))
	}
}

// consider adds term i to q.cands if it crosses zero before α = 1 along
// p (q.pl: p's entries per run) from d (q.pd): the test of the full scan
// (see solve), r_i = s_i + a_iᵀd computed here.
func (q *l1QP) consider(i int, pn float64) {
	if q.inZ[i] {
		return
	}
	a, pl := &q.a[i], &q.pl[q.run[i]]
	t := a[0]*pl[0] + a[1]*pl[1] + a[2]*pl[2] + a[3]*pl[3] + a[4]*pl[4] + a[5]*pl[5] + a[6]*pl[6]
	// a row (numerically) in the span of the held rows does not move
	// along p: its rounding is no crossing
	if q.sig[i]*t >= 0 || math.Abs(t) <= pn*q.an[i] {
		return
	}
	pd := &q.pd[q.run[i]]
	r := q.s[i] + (a[0]*pd[0] + a[1]*pd[1] + a[2]*pd[2] + a[3]*pd[3] + a[4]*pd[4] + a[5]*pd[5] + a[6]*pd[6])
	if al := -r / t; al < 1 {
		q.cands = append(q.cands, l1Cross{a: math.Max(al, 0), t: t, i: i})
	}
}

// solve minimises the convex piecewise quadratic
//
//	φ(Δ) = ½ΔᵀHΔ + gᵀΔ + w·Σ_i |s_i + a_iᵀΔ|   (H positive definite)
//
// exactly, by an active-set method: with the set Z of terms held at their
// kink (s_i + a_iᵀΔ = 0) and the signs σ of the others fixed, φ is a
// quadratic whose minimiser on Z's constraints is one small solve; the
// step to it walks the line's breakpoints (a term crossing zero raises
// the slope by 2w|a_iᵀp|) and stops at the line's minimum, adding the
// term there to Z; at the minimiser itself a held term whose multiplier
// exceeds w (its subgradient's bound) is released. Each step lowers φ,
// so it ends at φ's minimum (the Osborne–Watson subproblem of an L1
// Gauss–Newton method). It returns φ(Δ) − φ(0) and Δ in out.
//
// An iteration costs what it touches, not the m terms: only a term whose
// residual r_i = s_i + a_iᵀd can reach zero along the step d → d + αp,
// α ∈ [0, 1], needs its r_i and a_iᵀp, and that is decided without them.
// At a base point d0 (rebase: the start, or the warm start's point) each
// term has b_i = r_i(d0) and κ_i = |b_i|/‖a_i‖; a_i touches the 7 entries
// of its run k (μ and the run's start pose), so by Cauchy–Schwarz
// |r_i(d) − b_i| ≤ ‖a_i‖·‖(d − d0)_k‖ and |a_iᵀp| ≤ ‖a_i‖·‖p_k‖. A term
// with κ_i > ‖(d − d0)_k‖ + a1·‖p_k‖ thus has |r_i(d)| > a1·|a_iᵀp|, r_i of
// b_i's sign for all α ∈ [0, a1]: if its σ_i is still b_i's sign it is no
// crossing before a1 (the full scan's test −r_i/a_iᵀp < a1 fails). The
// terms whose σ_i changed since d0 (crossed, or released from Z) are kept
// on a list (q.extra) and always tested, and a term whose σ_i differs
// from b_i's sign at d0 (a residual 0 or of rounding's size) gets κ_i = 0.
// The terms of each run are kept in classes of κ (q.ord: a quarter octave
// each, 32 octaves, counting-sorted once per base), so the ones tested
// are a prefix per run, found in O(1). The line search first takes
// a1 = 1/8: if it ends before a1 (a term held, or the line's minimum), no
// crossing it did not see matters; else a1 doubles and the classes up to
// the new bound are tested too. Rounding: r_i, a_iᵀp and the norms are
// computed, so the bound is padded, by 1e-13 of ‖d_k‖ + ‖d0_k‖ (the
// residuals' absolute rounding is ~10 ulps of |s_i| + ‖a_i‖·‖d‖) and then
// by 1e-12 relative; the class of a κ truncates its bits, only lowering
// it. The tested terms go through the full scan's test (held terms,
// σ_i·a_iᵀp ≥ 0 and the degenerate rows |a_iᵀp| ≤ 1e-11‖p‖‖a_i‖ skipped);
// their crossings are sorted by step and then by term, so that a tie is
// broken the same way whichever terms were tested. gs = Σσ_i·a_i over the
// free terms is kept by addRow on each flip, hold and release; the
// residuals of all m terms are computed only at the base points and for φ
// at the end. When the terms tested only because d moved from d0 add up to
// l1Rebase·m, d becomes the base (one pass over the terms). Measured on
// the subproblems of two identifications: BenchmarkL1QPSolve.
func (q *l1QP) solve(H, g []float64, w float64, out []float64, warm []int) (float64, error) {
	if l1QPRecord != nil {
		l1QPRecord(q, H, g, w, warm)
	}
	n, m := q.n, len(q.s)
	q.L = append(q.L[:0], H...)
	L := q.L
	if err := cholesky(n, L); err != nil {
		return 0, err
	}
	d := out
	clear(d)
	q.tested, q.rebases = 0, 0
	q.r = grow(q.r, m)
	q.sig = grow(q.sig, m)
	q.y, q.p, q.hp, q.gs = grow(q.y, n), grow(q.p, n), grow(q.hp, n), grow(q.gs, n)
	if cap(q.inZ) < m {
		q.inZ = make([]bool, m)
	}
	q.inZ = q.inZ[:m]
	sig, inZ := q.sig, q.inZ
	p, hp, gs := q.p, q.hp, q.gs
	clear(inZ)
	q.an, q.ian = grow(q.an, m), grow(q.ian, m)
	if len(q.pl) != q.nb {
		q.pl = make([][7]float64, q.nb)
	}
	if len(q.pd) != q.nb {
		q.pd = make([][7]float64, q.nb)
	}
	q.jS = grow32(q.jS, q.nb)
	q.nd, q.np = grow(q.nd, q.nb), grow(q.np, q.nb)
	// in one pass: ‖a_i‖, σ = the signs of s and gs = Σσ_i·a_i (signSum)
	tiny, smax, amin := 1.0, 0.0, math.Inf(1)
	clear(q.pl)
	for i := range m {
		a, pl := &q.a[i], &q.pl[q.run[i]]
		var t float64
		for _, v := range a {
			t += v * v
		}
		an := math.Sqrt(t)
		q.an[i], q.ian[i] = an, 1/an
		tiny += w * math.Abs(q.s[i])
		smax = math.Max(smax, math.Abs(q.s[i]))
		if an > 0 { // a zero row's κ is +Inf: the top bucket
			amin = math.Min(amin, an)
		}
		c := 1.0
		if q.s[i] < 0 {
			c = -1
		}
		sig[i] = c
		for j := range 7 {
			pl[j] += c * a[j]
		}
	}
	tiny *= 1e-15
	if q.smax = smax / amin; !(q.smax <= math.MaxFloat64) {
		q.smax = math.MaxFloat64
	}
	clear(gs)
	for rr := range q.pl {
		for j := range 7 {
			gs[q.col(int32(rr), j)] += q.pl[rr][j]
		}
	}
	if len(q.K) != n {
		q.K = make([][]float64, n)
		for j := range q.K {
			q.K[j] = make([]float64, n)
		}
	}
	q.kz = q.kz[:0] // K's columns are H's: none made yet
	Z := q.Z[:0]
	if cap(q.inX) < m {
		q.inX = make([]bool, m)
	}
	q.inX = q.inX[:m]
	clear(q.inX)
	q.extra = q.extra[:0]
	based := false
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
		if nu, ok := q.held(Z, g, w, L); ok {
			q.step(nu, d)
			for j := range n {
				d[j] += q.p[j]
			}
			q.rebase(d, true)
			based = true
		} else {
			for _, i := range Z {
				inZ[i] = false
				q.addRow(i, sig[i], gs)
			}
			Z = Z[:0]
		}
	}
	if !based {
		q.rebase(d, false)
	}
	const maxIter = 1000
	released, bland := -1, false
	excess := 0 // the terms tested because d moved from d0, since d0
	q.iters = 0
	for iter := 0; iter < maxIter; iter++ {
		q.iters++
		nu, ok := q.held(Z, g, w, L)
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
			// per run: ‖(d − d0)_k‖ (padded) and ‖p_k‖ (see above); when the
			// terms tested because d moved from d0 have cost about two
			// passes over all, d becomes the base
			{
				heavy := 0
				for rr := range q.nb {
					q.bounds(rr, d, p)
					heavy += int(q.bstart[rr*l1Buckets+q.bucket(q.nd[rr]*(1+1e-12))+1] - q.bstart[rr*l1Buckets])
				}
				if excess += heavy; excess > l1Rebase*m {
					excess = 0
					q.rebase(d, false)
					q.rebases++
					for rr := range q.nb {
						q.bounds(rr, d, p)
					}
				}
			}
			for rr := range q.nb {
				for j := range 7 {
					c := q.col(int32(rr), j)
					q.pl[rr][j], q.pd[rr][j] = p[c], d[c]
				}
				q.jS[rr] = -1
			}
			// the crossings before α = a1 are all among the terms with κ_i ≤
			// ‖(d − d0)_k‖ + a1·‖p_k‖ and those on q.extra; a1 doubles until
			// the line search ends before it
			q.cands = q.cands[:0]
			a1 := 1.0 / 8
			for _, i := range q.extra {
				q.consider(int(i), pn)
			}
			q.tested += len(q.extra)
			var C, alpha float64
			var stop, nflip int
			for {
				for rr := range q.nb {
					j := int32(q.bucket((q.nd[rr] + a1*q.np[rr]) * (1 + 1e-12)))
					if j <= q.jS[rr] {
						continue
					}
					pre := q.ord[q.bstart[rr*l1Buckets+int(q.jS[rr])+1]:q.bstart[rr*l1Buckets+int(j)+1]]
					// consider's test, inlined: the run's p and d at hand
					pl, pd := &q.pl[rr], &q.pd[rr]
					for _, i := range pre {
						if q.inX[i] || q.inZ[i] {
							continue // tested from q.extra, or held
						}
						a := &q.a[i]
						t := a[0]*pl[0] + a[1]*pl[1] + a[2]*pl[2] + a[3]*pl[3] + a[4]*pl[4] + a[5]*pl[5] + a[6]*pl[6]
						if sig[i]*t >= 0 || math.Abs(t) <= pn*q.an[i] {
							continue
						}
						r := q.s[i] + (a[0]*pd[0] + a[1]*pd[1] + a[2]*pd[2] + a[3]*pd[3] + a[4]*pd[4] + a[5]*pd[5] + a[6]*pd[6])
						if al := -r / t; al < 1 {
							q.cands = append(q.cands, l1Cross{a: math.Max(al, 0), t: t, i: int(i)})
						}
					}
					q.tested += len(pre)
					q.jS[rr] = j
				}
				sortCrosses(q.cands)
				C, alpha, stop, nflip = 0, 1, -1, 0
				done := false
				for _, c := range q.cands {
					if c.a > a1 {
						break // crossings past a1 may be missing
					}
					if am := 1 - C/pHp; am <= c.a {
						alpha, done = am, true
						break
					}
					if (c.a-1)*pHp+C+2*w*math.Abs(c.t) >= 0 {
						alpha, stop, done = c.a, c.i, true
						break
					}
					C += 2 * w * math.Abs(c.t)
					nflip++
				}
				if !done {
					// no crossing left before a1: the line's minimum, if there
					if am := 1 - C/pHp; am <= a1 || a1 >= 1 {
						alpha, done = am, true
					} else {
						a1 = math.Min(2*a1, 1)
					}
				}
				if done {
					break
				}
			}
			cands := q.cands
			for j := range n {
				d[j] += alpha * p[j]
			}
			for _, c := range cands[:nflip] {
				q.addRow(c.i, -2*sig[c.i], gs)
				sig[c.i] = -sig[c.i]
				q.flag(c.i)
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
		q.flag(i)
	}
	q.Z = Z
	phi := quadValue(n, H, g, d)
	// the residuals at Δ (q.r), 0 for the held terms
	r := q.r
	for rr := range q.nb {
		for j := range 7 {
			q.pd[rr][j] = d[q.col(int32(rr), j)]
		}
	}
	for i := range m {
		ri := 0.0
		if !inZ[i] {
			a, pd := &q.a[i], &q.pd[q.run[i]]
			ri = (a[0]*pd[0] + a[1]*pd[1] + a[2]*pd[2] + a[3]*pd[3] + a[4]*pd[4] + a[5]*pd[5] + a[6]*pd[6]) + q.s[i]
		}
		r[i] = ri
		phi += w * (math.Abs(ri) - math.Abs(q.s[i]))
	}
	return phi, nil
}

// release lets go of the worst held term of Z at the minimiser for (Z, σ)
// (multipliers nu): the one whose |ν| exceeds w the most, or with bland
// the first such in the terms' order (solve's anti-cycling rule). The term
// takes its multiplier's sign, its K column moves last, and Z without it
// is returned with the term; −1 (and Z unchanged) when every |ν| ≤ w.
func (q *l1QP) release(Z []int, nu []float64, w float64, bland bool) ([]int, int) {
	worst, wv := -1, w*(1+1e-9)
	for a := range Z {
		if v := math.Abs(nu[a]); v > w*(1+1e-9) && (bland && (worst < 0 || Z[a] < Z[worst]) || !bland && v > wv) {
			worst, wv = a, v
		}
	}
	if worst < 0 {
		return Z, -1
	}
	i := Z[worst]
	Z = slices.Delete(Z, worst, worst+1)
	if worst < len(q.kz) {
		// K's columns follow Z's entries: the released one's goes last
		k := q.K[worst]
		copy(q.K[worst:], q.K[worst+1:])
		q.K[len(q.K)-1] = k
		q.kz = slices.Delete(q.kz, worst, worst+1)
	}
	q.inZ[i] = false
	q.sig[i] = math.Copysign(1, nu[worst])
	q.addRow(i, q.sig[i], q.gs)
	return Z, i
}

// hRow is row i of H (n×n) times p.
func hRow(n, i int, H, p []float64) float64 {
	var t float64
	for j, h := range H[i*n : (i+1)*n] {
		t += h * p[j]
	}
	return t
}

// mulHp sets hp = Hp (H n×n) and returns pᵀHp.
func mulHp(n int, H, p, hp []float64) float64 {
	var pHp float64
	for i := range n {
		t := hRow(n, i, H, p)
		hp[i] = t
		pHp += p[i] * t
	}
	return pHp
}

// quadValue is ½dᵀHd + gᵀd (H n×n).
func quadValue(n int, H, g, d []float64) float64 {
	var v float64
	for i := range n {
		v += d[i] * (0.5*hRow(n, i, H, d) + g[i])
	}
	return v
}

// branchPasses caps sqp's passes over the branches per step, and
// branchPassesTrusted does once the last step's actual decrease came
// within [0.75, 1.33] of the model's (the branches' model is then as good
// as it looks). Where the samples of a robot standing still make the
// spline a scribble of noise (real logs start at rest), each term has
// several branches and the passes went on 11–20 times per step, the model
// grew more optimistic with each, and the steps it promised failed: over
// four sets of eight runs like a real robot's (experiments/real-logs,
// seeds 1–4), 20 passes per step took 458 ms and 84 evaluations in all, 2
// passes 249 ms and 70, no branches 215 ms and 97. On the demo-like logs
// and the spinning runs the same passes each lowered the model by about a
// tenth of the step's decrease, and 2 passes cost 10–30 % more than 20.
// Measured 2026-11-27 with Nielsen's rule (see sqp), 2 always against 5
// after a predicted step: the demo-like logs' second stage 4.5–4.7 ms of
// thread CPU against 5.3 (alternating runs, one sitting); the 16 sets of
// TestSqpBranches 135 evaluations against 141; real-like seeds 1–10 524
// ms and 138 evaluations against 513 ms and 156 (20 after a predicted
// step: 591 ms, 152), with the minima lower in 3 sets (by 2.5e-6 to 3.5e-5
// relative) and higher in 1 (by 8.8e-7): where a run stands still the loss
// has many local minima, and which one a search ends in turns on small
// differences.
const (
	branchPasses        = 2
	branchPassesTrusted = 5
)

// restore puts every term with branches back on its nearest (its
// distance at δ_k).
func (st *sqpState) restore() {
	for k := range st.br {
		if b := &st.br[k]; b.first {
			st.qp.s[b.i], st.qp.a[b.i] = b.s, b.a
		}
	}
}

// assign puts every term with branches on the one with the least
// |s + aᵀΔ| at Δ (ties keep the current) and returns how many moved (st.mv
// marks them); st.ap holds every term's aᵀΔ, on its new branch.
func (st *sqpState) assign(d []float64) int {
	q := &st.qp
	st.ap = grow(st.ap, len(q.s))
	ap := st.ap
	q.along(d, ap)
	if cap(st.mv) < len(q.s) {
		st.mv = make([]bool, len(q.s))
	}
	st.mv = st.mv[:len(q.s)]
	clear(st.mv)
	moved := 0
	for k := 0; k < len(st.br); {
		i := st.br[k].i
		best, bk := math.Abs(q.s[i]+ap[i]), -1
		for ; k < len(st.br) && st.br[k].i == i; k++ {
			b := &st.br[k]
			if b.s == q.s[i] && b.a == q.a[i] {
				continue // the current
			}
			t := b.s
			for j := range 7 {
				t += b.a[j] * d[q.col(q.run[i], j)]
			}
			if v := math.Abs(t); v < best {
				best, bk = v, k
			}
		}
		if bk >= 0 {
			q.s[i], q.a[i] = st.br[bk].s, st.br[bk].a
			ap[i] = q.dotRow(i, d)
			st.mv[i] = true
			moved++
		}
	}
	return moved
}

// onBranches follows solve's answer Δ (step) over the branches: each term
// is put on its nearest branch at Δ (assign) and the subproblem solved
// again from there (on the last held set), until none moves or after
// passes solves (then the terms are on their nearest branches at
// the last Δ, unsolved). Each pass lowers the model: at Δ the new
// assignment's value is no higher, and the solve then lowers it. It
// returns the model's change at Δ from the loss at δ_k (computed
// directly, with the offset of the branches at Δ = 0); phi is solve's
// answer's, returned as is where no term has branches.
func (st *sqpState) onBranches(H []float64, w float64, step []float64, phi float64, passes int) (float64, error) {
	if len(st.br) == 0 {
		return phi, nil
	}
	q := &st.qp
	n := q.n
	st.ds = grow(st.ds, n)
	st.gw = grow(st.gw, n)
	for pass := 0; st.assign(step) > 0 && pass < passes; pass++ {
		// solved from the last answer Δ: in Δ' = Δ'' − Δ the subproblem is
		// the same with s + AΔ for s (the residuals at Δ, 0 on the held
		// terms that kept their rows) and g + HΔ for g, so that it starts
		// from Δ with the signs there; the held set goes on without the
		// terms that moved to another branch
		st.sv = append(st.sv[:0], q.s...)
		st.zw = st.zw[:0]
		for _, i := range q.Z {
			if !st.mv[i] {
				st.zw = append(st.zw, i)
			}
		}
		for i := range q.s {
			q.s[i] += st.ap[i]
		}
		for _, i := range st.zw {
			q.s[i] = 0
		}
		for i := range n {
			t := st.g[i]
			for j := range n {
				t += H[i*n+j] * step[j]
			}
			st.gw[i] = t
		}
		_, err := q.solve(H, st.gw, w, st.ds, st.zw)
		copy(q.s, st.sv)
		if err != nil {
			return 0, err
		}
		for j := range n {
			step[j] += st.ds[j]
		}
	}
	v := quadValue(n, H, st.g, step)
	for i := range q.s {
		v += w * (math.Abs(q.s[i]+q.dotRow(i, step)) - math.Abs(q.s[i]))
	}
	return v + st.offset(w), nil
}

// offset is w·Σ (|s_i| − |s_i of the nearest|) over the terms with
// branches: what the model of the current assignment at Δ = 0 lies above
// linEq8 at δ_k (the subproblem's φ(Δ) − φ(0) plus offset is the model's
// change from the loss at δ_k).
func (st *sqpState) offset(w float64) float64 {
	var o float64
	for k := range st.br {
		if b := &st.br[k]; b.first {
			o += w * (math.Abs(st.qp.s[b.i]) - math.Abs(b.s))
		}
	}
	return o
}

func grow32(b []int32, n int) []int32 {
	if cap(b) < n {
		return make([]int32, n)
	}
	return b[:n]
}

// sqp minimises eq. 8 from m's point by l1QP.solve's steps on hessEval's
// model, damped as Levenberg–Marquardt: Δ from H + λ·diag(H), accepted
// when the loss falls, λ adapted by the ratio of the actual to the
// predicted decrease. Each trial point δ (from m's point at the start)
// is evaluated by relin(δ), which linearises m there (Fit.linearStage),
// and hessEval at its δ = 0: the model of the current point is exact
// there. It stops when the predicted decrease is below tol·F, or when
// iter, called after each accepted evaluation with the loss and δ of the
// current point, returns false. delta holds the answer; it returns the
// loss there and the evaluations.
//
// Why not L-BFGS-B on linEq8 (the stage before): a quasi-Newton method
// learns the curvature from gradients, and across the kinks where points
// cross the curve the gradients jump, so it needed 59–86 evaluations of
// the model per linearisation on the three sets of TestLinearStage; these
// steps know where the kinks are and took 5–13 (now 4–5 in all), to
// losses 7e-7–1.9e-6 (relative) lower.
//
// Branches: where a run passes its own path again (the demo-like logs'
// third run spins nearly in place, its positions a 5-cm scribble of
// noise), a point's distance to the curve is the least of several
// branches, each smooth, and as the points move their closest points jump
// from one to another. A model that knows only the nearest branch was
// pessimistic there (actual decreases 1.3–4.2× the predicted, 11 steps on
// the first linearisation where the other sets take 3–4): each step found
// more jumps that lowered the loss, a crawl that moved μ by 0.5 σ. So
// hessEval keeps each term's other branches within branchR of its
// distance (linEq8.branches), and after each solve every term is put on
// its nearest branch at the step and the subproblem solved again from
// there (onBranches: a descent on the model, which is the least of the
// branches' models). On the demo-like logs the first linearisation then
// took 3 steps where it took 11 (with the rollout held over the search,
// as then), the whole stage 10 evaluations instead of 18. Now, over 16
// sets with such runs (TestSqpBranches): 141 evaluations against 231
// without the branches, the loss lower in 4 (by 5e-7 to 1.8e-4; on four
// spinning runs 15 evaluations instead of 66) and the same to the
// stopping tolerance in the others (the loss has many local minima where
// a run spins in place: with 20 passes, one set ended 7.7e-6 higher).
// Sets without such runs are unchanged. (Keeping only the branch a point
// had just left was tried before and dropped: 136 evaluations against
// 129 over seven sets.) Where the branches cost more than they save is a
// robot standing still: see branchPasses.
func (m *linEq8) sqp(delta []float64, tol float64, iter func(F float64, d []float64) bool, relin func(d []float64) error) (F float64, evals int, err error) {
	n := len(delta)
	clear(delta)
	nt, nb := len(m.terms), len(m.f.segs)
	// the two states live as long as m (their subproblem's buffers grow
	// to the largest held set once): a fresh pair per linearisation was
	// a fifth of an identification's allocations
	if m.sqpStates[0] == nil || m.sqpStates[0].n != n {
		m.sqpStates = [2]*sqpState{newSQPState(n, nt, nb), newSQPState(n, nt, nb)}
	}
	cur, trial := m.sqpStates[0], m.sqpStates[1]
	zero := make([]float64, n)
	m.hessEval(zero, cur)
	evals = 1
	lambda := 1e-3
	Hd := make([]float64, n*n)
	step, xt, floor := make([]float64, n), make([]float64, n), make([]float64, n)
	w1 := m.f.Cfg.Weights.Spline
	// useBr: the subproblem follows the branches (onBranches) until a
	// step fails, then the nearest branches alone until one succeeds:
	// where the branches' first-order models are poor (a scribble of
	// small loops, tighter than the step), the least of them promised
	// decreases that failed step after step (on real-like logs, 6 in a
	// row); with the fallback those sets took 17 evaluations, not 79
	useBr := true
	// passes: the branch passes of the next step (see branchPasses); nu:
	// λ's factor on the next failed step (see below)
	passes, nu := branchPasses, 4.0
	warmZ := m.held // the last subproblem's held terms (at the last linearisation)
	for iter(cur.F, delta) {
		// damping on the Hessian's diagonal, where no smooth term curves
		// (the spline term alone acts) on the spline rows' own scale
		cur.restore()
		cur.qp.rowScale(w1, floor)
		var phi float64
		for {
			copy(Hd, cur.H)
			for j := range n {
				Hd[j*n+j] += lambda * math.Max(cur.H[j*n+j], floor[j])
			}
			phi, err = cur.qp.solve(Hd, cur.g, w1, step, warmZ)
			if !errors.Is(err, errNotPD) || lambda >= 1e12 {
				break
			}
			lambda = math.Max(10*lambda, 1e-6)
		}
		if err != nil {
			return cur.F, evals, err
		}
		// the branches' model once the last step it predicted came true
		// (see useBr)
		if useBr {
			if phi, err = cur.onBranches(Hd, w1, step, phi, passes); err != nil {
				return cur.F, evals, err
			}
		}
		warmZ = append(warmZ[:0], cur.qp.Z...)
		// the undamped model's decrease
		var dd float64
		for j := range n {
			dd += step[j] * step[j] * lambda * math.Max(cur.H[j*n+j], floor[j])
		}
		pred := -(phi - 0.5*dd)
		if !(pred > tol*cur.F) {
			break
		}
		for j := range n {
			xt[j] = delta[j] + step[j]
		}
		// the rollout linearised at the trial point, the model there at
		// δ = 0 (xt counts from the first point)
		if err := relin(xt); err != nil {
			return cur.F, evals, err
		}
		m.hessEval(zero, trial)
		evals++
		rho := (cur.F - trial.F) / pred
		if trial.F < cur.F {
			copy(delta, xt)
			cur, trial = trial, cur
			passes = branchPasses
			if useBr && rho >= 0.75 && rho <= 1.33 {
				passes = branchPassesTrusted
			}
			useBr, nu = true, 4
			switch {
			case rho > 0.75:
				lambda = math.Max(lambda/3, 1e-9)
			case rho < 0.25:
				lambda *= 2
			}
		} else {
			if pred <= sqpNoiseTol*cur.F {
				// a step this small that fails: the model's error is as
				// large as the decrease left (see sqpNoiseTol)
				break
			}
			// λ's factor doubles with each failure in a row (Nielsen's
			// rule): where λ has fallen far below the Hessian's diagonal
			// after many good steps, ×4 per failure hardly changed the step
			// (on a real-like set eight failures in a row, each predicting
			// 2e-8 of the loss); over the four real-like sets 60
			// evaluations against 64, at the same minima
			lambda *= nu
			nu *= 2
			if lambda > 1e12 {
				break
			}
			useBr, passes = false, branchPasses
		}
	}
	m.held = append(m.held[:0], warmZ...)
	return cur.F, evals, nil
}
