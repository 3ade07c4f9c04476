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
