package mecanum

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/wheelgrad/wheelgrad/losses"
	"github.com/wheelgrad/wheelgrad/opt"
)

// squaredStage is the first stage of Identify with L-BFGS-B: eq. 8's terms
// squared, Σ ½·w·d² (and ½·Prior·(μ_j − PriorMu_j)²), solved as bounded
// least squares (opt.LeastSquares, a handful of Gauss–Newton iterations).
// Identify squares the position and marker terms only (the spline term's
// weight set to 0 for this stage, see stagedTol): its optimum lies within
// the noise of eq. 8's, which the second stage then reaches from there in
// a fraction of the evaluations it needs from -init: far from the optimum,
// a sum of distances is nearly a cone, on which L-BFGS-B crawls, while
// Gauss–Newton on the squares takes the long steps.
//
// The residuals are, per counted camera sample, √w·(position error), √w·
// (marker error) and √w·(distance to the spline) along its normal (the
// closest point held, as eq. 7's gradient holds it); their Jacobian rows
// come from the forward-mode rollout of Model (linEq8's rows). They are
// not handed to the solver one by one: the augmented normal matrix
// A = [J r]ᵀ[J r] is accumulated (accumulate), (n+1)×(n+1) whatever the
// number of samples. The solver takes its normal equations directly
// (normal: JᵀJ = A[:n, :n], Jᵀr = A[:n, n], and the residuals
// (√(2F), 0, …) of the same cost F = ½·A[n, n]), on opt's normal-equations
// path. Where that path falls back to QR (an ill-conditioned JᵀJ), the
// residuals with a Jacobian are any factor R̃ with R̃ᵀR̃ = A (here from its
// eigendecomposition, which a singular A, an undetermined direction, does
// not break): n+1 residuals R̃[:, n] and Jacobian rows R̃[:, :n] whose
// Gauss–Newton model ½‖r + Jδ‖² is the full problem's exactly. At a trial
// point without a Jacobian the residuals are (√(2F), 0, …): the same cost F.
// The solver must evaluate the Jacobian at every trial point
// (TrialJacobian), so that r and J always come from one call.
type squaredStage struct {
	f   *Fit
	n   int
	a   *mat.SymDense
	eig mat.EigenSym
	v   mat.Dense
	ev  []float64
	// the closest points' memory between value-only calls (made at the
	// first that searches)
	warm [][]losses.Warm
	// per run, the upper triangle of its block of A over μ, its start
	// pose and the residual (accumulate)
	blocks []stageBlock
	lin    *linEq8 // the rows at the last point
	// aFresh: a is A at lin's point (accumulate at the same point again
	// is free; linearize elsewhere, e.g. the second stage's, clears
	// lin.rolled or moves lin.x)
	aFresh bool
}

func (f *Fit) squaredStage() *squaredStage {
	n := f.Dim()
	return &squaredStage{f: f, n: n, a: mat.NewSymDense(n+1, nil), ev: make([]float64, n+1)}
}

// problem is the least-squares problem with the given bounds, to be solved
// with opt.NormalSolver and TrialJacobian (see the type).
func (s *squaredStage) problem(lower, upper []float64) opt.LSProblem {
	return opt.LSProblem{Residuals: s.residuals, Normal: s.normal, M: s.n + 1, Lower: lower, Upper: upper}
}

// residuals has the signature of opt.Residuals (see the type).
func (s *squaredStage) residuals(x, r []float64, jac *mat.Dense) error {
	f := s.f
	if len(x) != s.n || len(r) != s.n+1 {
		return fmt.Errorf("mecanum: x has %d values, the fit has %d", len(x), s.n)
	}
	clear(r)
	if jac == nil {
		if s.warm == nil && f.Cfg.Weights.Spline != 0 {
			s.warm = f.newWarm()
		}
		r[0] = math.Sqrt(2 * f.evalAs(x, nil, nil, true, s.warm))
		return nil
	}
	if err := s.accumulate(x); err != nil {
		return err
	}
	n := s.n
	if !s.eig.Factorize(s.a, true) {
		return fmt.Errorf("mecanum: the normal matrix of the first stage has no eigendecomposition")
	}
	s.eig.VectorsTo(&s.v)
	s.eig.Values(s.ev)
	for i, l := range s.ev {
		q := math.Sqrt(math.Max(l, 0))
		for j := range n {
			jac.Set(i, j, q*s.v.At(j, i))
		}
		r[i] = q * s.v.At(n, i)
	}
	return nil
}

// normal has the signature of opt.NormalEquations: the normal equations of
// residuals' factor, read off A (see the type) with no factorisation.
func (s *squaredStage) normal(x, r, jtj, jtr []float64) error {
	n := s.n
	if len(x) != n || len(r) != n+1 || len(jtj) != n*n || len(jtr) != n {
		return fmt.Errorf("mecanum: x has %d values, the fit has %d", len(x), n)
	}
	if err := s.accumulate(x); err != nil {
		return err
	}
	raw := s.a.RawSymmetric()
	for i := range n {
		row := raw.Data[i*raw.Stride:]
		for j := i; j < n; j++ {
			jtj[i*n+j], jtj[j*n+i] = row[j], row[j]
		}
		jtr[i] = row[n]
	}
	clear(r)
	r[0] = math.Sqrt(math.Max(raw.Data[n*raw.Stride+n], 0))
	return nil
}

// accumulate sets the upper triangle of A = [J r]ᵀ[J r] at x (see the
// type) from the rows of linEq8 at x (the forward-mode rollout of Model).
func (s *squaredStage) accumulate(x []float64) error {
	f := s.f
	// Each run's rows touch μ and its own start pose only: m+1 = 8 local
	// columns (the residual last), accumulated per run in an 8×8 block
	// (upper triangle) and placed once at the end.
	n, nb := s.n, len(f.segs)
	const m = 7
	if f.Cfg.Pose != PoseFree {
		return fmt.Errorf("mecanum: the first stage needs the start poses free (PoseFree)")
	}
	if s.lin != nil && s.lin.rolled && s.aFresh && slices.Equal(s.lin.x, x) {
		return nil // A is already at x (the last call's)
	}
	s.aFresh = false
	lin, err := f.linearize(x, s.lin)
	if err != nil {
		return err
	}
	s.lin = lin
	if len(s.blocks) != nb {
		s.blocks = make([]stageBlock, nb)
	}
	clear(s.blocks)
	w1, w2, w3 := f.Cfg.Weights.Spline, f.Cfg.Weights.GroundTruth, f.Cfg.Heading
	win := f.Cfg.window()
	for i := range lin.terms {
		t := &lin.terms[i]
		blk := &s.blocks[t.run]
		if poseColumns7(t) {
			blk.addPose(t, w2, w3)
		} else {
			blk.addGeneral(t, w2, w3)
		}
		if w1 != 0 {
			s := &f.segs[t.run]
			ppx, ppy := t.e[0]+s.gx[t.k], t.e[1]+s.gy[t.k]
			c := s.spline.ClosestWarm(ppx, ppy, s.tcam[t.k], win, &lin.warm[i])
			if c.Dist > 0 {
				// the row along the normal, residual the distance
				ex, ey := (ppx-c.X)/c.Dist, (ppy-c.Y)/c.Dist
				var row [8]float64
				for j := range m {
					row[j] = ex*t.gp[0][j] + ey*t.gp[1][j]
				}
				row[m] = c.Dist
				for p := range m + 1 {
					rp := w1 * row[p]
					bp := &blk[p]
					for q := p; q <= m; q++ {
						bp[q] += rp * row[q]
					}
				}
			}
		}
	}
	s.a.Zero()
	raw := s.a.RawSymmetric()
	var idx [8]int
	for j := range 4 {
		idx[j] = j
	}
	idx[m] = n
	for run := range s.blocks {
		idx[4], idx[5], idx[6] = 4+run, 4+nb+run, 4+2*nb+run
		blk := &s.blocks[run]
		for p := 0; p <= m; p++ {
			for q := p; q <= m; q++ {
				i, j := idx[p], idx[q]
				if i > j {
					i, j = j, i
				}
				raw.Data[i*raw.Stride+j] += blk[p][q]
			}
		}
	}
	if f.Cfg.Prior > 0 {
		for j := range 4 {
			raw.Data[j*raw.Stride+j] += f.Cfg.Prior
			e := x[j] - f.Cfg.PriorMu[j]
			raw.Data[j*raw.Stride+n] += f.Cfg.Prior * e
			raw.Data[n*raw.Stride+n] += f.Cfg.Prior * e * e
		}
	}
	s.aFresh = true
	return nil
}

// stageBlock is the upper triangle of one run's block of A over its 8
// local columns: μ_1..μ_4, the run's x0, y0, θ0, and the residual.
type stageBlock [8][8]float64

// addGeneral adds a sample's four rows [g | residual] to b: position x, y
// (weight w2) and marker x, y (weight w3), summed at once.
func (b *stageBlock) addGeneral(t *linTerm, w2, w3 float64) {
	const m = 7
	var px, py, qx, qy [8]float64
	copy(px[:m], t.gp[0][:])
	copy(py[:m], t.gp[1][:])
	copy(qx[:m], t.gq[0][:])
	copy(qy[:m], t.gq[1][:])
	px[m], py[m], qx[m], qy[m] = t.e[0], t.e[1], t.q[0], t.q[1]
	for p := range m + 1 {
		a, c, d, e := w2*px[p], w2*py[p], w3*qx[p], w3*qy[p]
		bp := &b[p]
		for q := p; q <= m; q++ {
			bp[q] += a*px[q] + c*py[q] + d*qx[q] + e*qy[q]
		}
	}
}

// poseColumns7 reports whether a sample's rows have the start-pose columns
// of eq. 5 (poseColumns): ∂(x, y)/∂(x0, y0) the identity, for position
// and marker alike (the marker's rows add a multiple of θ's, which x0 and
// y0 do not move).
func poseColumns7(t *linTerm) bool {
	return t.gp[0][4] == 1 && t.gp[0][5] == 0 && t.gp[1][4] == 0 && t.gp[1][5] == 1 &&
		t.gq[0][4] == 1 && t.gq[0][5] == 0 && t.gq[1][4] == 0 && t.gq[1][5] == 1
}

// addPose is addGeneral for rows with poseColumns7: the products with
// their 0 and 1 entries left out (columns 4 and 5 of a row are (1, 0) for
// the x rows and (0, 1) for the y rows), the rest written out (no loops:
// the operands stay in registers). The weights are folded into one side:
// W·px = w2·px, and so on.
func (b *stageBlock) addPose(t *linTerm, w2, w3 float64) {
	// the 6 other columns of the four rows: μ_1..μ_4, θ0, residual
	x0, x1, x2, x3, x6, xr := t.gp[0][0], t.gp[0][1], t.gp[0][2], t.gp[0][3], t.gp[0][6], t.e[0]
	y0, y1, y2, y3, y6, yr := t.gp[1][0], t.gp[1][1], t.gp[1][2], t.gp[1][3], t.gp[1][6], t.e[1]
	X0, X1, X2, X3, X6, Xr := t.gq[0][0], t.gq[0][1], t.gq[0][2], t.gq[0][3], t.gq[0][6], t.q[0]
	Y0, Y1, Y2, Y3, Y6, Yr := t.gq[1][0], t.gq[1][1], t.gq[1][2], t.gq[1][3], t.gq[1][6], t.q[1]
	wx0, wx1, wx2, wx3, wx6, wxr := w2*x0, w2*x1, w2*x2, w2*x3, w2*x6, w2*xr
	wy0, wy1, wy2, wy3, wy6, wyr := w2*y0, w2*y1, w2*y2, w2*y3, w2*y6, w2*yr
	wX0, wX1, wX2, wX3, wX6, wXr := w3*X0, w3*X1, w3*X2, w3*X3, w3*X6, w3*Xr
	wY0, wY1, wY2, wY3, wY6, wYr := w3*Y0, w3*Y1, w3*Y2, w3*Y3, w3*Y6, w3*Yr
	b[0][0] += wx0*x0 + wy0*y0 + wX0*X0 + wY0*Y0
	b[0][1] += wx0*x1 + wy0*y1 + wX0*X1 + wY0*Y1
	b[0][2] += wx0*x2 + wy0*y2 + wX0*X2 + wY0*Y2
	b[0][3] += wx0*x3 + wy0*y3 + wX0*X3 + wY0*Y3
	b[0][6] += wx0*x6 + wy0*y6 + wX0*X6 + wY0*Y6
	b[0][7] += wx0*xr + wy0*yr + wX0*Xr + wY0*Yr
	b[0][4] += wx0 + wX0
	b[0][5] += wy0 + wY0
	b[1][1] += wx1*x1 + wy1*y1 + wX1*X1 + wY1*Y1
	b[1][2] += wx1*x2 + wy1*y2 + wX1*X2 + wY1*Y2
	b[1][3] += wx1*x3 + wy1*y3 + wX1*X3 + wY1*Y3
	b[1][6] += wx1*x6 + wy1*y6 + wX1*X6 + wY1*Y6
	b[1][7] += wx1*xr + wy1*yr + wX1*Xr + wY1*Yr
	b[1][4] += wx1 + wX1
	b[1][5] += wy1 + wY1
	b[2][2] += wx2*x2 + wy2*y2 + wX2*X2 + wY2*Y2
	b[2][3] += wx2*x3 + wy2*y3 + wX2*X3 + wY2*Y3
	b[2][6] += wx2*x6 + wy2*y6 + wX2*X6 + wY2*Y6
	b[2][7] += wx2*xr + wy2*yr + wX2*Xr + wY2*Yr
	b[2][4] += wx2 + wX2
	b[2][5] += wy2 + wY2
	b[3][3] += wx3*x3 + wy3*y3 + wX3*X3 + wY3*Y3
	b[3][6] += wx3*x6 + wy3*y6 + wX3*X6 + wY3*Y6
	b[3][7] += wx3*xr + wy3*yr + wX3*Xr + wY3*Yr
	b[3][4] += wx3 + wX3
	b[3][5] += wy3 + wY3
	b[6][6] += wx6*x6 + wy6*y6 + wX6*X6 + wY6*Y6
	b[6][7] += wx6*xr + wy6*yr + wX6*Xr + wY6*Yr
	b[7][7] += wxr*xr + wyr*yr + wXr*Xr + wYr*Yr
	w := w2 + w3
	b[4][4] += w
	b[5][5] += w
	b[4][6] += wx6 + wX6
	b[4][7] += wxr + wXr
	b[5][6] += wy6 + wY6
	b[5][7] += wyr + wYr
}

// staged runs Identify's two stages from x0 (see squaredStage): bounded
// least squares on the squared position and marker terms, then eq. 8 from
// its answer x1. The second stage is linearStage (Gauss–Newton steps for
// L1 on eq. 8 with the rollout linearised at each trial point); if no
// step of it lowers eq. 8, L-BFGS-B on eq. 8
// itself (f.Eval, as fullSecondStage makes it always) in the variables z
// of x = x1 + √ē·U⁻¹·z, where UᵀU is the first stage's Gauss–Newton matrix
// at x1 and ē the RMS of its residuals (eq. 8's curvature is about the
// squares' over the residual size): a preconditioner under which L-BFGS-B
// starts with the problem's shape instead of learning it. It returns the second stage's
// result with x in f's layout, the first stage's (whose work the caller
// adds), the second stage's rollouts, and whether the second stage was
// linearStage (false: L-BFGS-B on eq. 8 itself).
//
// The second stage is unbounded (the box is not a box in z), so res is nil
// — the caller solves the problem in one stage — when the first stage's μ
// is not inside the bounds by 5 % of their width, its matrix is singular
// (a direction the data do not determine) or the answer leaves the bounds.
//
// Why: eq. 8 is a sum of distances, kinked wherever a predicted position
// crosses the spline of its samples, and L-BFGS-B from -init spends most of
// its iterations on the way in, where the sum of distances is nearly a
// cone. Measured on five synthetic sets (3 × 7 s runs with three seeds, the
// demo-like logs, 4 short runs; σ = 3 mm, DefaultConfig), with the first
// stage on all three terms and L-BFGS-B on eq. 8 itself, before the stall
// rule below: 1.5–4.3× fewer evaluations, at a loss equal or lower (−2e-4 …
// −2.5e-7 relative) and μ within 0.03–0.8 σ of the one-stage answer, which
// itself moves by ~0.4 σ with its start on this kinked loss. Now
// (TestIdentifyStaged, TestLinearStage): 5 rollouts each (18, 10 and 11
// evaluations, all but 3 on the linearised rollout; the first stage from
// SquaredLS's linear estimate, squaredFirst) where one stage takes 152, 410
// and 245, at losses −4.9e-7, −1.2e-4 and −3.5e-5 relative to it. The first stage without the spline term needs
// no closest-point search (the second stage's searches find eq. 8's
// optimum from its answer all the same: in TestLinearStage's three sets,
// the stages with it took 11, 8 and 8 rollouts and 108, 109 and 63
// evaluations, and one eq. 8 identification of the demo-like logs 37 ms
// against 23 ms without, fastest of 25 alternating runs under load). With
// the start poses held (PaperConfig) the squares' optimum is no better a
// start (the first sample's noise bends each run, which the squares weigh
// differently), and the two stages were as often slower: Identify uses
// them with PoseFree only.
func (f *Fit) staged(x0, lower, upper []float64, set opt.Settings) (res, first *opt.Result, rollouts int, linear bool, err error) {
	return f.stagedTol(x0, lower, upper, set, firstStageFunctionTol)
}

// stagedTol is staged with the first stage stopping at a relative decrease
// of tol1 (or the settings' FunctionTol, if larger).
func (f *Fit) stagedTol(x0, lower, upper []float64, set opt.Settings, tol1 float64) (res, first *opt.Result, rollouts int, linear bool, err error) {
	n := f.Dim()
	st := f.squaredStage()
	if c := f.Cfg; c.Weights.GroundTruth > 0 || c.Heading > 0 {
		// the position and marker terms only (see squaredStage)
		g := *f
		g.Cfg.Weights.Spline = 0
		st = g.squaredStage()
	}
	s1 := set
	s1.Callback = nil
	s1.FunctionTol = math.Max(s1.FunctionTol, tol1)
	first, ok, err := f.squaredFirst(x0, lower, upper, s1)
	if !ok {
		first, err = opt.LeastSquares{TrialJacobian: true, Solver: opt.NormalSolver}.Solve(st.problem(lower, upper), x0, s1)
	}
	if err != nil {
		return nil, nil, 0, false, err
	}
	mark("first")
	x1 := first.X
	for j := range 4 {
		if w := upper[j] - lower[j]; x1[j] < lower[j]+0.05*w || x1[j] > upper[j]-0.05*w {
			return nil, first, 0, false, nil
		}
	}
	S, err := st.precondition(x1, first.F, f.rows())
	if S == nil || err != nil {
		return nil, first, 0, false, err
	}
	f.stageLin = st.lin // the second stage's linearisations (Identify's analysis)
	mark("precondition")
	if set.StallIterations == 0 {
		set.StallIterations, set.StallTol = stallIterations, stallTol
	}
	if !f.fullSecondStage {
		if res, rollouts, err = f.linearStage(x1, set, st.lin); err != nil {
			return nil, nil, 0, false, err
		}
		if res != nil {
			return f.inBounds(res, lower, upper), first, rollouts, true, nil
		}
		// the model's answer did not lower eq. 8: search eq. 8 itself
	}
	x, gx := make([]float64, n), make([]float64, n)
	toX := func(z []float64) {
		xv := mat.NewVecDense(n, x)
		xv.MulVec(S, mat.NewVecDense(n, z))
		for i := range x {
			x[i] += x1[i]
		}
	}
	obj := func(z, gz []float64) (float64, error) {
		toX(z)
		if gz == nil {
			return f.Eval(x, nil)
		}
		v, err := f.Eval(x, gx)
		gv := mat.NewVecDense(n, gz)
		gv.MulVec(S.T(), mat.NewVecDense(n, gx))
		return v, err
	}
	res, err = opt.LBFGSB{}.Minimize(opt.Problem{Objective: obj}, make([]float64, n), set)
	if err != nil {
		return nil, nil, 0, false, err
	}
	rollouts += res.FuncEvaluations
	if res.Status == opt.Stalled {
		// no step of the preconditioned problem lowered the loss (a kink
		// of eq. 8 at the squares' optimum): one stage from the start
		// instead, which is what Identify did before the two stages (a
		// lagged Mecanum log, TestMecanumLag in robots, stalled here)
		return nil, first, 0, false, nil
	}
	toX(res.X)
	res.X = append([]float64(nil), x...)
	return f.inBounds(res, lower, upper), first, rollouts, false, nil
}

// precondition returns S = √ē·U⁻¹ (see staged) at the first stage's
// answer x1 of cost F, UᵀU its Gauss–Newton matrix JᵀJ (A's leading n×n
// block, no factor of A formed) and ē the RMS of its residuals counted as
// eq. 8's (rows: Fit.rows of the whole loss, not of the first stage's);
// nil when JᵀJ is singular. The rows at x1 are usually the first stage's
// last (linearize makes no rollout again), and they stay in st.lin for the
// second stage.
func (st *squaredStage) precondition(x1 []float64, F float64, rows int) (*mat.Dense, error) {
	n := st.n
	if err := st.accumulate(x1); err != nil {
		return nil, err
	}
	H := mat.NewSymDense(n, nil)
	raw, hr := st.a.RawSymmetric(), H.RawSymmetric()
	for i := range n {
		copy(hr.Data[i*hr.Stride+i:(i+1)*hr.Stride], raw.Data[i*raw.Stride+i:i*raw.Stride+n])
	}
	var ch mat.Cholesky
	if !ch.Factorize(H) {
		return nil, nil
	}
	var U, Ui mat.TriDense
	ch.UTo(&U)
	if err := Ui.InverseTri(&U); err != nil {
		return nil, nil
	}
	ebar := math.Sqrt(2 * F / math.Max(float64(rows), 1))
	S := mat.DenseCopyOf(&Ui)
	S.Scale(math.Sqrt(ebar), S)
	return S, nil
}

// inBounds is res, or nil when its μ left the bounds (the second stage is
// unbounded: the caller then solves the problem in one stage).
func (f *Fit) inBounds(res *opt.Result, lower, upper []float64) *opt.Result {
	for j := range 4 {
		if res.X[j] < lower[j] || res.X[j] > upper[j] {
			return nil
		}
	}
	return res
}

// firstStageFunctionTol is the first stage's relative decrease at which it
// stops (at least; the settings' FunctionTol when that is larger): its
// answer only starts the second stage. Gauss–Newton converges fast on the
// squares, so an iteration that lowers them by less than 1e-3 of
// themselves leaves little to gain: measured on the three sets of
// TestIdentifyStaged, stopping there moved the first stage's μ by at most
// 0.001 σ and saved 3, 1 and 1 of its 10, 6 and 6 evaluations; the second
// stage then ended at losses −8e-8, +8e-8 and −3e-8 relative to the
// default tolerance's and μ within 0.04 σ of its.
const firstStageFunctionTol = 1e-3

// The second stage stops, unless the settings say otherwise, when the
// loss improved by less than stallTol of itself over the last
// stallIterations iterations: on this kinked loss L-BFGS-B otherwise spends
// about 40 % of its evaluations on the last 1e-6 (measured on three sets:
// the loss came within 1e-6 of its final value at evaluation 47 of 80, 46
// of 72 and 20 of 42).
const (
	stallIterations = 5
	stallTol        = 1e-6
)

// rows is the number of scalar residuals of the first stage: 2 per counted
// camera sample and term.
func (f *Fit) rows() int {
	terms := 0
	for _, w := range []float64{f.Cfg.Weights.Spline, f.Cfg.Weights.GroundTruth, f.Cfg.Heading} {
		if w != 0 {
			terms++
		}
	}
	k := f.samples()
	if f.Cfg.Pose == PoseFixed {
		k -= len(f.segs) // each run's first sample is its start pose
	}
	return 2 * terms * k
}
