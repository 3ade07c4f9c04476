package mecanum

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/wheelgrad/wheelgrad/dyn"
	"github.com/wheelgrad/wheelgrad/fit"
	"github.com/wheelgrad/wheelgrad/opt"
)

// SquaredLS is NetFit's squared-error loss for one constant μ (no network,
// no delays, no weight decay) as a least-squares problem for
// opt.LeastSquares: the residuals are the camera samples' position and
// marker errors (ex, ey, qx, qy per sample, the marker ℓ ahead on the
// forward axis) scaled by √(2/(NetUnit²·K)) for K samples, so that ½‖r‖²
// is NetFit.Eval's loss. The variables are x = (μ_1..μ_4, then x0 of every
// run, y0 of every run, θ0 of every run), μ ∈ [0, NetFit.MuMax] (the range
// of NetFit's μ = MuMax·σ(b2)).
//
// The Jacobian comes from one forward-mode rollout of Model (eqs. 3–5) over
// the runs as lanes, with respect to μ and each lane's initial pose
// (Sim.Jacobian with dyn.Wrt{X0: true}): 7 tangents carried beside each
// pose, stored only at the camera samples' rows (dyn.Wrt.Rows). The
// position rows are the pose sensitivities at the sample's row, the marker
// rows add −ℓ·(cos θ, sin θ)·∂θ. A start-pose column is nonzero only in its
// own run's rows. A trial point without a Jacobian is a value-only rollout
// (Sim.Value). Normal forms JᵀJ and Jᵀr from the same rollout without the
// M×n matrix (opt's normal-equations path). Not safe for concurrent use.
type SquaredLS struct {
	B, T  int
	M     int // residuals: 4 per camera sample
	MuMax float64
	sim   *dyn.Sim
	j     *dyn.Jac
	q     []float64
	x0, u []float64 // [3][B], [T][5][B]
	y     []float64 // [3][T][B]
	// per camera sample: its row t·B + b in a [T][B] output, its row in
	// the Jacobian's stored rows, its lane, and the measured position and
	// marker point
	at, row, lane  []int
	rank, rows     []int // scratch: the samples' rows marked and numbered ([T][B]), the rows ascending
	gx, gy, qx, qy []float64
	th, sth, cth   []float64 // measured heading, its sine and cosine (anchors of sincos)
	w, ell         float64
	gl             []laneNormal // Normal's per-lane sums
}

// laneNormal is one lane's share of the normal equations over its 7
// columns (upper triangle of JᵀJ/w², and Jᵀr).
type laneNormal struct {
	g [nd][nd]float64
	v [nd]float64
}

// nd is the number of Jacobian columns of one lane: μ_1..μ_4, x0, y0, θ0.
const nd = 7

// SquaredLS prepares f's loss as least squares (see the type). f must have
// neither delays nor a network beyond its output biases: only those enter.
func (f *NetFit) SquaredLS() (*SquaredLS, error) { return f.squaredLS(nil) }

// squaredPool keeps SquaredLS's buffers (the rollout, its inputs and
// outputs, the Jacobian's rows) across fits: a fit of logs of the same
// shape (runs, steps; camera rows for the Jacobian) allocates none again.
var squaredPool sync.Pool

// squaredLS is SquaredLS, reusing old's buffers where the shapes match.
func (f *NetFit) squaredLS(old *SquaredLS) (*SquaredLS, error) {
	if f.Delays {
		return nil, fmt.Errorf("mecanum: SquaredLS has no time offsets (NetFit.Delays)")
	}
	B := len(f.runs)
	T := 0
	for _, s := range f.runs {
		T = max(T, len(s.dt))
	}
	s := &SquaredLS{B: B, T: T, MuMax: f.MuMax, q: SettingsOf(f.P), ell: f.ell, w: math.Sqrt(2 / (NetUnit * NetUnit * float64(f.ncam)))}
	same := old != nil && old.B == B && old.T == T
	if same {
		s.x0, s.u, s.y, s.sim = old.x0, old.u, old.y, old.sim
		s.at, s.row, s.lane = old.at[:0], old.row[:0], old.lane[:0]
		s.gx, s.gy, s.qx, s.qy = old.gx[:0], old.gy[:0], old.qx[:0], old.qy[:0]
		s.th, s.sth, s.cth = old.th[:0], old.sth[:0], old.cth[:0]
	} else {
		s.x0, s.u, s.y = make([]float64, 3*B), make([]float64, T*5*B), make([]float64, 3*T*B)
		s.sim = Model.NewSim(B, T)
		nc := f.ncam
		s.at, s.row, s.lane = make([]int, 0, nc), make([]int, 0, nc), make([]int, 0, nc)
		s.gx, s.gy, s.qx, s.qy = make([]float64, 0, nc), make([]float64, 0, nc), make([]float64, 0, nc), make([]float64, 0, nc)
		s.th, s.sth, s.cth = make([]float64, 0, nc), make([]float64, 0, nc), make([]float64, 0, nc)
	}
	for b, r := range f.runs {
		for i := range r.dt {
			for k := range 4 {
				s.u[(i*5+k)*B+b] = r.w[i][k]
			}
			s.u[(i*5+4)*B+b] = r.dt[i]
		}
		if same {
			// a shorter run's lane stays still (dt = 0) past its end
			// (fresh buffers are zero)
			for i := len(r.dt); i < T; i++ {
				for k := range 5 {
					s.u[(i*5+k)*B+b] = 0
				}
			}
		}
		for _, i := range r.cam {
			s.at, s.lane = append(s.at, i*B+b), append(s.lane, b)
		}
		s.gx, s.gy = append(s.gx, r.gx...), append(s.gy, r.gy...)
		s.qx, s.qy = append(s.qx, r.qx...), append(s.qy, r.qy...)
		s.th, s.sth, s.cth = append(s.th, r.th...), append(s.sth, r.sth...), append(s.cth, r.cth...)
	}
	s.M = 4 * len(s.at)
	// the rows of the samples, ascending, and each sample's place in them:
	// marked in a [T][B] table (a run's camera rows are distinct), then
	// numbered in order
	if same {
		s.rank = old.rank
	} else {
		s.rank = make([]int, T*B)
	}
	rank := s.rank
	clear(rank)
	for _, m := range s.at {
		rank[m] = 1
	}
	var rows []int
	if same {
		rows = old.rows[:0]
	} else {
		rows = make([]int, 0, len(s.at))
	}
	for m, v := range rank {
		if v != 0 {
			rank[m] = len(rows)
			rows = append(rows, m)
		}
	}
	s.rows = rows
	for _, m := range s.at {
		s.row = append(s.row, rank[m])
	}
	if same && slices.Equal(old.j.Rows, rows) {
		s.j, s.gl = old.j, old.gl
		return s, nil
	}
	rows = slices.Clone(rows) // the Jacobian's own (s.rows is reused)
	j, err := s.sim.NewJac(dyn.Wrt{X0: true, Rows: rows})
	if err != nil {
		return nil, err
	}
	if j.D != nd {
		return nil, fmt.Errorf("mecanum: SquaredLS: %d Jacobian columns per lane, want %d", j.D, nd)
	}
	j.Y, j.JXT, j.JCost = s.y, nil, nil
	s.j = j
	return s, nil
}

// Dim is the number of variables: 4 + 3·runs.
func (s *SquaredLS) Dim() int { return 4 + 3*s.B }

// X0 is a start: μ and the start poses of the NetFit vector xn (NetFit's
// layout: the poses after the network weights).
func (s *SquaredLS) X0(mu [4]float64, poses []float64) []float64 {
	return append(append([]float64(nil), mu[:]...), poses[:3*s.B]...)
}

// Problem is the least-squares problem with μ ∈ [0, MuMax], poses free.
func (s *SquaredLS) Problem() opt.LSProblem {
	n := s.Dim()
	lo, hi := make([]float64, n), make([]float64, n)
	for i := range n {
		lo[i], hi[i] = math.Inf(-1), math.Inf(1)
		if i < 4 {
			lo[i], hi[i] = 0, s.MuMax
		}
	}
	return opt.LSProblem{Residuals: s.Residuals, Normal: s.Normal, M: s.M, Lower: lo, Upper: hi}
}

// Residuals has the signature of opt.Residuals.
func (s *SquaredLS) Residuals(x, r []float64, jac *mat.Dense) error {
	if len(x) != s.Dim() || len(r) != s.M {
		return fmt.Errorf("mecanum: SquaredLS: %d variables and %d residuals, want %d and %d", len(x), len(r), s.Dim(), s.M)
	}
	B, T := s.B, s.T
	copy(s.x0, x[4:])
	mu := x[:4]
	if jac == nil {
		if _, err := s.sim.Value(mu, s.q, s.x0, s.u, s.y); err != nil {
			return err
		}
	} else if err := s.sim.Jacobian(mu, s.q, s.x0, s.u, s.j); err != nil {
		return err
	}
	var raw []float64
	stride := 0
	if jac != nil {
		rm := jac.RawMatrix()
		if rm.Rows != s.M || rm.Cols != s.Dim() {
			return fmt.Errorf("mecanum: SquaredLS: Jacobian %d×%d, want %d×%d", rm.Rows, rm.Cols, s.M, s.Dim())
		}
		raw, stride = rm.Data, rm.Stride
	}
	TB := T * B
	n := s.Dim()
	w, ell := s.w, s.ell
	D, K := nd, len(s.j.Rows)
	for k, m := range s.at {
		px, py := s.y[m], s.y[TB+m]
		sn, cs := s.sincos(k, s.y[2*TB+m])
		r[4*k] = w * (px - s.gx[k])
		r[4*k+1] = w * (py - s.gy[k])
		r[4*k+2] = w * (px - ell*sn - s.qx[k])
		r[4*k+3] = w * (py + ell*cs - s.qy[k])
		if raw == nil {
			continue
		}
		i := s.row[k]
		jx, jy, jt := s.j.JY[i*D:(i+1)*D], s.j.JY[(K+i)*D:(K+i+1)*D], s.j.JY[(2*K+i)*D:(2*K+i+1)*D]
		b := s.lane[k]
		for c := range 4 {
			row := raw[(4*k+c)*stride : (4*k+c)*stride+n]
			var ca float64 // the row is w·(J_p + ca·J_θ), p = x or y
			src := jx
			switch c {
			case 1:
				src = jy
			case 2:
				ca = -ell * cs
			case 3:
				src, ca = jy, -ell*sn
			}
			for d := range 4 {
				row[d] = w * (src[d] + ca*jt[d])
			}
			// the start-pose columns: this lane's, zeros for the others
			// (written, not cleared: clear costs a call per row)
			for i := 4; i < n; i++ {
				row[i] = 0
			}
			for d := 4; d < D; d++ {
				row[4+(d-4)*B+b] = w * (src[d] + ca*jt[d])
			}
		}
	}
	return nil
}

// sincosNear is the largest |θ − θm| at which sincos sums angles: there the
// series' first omitted terms, δ⁹/9! and δ¹⁰/10!, are below 5e-17.
const sincosNear = 1.0 / 16

// sincos is math.Sincos(θ) for sample k within 2 ulps
// (TestSquaredLSSincos): where θ is within sincosNear of the measured
// heading θm (near the optimum, and wherever the fit follows the camera),
// by the angle sum from θm's sine and cosine (from NewNetFit) and the
// Taylor series of δ = θ − θm, a fraction of math.Sincos's cost (its range
// reduction and longer polynomials); by math.Sincos elsewhere.
func (s *SquaredLS) sincos(k int, th float64) (sn, cs float64) {
	d := th - s.th[k]
	if !(math.Abs(d) <= sincosNear) {
		return math.Sincos(th)
	}
	z := d * d
	sd := d + d*z*(-1.0/6+z*(1.0/120+z*(-1.0/5040)))         // sin δ
	cd := z * (-0.5 + z*(1.0/24+z*(-1.0/720+z*(1.0/40320)))) // cos δ − 1
	sa, ca := s.sth[k], s.cth[k]
	// the small corrections summed first: their rounding is relative to δ
	return sa + (sa*cd + ca*sd), ca + (ca*cd - sa*sd)
}

// Normal has the signature of opt.NormalEquations: the residuals of
// Residuals and the normal equations of its Jacobian, from the same
// forward-mode rollout, without the M×n matrix. A sample's four rows,
// w·(J_x, J_y, J_x + a·J_θ, J_y + b·J_θ) with a = −ℓ cos θ, b = −ℓ sin θ
// over its lane's 7 columns, add to JᵀJ
//
//	w²·(J_x (2J_x + a J_θ)ᵀ + J_y (2J_y + b J_θ)ᵀ + J_θ (a J_x + b J_y + (a²+b²) J_θ)ᵀ)
//
// (3 products per entry instead of 4) and to Jᵀr
// w·(J_x (r₀+r₂) + J_y (r₁+r₃) + J_θ (a r₂ + b r₃)); each lane's 7×7 block
// is then placed at μ and the lane's start-pose columns.
func (s *SquaredLS) Normal(x, r, jtj, jtr []float64) error {
	n := s.Dim()
	if len(x) != n || len(r) != s.M || len(jtj) != n*n || len(jtr) != n {
		return fmt.Errorf("mecanum: SquaredLS: %d variables, %d residuals, %d and %d normal-equation values, want %d, %d, %d, %d",
			len(x), len(r), len(jtj), len(jtr), n, s.M, n*n, n)
	}
	B, T := s.B, s.T
	copy(s.x0, x[4:])
	if err := s.sim.Jacobian(x[:4], s.q, s.x0, s.u, s.j); err != nil {
		return err
	}
	if len(s.gl) != B {
		s.gl = make([]laneNormal, B)
	}
	clear(s.gl)
	TB, K := T*B, len(s.j.Rows)
	w, ell := s.w, s.ell
	for k, m := range s.at {
		px, py := s.y[m], s.y[TB+m]
		sn, cs := s.sincos(k, s.y[2*TB+m])
		r0 := w * (px - s.gx[k])
		r1 := w * (py - s.gy[k])
		r2 := w * (px - ell*sn - s.qx[k])
		r3 := w * (py + ell*cs - s.qy[k])
		r[4*k], r[4*k+1], r[4*k+2], r[4*k+3] = r0, r1, r2, r3
		i := s.row[k]
		jx := (*[nd]float64)(s.j.JY[i*nd : (i+1)*nd])
		jy := (*[nd]float64)(s.j.JY[(K+i)*nd : (K+i+1)*nd])
		jt := (*[nd]float64)(s.j.JY[(2*K+i)*nd : (2*K+i+1)*nd])
		a, b := -ell*cs, -ell*sn
		ln := &s.gl[s.lane[k]]
		cx, cy, ct := w*(r0+r2), w*(r1+r3), w*(a*r2+b*r3)
		if normalGeneral || !poseColumns(jx, jy, jt) {
			ln.addGeneral(jx, jy, jt, a, b, cx, cy, ct)
		} else {
			ln.addPose(jx, jy, jt, a, b, cx, cy, ct)
		}
	}
	// Each lane's block into the n×n matrix: μ (columns 0..3) shared by
	// all lanes, pose column d of lane b at 4 + (d−4)·B + b.
	clear(jtj)
	clear(jtr)
	w2 := w * w
	col := func(d, b int) int {
		if d < 4 {
			return d
		}
		return 4 + (d-4)*B + b
	}
	for b := range B {
		ln := &s.gl[b]
		for c := range nd {
			jtr[col(c, b)] += ln.v[c]
			for e := c; e < nd; e++ {
				v := w2 * ln.g[c][e]
				i, j := col(c, b), col(e, b)
				jtj[i*n+j] += v
				if i != j {
					jtj[j*n+i] += v
				}
			}
		}
	}
	return nil
}

// normalGeneral makes Normal take every sample through addGeneral (tests:
// addPose's sums against it).
var normalGeneral = false

// poseColumns reports whether a sample's rows have the start-pose columns
// that eq. 5 gives them: x0 and y0 move x and y one for one and nothing
// else (x and y enter no update but their own, by the same amount), and θ
// moves by θ0 one for one (its update depends on neither x, y nor θ):
// ∂(x, y, θ)/∂x0 = (1, 0, 0), ∂/∂y0 = (0, 1, 0), ∂θ/∂θ0 = 1.
func poseColumns(jx, jy, jt *[nd]float64) bool {
	return jx[4] == 1 && jx[5] == 0 && jy[4] == 0 && jy[5] == 1 && jt[4] == 0 && jt[5] == 0 && jt[6] == 1
}

// addGeneral adds one sample to its lane's sums (see Normal): with
// u_x = 2J_x + a J_θ, u_y = 2J_y + b J_θ, u_θ = a J_x + b J_y + (a²+b²) J_θ,
// g[c][e] += J_x[c] u_x[e] + J_y[c] u_y[e] + J_θ[c] u_θ[e] over the upper
// triangle, and v[c] += J_x[c] c_x + J_y[c] c_y + J_θ[c] c_θ.
func (ln *laneNormal) addGeneral(jx, jy, jt *[nd]float64, a, b, cx, cy, ct float64) {
	l2 := a*a + b*b
	var ux, uy, ut [nd]float64
	for d := range nd {
		ux[d] = 2*jx[d] + a*jt[d]
		uy[d] = 2*jy[d] + b*jt[d]
		ut[d] = a*jx[d] + b*jy[d] + l2*jt[d]
	}
	for c := range nd {
		vx, vy, vt := jx[c], jy[c], jt[c]
		ln.v[c] += vx*cx + vy*cy + vt*ct
		row := &ln.g[c]
		for e := c; e < nd; e++ {
			row[e] += vx*ux[e] + vy*uy[e] + vt*ut[e]
		}
	}
}

// addPose is addGeneral for rows with poseColumns: the products with
// their 0 and 1 entries are left out, the rest written out (no loops).
// The sums are addGeneral's (x·1 = x, x + 0·y = x): u's μ entries and the
// θ0 entry as there, u_x[4] = 2, u_y[4] = 0, u_θ[4] = a, u_x[5] = 0,
// u_y[5] = 2, u_θ[5] = b, so that g[c][4] = u_x[c], g[c][5] = u_y[c],
// g[4][4] = g[5][5] = 2, g[4][5] = 0, g[4][6] = u_x[6], g[5][6] = u_y[6],
// v[4] = c_x, v[5] = c_y.
func (ln *laneNormal) addPose(jx, jy, jt *[nd]float64, a, b, cx, cy, ct float64) {
	l2 := a*a + b*b
	x0, x1, x2, x3, x6 := jx[0], jx[1], jx[2], jx[3], jx[6]
	y0, y1, y2, y3, y6 := jy[0], jy[1], jy[2], jy[3], jy[6]
	t0, t1, t2, t3 := jt[0], jt[1], jt[2], jt[3]
	ux0, ux1, ux2, ux3 := 2*x0+a*t0, 2*x1+a*t1, 2*x2+a*t2, 2*x3+a*t3
	uy0, uy1, uy2, uy3 := 2*y0+b*t0, 2*y1+b*t1, 2*y2+b*t2, 2*y3+b*t3
	ut0, ut1, ut2, ut3 := a*x0+b*y0+l2*t0, a*x1+b*y1+l2*t1, a*x2+b*y2+l2*t2, a*x3+b*y3+l2*t3
	ux6, uy6, ut6 := 2*x6+a, 2*y6+b, a*x6+b*y6+l2
	g, v := &ln.g, &ln.v
	v[0] += x0*cx + y0*cy + t0*ct
	v[1] += x1*cx + y1*cy + t1*ct
	v[2] += x2*cx + y2*cy + t2*ct
	v[3] += x3*cx + y3*cy + t3*ct
	v[4] += cx
	v[5] += cy
	v[6] += x6*cx + y6*cy + ct
	g[0][0] += x0*ux0 + y0*uy0 + t0*ut0
	g[0][1] += x0*ux1 + y0*uy1 + t0*ut1
	g[0][2] += x0*ux2 + y0*uy2 + t0*ut2
	g[0][3] += x0*ux3 + y0*uy3 + t0*ut3
	g[0][4] += ux0
	g[0][5] += uy0
	g[0][6] += x0*ux6 + y0*uy6 + t0*ut6
	g[1][1] += x1*ux1 + y1*uy1 + t1*ut1
	g[1][2] += x1*ux2 + y1*uy2 + t1*ut2
	g[1][3] += x1*ux3 + y1*uy3 + t1*ut3
	g[1][4] += ux1
	g[1][5] += uy1
	g[1][6] += x1*ux6 + y1*uy6 + t1*ut6
	g[2][2] += x2*ux2 + y2*uy2 + t2*ut2
	g[2][3] += x2*ux3 + y2*uy3 + t2*ut3
	g[2][4] += ux2
	g[2][5] += uy2
	g[2][6] += x2*ux6 + y2*uy6 + t2*ut6
	g[3][3] += x3*ux3 + y3*uy3 + t3*ut3
	g[3][4] += ux3
	g[3][5] += uy3
	g[3][6] += x3*ux6 + y3*uy6 + t3*ut6
	g[4][4] += 2
	g[4][6] += ux6
	g[5][5] += 2
	g[5][6] += uy6
	g[6][6] += x6*ux6 + y6*uy6 + ut6
}

// squaredSolver is identifySquaredLS's linear algebra: opt's choice (the
// normal equations for these tall problems); benchmarks compare QR.
var squaredSolver = opt.AutoSolver

// identifySquaredLS is IdentifySquared without delays: bounded least
// squares over μ and the start poses with the forward-mode Jacobian,
// returned in NetFit's terms (μ through the output biases b2 = logit(μ/MuMax)).
// It starts from linearStart's estimate (μ from the motion with the
// heading held at the camera's, the start poses with it; init and the
// first camera poses where the runs leave μ undetermined): on
// the demo-like runs 2 iterations and 3 evaluations, all with the
// Jacobian, ending on the gradient test, where the start at init and the
// first camera poses took 6 and 7. Each trial point is evaluated with its
// normal equations (most steps are accepted), but the last: a step the
// Gauss–Newton model says gains less than FunctionTol·F is evaluated
// value-only, and ends the fit on the function test where it falls as
// predicted (opt's LazyFinalJacobian). The Gauss–Newton steps that fit the
// trust region are solved by Cholesky (opt's CholeskyFirst).
func identifySquaredLS(f *NetFit, x0 []float64, init [4]float64, set opt.Settings) (*NetResult, error) {
	old, _ := squaredPool.Get().(*SquaredLS)
	s, err := f.squaredLS(old)
	if err != nil {
		return nil, err
	}
	defer squaredPool.Put(s)
	nw := f.NetWeights()
	var mu0 [4]float64
	for j := range 4 {
		mu0[j] = math.Min(math.Max(init[j], 1e-3), f.MuMax-1e-3)
	}
	start := s.X0(mu0, x0[nw:])
	if !squaredFromInit {
		s.linearStart(f.P, start)
	}
	res, err := opt.LeastSquares{TrialJacobian: true, LazyFinalJacobian: true, CholeskyFirst: true, Solver: squaredSolver}.Solve(s.Problem(), start, set)
	if err != nil {
		return nil, err
	}
	x := append([]float64(nil), x0...)
	for j := range 4 {
		m := res.X[j] / f.MuMax // strictly inside (0, 1): the solver's iterates stay off the bounds
		x[9*f.H+j] = math.Log(m / (1 - m))
	}
	copy(x[nw:], res.X[4:])
	return &NetResult{Net: f.Net(x), X: x, Opt: res}, nil
}

// Ident is the Gauss–Newton picture of the squared-loss fit at x
// (SquaredLS's vector, e.g. the solver's Opt.X, at an optimum):
// fit.Identifiability of JᵀJ over μ_1..μ_4 and the start poses (named mu1..
// mu4, x0_1.., y0_1.., theta0_1..), its σ scaled by the residuals' standard
// deviation s = ‖r‖/√(M − n). The σ of μ so includes the start poses'
// uncertainty (the μ entries of the pseudo-inverse of the whole JᵀJ). The
// residuals are taken as independent: the position and marker errors of
// one sample are not, nor are a run's successive samples, so a caller
// corrects σ for that (e.g. fit.CorrelationInflation).
func (s *SquaredLS) Ident(x []float64) (fit.Ident, error) {
	n := s.Dim()
	if s.M <= n {
		return fit.Ident{}, fmt.Errorf("mecanum: %d residuals for %d variables: no σ", s.M, n)
	}
	r := make([]float64, s.M)
	jac := mat.NewDense(s.M, n, nil)
	if err := s.Residuals(x, r, jac); err != nil {
		return fit.Ident{}, err
	}
	var jtj mat.SymDense
	jtj.SymOuterK(1, jac.T())
	names := []string{"mu1", "mu2", "mu3", "mu4"}
	for _, c := range []string{"x0", "y0", "theta0"} {
		for b := range s.B {
			names = append(names, fmt.Sprintf("%s_%d", c, b+1))
		}
	}
	id, err := fit.Identifiability(names, &jtj)
	if err != nil {
		return id, err
	}
	sd := math.Sqrt(mat.Dot(mat.NewVecDense(s.M, r), mat.NewVecDense(s.M, r)) / float64(s.M-n))
	for i := range id.Std {
		id.Std[i] *= sd
	}
	return id, nil
}

// linearStartDetermined is the least share of μ_j's diagonal entry in the
// normal equations that its Cholesky pivot (squared, the start poses and
// the μ before it eliminated) must keep for linearStart to take μ as
// determined: on runs of three distinct commands the smallest share is
// 0.016–0.19 (TestSquaredLinearStart), on one run of one command 8e-17
// (TestSquaredLinearStartUndetermined).
const linearStartDetermined = 1e-6

// squaredFromInit makes identifySquaredLS start at the given μ and the
// first camera poses, without linearStart (tests and benchmarks: the
// optimum reached from both starts).
var squaredFromInit = false

// linearStart replaces μ and the start poses in x (SquaredLS's vector) by
// the linear least-squares estimate that holds the heading at the
// camera's: with θ given, eqs. 3–5 are linear in μ and the start pose.
// Between consecutive camera samples of a run the heading is taken
// constant, halfway between the two measured headings, so that at sample k
//
//	p_k = p_0 + Σ_i R(θ̄_i)·B_xy·(U_i − K·diag(μ)·U_i),  θ_k = θ_0 + Σ_i B_θ·(U_i − K·diag(μ)·U_i)
//
// over the intervals i before k, U_i = Σ_{steps of i} dt·ω_s (eq. 4's B,
// eq. 3's K). Each sample asks p_k to equal both the measured position
// and the position its marker point and heading give (q − ℓ·(−sin θ,
// cos θ)), and θ_k the measured heading (unwrapped along the run), weighted
// ℓ² as the marker rows weigh it. The normal equations (3·runs + 4
// unknowns) are solved by Cholesky, μ last; μ is kept strictly inside
// (0, MuMax). The fit then starts in the basin of its optimum instead of at
// the given μ: on the demo-like runs the loss at the start is 0.401
// instead of 862 at μ = 0.5 and the first camera poses, and the fit takes
// 2 iterations and 3 evaluations instead of 6 and 7
// (TestSquaredLinearStart). Where the runs leave a combination of μ
// undetermined (one command: the null vector of its B·diag(ω_s); a pivot
// of μ below linearStartDetermined of its diagonal entry), the equations
// are singular or their solution not finite, x is left unchanged and
// false returned: the fit starts at the given μ, as before (a fit from
// elsewhere would end elsewhere along the undetermined direction).
func (s *SquaredLS) linearStart(p Params, x []float64) bool {
	B := s.B
	n := 4 + 3*B
	bm := p.BMatrix()
	K := p.K()
	a := make([]float64, n*n+n)
	g, rhs := a[:n*n], a[n*n:]
	// the unknowns: the start poses (x[4:]'s order: x0, y0, θ0 of every
	// run) at 0..3B−1, then μ at m..m+3, so that Cholesky's last four
	// pivots are those of μ with the poses eliminated
	m := 3 * B
	// add one equation of weight w into g's lower triangle (what cholesky
	// reads): row over μ, 1 in the pose column c, target v
	add := func(row *[4]float64, c int, w, v float64) {
		for i := range 4 {
			wr := w * row[i]
			rhs[m+i] += wr * v
			for j := range i + 1 {
				g[(m+i)*n+m+j] += wr * row[j]
			}
			g[(m+i)*n+c] += wr
		}
		g[c*n+c] += w
		rhs[c] += w * v
	}
	l2 := s.ell * s.ell
	for k0 := 0; k0 < len(s.at); {
		b := s.lane[k0]
		// this lane's samples k0, k0+1, …, rows ascending: the motion from
		// the start, its constant part (cx, cy, ct) and μ_j's coefficients
		var cx, cy, ct float64
		var ax, ay, at [4]float64
		t, k := 0, k0
		thu := s.th[k0] // the measured heading, unwrapped
		for ; k < len(s.at) && s.lane[k] == b; k++ {
			sn, cs := s.sth[k], s.cth[k]
			if k > k0 {
				d := s.th[k] - s.th[k-1]
				thu += d - 2*math.Pi*math.Round(d/(2*math.Pi))
			}
			if tk := s.at[k] / B; tk > t {
				// the interval's heading: halfway between the samples'
				// (their unit vectors' mean direction)
				hs, hc := sn, cs
				if k > k0 {
					ms, mc := s.sth[k-1]+sn, s.cth[k-1]+cs
					if h := math.Sqrt(ms*ms + mc*mc); h > 0 {
						hs, hc = ms/h, mc/h
					}
				}
				var U [4]float64
				for ; t < tk; t++ {
					ub := t * 5 * B
					dt := s.u[ub+4*B+b]
					for j := range 4 {
						U[j] += dt * s.u[ub+j*B+b]
					}
				}
				for j := range 4 {
					wx := hc*bm[0][j] - hs*bm[1][j]
					wy := hs*bm[0][j] + hc*bm[1][j]
					cx += wx * U[j]
					cy += wy * U[j]
					ct += bm[2][j] * U[j]
					ax[j] -= K * wx * U[j]
					ay[j] -= K * wy * U[j]
					at[j] -= K * bm[2][j] * U[j]
				}
			}
			add(&ax, b, 2, 0.5*(s.gx[k]+s.qx[k]+s.ell*sn)-cx)
			add(&ay, B+b, 2, 0.5*(s.gy[k]+s.qy[k]-s.ell*cs)-cy)
			add(&at, 2*B+b, l2, thu-ct)
		}
		k0 = k
	}
	var diag [4]float64
	for j := range 4 {
		diag[j] = g[(m+j)*n+m+j]
	}
	if cholesky(n, g) != nil {
		return false
	}
	for j := range 4 {
		piv := g[(m+j)*n+m+j]
		if !(piv*piv >= linearStartDetermined*diag[j]) {
			return false
		}
	}
	cholSolve(n, g, rhs)
	for _, v := range rhs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	for j := range 4 {
		x[j] = math.Min(math.Max(rhs[m+j], 1e-3), s.MuMax-1e-3)
	}
	copy(x[4:], rhs[:m])
	return true
}
