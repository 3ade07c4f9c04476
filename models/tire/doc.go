// Package tire is the Jackal skid-steer rigid body with tyre slip forces of
// Westerhout et al.: four wheels whose hub velocities give a longitudinal
// slip κ (eq. 7) and a slip angle α (eq. 8), tyre forces from the Dugoff
// (eqs. 12–15) or the Pacejka (eqs. 9–11, pure slip) law, rolling
// resistance, and the planar rigid body of eqs. 16–21, integrated with a
// fixed step dt (semi-implicit Euler), exactly as FORMATS.md's model "tire"
// fixes it where the paper is singular (κ of eq. 7 divides by |v_x|, zero at
// rest; the contract bounds the denominator below by veps and cancels
// (1 − κ) in the saturated Dugoff branch).
//
// The step is written once in the step language (package dyn): the native
// rollout, the gradient with respect to the tyre parameters and the
// initial state, and the graph op all come from that definition, with
// generated kernels (step_gen_*.go). The model is stiff (tyre forces of
// hundreds of newtons per unit slip on a 16.5-kg robot: a 1-ms step) and
// has branch points (max of three speeds, the Dugoff saturation λ = 1);
// every branch is a dyn.Where or Max, so no value or gradient is NaN or
// Inf at rest, at κ = ±1, at s = 0 or at λ = 1 (tests pin each).
//
// Identify fits μ, Kx, Ky (Dugoff) or px, py (Pacejka) to motion-capture
// poses of one or more runs by L-BFGS-B through the generated gradient;
// Online re-estimates μ alone over successive batches (§III-C).
//
// The logged wheel speeds are the model's inputs, and encoder noise on them
// biases a plain fit (Kx and Ky low: a softer tyre passes less of the noise
// on to the poses). IdentifyOptions.ErrorsInVariables removes the bias
// (eiv.go): the noise of the wheel speeds and of the poses is estimated from
// the log (EstimateNoise: second differences, median absolute deviation),
// and μ, Kx, Ky are fitted jointly with the true wheel speeds of every row,
// the logged speeds their prior; σ comes from the joint problem, and
// Result.NoiseSpans tells where the noise still dominates the slip.
//
// Logs are read by ReadLog (LogSpec, RunsFromTable): wheel speeds wl, wr,
// motion-capture poses and body velocities on the same rows or merged by
// time from a file of their own, runs split by traj; ReadParams reads the
// parameter file over the Jackal defaults. Every error names the file, the
// line and the column.
package tire
