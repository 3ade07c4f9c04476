package dataset

import (
	"fmt"
	"math"
	"slices"
)

// Derivative5 writes into dst the time derivative of x sampled at a uniform
// step h, by the 5-point central difference
//
//	x'[i] ≈ (x[i−2] − 8·x[i−1] + 8·x[i+1] − x[i+2]) / (12h),
//
// the numerical differentiation of Park, Lee, Kuipers §III-A (eq. 24 takes the
// initial motor acceleration of each calibration segment from it). Its error is
// O(h⁴) for smooth x. The two samples at each end, which lack neighbours,
// get the 3-point one-sided (O(h²)) or central differences; a series of
// fewer than 2 samples has derivative 0. dst must have len(x) and may not
// be x. It returns an error for a non-positive or non-finite h.
func Derivative5(dst, x []float64, h float64) error {
	if len(dst) != len(x) {
		return fmt.Errorf("dataset.Derivative5: len(dst) = %d, len(x) = %d", len(dst), len(x))
	}
	if !(h > 0) || h > 1e300 {
		return fmt.Errorf("dataset.Derivative5: step h = %v must be positive and finite", h)
	}
	n := len(x)
	switch {
	case n < 2:
		clear(dst)
		return nil
	case n == 2:
		d := (x[1] - x[0]) / h
		dst[0], dst[1] = d, d
		return nil
	}
	for i := 2; i < n-2; i++ {
		dst[i] = (x[i-2] - 8*x[i-1] + 8*x[i+1] - x[i+2]) / (12 * h)
	}
	dst[0] = (-3*x[0] + 4*x[1] - x[2]) / (2 * h)
	dst[n-1] = (3*x[n-1] - 4*x[n-2] + x[n-3]) / (2 * h)
	dst[1] = (x[2] - x[0]) / (2 * h)
	if n > 3 {
		dst[n-2] = (x[n-1] - x[n-3]) / (2 * h)
	}
	return nil
}

// Median5 writes into dst the running median of x over windows of 5 samples
// (3 at the second and second-to-last sample, the sample itself at the
// ends). A median rejects isolated spikes, such as encoder glitches, that
// a 5-point derivative would amplify by 8/(12h); it is the robust option for
// the initial states of calibration segments. dst must have len(x).
func Median5(dst, x []float64) error {
	if len(dst) != len(x) {
		return fmt.Errorf("dataset.Median5: len(dst) = %d, len(x) = %d", len(dst), len(x))
	}
	n := len(x)
	var w [5]float64
	for i := range n {
		r := min(2, i, n-1-i)
		win := w[:0]
		win = append(win, x[i-r:i+r+1]...)
		slices.Sort(win)
		dst[i] = win[r]
	}
	return nil
}

// MedianStep is the median of t's steps (NaN with fewer than two rows): the
// nominal sampling period of a log, robust to jitter and to a few gaps.
func MedianStep(t []float64) float64 {
	if len(t) < 2 {
		return math.NaN()
	}
	d := make([]float64, len(t)-1)
	for k := 1; k < len(t); k++ {
		d[k-1] = t[k] - t[k-1]
	}
	slices.Sort(d)
	return d[len(d)/2]
}
