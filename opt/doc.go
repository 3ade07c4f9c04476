// Package opt minimises objectives given as value-and-gradient functions, with
// box bounds, and reports every method's run in one Result.
//
// Methods:
//
//   - LBFGSB: bound-constrained limited-memory BFGS (Byrd, Lu, Nocedal, Zhu 1995),
//     written in pure Go because gonum has no bounded quasi-Newton method and the
//     Go wrappers of the Fortran code are unmaintained cgo. It is the method Luo
//     et al. use for friction identification (their §VI) and the one Park et al.
//     would use for the positivity-bounded calibration.
//   - NelderMead: gonum's simplex method; bounds are handled by reparametrising
//     each bounded coordinate through a sigmoid (Luo et al. eq. 14).
//   - CMAES: a standard (μ/μ_w, λ)-CMA-ES with cumulative step-size adaptation
//     (Hansen's tutorial), written here because gonum's CmaEsChol draws its
//     samples without the step size, so its step-size adaptation has no effect.
//
// An objective never knows about robots: it is a function of a flat []float64.
// A per-iteration Callback receives the iteration number, f, x and the elapsed
// time, for progress bars and loss curves; returning false stops the run.
package opt
