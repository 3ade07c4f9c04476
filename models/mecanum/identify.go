package mecanum

import (
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/wheelgrad/wheelgrad/opt"
)

// Methods of Identify.
const (
	LBFGSB     = "lbfgsb"     // L-BFGS-B, μ ∈ bounds, analytic gradient (Algorithm 2)
	NelderMead = "neldermead" // Nelder–Mead on the sigmoid form of eq. 14
	CMAES      = "cmaes"      // CMA-ES
)

// IdentifyOptions configure Identify.
type IdentifyOptions struct {
	Method string // LBFGSB (default), NelderMead or CMAES
	// Autodiff makes L-BFGS-B use the gorgonia graph's gradient instead of
	// the analytic one (same numbers; for the comparison of Fig. 6).
	Autodiff bool
	// Analytic makes L-BFGS-B use Algorithm 2 (Fit.Eval) instead of the
	// default DynFit, the gradient generated from the step definition.
	Analytic bool
	Init     [4]float64 // starting μ
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
	if !o.Analytic && !o.Autodiff {
		obj = f.NewDynFit().Eval
	}
	if o.Autodiff {
		gf, err := f.Compile()
		if err != nil {
			return nil, err
		}
		obj = gf.Eval
	}
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
	res, err := m.Minimize(prob, z0, set)
	if err != nil {
		return nil, err
	}
	r := &Result{Opt: res, X: make([]float64, n)}
	toX(res.X, r.X)
	copy(r.Mu[:], r.X[:4])
	r.Ident = f.IdentifiabilityHeld(r.X, o.Held)
	r.Windows = windows
	r.Wall = time.Since(start)
	return r, nil
}

// Identifiability describes which parameter combinations the data
// determine, from the singular value decomposition of the Jacobian of the
// predicted camera positions (and marker points) with respect to x at the
// optimum: the Gauss–Newton picture of the fit.
type Identifiability struct {
	Singular   []float64   // singular values, largest first
	Directions [][]float64 // the matching right singular vectors (in x)
	Determined []bool      // σ_i above the rank threshold 1e-8·σ_max
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

// Identifiability analyses the fit at x.
func (f *Fit) Identifiability(x []float64) Identifiability {
	return f.IdentifiabilityHeld(x, [4]bool{})
}

// IdentifiabilityHeld analyses the fit at x with the held μ_j known (their
// Jacobian columns left out; their MuStd is 0 and the directions are zero
// there).
func (f *Fit) IdentifiabilityHeld(x []float64, held [4]bool) Identifiability {
	n := len(x)
	var keep []int
	for i := range n {
		if i >= 4 || !held[i] {
			keep = append(keep, i)
		}
	}
	var rows [][]float64
	var ss float64
	marker := f.Cfg.Heading != 0
	f.eval(x, nil, func(_, _ int, r [4]float64, d [4][]float64) {
		nc := 2
		if marker {
			nc = 4
		}
		for c := range nc {
			row := make([]float64, len(keep))
			for j, i := range keep {
				row[j] = d[c][i]
			}
			rows = append(rows, row)
			ss += r[c] * r[c]
		}
	})
	m := len(rows)
	if f.Cfg.Prior > 0 {
		for j, i := range keep {
			if i < 4 {
				row := make([]float64, len(keep))
				row[j] = math.Sqrt(f.Cfg.Prior)
				rows = append(rows, row)
			}
		}
	}
	J := mat.NewDense(len(rows), len(keep), nil)
	for i, r := range rows {
		J.SetRow(i, r)
	}
	var svd mat.SVD
	id := Identifiability{}
	if !svd.Factorize(J, mat.SVDThin) {
		return id
	}
	id.Singular = svd.Values(nil)
	var V mat.Dense
	svd.VTo(&V)
	rank := 0
	for i, s := range id.Singular {
		d := make([]float64, n)
		for j, k := range keep {
			d[k] = V.At(j, i)
		}
		id.Directions = append(id.Directions, d)
		det := s > 1e-8*id.Singular[0]
		id.Determined = append(id.Determined, det)
		if det {
			rank++
		}
	}
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

// String reports the analysis in a few lines.
func (id Identifiability) String() string {
	nd := 0
	for _, d := range id.Determined {
		if d {
			nd++
		}
	}
	s := fmt.Sprintf("identifiability: %d of %d parameter directions determined by the data (singular values %.3g … %.3g)\n",
		nd, len(id.Singular), id.Singular[0], id.Singular[len(id.Singular)-1])
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
	var rows [][]float64
	nc := 2
	if cfg.Heading != 0 {
		nc = 4
	}
	g.eval(x, nil, func(_, _ int, _ [4]float64, d [4][]float64) {
		for c := range nc {
			rows = append(rows, append([]float64(nil), d[c]...))
		}
	})
	if len(rows) < 4 {
		return out, fmt.Errorf("mecanum: %d residuals", len(rows))
	}
	Jmu := mat.NewDense(len(rows), 4, nil)
	Jp := mat.NewDense(len(rows), 3*nb, nil)
	for i, r := range rows {
		for j := range 4 {
			Jmu.Set(i, j, r[j])
		}
		for j := range 3 * nb {
			Jp.Set(i, j, r[4+j])
		}
	}
	var S mat.Dense
	if err := S.Solve(Jmu, Jp); err != nil { // least squares: −S is dμ/dpose
		return out, err
	}
	for j := range 4 {
		var v float64
		for i := range nb {
			for c, s := range []float64{sigmaPos, sigmaPos, sigmaTheta} {
				e := S.At(j, c*nb+i) * s
				v += e * e
			}
		}
		out[j] = math.Sqrt(v)
	}
	return out, nil
}
