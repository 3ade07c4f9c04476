package dyn

import "fmt"

// Stepper evaluates one step of one lane natively, and its Jacobians, for
// filters (the IPEM EKF of Ordonez et al., MRAN) and sensitivity reports.
// It holds scratch memory and allocates nothing per call; not safe for
// concurrent use.
type Stepper struct {
	m            *Model
	k            Kernel
	y, e, ax, au []float64
	ap           []float64
}

// NewStepper returns a Stepper with the model's fastest kernel.
func (m *Model) NewStepper() *Stepper { return m.NewStepperWith(m.NewKernel()) }

// NewStepperWith returns a Stepper with the given kernel.
func (m *Model) NewStepperWith(k Kernel) *Stepper {
	return &Stepper{m: m, k: k, y: make([]float64, m.NY()), e: make([]float64, m.NS()),
		ax: make([]float64, m.NS()), au: make([]float64, m.NU()), ap: make([]float64, m.NP())}
}

// Step writes the next state into xn and the outputs into y (len NY, or
// nil) and returns the step's cost.
func (s *Stepper) Step(p, q, x, u, xn, y []float64) float64 {
	return s.k.Forward(1, p, q, x, u, xn, y, 1)
}

// Jacobian writes the Jacobians of the next state with respect to the
// state (jx, S×S), the input (ju, S×U) and the parameters (jp, S×P), row
// major, row i being ∂x'_i; any of them may be nil. It costs one reverse
// pass per state.
func (s *Stepper) Jacobian(p, q, x, u, jx, ju, jp []float64) error {
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
