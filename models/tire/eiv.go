package tire

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"

	"gonum.org/v1/gonum/mat"

	fitpkg "github.com/wheelgrad/wheelgrad/fit"
	"github.com/wheelgrad/wheelgrad/opt"
)

// Errors in variables.
//
// The model's inputs are the logged wheel speeds ω, and Westerhout et al.'s
// slip κ = (R·ω − ux)/max(|R·ω|, |ux|, veps) (eq. 7) turns encoder noise on ω
// into slip noise, which the stiff Dugoff law (eqs. 12–15: Fx = Kx·κ in the
// linear range) turns into force noise, which eqs. 16–21 integrate into pose
// errors that grow along the run. Least squares with the noisy ω taken as
// exact (Identify without ErrorsInVariables) then lowers Kx and Ky: a softer
// tyre passes less of the noise on to the poses, and that lowers the sum of
// squares more than the fit to the true motion loses. The bias grows with the
// noise (measured in eiv_test.go and experiments/jackal-tyres).
//
// The remedy here is the joint (errors-in-variables, maximum a posteriori)
// formulation: the true wheel speeds of every command row are unknowns
// beside μ, Kx, Ky, with the logged speeds as their prior,
//
//	ω_true = ω_log + σω·z,
//	L(θ, z) = Σ_poses (dx² + dy²)/σp² + dψ²/σψ²  +  Σ_rows z²,
//
// the noise levels σω, σp, σψ estimated from the log itself (NoiseStd). It is
// the total-least-squares (orthogonal-distance) regression of the nonlinear
// rollout, weighted by the two noise levels; with them known it is the
// maximum-likelihood estimate of the linearised problem. A moving-average
// smoother of ω (IdentifyOptions.WheelSmooth) was measured to make the bias
// worse (it blurs the real wheel transients, which carry the slip, as much
// as the noise), so the speeds are not smoothed but estimated: the poses
// tell which of the noise's excursions were real motion.
//
// The joint problem is solved by L-BFGS-B through the generated reverse pass,
// which gives the gradient with respect to every step's input (the true
// speeds) and the initial state (u₀ = R·(ωl + ωr)/2 of the first row) beside
// the tyre parameters, started from the plain fit, in the coordinates of
// the linearised variable projection there (eiv_precond.go), which make its
// Gauss–Newton matrix nearly the identity.

// NoiseStd estimates the standard deviation of white noise on a sequence
// that is otherwise smooth from its second differences: Δ²x = x[i+1] −
// 2x[i] + x[i−1] has variance 6σ² from the noise, and the smooth part adds
// little at the sampling rate of a log; the median absolute deviation makes
// the kinks of the motion (a command step, a wheel reversing) outliers that
// do not count: σ = 1.4826·median|Δ²x − median Δ²x| / √6. Each sequence is
// one run's samples in order; NaNs (rows without a pose) are skipped, so
// sparse poses are differenced sample to sample. It returns 0 when no
// sequence has 3 samples. (The estimate is fit.NoiseStd's.)
func NoiseStd(seqs ...[]float64) float64 {
	if v := fitpkg.NoiseStd(seqs...); !math.IsNaN(v) {
		return v
	}
	return 0
}

// commandRows returns, for every row of r, the row whose wheel speeds it
// carries: itself, or for a row that holds the previous speeds (a
// sensor-only row merged by ReadLog) the last command row before it.
func (r *Run) commandRows() []int {
	isCmd := r.Origin.CommandRows()
	src := make([]int, len(r.T))
	for i := range src {
		src[i] = i
		if isCmd != nil && i > 0 && !isCmd(i) {
			src[i] = src[i-1]
		}
	}
	return src
}

// Noise is the noise of a log estimated by NoiseStd: of the wheel speeds
// (rad/s, over the command rows of both wheels), of the positions (m, x and y
// of the pose rows) and of the heading (rad).
type Noise struct {
	Wheel, Position, Heading float64
}

// EstimateNoise applies NoiseStd to the runs' wheel speeds (command rows
// only: held rows would count as noise-free) and poses.
func EstimateNoise(runs []*Run) Noise {
	var w, xy, psi [][]float64
	for _, r := range runs {
		src := r.commandRows()
		var wl, wr []float64
		for i, s := range src {
			if s == i {
				wl, wr = append(wl, r.WL[i]), append(wr, r.WR[i])
			}
		}
		w = append(w, wl, wr)
		if r.X != nil {
			xy = append(xy, r.X, r.Y)
			// the heading unwrapped over the pose rows
			var u []float64
			last, off := math.NaN(), 0.0
			for _, v := range r.Psi {
				if math.IsNaN(v) {
					continue
				}
				if !math.IsNaN(last) {
					off += wrap(v-last) - (v - last)
				}
				u, last = append(u, v+off), v
			}
			psi = append(psi, u)
		}
	}
	return Noise{Wheel: NoiseStd(w...), Position: NoiseStd(xy...), Heading: NoiseStd(psi...)}
}

// eivFit is the joint problem: f's tyre parameters (its free coordinates
// first in x), then z, the whitened corrections of the wheel speeds of every
// command row of every run (two per row: left, right), ω = ω_log + σω·z.
type eivFit struct {
	f     *fit
	noise Noise
	src   [][]int // per run: the command row each row carries
	off   []int   // per run: index in x of its row 0's z (left), +1 right
	nz    int
	// per shard: the row driving each step of each lane ([T][B])
	stepRow [][]int
	// unpreconditioned solves the joint problem in (θ, z) directly (the
	// method before issue 25.4, kept for comparison in tests:
	// eivUnpreconditioned).
	unpreconditioned bool
}

// eivUnpreconditioned makes identifyEIV solve in (θ, z) directly (tests).
var eivUnpreconditioned bool

func newEIVFit(f *fit, noise Noise) *eivFit {
	e := &eivFit{f: f, noise: noise}
	n := len(f.free)
	for _, r := range f.runs {
		e.src = append(e.src, r.commandRows())
		e.off = append(e.off, n)
		n += 2 * len(r.T)
	}
	e.nz = n - len(f.free)
	for _, sh := range f.shards {
		B := len(sh.lanes)
		rows := make([]int, f.T*B)
		for j, ri := range sh.lanes {
			pl := f.plans[ri]
			row := 0
			for k := range f.T {
				for row+1 < len(pl.at) && pl.at[row+1] <= k {
					row++
				}
				rows[k*B+j] = e.src[ri][row]
			}
		}
		e.stepRow = append(e.stepRow, rows)
	}
	return e
}

// speeds returns run ri's wheel speeds at x: the logged ones plus σω·z.
func (e *eivFit) speeds(x []float64, ri int) (wl, wr []float64) {
	r := e.f.runs[ri]
	wl, wr = make([]float64, len(r.T)), make([]float64, len(r.T))
	o := e.off[ri]
	for i := range r.T {
		wl[i] = r.WL[i] + e.noise.Wheel*x[o+2*i]
		wr[i] = r.WR[i] + e.noise.Wheel*x[o+2*i+1]
	}
	return wl, wr
}

// initial is run ri's initial state with the estimated speeds of row 0
// (Run.Initial), and whether u₀ comes from them.
func (e *eivFit) initial(x []float64, ri int) ([6]float64, bool) {
	r := e.f.runs[ri]
	s := r.Initial(e.f.p)
	fromSpeeds := !(r.U != nil && !math.IsNaN(r.U[0]) && !math.IsNaN(r.V[0]) && !math.IsNaN(r.R[0]))
	if fromSpeeds {
		o := e.off[ri]
		s[3] = e.f.p.R * (r.WL[0] + e.noise.Wheel*x[o] + r.WR[0] + e.noise.Wheel*x[o+1]) / 2
	}
	return s, fromSpeeds
}

// load writes the inputs and initial states of x into the shards.
func (e *eivFit) load(x []float64) {
	f := e.f
	for s, sh := range f.shards {
		B := len(sh.lanes)
		for j, ri := range sh.lanes {
			x0, _ := e.initial(x, ri)
			for k := range 6 {
				sh.x0[k*B+j] = x0[k]
			}
			r, o := f.runs[ri], e.off[ri]
			for k := range f.T {
				row := e.stepRow[s][k*B+j]
				sh.u[(k*2)*B+j] = r.WL[row] + e.noise.Wheel*x[o+2*row]
				sh.u[(k*2+1)*B+j] = r.WR[row] + e.noise.Wheel*x[o+2*row+1]
			}
		}
	}
}

// forward rolls every shard out at x and returns the whitened pose
// residuals (dx/σp, dy/σp, dψ/σψ per sample, shard by shard); the shards keep
// their rollouts for backward.
func (e *eivFit) forward(x []float64) ([]float64, error) {
	f := e.f
	th := f.theta(x[:len(f.free)])
	q := f.p.settings()
	e.load(x)
	errs := make([]error, len(f.shards))
	var wg sync.WaitGroup
	for s, sh := range f.shards {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[s] = sh.sim.Forward(th, q, sh.x0, sh.u, sh.y)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	ip, ih := 1/e.noise.Position, 1/e.noise.Heading
	r := make([]float64, 0, f.nres)
	for _, sh := range f.shards {
		B, T := len(sh.lanes), f.T
		for _, m := range sh.meas {
			i := m.t*B + m.j
			r = append(r, ip*(sh.y[i]-m.x), ip*(sh.y[T*B+i]-m.y), ih*wrap(sh.y[2*T*B+i]-m.psi))
		}
	}
	return r, nil
}

// backward is vᵀ·∂r/∂x for a cotangent v of the whitened residuals of the
// last forward (at x), written to g (tyre coordinates, then z).
func (e *eivFit) backward(x, v, g []float64) {
	f := e.f
	P := len(f.free)
	th := f.theta(x[:P])
	q := f.p.settings()
	ip, ih := 1/e.noise.Position, 1/e.noise.Heading
	clear(g)
	offs := make([]int, len(f.shards))
	for s := 1; s < len(f.shards); s++ {
		offs[s] = offs[s-1] + 3*len(f.shards[s-1].meas)
	}
	var wg sync.WaitGroup
	for s, sh := range f.shards {
		wg.Add(1)
		go func() {
			defer wg.Done()
			B, T := len(sh.lanes), f.T
			clear(sh.ybar)
			for k, m := range sh.meas {
				i := m.t*B + m.j
				o := offs[s] + 3*k
				sh.ybar[i] += ip * v[o]
				sh.ybar[T*B+i] += ip * v[o+1]
				sh.ybar[2*T*B+i] += ih * v[o+2]
			}
			ubar := make([]float64, len(sh.u))
			x0bar := make([]float64, 6*B)
			sh.sim.Backward(th, q, sh.u, sh.ybar, 0, nil, sh.pbar, x0bar, ubar)
			// the lanes' z are disjoint: the shards write apart
			for j, ri := range sh.lanes {
				o := e.off[ri]
				for k := range T {
					row := e.stepRow[s][k*B+j]
					g[o+2*row] += e.noise.Wheel * ubar[(k*2)*B+j]
					g[o+2*row+1] += e.noise.Wheel * ubar[(k*2+1)*B+j]
				}
				if _, fromSpeeds := e.initial(x, ri); fromSpeeds {
					d := e.noise.Wheel * f.p.R / 2 * x0bar[3*B+j]
					g[o+2*e.src[ri][0]] += d
					g[o+2*e.src[ri][0]+1] += d
				}
			}
		}()
	}
	wg.Wait()
	for _, sh := range f.shards {
		for k, i := range f.free {
			g[k] += sh.pbar[i] * f.dtheta(k, th[i])
		}
	}
}

// eval is L(θ, z) = |r|² + |z|² and its gradient.
func (e *eivFit) eval(x, grad []float64) (float64, error) {
	f := e.f
	r, err := e.forward(x)
	if err != nil {
		if f.tolerateDivergence && strings.Contains(err.Error(), "diverged") {
			for k := range grad {
				grad[k] = divergedLoss * (x[k] - f.xStart[k])
			}
			return divergedLoss, nil
		}
		return 0, err
	}
	var L float64
	for _, v := range r {
		L += v * v
	}
	P := len(f.free)
	for _, v := range x[P:] {
		L += v * v
	}
	if grad == nil {
		return L, nil
	}
	for i := range r {
		r[i] *= 2
	}
	e.backward(x, r, grad)
	for k := P; k < len(x); k++ {
		grad[k] += 2 * x[k]
	}
	for k, g := range grad {
		if math.IsNaN(g) || math.IsInf(g, 0) {
			return 0, fmt.Errorf("tire: the errors-in-variables gradient is %v in coordinate %d at θ = %v (loss %g): the rollout's sensitivity overflowed", g, k, f.theta(x[:P]), L)
		}
	}
	return L, nil
}

// identifyEIV solves the joint problem from the plain fit's parameters x0
// (optimiser coordinates of f) and returns the optimum: θ coordinates first,
// then z.
func (e *eivFit) solve(x0, lo, hi []float64, s opt.Settings) (*opt.Result, error) {
	P := len(x0)
	n := P + e.nz
	x := make([]float64, n)
	copy(x, x0)
	L, U := make([]float64, n), make([]float64, n)
	for k := range n {
		L[k], U[k] = math.Inf(-1), math.Inf(1)
	}
	copy(L, lo)
	copy(U, hi)
	if _, err := e.eval(x, nil); err != nil {
		return nil, fmt.Errorf("tire: errors in variables, at the plain fit: %w", err)
	}
	if e.unpreconditioned {
		e.f.tolerateDivergence, e.f.xStart = true, append([]float64(nil), x...)
		return opt.LBFGSB{}.Minimize(opt.Problem{Objective: e.eval, Lower: L, Upper: U}, x, s)
	}
	c, err := e.newPrecond(x, eivPrecondRank)
	if err != nil {
		return nil, fmt.Errorf("tire: errors in variables, preconditioner at the plain fit: %w", err)
	}
	e.f.tolerateDivergence, e.f.xStart = true, append([]float64(nil), x...)
	return e.solvePrecond(c, lo, hi, s)
}

// EIVIterations is the default iteration limit of the joint fit. Solved in
// (θ, z) directly, L-BFGS-B crawled along the slow directions of the wheel
// speeds and stopped at this limit every time (μ, Kx, Ky still wandering by a
// few percent); through the change of variables of eiv_precond.go it
// converges in 25–55 iterations on the Table I maneuvers. Settings.MaxIterations
// overrides it.
const EIVIterations = 300

// identifyEIV re-fits from the plain fit at x (optimiser coordinates of f)
// with the wheel speeds as unknowns, and rewrites out.
func identifyEIV(f *fit, x, lo, hi []float64, s opt.Settings, given Noise, out *Result) error {
	noise := EstimateNoise(f.runs)
	if given.Wheel > 0 {
		noise.Wheel = given.Wheel
	}
	if given.Position > 0 {
		noise.Position = given.Position
	}
	if given.Heading > 0 {
		noise.Heading = given.Heading
	}
	out.Noise = noise
	out.Plain, out.PlainStd = out.Value, out.Std
	if !(noise.Position > 0) || !(noise.Heading > 0) {
		out.Warnings = append(out.Warnings, fmt.Sprintf("errors in variables: the pose noise cannot be estimated from the log (position %g m, heading %g rad): give it; the plain fit is kept", noise.Position, noise.Heading))
		return nil
	}
	if !(noise.Wheel*f.p.R > 1e-3*f.p.Veps) {
		// slip noise below 10⁻³ where it is largest (at rest, κ's
		// denominator at veps): the plain fit is the joint one
		return nil
	}
	e := newEIVFit(f, noise)
	e.unpreconditioned = eivUnpreconditioned
	if s.MaxIterations == 0 {
		s.MaxIterations = EIVIterations
	}
	res, err := e.solve(x, lo, hi, s)
	if err != nil {
		return err
	}
	P := len(f.free)
	th := f.theta(res.X[:P])
	out.Value = nil
	for _, i := range f.free {
		out.Value = append(out.Value, th[i])
	}
	out.Params = f.p.withFree(th)
	out.Opt = res
	out.Loss = res.F
	out.WL, out.WR = nil, nil
	for ri := range f.runs {
		wl, wr := e.speeds(res.X, ri)
		out.WL, out.WR = append(out.WL, wl), append(out.WR, wr)
	}
	sd, lmin, err := e.std(res.X)
	if err != nil {
		return err
	}
	out.Std = sd
	out.EIVLambdaMin = lmin
	spans, frac, err := noiseDominance(out.Params, f.runs, out.WL, out.WR, noise.Wheel)
	if err != nil {
		return err
	}
	out.NoiseSpans, out.NoiseDominated = spans, frac
	if frac > 0.5 {
		longest := NoiseSpan{Run: -1}
		for _, s := range spans {
			if s.Rows > longest.Rows {
				longest = s
			}
		}
		where := ""
		if longest.Run >= 0 {
			where = fmt.Sprintf("; the longest: run %d %s, %.2f–%.2f s", longest.Run+1, longest.ID, longest.From, longest.To)
		}
		out.Warnings = append(out.Warnings, fmt.Sprintf("the wheel-speed noise (%.3g rad/s) exceeds the slip on every wheel on %.0f %% of the rows (%d spans of %d rows or more%s): Kx and Ky rest on the other rows; drive harder (accelerate, brake, turn) or use a better encoder",
			noise.Wheel, 100*frac, len(spans), minNoiseSpan, where))
	}
	return nil
}

// eivRank is the rank of the low-rank form of the wheel-speed noise's
// effect on the poses that eivFit.std keeps.
const eivRank = 200

// std is the Gauss–Newton standard deviation of the tyre parameters in the
// joint problem at x: the θ block of the inverse of its Gauss–Newton
// matrix, that is the inverse of the Schur complement
//
//	H = Jθᵀ Jθ − Jθᵀ Jz (I + Jzᵀ Jz)⁻¹ Jzᵀ Jθ = Jθᵀ (I + Jz Jzᵀ)⁻¹ Jθ
//
// (Jθ, Jz the whitened pose residuals' Jacobians in θ and z; the z prior
// adds I): the information on θ once the poses have also paid for the true
// wheel speeds. Jz has tens of thousands of columns, so Jz Jzᵀ is taken in
// the low-rank form Q·(B Bᵀ)·Qᵀ of a randomized range finder (Halko,
// Martinsson and Tropp, 2011: Q an orthonormal basis of Jz·Ω for eivRank
// Gaussian columns Ω, one power iteration, B = Qᵀ Jz by reverse passes);
// the rest of Jz Jzᵀ, of eigenvalues below the smallest kept (returned as
// lambdaMin), is neglected, which makes σ slightly small when lambdaMin is not ≪ 1.
// Jθ is central differences of the native rollout. The scale is 1: the
// weights are the estimated noise levels.
func (e *eivFit) std(x []float64) (sd []float64, lambdaMin float64, err error) {
	P := len(e.f.free)
	n := len(x)
	nz := n - P
	r0, err := e.forward(x)
	if err != nil {
		return nil, 0, err
	}
	N := len(r0)
	jvp := func(w []float64) ([]float64, error) { return e.jvp(x, w) }
	vjp := func(v []float64) ([]float64, error) {
		g, err := e.vjp(x, v)
		if err != nil {
			return nil, err
		}
		return g[P:], nil
	}
	K := min(eivRank, nz, N)
	rng := rand.New(rand.NewPCG(1, 2))
	Y := mat.NewDense(N, K, nil)
	for k := range K {
		w := make([]float64, nz)
		for i := range w {
			w[i] = rng.NormFloat64()
		}
		y, err := jvp(w)
		if err != nil {
			return nil, 0, err
		}
		Y.SetCol(k, y)
	}
	orth := func(A *mat.Dense) *mat.Dense { return orthonormal(A) }
	Q := orth(Y)
	// one power iteration: Y = Jz·Jzᵀ·Q
	for k := range K {
		zk, err := vjp(mat.Col(nil, k, Q))
		if err != nil {
			return nil, 0, err
		}
		y, err := jvp(zk)
		if err != nil {
			return nil, 0, err
		}
		Y.SetCol(k, y)
	}
	Q = orth(Y)
	// G = B·Bᵀ with B = Qᵀ·Jz (rows Jzᵀ q_k)
	Bt := mat.NewDense(nz, K, nil)
	for k := range K {
		zk, err := vjp(mat.Col(nil, k, Q))
		if err != nil {
			return nil, 0, err
		}
		Bt.SetCol(k, zk)
	}
	var G mat.SymDense
	G.SymOuterK(1, Bt.T())
	var eig mat.EigenSym
	if ok := eig.Factorize(&G, false); !ok {
		return nil, 0, errors.New("tire: errors in variables: the eigen-decomposition of the noise's low-rank form failed")
	}
	lambdaMin = math.Inf(1)
	for _, v := range eig.Values(nil) {
		lambdaMin = math.Min(lambdaMin, v)
	}
	// Jθ, central differences in the optimiser coordinates
	Jt := mat.NewDense(N, P, nil)
	for k := range P {
		h := 1e-6 * math.Max(math.Abs(x[k]), 1)
		xp := append([]float64(nil), x...)
		xp[k] += h
		rp, err := e.forward(xp)
		if err != nil {
			return nil, 0, err
		}
		xp[k] -= 2 * h
		rm, err := e.forward(xp)
		if err != nil {
			return nil, 0, err
		}
		for i := range N {
			Jt.Set(i, k, (rp[i]-rm[i])/(2*h))
		}
	}
	// H = JθᵀJθ − (QᵀJθ)ᵀ·M·(QᵀJθ), M = I − (I + G)⁻¹
	var H, QJ mat.Dense
	H.Mul(Jt.T(), Jt)
	QJ.Mul(Q.T(), Jt)
	IG := mat.NewSymDense(K, nil)
	for i := range K {
		for j := i; j < K; j++ {
			v := G.At(i, j)
			if i == j {
				v++
			}
			IG.SetSym(i, j, v)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(IG) {
		return nil, 0, errors.New("tire: errors in variables: I + BBᵀ is not positive definite")
	}
	var S mat.Dense // (I+G)⁻¹·QJ
	if err := ch.SolveTo(&S, &QJ); err != nil {
		return nil, 0, err
	}
	var A, C mat.Dense
	A.Mul(QJ.T(), &QJ)
	C.Mul(QJ.T(), &S)
	A.Sub(&A, &C) // (QJ)ᵀ·M·(QJ)
	H.Sub(&H, &A)
	var cov mat.Dense
	sd = make([]float64, P)
	for k := range sd {
		sd[k] = math.NaN()
	}
	if err := cov.Inverse(&H); err != nil {
		return sd, lambdaMin, nil
	}
	th := e.f.theta(x[:P])
	for k := range P {
		if v := cov.At(k, k); v >= 0 {
			sd[k] = math.Sqrt(v) * e.f.dtheta(k, th[e.f.free[k]])
		}
	}
	return sd, lambdaMin, nil
}

// jvp is Jz·w at x (w over z), central differences of the native rollout.
func (e *eivFit) jvp(x, w []float64) ([]float64, error) {
	P := len(e.f.free)
	var nw float64
	for _, v := range w {
		nw += v * v
	}
	h := 1e-3 / math.Max(math.Sqrt(nw), 1e-300)
	xp := append([]float64(nil), x...)
	for k, v := range w {
		xp[P+k] += h * v
	}
	rp, err := e.forward(xp)
	if err != nil {
		return nil, err
	}
	for k, v := range w {
		xp[P+k] = x[P+k] - h*v
	}
	rm, err := e.forward(xp)
	if err != nil {
		return nil, err
	}
	for i := range rp {
		rp[i] = (rp[i] - rm[i]) / (2 * h)
	}
	return rp, nil
}

// vjp is (Jθ, Jz)ᵀ·v at x by the generated reverse pass (θ coordinates
// first, then z).
func (e *eivFit) vjp(x, v []float64) ([]float64, error) {
	if _, err := e.forward(x); err != nil {
		return nil, err
	}
	g := make([]float64, len(x))
	e.backward(x, v, g)
	return g, nil
}

// orthonormal is an orthonormal basis of A's columns (N×K), modified
// Gram–Schmidt twice: the thin factor only (a full QR's Q is N×N,
// gigabytes here); a column that vanishes is left zero.
func orthonormal(A *mat.Dense) *mat.Dense {
	N, K := A.Dims()
	cols := make([][]float64, K)
	for k := range K {
		c := mat.Col(nil, k, A)
		for range 2 {
			for j := range k {
				var d float64
				for i, v := range cols[j] {
					d += v * c[i]
				}
				for i, v := range cols[j] {
					c[i] -= d * v
				}
			}
		}
		var nc float64
		for _, v := range c {
			nc += v * v
		}
		if nc = math.Sqrt(nc); nc > 0 {
			for i := range c {
				c[i] /= nc
			}
		}
		cols[k] = c
	}
	Q := mat.NewDense(N, K, nil)
	for k, c := range cols {
		Q.SetCol(k, c)
	}
	return Q
}

// NoiseSpan is a stretch of a run where the wheel-speed noise dominates
// the slip: on every wheel, the slip that the noise alone makes,
// σκ = R·σω / max(|R·ω|, |ux|, veps) (eq. 7 with its bounded denominator),
// exceeds the slip |κ| of the identified model driven by the estimated true
// speeds. Those rows say next to nothing about Kx and Ky: their slip is
// below what the encoder can resolve.
type NoiseSpan struct {
	Run      int     // index of the run
	ID       string  // the run's traj, if any
	From, To float64 // log time of the first and last row (s)
	Rows     int
}

// minNoiseSpan is the fewest consecutive rows that make a NoiseSpan.
const minNoiseSpan = 20

// noiseDominance finds the NoiseSpans of the runs driven by the speeds
// wl, wr (per run, per row) under p, and the fraction of all rows where the
// noise dominates.
func noiseDominance(p Params, runs []*Run, wl, wr [][]float64, sw float64) ([]NoiseSpan, float64, error) {
	var spans []NoiseSpan
	var dom, all int
	for ri, r := range runs {
		c := *r
		c.WL, c.WR = wl[ri], wr[ri]
		st, err := Simulate(p, &c)
		if err != nil {
			return nil, 0, err
		}
		start := -1
		flush := func(end int) {
			if start >= 0 && end-start >= minNoiseSpan {
				spans = append(spans, NoiseSpan{Run: ri, ID: r.ID, From: r.T[start], To: r.T[end-1], Rows: end - start})
			}
			start = -1
		}
		for i := range r.T {
			u, yaw := st[i][3], st[i][5]
			noisy := true
			for _, w := range []struct{ b, om float64 }{{p.W / 2, c.WL[i]}, {-p.W / 2, c.WR[i]}} {
				ux := u - w.b*yaw
				Rw := p.R * w.om
				d := math.Max(math.Max(math.Abs(Rw), math.Abs(ux)), p.Veps)
				if math.Abs(Rw-ux)/d > p.R*sw/d {
					noisy = false
				}
			}
			all++
			if noisy {
				dom++
				if start < 0 {
					start = i
				}
			} else {
				flush(i)
			}
		}
		flush(len(r.T))
	}
	return spans, float64(dom) / float64(max(all, 1)), nil
}
