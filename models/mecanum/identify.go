package mecanum

import (
	"fmt"
	"math"
	"slices"
	"time"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"

	"github.com/wheelgrad/wheelgrad/opt"
)

// Methods of Identify.
const (
	LBFGSB     = "lbfgsb"     // L-BFGS-B, μ ∈ bounds, the gradient of the Fit's Engine
	NelderMead = "neldermead" // Nelder–Mead on the sigmoid form of eq. 14
	CMAES      = "cmaes"      // CMA-ES
)

// IdentifyOptions configure Identify.
type IdentifyOptions struct {
	// Method is LBFGSB (default), NelderMead or CMAES. The objective is
	// Fit.Eval, its gradient from the Fit's Config.Engine (Fit.WithEngine).
	Method string
	Init   [4]float64 // starting μ
	// Held μ_j stay at Init (the command line's -fix): L-BFGS-B only.
	Held [4]bool
	// Start, when set (length Fit.Dim()), is the whole starting vector, μ
	// and start poses, and takes the place of Init.
	Start    []float64
	Settings opt.Settings
	Seed     uint64 // CMA-ES
	// NoContinuation fits a long log at once. By default a fit whose runs
	// span more than 2·ContinuationWindow seconds is first solved on the
	// runs' first ContinuationWindow seconds, then on windows doubling in
	// length, each started from the previous answer (continuation.go).
	NoContinuation bool
	// OneStage runs L-BFGS-B on eq. 8 from Init alone. By default a fit
	// with PoseFree start poses, method L-BFGS-B, no Start and no μ held is
	// solved in two stages (Fit.staged): the squared terms by least squares,
	// then eq. 8 from there, preconditioned.
	OneStage bool
}

// Result is an identification.
type Result struct {
	Mu    [4]float64
	X     []float64 // μ then the start poses (PoseFree)
	Opt   *opt.Result
	Ident Identifiability
	Wall  time.Duration // whole identification, analysis included
	// Windows are the continuation's fits before the final one, shortest
	// first (none for short logs).
	Windows []Window
	// FirstStage is the least-squares first stage (Fit.staged) when it ran;
	// Opt's iterations and evaluations include its own.
	FirstStage *opt.Result
	// Linearised: the second stage was Fit.linearStage (Gauss–Newton steps
	// for eq. 8 with the rollout linearised), not L-BFGS-B.
	Linearised bool
	// Rollouts counts the model's rollouts: Opt's evaluations (the
	// linearised second stage, Fit.linearStage, makes one per trial point,
	// and one at its start; the first stage's are counted too).
	Rollouts int
}

// Identify's default tolerances are SciPy's for L-BFGS-B (factr = 1e7,
// i.e. ftol = 1e7·ε, and pgtol = 1e-5), the paper's optimiser: the loss is
// a sum of distances to noisy samples, and asking more of it buys
// micrometres.
const (
	DefaultFunctionTol = 1e7 * 2.220446049250313e-16
	DefaultGradientTol = 1e-5
)

// poseScale is the unit of the start-pose variables seen by the
// derivative-free methods, whose steps are sized for μ (order 0.1): a
// millimetre-scale pose correction is then a step of order 0.1 too.
const poseScale = 0.01

// partMark, when set (benchmarks), is called with the name of each part of
// Identify's two-stage path as it ends: "first" (the least-squares first
// stage), "precondition" (the second stage's variables), "second" (the
// second stage), "identifiability".
var partMark func(part string)

func mark(part string) {
	if partMark != nil {
		partMark(part)
	}
}

// Identify minimises f's loss over μ (and the start poses) from o.Init and
// analyses identifiability at the optimum.
func Identify(f *Fit, o IdentifyOptions) (*Result, error) {
	start := time.Now()
	lo, hi := f.P.Bounds()
	n := f.Dim()
	x0 := f.X0(o.Init)
	var windows []Window
	if o.Start == nil && !o.NoContinuation && o.Method != NelderMead && o.Method != CMAES {
		var err error
		if o.Start, windows, err = f.continuation(o); err != nil {
			return nil, err
		}
	}
	if o.Start != nil {
		if len(o.Start) != n {
			return nil, fmt.Errorf("mecanum: Start has %d values, the fit %d", len(o.Start), n)
		}
		copy(x0[:4], o.Start[:4])
	}
	for j := range 4 {
		x0[j] = math.Min(math.Max(x0[j], lo), hi)
	}
	var obj opt.Objective = f.Eval
	// search variables z: μ as is, poses as offsets from x0 in units of
	// scale (L-BFGS-B learns the curvature and needs no scaling)
	scale := poseScale
	if o.Method == "" || o.Method == LBFGSB {
		scale = 1
	}
	toX := func(z, x []float64) {
		copy(x[:4], z[:4])
		for i := 4; i < n; i++ {
			x[i] = x0[i] + scale*z[i]
		}
	}
	xb := make([]float64, n)
	zobj := func(z, grad []float64) (float64, error) {
		toX(z, xb)
		v, err := obj(xb, grad)
		if grad != nil {
			for i := 4; i < n; i++ {
				grad[i] *= scale
			}
		}
		return v, err
	}
	lower, upper := make([]float64, n), make([]float64, n)
	for i := range n {
		lower[i], upper[i] = math.Inf(-1), math.Inf(1)
		if i < 4 {
			lower[i], upper[i] = lo, hi
			if o.Held[i] {
				lower[i], upper[i] = x0[i], x0[i]
			}
		}
	}
	z0 := make([]float64, n)
	copy(z0, x0[:4])
	if o.Start != nil {
		for i := 4; i < n; i++ {
			z0[i] = (o.Start[i] - x0[i]) / scale
		}
	}
	prob := opt.Problem{Objective: zobj, Lower: lower, Upper: upper}
	var m opt.Method
	switch o.Method {
	case "", LBFGSB:
		m = opt.LBFGSB{}
	case NelderMead, CMAES:
		if o.Held != [4]bool{} {
			return nil, fmt.Errorf("mecanum: holding μ_j fixed needs method %s", LBFGSB)
		}
	}
	switch o.Method {
	case "", LBFGSB:
		m = opt.LBFGSB{}
	case NelderMead:
		m = opt.NelderMead{}
	case CMAES:
		m = opt.CMAES{Seed: o.Seed, Sigma0: 0.1 * (hi - lo)}
	default:
		return nil, fmt.Errorf("mecanum: unknown method %q", o.Method)
	}
	set := o.Settings
	if set.FunctionTol == 0 {
		set.FunctionTol = DefaultFunctionTol
	}
	if set.GradientTol == 0 {
		set.GradientTol = DefaultGradientTol
	}
	if set.StepTol == 0 {
		set.StepTol = 1e-7
	}
	var res, first *opt.Result
	var staged []float64 // the two stages' answer, before the offsets below
	rollouts, linear := 0, false
	f.stageLin = nil
	defer func() {
		if f.stageLin != nil {
			linPool.Put(f.stageLin) // the analysis below is done with it
		}
		f.stageLin = nil
	}()
	if !o.OneStage && (o.Method == "" || o.Method == LBFGSB) && o.Start == nil && o.Held == [4]bool{} && f.Cfg.Pose == PoseFree {
		var err error
		if res, first, rollouts, linear, err = f.staged(x0, lower, upper, set); err != nil {
			return nil, err
		}
		mark("second")
		if res != nil { // to the search variables (poses as offsets from x0)
			staged = slices.Clone(res.X)
			for i := 4; i < n; i++ {
				res.X[i] -= x0[i]
			}
		}
	}
	if res == nil {
		linear = false
		var err error
		if res, err = m.Minimize(prob, z0, set); err != nil {
			return nil, err
		}
		rollouts = res.FuncEvaluations
	}
	if first != nil { // both stages' work, also when the second fell back
		rollouts += first.FuncEvaluations
		res.Iterations += first.Iterations
		res.FuncEvaluations += first.FuncEvaluations
		res.GradEvaluations += first.GradEvaluations
	}
	r := &Result{Opt: res, X: make([]float64, n), FirstStage: first, Rollouts: rollouts, Linearised: linear}
	toX(res.X, r.X)
	copy(r.Mu[:], r.X[:4])
	// The analysis needs the rows at the answer: the second stage's last
	// linearisation holds them when it ended there (its x is then the
	// answer before the offsets' round trip, which moves the poses by an
	// ulp), or takes them from one more rollout of its own.
	if lin := f.stageLin; lin != nil && staged != nil {
		x := staged
		if !lin.rolled || !slices.Equal(lin.x, staged) {
			x = r.X
		}
		if lin, err := f.linearize(x, lin); err == nil {
			r.Ident = f.identifiabilityLin(lin, o.Held)
		}
	}
	if r.Ident.Singular == nil {
		r.Ident = f.IdentifiabilityHeld(r.X, o.Held)
	}
	mark("identifiability")
	r.Windows = windows
	r.Wall = time.Since(start)
	return r, nil
}

// Identifiability describes which parameter combinations the data
// determine: the Gauss–Newton picture of the fit, from the Jacobian of the
// predicted camera positions (and marker points) with respect to x at the
// optimum. With PoseFree the Jacobian is block-structured (each run's rows
// touch μ and that run's own start pose), so it is never formed: each run's
// rows are reduced by a streaming QR with the pose columns first, which
// leaves R_pp (3×3, the start pose) and R_μμ (4×4, what the run says about
// μ once its start pose is estimated); the stacked R_μμ of every run (and
// the prior's rows) give the singular values and directions in μ. That is
// the SVD of the Schur complement S = A − B·D⁻¹·Bᵀ of the normal matrix
// computed without forming it (no squared condition number), in memory
// that does not grow with the number of runs or rows, and the μ standard
// deviations are the same as from the SVD of the whole Jacobian.
type Identifiability struct {
	// Singular and Directions are the singular values (largest first) and
	// right singular vectors (in μ) of the μ part once the start poses are
	// estimated; without PoseFree, of the whole Jacobian.
	Singular   []float64
	Directions [][]float64
	Determined []bool // σ_i above the rank threshold 1e-8·σ_max
	// Poses and PosesDetermined count the start-pose directions (3 per run
	// with PoseFree) and those the data determine (σ of the run's R_pp
	// above 1e-8 times the largest σ of any block); PoseSingular is the
	// smallest and largest of those σ.
	Poses, PosesDetermined int
	PoseSingular           [2]float64
	// Noise is the RMS residual per coordinate, s; the standard deviation
	// of x along direction i is s/σ_i.
	Noise float64
	// MuStd is the standard deviation of each μ_j within the determined
	// subspace (what the data say; the undetermined part is set by the
	// start or the prior). It is the Gauss–Newton value for independent
	// residuals and understates the real scatter: the loss is a sum of
	// distances to a spline fitted to the same noisy samples, whose residuals
	// are correlated. Over 8 noise seeds (3 commands, 7 s, σ = 3 mm) the
	// spread of the estimates was 1.4–2× MuStd, with no significant bias.
	MuStd [4]float64
}

// Undetermined returns the μ parts of the directions the data do not
// determine, each scaled to unit length.
func (id Identifiability) Undetermined() [][4]float64 {
	var out [][4]float64
	for i, d := range id.Determined {
		if d {
			continue
		}
		var v [4]float64
		var nrm float64
		for j := range 4 {
			v[j] = id.Directions[i][j]
			nrm += v[j] * v[j]
		}
		if nrm = math.Sqrt(nrm); nrm > 1e-6 {
			for j := range 4 {
				v[j] /= nrm
			}
			// sign: first nonzero component positive
			for j := range 4 {
				if math.Abs(v[j]) > 1e-9 {
					if v[j] < 0 {
						for k := range 4 {
							v[k] = -v[k]
						}
					}
					break
				}
			}
			out = append(out, v)
		}
	}
	return out
}

// Identifiability analyses the fit at x (see the type).
func (f *Fit) Identifiability(x []float64) Identifiability {
	return f.IdentifiabilityHeld(x, [4]bool{})
}

// IdentifiabilityHeld analyses the fit at x with the held μ_j known: their
// columns are left out of the μ block (after the start poses are
// eliminated run by run, the information of a subset of μ is the same
// subset of the block's columns), their MuStd is 0 and the directions are
// zero there.
func (f *Fit) IdentifiabilityHeld(x []float64, held [4]bool) Identifiability {
	return f.identifiability(held, func(row jacRow) { f.eval(x, nil, row) })
}

// identifiabilityLin is IdentifiabilityHeld at lin's point from lin's rows
// (linearize: Model's forward-mode rollout, PoseFree), which are
// Fit.eval's to rounding: no rollout of its own.
func (f *Fit) identifiabilityLin(lin *linEq8, held [4]bool) Identifiability {
	return f.identifiability(held, func(row jacRow) {
		for i := range lin.terms {
			t := &lin.terms[i]
			r := [4]float64{t.e[0], t.e[1], t.q[0], t.q[1]}
			var d [4][4]float64
			var dp [4][3]float64
			for c, g := range [4]*[7]float64{&t.gp[0], &t.gp[1], &t.gq[0], &t.gq[1]} {
				d[c] = [4]float64(g[:4])
				dp[c] = [3]float64(g[4:])
			}
			row(t.run, t.k, r, [3]float64{}, d, dp)
		}
	})
}

// identifiability is the analysis of IdentifiabilityHeld over the rows
// that rows hands its argument (Fit.eval's, run by run).
func (f *Fit) identifiability(held [4]bool, rows func(jacRow)) Identifiability {
	free := f.Cfg.Pose == PoseFree
	nc := 2
	if f.Cfg.Heading != 0 {
		nc = 4
	}
	var ss float64
	m := 0
	// Per run: rows [pose (3) | μ (4)], or [μ] without PoseFree.
	ncol := 4
	if free {
		ncol = 7
	}
	runQR := newStreamQR(ncol)
	muQR := newStreamQR(4)
	var poseR []*mat.Dense
	row := make([]float64, ncol)
	flush := func() {
		R := runQR.R()
		runQR.reset()
		if !free {
			for i := range 4 {
				muQR.add(R.RawRowView(i))
			}
			return
		}
		poseR = append(poseR, mat.DenseCopyOf(R.Slice(0, 3, 0, 3)))
		for i := 3; i < 7; i++ {
			muQR.add(R.RawRowView(i)[3:7])
		}
	}
	last := -1
	rows(func(run, _ int, r [4]float64, _ [3]float64, dmu [4][4]float64, dpose [4][3]float64) {
		if run != last && last >= 0 {
			flush()
		}
		last = run
		for c := range nc {
			if free {
				copy(row[:3], dpose[c][:])
				copy(row[3:], dmu[c][:])
			} else {
				copy(row, dmu[c][:])
			}
			runQR.add(row)
			ss += r[c] * r[c]
			m++
		}
	})
	if last >= 0 {
		flush()
	}
	if f.Cfg.Prior > 0 {
		for j := range 4 {
			var pr [4]float64
			pr[j] = math.Sqrt(f.Cfg.Prior)
			muQR.add(pr[:])
		}
	}
	id := Identifiability{}
	var keep []int // the μ_j not held
	for j := range 4 {
		if !held[j] {
			keep = append(keep, j)
		}
	}
	var svd mat.SVD
	var V mat.Dense
	smax := 0.0
	if len(keep) > 0 {
		R := muQR.R()
		rows, _ := R.Dims()
		Rk := mat.NewDense(rows, len(keep), nil)
		for jj, j := range keep {
			for i := range rows {
				Rk.Set(i, jj, R.At(i, j))
			}
		}
		if !svd.Factorize(Rk, mat.SVDThin) {
			return id
		}
		id.Singular = svd.Values(nil)
		smax = id.Singular[0]
		svd.VTo(&V)
	}
	poseSing := make([][]float64, len(poseR))
	for i, R := range poseR {
		var ps mat.SVD
		if !ps.Factorize(R, mat.SVDNone) {
			return Identifiability{}
		}
		poseSing[i] = ps.Values(nil)
		smax = math.Max(smax, poseSing[i][0])
	}
	rank := 0
	for i, s := range id.Singular {
		d := make([]float64, 4)
		for jj, j := range keep {
			d[j] = V.At(jj, i)
		}
		id.Directions = append(id.Directions, d)
		det := s > 1e-8*smax
		id.Determined = append(id.Determined, det)
		if det {
			rank++
		}
	}
	id.PoseSingular = [2]float64{math.Inf(1), 0}
	for _, ps := range poseSing {
		for _, s := range ps {
			id.Poses++
			if s > 1e-8*smax {
				id.PosesDetermined++
			}
			id.PoseSingular[0] = math.Min(id.PoseSingular[0], s)
			id.PoseSingular[1] = math.Max(id.PoseSingular[1], s)
		}
	}
	if id.Poses == 0 {
		id.PoseSingular = [2]float64{}
	}
	rank += id.PosesDetermined
	if dof := m - rank; dof > 0 {
		id.Noise = math.Sqrt(ss / float64(dof))
	}
	for j := range 4 {
		var v float64
		for i, s := range id.Singular {
			if id.Determined[i] {
				d := id.Directions[i][j] * id.Noise / s
				v += d * d
			}
		}
		id.MuStd[j] = math.Sqrt(v)
	}
	return id
}

// streamQR holds the R factor of a growing stack of rows with c columns in
// bounded memory: rows are buffered and the buffer is reduced to its c×c
// R (Householder QR, LAPACK's dgeqrf) whenever it fills.
type streamQR struct {
	c, n      int
	buf       []float64 // (c+streamQRChunk)×c, row-major
	tau, work []float64
}

const streamQRChunk = 256

func newStreamQR(c int) *streamQR {
	q := &streamQR{c: c, buf: make([]float64, (c+streamQRChunk)*c), tau: make([]float64, c)}
	work := []float64{0}
	lapack64.Geqrf(q.general(q.c+streamQRChunk), q.tau, work, -1)
	q.work = make([]float64, max(int(work[0]), c))
	return q
}

// general is the buffer's first rows rows as a LAPACK matrix.
func (q *streamQR) general(rows int) blas64.General {
	return blas64.General{Rows: rows, Cols: q.c, Stride: q.c, Data: q.buf[:rows*q.c]}
}

func (q *streamQR) add(row []float64) {
	if q.n == q.c+streamQRChunk {
		q.compress()
	}
	copy(q.buf[q.n*q.c:(q.n+1)*q.c], row)
	q.n++
}

// compress replaces the buffered rows by their R (the rows past n are
// zero).
func (q *streamQR) compress() {
	c := q.c
	lapack64.Geqrf(q.general(max(q.n, c)), q.tau, q.work, len(q.work))
	for i := range c {
		clear(q.buf[i*c : i*c+i]) // below the diagonal: the reflectors
	}
	clear(q.buf[c*c:])
	q.n = c
}

// R returns the c×c upper-triangular factor of the rows so far (Rᵀ·R is
// the sum of their outer products).
func (q *streamQR) R() *mat.Dense {
	q.compress()
	return mat.NewDense(q.c, q.c, slices.Clone(q.buf[:q.c*q.c]))
}

func (q *streamQR) reset() {
	clear(q.buf)
	q.n = 0
}

// String reports the analysis in a few lines.
func (id Identifiability) String() string {
	nd := 0
	for _, d := range id.Determined {
		if d {
			nd++
		}
	}
	if len(id.Singular) == 0 {
		return "identifiability: the analysis failed (singular value decomposition did not converge)\n"
	}
	s := fmt.Sprintf("identifiability: %d of %d μ directions determined by the data (singular values %.3g … %.3g)\n",
		nd, len(id.Singular), id.Singular[0], id.Singular[len(id.Singular)-1])
	if id.Poses > 0 {
		s += fmt.Sprintf("  start poses: %d of %d directions determined (singular values %.3g … %.3g)\n",
			id.PosesDetermined, id.Poses, id.PoseSingular[1], id.PoseSingular[0])
	}
	s += fmt.Sprintf("  μ standard deviation within the determined part: %.4f %.4f %.4f %.4f (residual RMS %.2g m)\n",
		id.MuStd[0], id.MuStd[1], id.MuStd[2], id.MuStd[3], id.Noise)
	s += "  (Gauss–Newton, as if camera errors were independent; over repeated noise the spread measured 1.4–2× larger)\n"
	for _, u := range id.Undetermined() {
		s += fmt.Sprintf("  NOT determined: μ + t·(%.4f, %.4f, %.4f, %.4f) predicts the same trajectories for every t\n", u[0], u[1], u[2], u[3])
	}
	if nd == len(id.Singular) {
		s += "  every μ_j is determined\n"
	}
	return s
}

// StartPoseStd is the standard deviation of each μ_j caused by errors in
// the start poses when the fit holds them fixed (PoseFixed: each run starts
// at its first camera sample, noise included): the first-order propagation
// S·Σ·Sᵀ with S = −(J_μᵀJ_μ)⁻¹J_μᵀJ_pose, the Jacobians of f's loss with the
// start poses free, at mu and the fixed start poses, and Σ = diag(σ_pos²,
// σ_pos², σ_θ²) per run. The Gauss–Newton MuStd of a PoseFixed fit leaves
// this out, and it dominates: one noisy first sample bends a whole run.
func (f *Fit) StartPoseStd(mu [4]float64, sigmaPos, sigmaTheta float64) ([4]float64, error) {
	var out [4]float64
	cfg := f.Cfg
	cfg.Pose = PoseFree
	g := &Fit{P: f.P, Cfg: cfg, segs: f.segs, ell: f.ell}
	x := g.X0(mu)
	nb := len(f.segs)
	nc := 2
	if cfg.Heading != 0 {
		nc = 4
	}
	// J_pose is block-diagonal by run, so S = (J_μᵀJ_μ)⁻¹·[J_μ,iᵀJ_pose,i]_i
	// needs A = J_μᵀJ_μ (4×4) and B_i = J_μ,iᵀJ_pose,i (4×3 per run): memory
	// linear in the runs, no dense Jacobian.
	A := mat.NewSymDense(4, nil)
	B := make([]*mat.Dense, nb)
	for i := range B {
		B[i] = mat.NewDense(4, 3, nil)
	}
	rows := 0
	g.eval(x, nil, func(run, _ int, _ [4]float64, _ [3]float64, dmu [4][4]float64, dpose [4][3]float64) {
		for c := range nc {
			for a := range 4 {
				for b := a; b < 4; b++ {
					A.SetSym(a, b, A.At(a, b)+dmu[c][a]*dmu[c][b])
				}
				for k := range 3 {
					B[run].Set(a, k, B[run].At(a, k)+dmu[c][a]*dpose[c][k])
				}
			}
			rows++
		}
	})
	if rows < 4 {
		return out, fmt.Errorf("mecanum: %d residuals", rows)
	}
	var ch mat.Cholesky
	if !ch.Factorize(A) {
		return out, fmt.Errorf("mecanum: the μ block of the Jacobian is singular (some μ_j undetermined)")
	}
	var v [4]float64
	var S mat.Dense
	for i := range nb {
		if err := ch.SolveTo(&S, B[i]); err != nil { // −S is dμ/dpose of run i
			return out, err
		}
		for j := range 4 {
			for c, sg := range []float64{sigmaPos, sigmaPos, sigmaTheta} {
				e := S.At(j, c) * sg
				v[j] += e * e
			}
		}
	}
	for j := range 4 {
		out[j] = math.Sqrt(v[j])
	}
	return out, nil
}
