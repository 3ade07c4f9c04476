// Package losses builds trajectory losses as graph pieces: the ground-truth
// loss (Luo et al. eq. 6), the spline closest-point loss (eq. 7) and their
// weighted sum (eq. 8) for pose trajectories, and the L1 velocity loss over
// short segments (Park, Lee, Kuipers eq. 22) for calibration logs. Each has a
// native float64 twin that its tests compare against.
//
// The closest point of eq. 7 is a native search (Spline): global over a
// bounding-volume hierarchy (Closest, ClosestWithin), or warm-started for a
// point an optimiser moves a little at a time (ClosestWarm, with a Warm per
// point), which gives the same answers from the segments near the last one
// and a certified clearance to all others.
package losses
