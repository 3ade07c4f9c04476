package dyn

// Helpers shared by the interpreter and generated kernels, so that both
// compute every op with the same floating-point operations.

// SignOf is −1, 0 or 1 (0 for 0 and NaN).
func SignOf(a float64) float64 {
	switch {
	case a > 0:
		return 1
	case a < 0:
		return -1
	}
	return 0
}

// MinOf is a if a ≤ b, else b.
func MinOf(a, b float64) float64 {
	if a <= b {
		return a
	}
	return b
}

// MaxOf is a if a ≥ b, else b.
func MaxOf(a, b float64) float64 {
	if a >= b {
		return a
	}
	return b
}

// ClampOf is lo where x < lo, hi where x > hi, else x.
func ClampOf(x, lo, hi float64) float64 {
	switch {
	case x < lo:
		return lo
	case x > hi:
		return hi
	}
	return x
}

// B2F is 1 for true and 0 for false.
func B2F(b bool) float64 { return b2f(b) }

// AllFinite reports whether every value is finite; generated rollout
// kernels check their invariants with it.
func AllFinite(v ...float64) bool {
	for _, x := range v {
		if !finite(x) {
			return false
		}
	}
	return true
}

// ReverseByStep is the reverse pass of a rollout by k's step kernel, one
// call per step, with RolloutKernel.ReverseRollout's arguments (lam: the
// adjoint of the final state in, of the initial state out; pbar is added
// to). Generated rollout kernels hand their pass to it when an invariant of
// the step is not finite. It allocates.
func ReverseByStep(k Kernel, B, T int, p, q, X, u, ybar []float64, cbar float64, lam, ubar, pbar []float64) {
	SB := len(lam)
	UB := len(u) / max(T, 1)
	cur, prev := lam, make([]float64, SB)
	var scratch []float64
	if ubar == nil {
		scratch = make([]float64, UB)
	}
	ys := T * B
	for t := T - 1; t >= 0; t-- {
		var yb []float64
		if ybar != nil {
			yb = ybar[t*B:]
		}
		au := scratch
		if ubar != nil {
			au = ubar[t*UB : (t+1)*UB]
		}
		k.Reverse(B, p, q, X[t*SB:(t+1)*SB], u[t*UB:(t+1)*UB], cur, yb, ys, cbar, prev, au, pbar)
		cur, prev = prev, cur
	}
	if &cur[0] != &lam[0] {
		copy(lam, cur)
	}
}
