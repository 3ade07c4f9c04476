package dyn

import "fmt"

// FilterModel is a Stepper seen as the model of a Kalman filter: its
// Predict is the step x' = f(x, u, p) with ∂f/∂x and ∂f/∂p, its Observe
// the model's outputs y = h(x, u, p) with ∂h/∂x and ∂h/∂p, both at the
// given settings. It has the method sets of opt.Process and opt.Observer
// (dyn does not import opt: the interfaces are met by their methods), so a
// step definition plugs into opt.EKF, and into opt.Joint for joint state
// and parameter estimation, as it is.
//
// The outputs are evaluated at the start of the step, from the state the
// filter holds: a model measured by a filter declares outputs that are
// functions of the current state (s.Output("x", s.State("x"))), not of
// the next one.
type FilterModel struct {
	s      *Stepper
	q      []float64
	xn     []float64
	isNext bool // the outputs are the next states (no Outputs declared)
}

// Filter returns the Stepper as a filter's model at the given settings
// (copied; len NQ). It shares the Stepper's scratch: one per goroutine.
func (s *Stepper) Filter(settings []float64) *FilterModel {
	p := s.m.prog
	isNext := len(p.out) == len(p.next)
	for k := range p.out {
		isNext = isNext && p.out[k] == p.next[k]
	}
	return &FilterModel{s: s, q: append([]float64(nil), settings...), xn: make([]float64, s.m.NS()), isNext: isNext}
}

// Predict writes the next state x' = f(x, u, p) into xn and, where
// non-nil, ∂f/∂x into fx (S×S) and ∂f/∂p into fp (S×P), row major.
func (f *FilterModel) Predict(x, u, p, xn, fx, fp []float64) error {
	if _, err := f.s.Step(p, f.q, x, u, xn, nil); err != nil {
		return err
	}
	if fx == nil && fp == nil {
		return nil
	}
	return f.s.Jacobian(p, f.q, x, u, fx, nil, fp)
}

// Observe writes the outputs y = h(x, u, p) into y (len NY) and, where
// non-nil, ∂h/∂x into hx (NY×S) and ∂h/∂p into hp (NY×P), row major.
func (f *FilterModel) Observe(x, u, p, y, hx, hp []float64) error {
	m := f.s.m
	if f.isNext {
		return fmt.Errorf("dyn: %s: the outputs are the next states (no Outputs declared), and a filter measures the current state: declare Outputs (s.Output(\"x\", s.State(\"x\")))", m.spec.Name)
	}
	if _, err := f.s.Step(p, f.q, x, u, f.xn, y); err != nil {
		return err
	}
	if hx == nil && hp == nil {
		return nil
	}
	return f.s.OutputJacobian(p, f.q, x, u, hx, nil, hp)
}
