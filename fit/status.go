package fit

import (
	"fmt"
	"math"

	"github.com/wheelgrad/wheelgrad/opt"
)

// Status is what a parameter file records about the optimiser run that
// produced it (the "fit" object, dataset.FitKey).
type Status struct {
	Method     string  `json:"method"`
	Status     string  `json:"status"` // converged, stalled, iteration limit, evaluation limit, stopped, failed
	Converged  bool    `json:"converged"`
	Iterations int     `json:"iterations"`
	Loss       float64 `json:"loss"`             // 0 when not finite
	Reason     string  `json:"reason,omitempty"` // opt's own words (e.g. "function converged")
}

// NewStatus summarises an optimiser's result under a method name.
func NewStatus(method string, r *opt.Result) *Status {
	s := &Status{Method: method, Status: r.Status.Kind(), Converged: r.Status.Converged(), Iterations: r.Iterations, Loss: r.F, Reason: r.Status.String()}
	if math.IsInf(s.Loss, 0) || math.IsNaN(s.Loss) {
		s.Loss = 0
	}
	return s
}

// Settings are the optimiser limits every identification shares (the
// command line's -maxiter, -tol and -allow-unconverged).
type Settings struct {
	MaxIter          int     // 0: the method's default
	Tol              float64 // relative loss reduction per iteration for convergence; 0: the model's default
	AllowUnconverged bool    // accept a fit that stopped before converging (a warning, not an error)
}

// Settled reports whether the fit ended where its identifiability can be
// judged: converged, or not an optimiser's (r nil: a filter). An
// unconverged fit is reported as such rather than refused as undetermined:
// σ away from the optimum says little.
func (s Settings) Settled(r *opt.Result) bool {
	return r == nil || r.Status.Converged()
}

// Apply sets the limits of o from s.
func (s Settings) Apply(o opt.Settings) opt.Settings {
	if s.MaxIter > 0 {
		o.MaxIterations = s.MaxIter
	}
	if s.Tol > 0 {
		o.FunctionTol = s.Tol
	}
	return o
}

// WithProgress is opt's settings from s with a Callback that passes each
// iteration's number and loss to progress (nil: none): the settings an
// adapter (package robots, which names no optimiser type) hands a model's
// identification.
func (s Settings) WithProgress(progress func(iter int, loss float64)) opt.Settings {
	var o opt.Settings
	if progress != nil {
		o.Callback = func(it opt.Iteration) bool {
			progress(it.Iter, it.F)
			return true
		}
	}
	return s.Apply(o)
}

// UnconvergedError is an optimisation that stopped at a limit (or stalled)
// without converging: its outputs are still worth writing, with their
// status (the command line exits 3).
type UnconvergedError struct{ Msg string }

func (u UnconvergedError) Error() string { return u.Msg }

// Check turns an optimiser's status into the outcome of the fit called
// what: nil when it converged; a warning and nil with AllowUnconverged;
// else an UnconvergedError. A run that failed — no iteration completed, the
// start values returned — is a plain error unless AllowUnconverged: the
// start may already have been the optimum of a loss with kinks, or the
// gradient may be wrong, and only the user can tell.
func (s Settings) Check(what string, r *opt.Result) ([]Warning, error) {
	switch {
	case r.Status.Converged():
		return nil, nil
	case r.Status.Kind() == "failed" && !s.AllowUnconverged:
		return nil, fmt.Errorf("%s failed after %d iterations (%s): the start values were not improved (already optimal, or a gradient inconsistent with the loss); no parameters written (-allow-unconverged writes them)", what, r.Iterations, r.Status)
	}
	msg := fmt.Sprintf("%s did not converge: %s after %d iterations (loss %.6g)", what, r.Status, r.Iterations, r.F)
	hint := "raise -maxiter or loosen -tol, or pass -allow-unconverged to accept it"
	if r.Status == opt.Stalled {
		hint = "no step lowered the loss further (a kink or rounding); pass -allow-unconverged to accept it"
	}
	if s.AllowUnconverged {
		return []Warning{Warnf("", "%s; accepted (-allow-unconverged)", msg)}, nil
	}
	return nil, UnconvergedError{msg + "; the parameters are written with their status: " + hint}
}
