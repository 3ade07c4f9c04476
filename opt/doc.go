// Package opt minimises objectives given as value-and-gradient functions, or
// sums of squared residuals given with their Jacobian, with box bounds, and
// reports every method's run in one Result.
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
//   - LeastSquares: bounded nonlinear least squares over residuals r(x) and
//     their Jacobian (LSProblem), by SciPy's Trust Region Reflective method
//     (Branch, Coleman, Li 1999): Levenberg–Marquardt trust-region steps in
//     Coleman–Li scaled variables, reflected off the bounds; robust losses
//     (Huber, soft-L1, Cauchy, arctan, with SciPy's f_scale and the Triggs
//     correction). With few parameters and many residuals it converges in a
//     handful of iterations where L-BFGS-B on ½‖r‖² takes tens (see
//     BenchmarkLeastSquaresVsLBFGSB). Tall problems (M ≥ 10·n) solve each
//     trust-region subproblem from the normal equations (LSSolver: JᵀJ formed
//     once per point over the rows' non-zeros, an n×n eigen-decomposition
//     per iteration, QR again when JᵀJ is ill-conditioned; Ceres'
//     DENSE_NORMAL_CHOLESKY), the others by QR of J (SciPy's exact solver).
//     A problem that forms JᵀJ and Jᵀr itself as it computes J's rows
//     (LSProblem.Normal) hands them over directly on that path: no m×n
//     matrix, J evaluated only for an iteration that falls back to QR.
//     LeastSquares.Covariance gives the
//     Gauss–Newton covariance (JᵀJ)⁻¹·s² without the parameters on bounds,
//     with the rank and the null directions, for a fit report;
//     NumericalJacobian supplies J by finite differences (gonum's diff/fd)
//     for residuals without one.
//   - EKF: the extended Kalman filter over a Process x' = f(x, u, p) and an
//     Observer y = h(x, u, p), each with its Jacobians (a dyn step
//     definition gives both through (*dyn.Stepper).Filter); Correct for an
//     innovation and measurement Jacobian computed by the caller; Joint for
//     joint state and parameter estimation over the augmented state [x; p]
//     (ExampleJoint); Upper mode keeps half of P, for long parameter
//     vectors measured one output at a time. IPEM (models/skidsteer) and
//     MRAN (models/rbf) are filters of this one EKF.
//
// Every method ends with a Status and a Result.Reason that says what it
// means. A run is never reported converged where it cannot know: an exactly
// zero gradient at the start is StartStationary; a point where the gradient
// is exactly zero and f does not change when any parameter is moved (a
// plateau, such as a bound corner where a stiction model never moves) is
// Flat; a NaN or infinite value is NonFinite (with an error naming it); a
// run that stops lowering f is Stalled. Parameters that end on a bound are
// listed in Result.AtLower and AtUpper and named in Reason (Settings.Names).
//
// An objective never knows about robots: it is a function of a flat []float64.
// A per-iteration Callback receives the iteration number, f, x and the elapsed
// time, for progress bars and loss curves; returning false stops the run.
package opt
