package mecanum

import (
	"math"
	"slices"

	"github.com/wheelgrad/wheelgrad/opt"
)

// squaredFirst solves Identify's first stage by SquaredLS, the -loss
// squared fit's problem, where the two are one problem: the first stage's
// cost is ½·Σ (w2·|e|² + w3·|q|²) over the counted camera samples (position
// and marker errors, squaredStage), and with w2 = w3 (DefaultConfig's 0.2
// and 0.2), the marker at the model's ℓ, the start poses free and no
// prior on μ, it is SquaredLS's ½‖r‖² times a constant: the same residuals
// up to one scale, the same variables in the same order (μ, then x0, y0,
// θ0 of every run), so the same Gauss–Newton steps. It starts, as -loss
// squared does, from SquaredLS.linearStart's estimate where the runs
// determine μ (μ held to the fit's bounds; the stages run with no μ
// held). ok is false, and nothing is solved, elsewhere (the caller runs
// squaredStage's own problem). The result's F and trace are in the first
// stage's own scale, so that precondition's ē and the reported losses are
// what they were.
//
// Why: SquaredLS forms its normal equations from the rollout directly
// (the samples' rows never copied out), evaluates the last trial point
// without its Jacobian, and keeps its buffers across fits; squaredStage
// copied every sample's rows into linEq8's terms at each evaluation, which
// only the second stage needs (at x1, once). Measured on the demo-like
// logs (BenchmarkEq8Parts, paired with the stage before in one sitting):
// the first stage 1.89–2.04 → 1.29–1.31 ms from the same start, to which
// the linearisation at x1 (made before at the first stage's first
// evaluation) adds 0.45–0.50 ms in precondition: 1.92–2.07 → 1.74–1.81 ms
// in all; from the linear estimate 2 iterations, 3 evaluations instead of
// 5 and 6 (0.76 ms), the whole identification 17 iterations, 18
// evaluations instead of 20 and 21. The answer is the same point
// (TestSquaredFirst), reached on another path: the second stage's μ moves
// by ~1e-9 relative. Starting the second stage at the estimate itself,
// with no least-squares step, took 17 model evaluations there instead of
// 15, ended 2e-10–3e-10 relative higher on the three stage sets, and was
// slower (8.9–9.6 ms against 8.0–8.3).
func (f *Fit) squaredFirst(x0, lower, upper []float64, set opt.Settings) (res *opt.Result, ok bool, err error) {
	c := f.Cfg
	if c.Pose != PoseFree || c.Prior != 0 || c.Weights.GroundTruth <= 0 || c.Heading != c.Weights.GroundTruth || f.ell != f.P.Lab {
		return nil, false, nil
	}
	runs := make([]Run, len(f.segs))
	for i := range f.segs {
		runs[i] = *f.segs[i].run
	}
	nf, err := NewNetFit(f.P, runs, 1, 0)
	if err != nil || nf.ncam != f.samples() {
		return nil, false, nil // not the same samples: the general path
	}
	old, _ := squaredPool.Get().(*SquaredLS)
	s, err := nf.squaredLS(old)
	if err != nil {
		return nil, false, nil
	}
	defer squaredPool.Put(s)
	// ½‖r‖² of SquaredLS is Σ(|e|² + |q|²)/(NetUnit²·K): the first stage's
	// cost is k times it, and its gradient test (absolute) scales with it
	k := 0.5 * c.Weights.GroundTruth * NetUnit * NetUnit * float64(nf.ncam)
	set.GradientTol /= k
	prob := s.Problem()
	prob.Lower, prob.Upper = lower, upper
	// from -loss squared's linear estimate where the runs determine μ (the
	// stages run with no μ held), μ within the fit's bounds
	start := slices.Clone(x0)
	if s.linearStart(f.P, start) {
		for j := range 4 {
			start[j] = math.Min(math.Max(start[j], lower[j]), upper[j])
		}
	}
	res, err = opt.LeastSquares{TrialJacobian: true, LazyFinalJacobian: true, CholeskyFirst: true, Solver: squaredSolver}.Solve(prob, start, set)
	if err != nil {
		return nil, true, err
	}
	res.F *= k
	for i := range res.Trace {
		res.Trace[i].F *= k
	}
	return res, true, nil
}

// samples is the number of counted camera samples over the runs.
func (f *Fit) samples() int {
	k := 0
	for _, s := range f.segs {
		k += len(s.cam)
	}
	return k
}
