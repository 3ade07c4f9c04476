package dyn

import (
	"fmt"
	"sync/atomic"
)

// Stepper evaluates one step of one lane natively, and its Jacobians, for
// filters (the IPEM EKF of Ordonez et al., MRAN) and sensitivity reports.
// It holds scratch memory and allocates nothing per call; not safe for
// concurrent use (a call made while another runs returns ErrConcurrentUse).
type Stepper struct {
	m            *Model
	k            Kernel
	y, e, ax, au []float64
	ap           []float64
	err          error // from construction: a stale generated kernel
	busy         atomic.Bool
}

// NewStepper returns a Stepper with the model's fastest kernel. If the
// model's generated kernel is stale, every call returns that error (use
// NewStepperWith(m.NewInterpreter()) to opt into the interpreter).
func (m *Model) NewStepper() *Stepper {
	k := m.NewKernel()
	s, err := m.NewStepperWith(k)
	if err != nil {
		s = m.newStepper(k)
		s.err = err
	}
	return s
}

// NewStepperWith returns a Stepper with the given kernel; a kernel of
// another step definition is refused (see NewSimWith).
func (m *Model) NewStepperWith(k Kernel) (*Stepper, error) {
	if err := m.accepts(k); err != nil {
		return nil, err
	}
	return m.newStepper(k), nil
}

func (m *Model) newStepper(k Kernel) *Stepper {
	return &Stepper{m: m, k: k, y: make([]float64, m.NY()), e: make([]float64, m.NS()),
		ax: make([]float64, m.NS()), au: make([]float64, m.NU()), ap: make([]float64, m.NP())}
}

func (s *Stepper) enter(p, q, x, u []float64) error {
	if s.err != nil {
		return s.err
	}
	m := s.m
	if len(p) != m.NP() || len(q) != m.NQ() || len(x) != m.NS() || len(u) != m.NU() {
		return fmt.Errorf("dyn: %s: step of %d parameters, %d settings, %d states and %d inputs, want %d, %d, %d, %d",
			m.spec.Name, len(p), len(q), len(x), len(u), m.NP(), m.NQ(), m.NS(), m.NU())
	}
	if !s.busy.CompareAndSwap(false, true) {
		return ErrConcurrentUse
	}
	return nil
}

// Step writes the next state into xn (len NS) and the outputs into y (len
// NY, or nil) and returns the step's cost.
func (s *Stepper) Step(p, q, x, u, xn, y []float64) (float64, error) {
	if err := s.enter(p, q, x, u); err != nil {
		return 0, err
	}
	defer s.busy.Store(false)
	if len(xn) != s.m.NS() || (y != nil && len(y) != s.m.NY()) {
		return 0, fmt.Errorf("dyn: %s: step into %d states and %d outputs, want %d and %d", s.m.spec.Name, len(xn), len(y), s.m.NS(), s.m.NY())
	}
	return s.k.Forward(1, p, q, x, u, xn, y, 1), nil
}

// Jacobian writes the Jacobians of the next state with respect to the
// state (jx, S×S), the input (ju, S×U) and the parameters (jp, S×P), row
// major, row i being ∂x'_i; any of them may be nil. It costs one reverse
// pass per state.
func (s *Stepper) Jacobian(p, q, x, u, jx, ju, jp []float64) error {
	if err := s.enter(p, q, x, u); err != nil {
		return err
	}
	defer s.busy.Store(false)
	S, U, P := s.m.NS(), s.m.NU(), s.m.NP()
	if (jx != nil && len(jx) != S*S) || (ju != nil && len(ju) != S*U) || (jp != nil && len(jp) != S*P) {
		return fmt.Errorf("dyn: %s: Jacobian sizes %d, %d, %d, want %d, %d, %d", s.m.spec.Name, len(jx), len(ju), len(jp), S*S, S*U, S*P)
	}
	for i := range S {
		clear(s.e)
		s.e[i] = 1
		clear(s.ap)
		s.k.Reverse(1, p, q, x, u, s.e, nil, 1, 0, s.ax, s.au, s.ap)
		if jx != nil {
			copy(jx[i*S:(i+1)*S], s.ax)
		}
		if ju != nil {
			copy(ju[i*U:(i+1)*U], s.au)
		}
		if jp != nil {
			copy(jp[i*P:(i+1)*P], s.ap)
		}
	}
	return nil
}

// OutputJacobian is Jacobian for the outputs (rows ∂y_c): jx is NY×S, ju
// NY×U, jp NY×P; any may be nil. Measurement models of filters use it.
func (s *Stepper) OutputJacobian(p, q, x, u, jx, ju, jp []float64) error {
	if err := s.enter(p, q, x, u); err != nil {
		return err
	}
	defer s.busy.Store(false)
	S, U, P, NY := s.m.NS(), s.m.NU(), s.m.NP(), s.m.NY()
	if (jx != nil && len(jx) != NY*S) || (ju != nil && len(ju) != NY*U) || (jp != nil && len(jp) != NY*P) {
		return fmt.Errorf("dyn: %s: output Jacobian sizes %d, %d, %d, want %d, %d, %d", s.m.spec.Name, len(jx), len(ju), len(jp), NY*S, NY*U, NY*P)
	}
	for c := range NY {
		clear(s.y)
		s.y[c] = 1
		clear(s.ap)
		s.k.Reverse(1, p, q, x, u, nil, s.y, 1, 0, s.ax, s.au, s.ap)
		if jx != nil {
			copy(jx[c*S:(c+1)*S], s.ax)
		}
		if ju != nil {
			copy(ju[c*U:(c+1)*U], s.au)
		}
		if jp != nil {
			copy(jp[c*P:(c+1)*P], s.ap)
		}
	}
	return nil
}
