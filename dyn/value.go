package dyn

import "fmt"

// Value is Forward without the trajectory: it rolls the model from x0
// under u, writes the outputs into y (len NY·T·B, or nil) and the final
// state (Final), and returns the summed cost, keeping only the current
// state (in registers, with a generated kernel) instead of storing the
// T+1 states a reverse pass reads. It is the evaluation for line searches,
// validation and MPC rollouts, where no gradient follows. State(t) is not
// valid after it for 0 < t < T; a Backward after it rolls forward again
// first. Errors are Forward's (a divergence is located by rolling again
// with the states stored).
func (s *Sim) Value(p, q, x0, u, y []float64) (float64, error) {
	m := s.m
	if err := s.enter(); err != nil {
		return 0, err
	}
	busy := true
	defer func() {
		if busy {
			s.busy.Store(false)
		}
	}()
	s.ran = false
	if err := s.checkLens(p, q, x0, u); err != nil {
		return 0, err
	}
	if y != nil && len(y) != m.NY()*s.T*s.B {
		return 0, fmt.Errorf("dyn: %s: %d output values, want %d", m.spec.Name, len(y), m.NY()*s.T*s.B)
	}
	if err := s.CheckFinite(p, q, x0, nil); err != nil {
		return 0, err
	}
	S, U, B, T := m.NS(), m.NU(), s.B, s.T
	xT := s.X[T*S*B : (T+1)*S*B]
	var c float64
	if r, ok := s.k.(FinalRoller); ok {
		c = r.RollFinal(B, T, p, q, x0, u, y, xT)
	} else {
		if len(s.vx[0]) != S*B {
			s.vx = [2][]float64{make([]float64, S*B), make([]float64, S*B)}
		}
		x := s.vx[0]
		copy(x, x0)
		ys := T * B
		for t := range T {
			var yt []float64
			if y != nil {
				yt = y[t*B:]
			}
			xn := s.vx[(t+1)%2]
			c += s.k.Forward(B, p, q, x, u[t*U*B:(t+1)*U*B], xn, yt, ys)
			x = xn
		}
		copy(xT, x)
	}
	if T > 0 {
		copy(s.X[:S*B], x0)
		s.stale = true
	}
	s.cost = c
	if !finite(c) || !allFinite(xT) {
		busy = false
		s.busy.Store(false)
		return s.Forward(p, q, x0, u, y)
	}
	s.ran = true
	return c, nil
}
