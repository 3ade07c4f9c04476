package opt

import (
	"errors"
	"math"
)

// This file holds what lets a run tell the truth about where it ended
// (issue 21, item 4): exactly zero gradients, plateaus, non-finite values.

// nonFiniteError marks an error caused by a NaN or infinite value returned
// by the objective, so that the method can return status NonFinite with it.
type nonFiniteError struct{ error }

func (e nonFiniteError) Unwrap() error { return e.error }

func isNonFinite(err error) bool {
	var nf nonFiniteError
	return errors.As(err, &nf)
}

// nameSuffix is " (name)" when Settings.Names names parameter i, else "".
func nameSuffix(s Settings, i int) string {
	if len(s.Names) > i && s.Names[i] != "" {
		return " (" + s.Names[i] + ")"
	}
	return ""
}

// freeIndices lists the parameters with lo < hi.
func freeIndices(lo, hi []float64) []int {
	var free []int
	for i := range lo {
		if lo[i] < hi[i] {
			free = append(free, i)
		}
	}
	return free
}

// zeroGradient reports whether every component of g of a free parameter is
// exactly zero (and some parameter is free). A gradient that is small but
// not zero is the convergence tests' business; an exactly zero one is
// either an exact stationary point or a plateau, and probeFlat tells which.
func zeroGradient(g, lo, hi []float64) bool {
	any := false
	for i := range g {
		if lo[i] < hi[i] {
			if g[i] != 0 {
				return false
			}
			any = true
		}
	}
	return any
}

// flatProbe is the relative size of the probe steps of probeFlat: large
// enough that at a strict minimum f changes by far more than its rounding
// (h² times the curvature), small enough to stay on a plateau of practical
// width.
const flatProbe = 1e-3

// probeFlat moves each free parameter in turn by flatProbe·max(|x_i|, 1)
// (into the box) and returns those along which f did not change at all.
// Only called where the gradient is exactly zero, so its n evaluations are
// rare. An error of the objective at a probe is returned.
func probeFlat(rec *recorder, obj Objective, x []float64, f float64) ([]int, error) {
	var flat []int
	xp := append([]float64(nil), x...)
	for _, i := range freeIndices(rec.lo, rec.hi) {
		h := flatProbe * math.Max(math.Abs(x[i]), 1)
		lo, hi := rec.lo[i], rec.hi[i]
		switch {
		case x[i]+h <= hi:
			xp[i] = x[i] + h
		case x[i]-h >= lo:
			xp[i] = x[i] - h
		default:
			xp[i] = lo + (hi-lo)/2
			if xp[i] == x[i] {
				xp[i] = hi
			}
		}
		fp, err := rec.eval(obj, xp, nil)
		xp[i] = x[i]
		if err != nil {
			if isNonFinite(err) || math.IsNaN(fp) {
				continue // changed, in the worst way
			}
			return nil, err
		}
		if fp == f {
			flat = append(flat, i)
		}
	}
	return flat, nil
}
