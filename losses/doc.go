// Package losses builds trajectory losses as graph pieces: the ground-truth
// loss (Luo et al. eq. 6), the spline closest-point loss (eq. 7) and their
// weighted sum (eq. 8) for pose trajectories, and the L1 velocity loss over
// short segments (Park, Lee, Kuipers eq. 22) for calibration logs. Each has a
// native float64 twin that its tests compare against.
package losses
