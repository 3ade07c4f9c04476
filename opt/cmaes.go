package opt

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// CMAES is a standard (μ/μ_w, λ)-CMA-ES as given in N. Hansen, "The CMA
// Evolution Strategy: A Tutorial" (arXiv:1604.00772, 2016): weighted
// recombination of the best μ = ⌊λ/2⌋ of λ samples, the evolution paths p_σ and
// p_c, cumulative step-size adaptation with damping d_σ, rank-one and rank-μ
// covariance updates with the h_σ stall of p_c, and an eigendecomposition of C
// every max(1, ⌊1/(10n(c₁+c_μ))⌋) generations. All strategy parameters are the
// tutorial's defaults (Table 1, positive weights only).
//
// It is written here rather than taken from gonum because gonum's
// optimize.CmaEsChol (v0.17.0) draws its samples from N(m, C) without the step
// size: σ is adapted but only weights the updates of the paths and of C, so
// the step-size adaptation has no effect on the sampling scale and the
// distribution can only shrink as fast as the slow covariance update allows.
// On the 10-D Rosenbrock function from the origin it needs about 200,000
// evaluations to reach f < 1e-8 (206,130, 217,250 and 199,920 for seeds 1–3);
// this implementation needs 5,600–7,000 (TestCMAESGonumComparison, run with
// -cmaes.gonum).
//
// Box constraints follow the boundary handling of Hansen's reference cmaes.m
// (after Hansen, Niederberger, Guzzella and Koumoutsakos, IEEE Trans. Evol.
// Comput. 13(1), 2009): each sample is evaluated at its projection onto the
// box, and for ranking a quadratic penalty Σ γ_i/ξ_i·(x_i − proj(x)_i)² is
// added. The weights γ_i start at zero, are set from the interquartile range of
// the population's f values once the mean leaves the box, and grow while the
// mean keeps moving away from it; ξ_i rescales them by the coordinate's
// variance. The strategy keeps working with the unprojected samples, so its
// updates stay unbiased, while every evaluated point, and hence the result, is
// feasible. Projection (rather than resampling) lets the search settle exactly
// on a bound. Variables with Lower[i] == Upper[i] are removed from the search.
//
// A run is deterministic: all randomness comes from a PCG generator seeded
// with Seed. Iterations are generations; Result.X and Result.F (and the
// Iteration and TracePoint values) are the best point ever evaluated. Besides
// the common limits, a run stops when σ·√(largest eigenvalue of C) <
// Settings.StepTol (StepConverged) or when, over the last 10 + ⌈30n/λ⌉
// generations, the generation-best f values and the f values of the latest
// generation each span less than Settings.FunctionTol·max(1, |f|)
// (FunctionConverged, Hansen's TolFun). MaxEvaluations is a hard cap: the last
// generation is cut short if needed.
type CMAES struct {
	// Sigma0 is the initial step size σ₀, in the units of x. Zero selects
	// 0.3 times the mean width of the finite boxes among the free variables,
	// or 0.5 if none has both bounds finite.
	Sigma0 float64
	// Lambda is the population size λ ≥ 2. Zero selects 4 + ⌊3 ln n⌋ for n
	// free variables.
	Lambda int
	// Seed seeds the random number generator.
	Seed uint64
}

var _ Method = CMAES{}

// cmaPCGStream is the second PCG state word. Any constant works; this one is
// PCG's default increment, so that Seed alone selects the stream.
const cmaPCGStream = 0x5851f42d4c957f2d

// Minimize minimises p.Objective from x0 (projected onto the box). If the
// objective fails, the error is returned together with the best point found
// so far (Status Failure).
func (c CMAES) Minimize(p Problem, x0 []float64, s Settings) (*Result, error) {
	lo, hi, x, err := validate(p, x0)
	if err != nil {
		return nil, err
	}
	if c.Sigma0 < 0 || math.IsNaN(c.Sigma0) || math.IsInf(c.Sigma0, 0) {
		return nil, fmt.Errorf("opt: CMAES.Sigma0 = %g", c.Sigma0)
	}
	if c.Lambda < 0 || c.Lambda == 1 {
		return nil, fmt.Errorf("opt: CMAES.Lambda = %d, need 0 (default) or ≥ 2", c.Lambda)
	}
	s = s.withDefaults()
	r := newRecorder(s, lo, hi)
	free := dfFreeCoords(lo, hi)
	if len(free) == 0 {
		return dfMinimizeFixed(p.Objective, r, x)
	}

	n := len(free)
	flo, fhi, mean := make([]float64, n), make([]float64, n), make([]float64, n)
	for j, i := range free {
		flo[j], fhi[j], mean[j] = lo[i], hi[i], x[i]
	}
	sigma := c.Sigma0
	if sigma == 0 {
		sigma = cmaDefaultSigma0(flo, fhi)
	}
	lambda := c.Lambda
	if lambda == 0 {
		lambda = 4 + int(3*math.Log(float64(n)))
	}
	es := newCMAState(n, lambda, mean, sigma)
	bh := newCMABounds(flo, fhi)
	rng := rand.New(rand.NewPCG(c.Seed, cmaPCGStream))

	// xfull is the point handed to the objective: fixed variables keep their
	// value from x, free ones are overwritten for every sample.
	xfull := slices.Clone(x)
	bestX := slices.Clone(x)
	bestF := math.Inf(1)

	// Populations, one row per sample: z ~ N(0, I), y = B·D·z ~ N(0, C),
	// the sample m + σy and its projection onto the box.
	arz, ary := cmaRows(lambda, n), cmaRows(lambda, n)
	arx, arxp := cmaRows(lambda, n), cmaRows(lambda, n)
	fraw := make([]float64, lambda)
	fsel := make([]float64, lambda)
	order := make([]int, lambda)

	histLen := 10 + int(math.Ceil(30*float64(n)/float64(lambda)))
	hist := make([]float64, 0, histLen) // generation-best f, for TolFun

	for g := 1; ; g++ {
		// Sample and evaluate the generation, never beyond MaxEvaluations.
		evaluated := 0
		for k := range lambda {
			if r.res.FuncEvaluations >= s.MaxEvaluations {
				break
			}
			es.sample(rng, arz[k], ary[k], arx[k])
			for j, i := range free {
				arxp[k][j] = math.Min(math.Max(arx[k][j], flo[j]), fhi[j])
				xfull[i] = arxp[k][j]
			}
			f, err := r.eval(p.Objective, xfull, nil)
			if err != nil {
				return r.finish(bestX, bestF, Failure), err
			}
			fraw[k] = f
			if f < bestF {
				bestF = f
				copy(bestX, xfull)
			}
			evaluated++
		}
		if evaluated < lambda {
			// Cut short by MaxEvaluations: record the partial generation,
			// which iterate reports as EvaluationLimit (or whatever else
			// stopped it first).
			st := r.iterate(g, bestF, bestX)
			if st == NotTerminated {
				st = EvaluationLimit
			}
			return r.finish(bestX, bestF, st), nil
		}

		copy(fsel, fraw)
		if bh != nil {
			bh.penalize(fsel, fraw, arx, arxp, es)
		}
		for k := range order {
			order[k] = k
		}
		// A stable sort keeps runs reproducible when f values tie (e.g. many
		// samples projected onto the same bound).
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(fsel[a], fsel[b]) })
		if err := es.update(order, arz, ary); err != nil {
			return r.finish(bestX, bestF, Failure), err
		}

		genBest := fraw[order[0]]
		if len(hist) == histLen {
			copy(hist, hist[1:])
			hist = hist[:histLen-1]
		}
		hist = append(hist, genBest)

		if st := r.iterate(g, bestF, bestX); st != NotTerminated {
			return r.finish(bestX, bestF, st), nil
		}
		step := es.sigma * es.maxD()
		if math.IsNaN(step) || math.IsInf(step, 0) {
			// σ or C diverged (e.g. f unbounded below along a direction
			// without a bound): nothing sensible is left to sample.
			return r.finish(bestX, bestF, Failure), nil
		}
		if step < s.StepTol {
			return r.finish(bestX, bestF, StepConverged), nil
		}
		if len(hist) == histLen && dfFlat(hist, s.FunctionTol) && dfFlat(fraw, s.FunctionTol) {
			return r.finish(bestX, bestF, FunctionConverged), nil
		}
	}
}

// cmaState is the search distribution N(m, σ²C) with its evolution paths
// and the strategy parameters of Hansen's tutorial, Table 1.
type cmaState struct {
	n, lambda, mu int
	w             []float64 // recombination weights, positive, summing to 1
	mueff         float64   // variance-effective selection mass 1/Σw²
	cc, cs        float64   // cumulation constants of p_c and p_σ
	c1, cmu       float64   // learning rates of the rank-one and rank-μ updates
	damps         float64   // d_σ
	chiN          float64   // E‖N(0, I)‖

	mean, prevMean []float64 // m and the m that generated the previous population
	sigma          float64
	ps, pc         []float64
	c              []float64 // C, n×n row-major, both triangles kept
	b              []float64 // eigenvectors of C in the columns, n×n row-major
	d              []float64 // square roots of the eigenvalues of C
	gen            int       // completed generations
	eigenGap       int       // generations between eigendecompositions
	eigenGen       int       // generation of the last eigendecomposition

	yw, zw, tmp []float64
}

func newCMAState(n, lambda int, mean []float64, sigma float64) *cmaState {
	nf := float64(n)
	mu := lambda / 2
	w := make([]float64, mu)
	var sum float64
	for i := range w {
		w[i] = math.Log(float64(lambda+1)/2) - math.Log(float64(i+1))
		sum += w[i]
	}
	var sumSq float64
	for i := range w {
		w[i] /= sum
		sumSq += w[i] * w[i]
	}
	mueff := 1 / sumSq

	es := &cmaState{
		n: n, lambda: lambda, mu: mu, w: w, mueff: mueff,
		cc:       (4 + mueff/nf) / (nf + 4 + 2*mueff/nf),
		cs:       (mueff + 2) / (nf + mueff + 5),
		c1:       2 / ((nf+1.3)*(nf+1.3) + mueff),
		chiN:     math.Sqrt(nf) * (1 - 1/(4*nf) + 1/(21*nf*nf)),
		mean:     mean,
		prevMean: slices.Clone(mean),
		sigma:    sigma,
		ps:       make([]float64, n),
		pc:       make([]float64, n),
		c:        make([]float64, n*n),
		b:        make([]float64, n*n),
		d:        make([]float64, n),
		yw:       make([]float64, n),
		zw:       make([]float64, n),
		tmp:      make([]float64, n),
	}
	es.cmu = math.Min(1-es.c1, 2*(mueff-2+1/mueff)/((nf+2)*(nf+2)+mueff))
	es.damps = 1 + 2*math.Max(0, math.Sqrt((mueff-1)/(nf+1))-1) + es.cs
	// The O(n³) eigendecomposition is only worth redoing once C has changed
	// appreciably, i.e. every ~1/(c₁+c_μ)/n/10 generations (the tutorial's
	// purecma does the same in evaluations).
	es.eigenGap = max(1, int(1/(10*nf*(es.c1+es.cmu))))
	for i := range n {
		es.c[i*n+i] = 1
		es.b[i*n+i] = 1
		es.d[i] = 1
	}
	return es
}

// sample draws z ~ N(0, I) and sets y = B·D·z and x = m + σy.
func (es *cmaState) sample(rng *rand.Rand, z, y, x []float64) {
	n := es.n
	for i := range z {
		z[i] = rng.NormFloat64()
		es.tmp[i] = es.d[i] * z[i]
	}
	for i := range n {
		var v float64
		row := es.b[i*n : (i+1)*n]
		for j, t := range es.tmp {
			v += row[j] * t
		}
		y[i] = v
		x[i] = es.mean[i] + es.sigma*v
	}
}

// update moves the mean, the paths, C and σ from the samples ranked by order
// (best first), following the tutorial's equations (39)–(47) with c_m = 1.
func (es *cmaState) update(order []int, arz, ary [][]float64) error {
	n := es.n
	clear(es.yw)
	clear(es.zw)
	for i, wi := range es.w {
		k := order[i]
		for j := range n {
			es.yw[j] += wi * ary[k][j]
			es.zw[j] += wi * arz[k][j]
		}
	}
	copy(es.prevMean, es.mean)
	for j := range n {
		es.mean[j] += es.sigma * es.yw[j]
	}

	// p_σ uses C^(-1/2)⟨y⟩_w = B⟨z⟩_w: exact, because the samples were drawn
	// with the current B and D even if C has moved on since.
	a := math.Sqrt(es.cs * (2 - es.cs) * es.mueff)
	for i := range n {
		var v float64
		row := es.b[i*n : (i+1)*n]
		for j, zj := range es.zw {
			v += row[j] * zj
		}
		es.ps[i] = (1-es.cs)*es.ps[i] + a*v
	}
	es.gen++
	psNorm := cmaNorm(es.ps)
	// h_σ stalls p_c while ‖p_σ‖ is large, i.e. while σ is still growing
	// quickly, so that C does not absorb a step-size increase.
	hsig := 0.0
	if psNorm/math.Sqrt(1-math.Pow(1-es.cs, float64(2*es.gen)))/es.chiN < 1.4+2/float64(n+1) {
		hsig = 1
	}
	a = hsig * math.Sqrt(es.cc*(2-es.cc)*es.mueff)
	for i := range n {
		es.pc[i] = (1-es.cc)*es.pc[i] + a*es.yw[i]
	}

	// C ← (1 − c₁ − c_μ + (1−h_σ)c₁c_c(2−c_c))·C + c₁·p_c p_cᵀ + c_μ·Σ w_i y_i y_iᵀ.
	// The (1−h_σ) term restores the variance p_c loses while stalled.
	decay := 1 - es.c1 - es.cmu + (1-hsig)*es.c1*es.cc*(2-es.cc)
	for i := range n {
		for j := i; j < n; j++ {
			v := decay*es.c[i*n+j] + es.c1*es.pc[i]*es.pc[j]
			var rmu float64
			for l, wl := range es.w {
				y := ary[order[l]]
				rmu += wl * y[i] * y[j]
			}
			v += es.cmu * rmu
			es.c[i*n+j], es.c[j*n+i] = v, v
		}
	}

	es.sigma *= math.Exp(es.cs / es.damps * (psNorm/es.chiN - 1))

	if es.gen-es.eigenGen >= es.eigenGap {
		es.eigenGen = es.gen
		return es.decompose()
	}
	return nil
}

// decompose refreshes B and D from C.
func (es *cmaState) decompose() error {
	n := es.n
	var eig mat.EigenSym
	// Factorize copies the upper triangle, so C is not aliased.
	if !eig.Factorize(mat.NewSymDense(n, es.c), true) {
		return errors.New("opt: CMA-ES: eigendecomposition of C failed")
	}
	vals := eig.RawValues()
	// Rounding can make tiny eigenvalues zero or negative; bound the
	// condition number at 1e14 as Hansen's codes do, so sampling and
	// C^(-1/2) stay finite.
	floor := vals[n-1] * 1e-14
	for i, v := range vals {
		es.d[i] = math.Sqrt(math.Max(v, floor))
	}
	var q mat.Dense
	eig.VectorsTo(&q)
	for i := range n {
		for j := range n {
			es.b[i*n+j] = q.At(i, j)
		}
	}
	return nil
}

// maxD is √ of the largest eigenvalue of C (as of the last decomposition).
func (es *cmaState) maxD() float64 {
	return slices.Max(es.d)
}

// cmaBounds is the adaptive quadratic boundary penalty of Hansen's cmaes.m.
type cmaBounds struct {
	lo, hi   []float64
	bounded  []bool    // the coordinate has at least one finite bound
	gamma    []float64 // penalty weights γ_i
	dfithist []float64 // recent f spreads per unit variance
	validFit bool      // dfithist holds a measured value (not the initial 1)
	iniPhase bool      // γ not yet initialised from a valid spread
	wpen     []float64 // γ_i/ξ_i of the current generation
}

// newCMABounds returns nil when no free variable is bounded.
func newCMABounds(lo, hi []float64) *cmaBounds {
	bounded := make([]bool, len(lo))
	anyBounded := false
	for i := range lo {
		bounded[i] = !math.IsInf(lo[i], -1) || !math.IsInf(hi[i], 1)
		anyBounded = anyBounded || bounded[i]
	}
	if !anyBounded {
		return nil
	}
	return &cmaBounds{
		lo: lo, hi: hi, bounded: bounded,
		gamma:    make([]float64, len(lo)),
		wpen:     make([]float64, len(lo)),
		dfithist: []float64{1},
		iniPhase: true,
	}
}

// penalize adds the boundary penalty of each sample to fsel. fraw holds the
// objective at the projected samples arxp; arx are the unprojected samples
// drawn from es (whose mean and σ are those that generated them).
func (bh *cmaBounds) penalize(fsel, fraw []float64, arx, arxp [][]float64, es *cmaState) {
	n := es.n
	nf := float64(n)
	var meanDiagC, meanLogDiagC float64
	for i := range n {
		meanDiagC += es.c[i*n+i]
		meanLogDiagC += math.Log(es.c[i*n+i])
	}
	meanDiagC /= nf
	meanLogDiagC /= nf

	// The interquartile range of f per unit of sampling variance sets the
	// scale of γ, so that the penalty is commensurate with f differences
	// between samples.
	q := cmaPercentiles(fraw, 25, 75)
	val := (q[1] - q[0]) / nf / meanDiagC / (es.sigma * es.sigma)
	switch {
	case math.IsNaN(val) || math.IsInf(val, 0):
		// An infinite f: keep the history as it is.
	case val == 0:
		// All samples equal, e.g. all projected onto the same corner: fall
		// back on the smallest spread seen.
		if m, ok := cmaMinPositive(bh.dfithist); ok {
			bh.pushFit(m, es)
		}
	default:
		if !bh.validFit {
			bh.dfithist = bh.dfithist[:0]
			bh.validFit = true
		}
		bh.pushFit(val, es)
	}

	out := false
	for i, m := range es.mean {
		if m < bh.lo[i] || m > bh.hi[i] {
			out = true
			break
		}
	}
	if out {
		if bh.iniPhase {
			g := 2.0002 * cmaMedian(bh.dfithist)
			for i, b := range bh.bounded {
				if b {
					bh.gamma[i] = g
				}
			}
			if bh.validFit && es.gen+1 > 2 {
				bh.iniPhase = false
			}
		}
		// Raise γ_i while the mean is well outside the box in coordinate i
		// and still moving away from it.
		thresh := 3 * math.Max(1, math.Sqrt(nf)/es.mueff) * es.sigma
		inc := math.Pow(1.2, math.Min(1, es.mueff/10/nf))
		for i, m := range es.mean {
			d := m - math.Min(math.Max(m, bh.lo[i]), bh.hi[i])
			if d != 0 && math.Abs(d) > thresh*math.Sqrt(es.c[i*n+i]) &&
				math.Signbit(d) == math.Signbit(m-es.prevMean[i]) && m != es.prevMean[i] {
				bh.gamma[i] *= inc
			}
		}
	}

	// ξ_i, the variance of coordinate i relative to the geometric mean
	// (damped by the exponent 0.9), divides γ_i so that the penalty follows
	// the scale of the distribution in each coordinate.
	for i := range n {
		bh.wpen[i] = 0
		if bh.gamma[i] != 0 {
			bh.wpen[i] = bh.gamma[i] / math.Exp(0.9*(math.Log(es.c[i*n+i])-meanLogDiagC))
		}
	}
	for k := range fsel {
		var pen float64
		for i, wi := range bh.wpen {
			d := arxp[k][i] - arx[k][i]
			pen += wi * d * d
		}
		fsel[k] += pen
	}
}

// pushFit appends to the spread history, which covers the last
// 20 + 3n/λ generations.
func (bh *cmaBounds) pushFit(v float64, es *cmaState) {
	if float64(len(bh.dfithist)) < 20+3*float64(es.n)/float64(es.lambda) {
		bh.dfithist = append(bh.dfithist, v)
		return
	}
	copy(bh.dfithist, bh.dfithist[1:])
	bh.dfithist[len(bh.dfithist)-1] = v
}

// cmaPercentiles returns the given percentiles of v, interpolating linearly
// between order statistics placed at 100(i−½)/N as cmaes.m's myprctile does.
func cmaPercentiles(v []float64, ps ...float64) []float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	nf := float64(len(s))
	res := make([]float64, len(ps))
	for j, p := range ps {
		pos := p/100*nf - 0.5 // fractional index of the percentile
		switch {
		case pos <= 0:
			res[j] = s[0]
		case pos >= nf-1:
			res[j] = s[len(s)-1]
		default:
			i := int(pos)
			res[j] = s[i] + (s[i+1]-s[i])*(pos-float64(i))
		}
	}
	return res
}

func cmaMedian(v []float64) float64 {
	return cmaPercentiles(v, 50)[0]
}

func cmaMinPositive(v []float64) (float64, bool) {
	m, ok := math.Inf(1), false
	for _, x := range v {
		if x > 0 && x < m {
			m, ok = x, true
		}
	}
	return m, ok
}

// dfFlat reports whether the values span less than tol relative to their
// magnitude (absolute below 1), the convention of Settings.FunctionTol.
func dfFlat(v []float64, tol float64) bool {
	lo, hi := slices.Min(v), slices.Max(v)
	if math.IsInf(hi-lo, 0) || math.IsNaN(hi-lo) {
		// An infinite f among finite ones is a cliff, not a plateau.
		return false
	}
	scale := math.Max(1, math.Max(math.Abs(lo), math.Abs(hi)))
	return hi-lo <= tol*scale
}

func cmaNorm(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}

func cmaRows(r, c int) [][]float64 {
	data := make([]float64, r*c)
	rows := make([][]float64, r)
	for i := range rows {
		rows[i] = data[i*c : (i+1)*c : (i+1)*c]
	}
	return rows
}

// cmaDefaultSigma0 is 0.3 of the mean finite box width: large enough to explore
// the box, small enough that most samples fall inside it.
func cmaDefaultSigma0(lo, hi []float64) float64 {
	var sum float64
	var k int
	for i := range lo {
		if w := hi[i] - lo[i]; !math.IsInf(w, 0) {
			sum += w
			k++
		}
	}
	if k == 0 {
		return 0.5
	}
	return 0.3 * sum / float64(k)
}

// dfFreeCoords lists the variables that are not fixed by Lower[i] == Upper[i].
// The derivative-free methods search only over these.
func dfFreeCoords(lo, hi []float64) []int {
	var free []int
	for i := range lo {
		if lo[i] < hi[i] {
			free = append(free, i)
		}
	}
	return free
}

// dfMinimizeFixed handles a problem whose variables are all fixed: the only
// feasible point is evaluated once and reported as one iteration.
func dfMinimizeFixed(obj Objective, r *recorder, x []float64) (*Result, error) {
	f, err := r.eval(obj, x, nil)
	if err != nil {
		return r.finish(x, math.Inf(1), Failure), err
	}
	st := r.iterate(1, f, x)
	if st == NotTerminated {
		st = StepConverged
	}
	return r.finish(x, f, st), nil
}
