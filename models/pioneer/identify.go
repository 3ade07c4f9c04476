package pioneer

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/wheelgrad/wheelgrad/opt"

	"github.com/wheelgrad/wheelgrad/dataset"
)

// IdentifyOptions tune Identify; zero values select the defaults.
type IdentifyOptions struct {
	// Free names the parameters to fit (default DefaultFree(form)); the
	// others keep their values from the initial Params.
	Free []string
	// Delays are the candidate whole-sample delays (default 0…5).
	Delays []int
	// Temps is the annealing schedule of the surrogates' temperature, in
	// m/s (rad/s for ω; seconds per m/s for the arrival of the reference),
	// default 0.02, 0.005, 0.001. The final loss is evaluated exact (T = 0).
	Temps []float64
	// MaxIter bounds the iterations of each stage (default 200).
	MaxIter int
	// Tol is the FunctionTol (opt.Settings) of every stage; 0 selects
	// 1e-10 for L-BFGS-B, and for least squares 1e-5 in the smoothed
	// stages and 1e-6 in the final exact one.
	Tol float64
	// Method is MethodLSQ (the default) or MethodLBFGSB: the optimiser of
	// every annealing stage.
	Method string
	// Progress, if set, is called after each stage.
	Progress func(msg string)
}

// The optimisers of Identify's annealing stages.
const (
	// MethodLSQ is bounded least squares (opt.LeastSquares) over the
	// residuals of the measured rows with the forward-mode Jacobian.
	MethodLSQ = "lsq"
	// MethodLBFGSB is L-BFGS-B on the summed loss with the generated
	// reverse-mode gradient.
	MethodLBFGSB = "lbfgsb"
)

// Methods are Identify's methods, the default first.
var Methods = []string{MethodLSQ, MethodLBFGSB}

// DefaultFree are the parameters Identify fits by default: the reference
// limits and the delay's fraction of both forms; the PI gains of the
// physical form; the lags and thresholds of the experimental one. The
// physical constants (Tables 1–2) stay as given.
func DefaultFree(form string) []string {
	if form == FormPhysical {
		return []string{"vmax", "wmax", "acc_v", "dec_v", "acc_w", "dec_w", "phi", "KR", "TI"}
	}
	return slices.Clone(ExperimentalParamNames)
}

// DelayTry is the exact loss of each channel after the first annealing
// stage at one candidate delay.
type DelayTry struct {
	Delay        int
	LossV, LossW float64
}

// Result is an identification.
type Result struct {
	Params      Params
	Free        []string
	Loss        float64 // exact, per measured row: mean of (v−vm)²/var(vm) + (ω−wm)²/var(wm)
	Start       float64 // the same at the initial parameters and delays
	Tries       []DelayTry
	Iterations  int
	Evaluations int
	Runtime     time.Duration
	// Opt is the optimiser's result of the last annealing stage (its
	// status is the fit's).
	Opt *opt.Result
	// Undetermined lists free parameters the logs barely inform (their
	// gradient at the end of the first stage was below 1e-9 of the loss per
	// unit of the parameter's scale: e.g. a saturation never reached).
	Undetermined []string
	// OnBound lists free parameters that ended on a bound of their range
	// (see Bounds): the data ask for a value the range excludes.
	OnBound []string
}

// Bounds is the range Identify allows a free parameter (physically
// meaningful, and for K_R the fastest loop the 5-ms step keeps stable);
// ±Inf for a parameter it never frees by default.
func Bounds(name string, Ts float64) (lo, hi float64) { return bounds(name, Ts) }

func bounds(name string, Ts float64) (lo, hi float64) {
	switch name {
	case "vmax":
		return 0.05, 3
	case "wmax":
		return 0.1, 10
	case "acc_v", "dec_v":
		return 0.02, 10
	case "acc_w", "dec_w":
		return 0.05, 30
	case "phi":
		return 0, Ts
	case "KR":
		return 100, 30000
	case "TI":
		return 0.01, 100
	case "K":
		return 0, 1
	case "tau_v", "tau_w":
		return 0.005, 1
	case "thr0_v", "thr0_w":
		return 0, 0.5
	case "thr1_v", "thr1_w":
		return 0, 2
	}
	return math.Inf(-1), math.Inf(1)
}

// scale is a parameter's typical size, for conditioning L-BFGS-B.
func scale(name string, v, Ts float64) float64 {
	switch name {
	case "phi":
		return Ts
	case "thr0_v", "thr0_w":
		return 0.05
	case "thr1_v", "thr1_w":
		return 0.1
	}
	return math.Max(math.Abs(v), 1e-3)
}

// Identify fits p's free parameters and whole-sample delays to the runs'
// measurements: at every candidate delay a first stage at the highest
// temperature, the best delay per channel (experimental: v and ω are
// independent) or the best shared one (physical), then the remaining
// stages of the annealing schedule at that delay. The loss is the mean over
// measured rows of the squared errors normalised by the variance of each
// measured channel: a sum of squares.
//
// MethodLSQ (the default) minimises each stage by bounded least squares
// (opt.LeastSquares) over the residuals of the measured rows with their
// forward-mode Jacobian (dyn.Sim.Jacobian), holding parameters the stage's
// loss barely depends on and putting parameters that end next to a bound
// on it (stageLSQ); it then adds a stage on the exact model (T = 0: the
// Jacobian's subgradients, steps accepted only where the exact loss falls),
// and gives back its start value to every parameter the exact loss does not
// depend on (a saturation above every reference). MethodLBFGSB minimises
// each stage by L-BFGS-B through the generated reverse-mode gradient.
func Identify(p Params, runs []*Run, o IdentifyOptions) (*Result, error) {
	start := time.Now()
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if len(runs) == 0 {
		return nil, errors.New("pioneer: no runs to identify from")
	}
	var rows int
	var sv, sw stats
	for i, r := range runs {
		if err := r.Check(p.Ts); err != nil {
			return nil, fmt.Errorf("run %d: %w", i+1, err)
		}
		if r.V == nil {
			return nil, fmt.Errorf("run %d: %w", i+1, &dataset.RowError{Row: 0, Column: "v", Msg: "identify needs the measured velocities v, w"})
		}
		for k := 1; k < len(r.T); k++ {
			if v, w, wt := r.measured(k); wt > 0 {
				sv.add(v)
				sw.add(w)
				rows++
			}
		}
	}
	if rows < 2 {
		return nil, errors.New("pioneer: fewer than two measured rows after the first")
	}
	wv, ww := 1/math.Max(sv.variance(), 1e-6), 1/math.Max(sw.variance(), 1e-6)
	if o.Free == nil {
		o.Free = DefaultFree(p.Form)
	}
	if o.Delays == nil {
		o.Delays = []int{0, 1, 2, 3, 4, 5}
	}
	if o.Temps == nil {
		o.Temps = []float64{0.02, 0.005, 0.001}
	}
	switch o.Method {
	case "":
		o.Method = MethodLSQ
	case MethodLSQ, MethodLBFGSB:
	default:
		return nil, fmt.Errorf("pioneer: unknown method %q (one of %v)", o.Method, Methods)
	}
	if o.MaxIter == 0 {
		o.MaxIter = 200
	}
	names := ExperimentalParamNames
	if p.Form == FormPhysical {
		names = PhysicalParamNames
	}
	var idx []int
	for _, f := range o.Free {
		k := slices.Index(names, f)
		if k < 0 {
			return nil, fmt.Errorf("pioneer: %q is not a parameter of the %s form (%v)", f, p.Form, names)
		}
		idx = append(idx, k)
	}
	res := &Result{Free: o.Free}
	norm := 1 / float64(rows)
	x0 := p.vector()
	lo, hi, sc := make([]float64, len(idx)), make([]float64, len(idx)), make([]float64, len(idx))
	for i, k := range idx {
		lo[i], hi[i] = bounds(names[k], p.Ts)
		x0[k] = math.Min(math.Max(x0[k], lo[i]), hi[i])
		sc[i] = scale(names[k], x0[k], p.Ts)
		lo[i], hi[i] = lo[i]/sc[i], hi[i]/sc[i]
	}
	// fit runs the stages temps on batch b from the full vector x.
	fit := func(b *batch, x []float64, temps []float64) ([]float64, error) {
		x = slices.Clone(x)
		z := make([]float64, len(idx))
		for i, k := range idx {
			z[i] = x[k] / sc[i]
		}
		g := make([]float64, len(x))
		for _, T := range temps {
			obj := func(zz, grad []float64) (float64, error) {
				for i, k := range idx {
					x[k] = zz[i] * sc[i]
				}
				var gg []float64
				if grad != nil {
					gg = g
				}
				c, err := b.run(x, T, gg)
				if err != nil {
					return 0, err
				}
				for i, k := range idx {
					if grad != nil {
						grad[i] = g[k] * sc[i] * norm
					}
				}
				return c * norm, nil
			}
			var r *opt.Result
			var err error
			set := opt.Settings{MaxIterations: o.MaxIter, FunctionTol: o.Tol, GradientTol: 1e-9}
			if o.Method == MethodLBFGSB {
				if set.FunctionTol == 0 {
					set.FunctionTol = 1e-10
				}
				r, err = opt.LBFGSB{}.Minimize(opt.Problem{Objective: obj, Lower: lo, Upper: hi}, z, set)
			} else {
				if set.FunctionTol == 0 {
					set.FunctionTol = lsqStageTol
					if T == 0 {
						set.FunctionTol = lsqExactTol
					}
				}
				r, err = stageLSQ(b, T, idx, sc, x, norm, z, lo, hi, set)
			}
			if err != nil {
				return nil, err
			}
			copy(z, r.X)
			res.Opt = r
			res.Iterations += r.Iterations
			res.Evaluations += r.FuncEvaluations
			for i, k := range idx {
				x[k] = z[i] * sc[i]
			}
			if o.Progress != nil {
				dv, dw := b.dv, b.dw
				o.Progress(fmt.Sprintf("%s: delays %d/%d samples, T = %g: loss %.5g after %d iterations", p.Form, dv, dw, T, r.F, r.Iterations))
			}
		}
		return x, nil
	}
	// exact per-channel losses of a batch at x
	exact := func(b *batch, x []float64) (lv, lw float64, err error) {
		if _, err := b.run(x, 0, nil); err != nil {
			return 0, 0, err
		}
		for j, r := range runs {
			v, w := b.predicted(j)
			for k := 1; k < len(r.T); k++ {
				if vm, wm, wt := r.measured(k); wt > 0 {
					lv += wv * (v[k] - vm) * (v[k] - vm) * norm
					lw += ww * (w[k] - wm) * (w[k] - wm) * norm
				}
			}
		}
		return lv, lw, nil
	}
	d0v, d0w := p.Delays()
	{
		b := newBatch(p, runs, d0v, d0w, wv, ww)
		lv, lw, err := exact(b, x0)
		if err != nil {
			return nil, err
		}
		res.Start = lv + lw
	}
	type cand struct {
		x      []float64
		lv, lw float64
		d      int
	}
	var bestV, bestW, bestAll *cand
	for _, d := range o.Delays {
		b := newBatch(p, runs, d, d, wv, ww)
		x, err := fit(b, x0, o.Temps[:1])
		if err != nil {
			return nil, fmt.Errorf("delay %d: %w", d, err)
		}
		lv, lw, err := exact(b, x)
		if err != nil {
			return nil, err
		}
		res.Tries = append(res.Tries, DelayTry{d, lv, lw})
		c := &cand{x, lv, lw, d}
		if bestV == nil || lv < bestV.lv {
			bestV = c
		}
		if bestW == nil || lw < bestW.lw {
			bestW = c
		}
		if bestAll == nil || lv+lw < bestAll.lv+bestAll.lw {
			bestAll = c
		}
	}
	var x []float64
	var dv, dw int
	if p.Form == FormPhysical {
		x, dv, dw = bestAll.x, bestAll.d, bestAll.d
	} else {
		// the channels are independent: v's parameters from v's best delay
		x = slices.Clone(bestW.x)
		copy(x[:6], bestV.x[:6])
		dv, dw = bestV.d, bestW.d
	}
	b := newBatch(p, runs, dv, dw, wv, ww)
	// parameters the data do not inform: no gradient at the first stage
	g := make([]float64, len(x))
	if c, err := b.run(x, o.Temps[0], g); err == nil {
		for i, k := range idx {
			if math.Abs(g[k]*sc[i]) < 1e-9*math.Max(c, 1e-12) {
				res.Undetermined = append(res.Undetermined, names[k])
			}
		}
	}
	x, err := fit(b, x, o.Temps[1:])
	if err != nil {
		return nil, err
	}
	if o.Method == MethodLSQ {
		// least squares ends on the exact model (T = 0): its residuals
		// are piecewise smooth, their Jacobian the subgradients, and the
		// trust region accepts only steps that lower the exact loss
		if x, err = fit(b, x, []float64{0}); err != nil {
			return nil, err
		}
	}
	lv, lw, err := exact(b, x)
	if err != nil {
		return nil, err
	}
	if o.Method == MethodLSQ {
		// A parameter the exact loss does not depend on (a saturation
		// above every reference) keeps its start value: least squares
		// steps far along such a direction of the smoothed loss, where
		// L-BFGS-B's gradient steps barely move it.
		for _, k := range idx {
			if x[k] == x0[k] {
				continue
			}
			y := slices.Clone(x)
			y[k] = x0[k]
			yv, yw, err := exact(b, y)
			if err != nil {
				return nil, err
			}
			res.Evaluations++
			if yv+yw <= lv+lw {
				x, lv, lw = y, yv, yw
			}
		}
	}
	res.Loss = lv + lw
	for i, k := range idx {
		if (x[k] <= lo[i]*sc[i] || x[k] >= hi[i]*sc[i]) && !slices.Contains(res.Undetermined, names[k]) {
			res.OnBound = append(res.OnBound, names[k])
		}
	}
	out := p.withVector(x)
	if p.Form == FormPhysical {
		*out.Delay = dv
	} else {
		*out.DelayV, *out.DelayW = dv, dw
	}
	res.Params = out
	res.Runtime = time.Since(start)
	return res, nil
}

// stats accumulates a mean and variance (Welford).
type stats struct {
	n       int
	mean, m float64
}

func (s *stats) add(v float64) {
	s.n++
	d := v - s.mean
	s.mean += d / float64(s.n)
	s.m += d * (v - s.mean)
}

func (s *stats) variance() float64 {
	if s.n < 2 {
		return 0
	}
	return s.m / float64(s.n-1)
}
