// Package mecanum is the four-Mecanum-wheel robot of Luo, Boularias and
// Aanjaneya, "Model Identification and Control of a Low-Cost Wheeled Mobile
// Robot Using Differentiable Physics" (§IV–VII): steady-state wheel speeds
// under friction (eq. 3), the Uranus body-velocity matrix B (eq. 4), explicit
// Euler pose integration (eq. 5), and the identification of the four wheel
// friction coefficients μ from camera poses.
//
// The model's velocities do not depend on its state, so a whole horizon is
// integrated at once: heading and positions are cumulative sums over time
// (graph.PlanarPath in Fit.compile, graph.CumSum in the primitive reference
// Fit.compilePrimitive), a batch of trajectories is one [B, T] graph, and the
// native Simulate computes the same sums.
//
// What is here:
//
//   - Model: the step of eqs. 3–5 written once in the step language of
//     package dyn (step.go, generated kernel step_gen.go), from which come
//     the batched native rollout, its generated reverse pass and Jacobians,
//     and a gorgonia op; the identification loss built from it (with the
//     camera-sample terms of eqs. 6–8 as a second step definition) gives
//     Fit's default gradient engine.
//   - Params (the FORMATS.md parameter file), Simulate (the exact native
//     rollout, multi-rate: control rows with sparse camera poses) and Runs
//     read from a log table (a traj column or several files split runs).
//   - Fit: the identification problem of §VI over a batch of runs, with the
//     loss of eq. 8 (spline and ground-truth terms from package losses), one
//     Eval for the optimisers and a gradient engine as an option
//     (Config.Engine, Fit.WithEngine), all four tested to agree with each
//     other and with central differences of the native loss: the reverse
//     pass generated from the step definitions (EngineGenerated, the
//     default), the paper's forward-sensitivity recursion of eqs. 11–13
//     (EngineAnalytic, Fit.AnalyticGrad: Algorithm 2 with its two misprints
//     corrected, see there), and gorgonia's autodiff over the fused graph of
//     the batch (EngineGraph) or its primitive reference (EnginePrimitive).
//   - Identify: L-BFGS-B with μ ∈ [0, 2] (with free start poses, after a
//     first stage that solves the squared position and marker terms by
//     least squares and preconditions eq. 8 with its Gauss–Newton matrix,
//     Fit.staged; the second stage minimises eq. 8 by Gauss–Newton steps
//     on the rollout linearised at each trial point with the spline
//     distances exact, Fit.linearStage, keeping the kinks where points
//     cross the spline and the spline's other branches where a run passes
//     its own path again (linEq8.sqp: an exact convex subproblem per step,
//     l1QP.solve, followed over the branches): 4–6 rollouts where one
//     stage takes 152–348 evaluations, to losses 7e-7–1.9e-6 lower),
//     Nelder–Mead on the sigmoid form of eq. 14, or CMA-ES, followed by an
//     identifiability analysis (singular values of the Jacobian of the
//     predicted camera poses): B has the null vector n = (1, 1, −1, −1), so
//     for one constant command the change δμ_j ∝ n_j/ω_s,j leaves the
//     trajectory unchanged and only several different commands together
//     determine μ.
//   - The start pose of each run is a nuisance estimated with μ (see
//     PoseFree); a camera pose is noisy, and a 0.01 rad heading error in the
//     first one bends a 2 m trajectory by 2 cm.
//   - FrictionNet: the 4-16-4 network of §VI (end) mapping the commanded wheel
//     speeds to μ, trained on per-trajectory estimates; a parameter file may
//     carry it instead of a constant μ.
//   - NetModel and MuModel: the network and eqs. 3–5 with μ an input of
//     each row, written in dyn (the 148 weights a vector parameter), with
//     generated kernels (netstep_gen.go, mustep_gen.go).
//   - NetFit and TrainNet: the network trained jointly over all runs through
//     the gradient of a squared trajectory loss (NetModel's and MuModel's
//     generated reverse passes, chained per distinct command; the
//     hand-written adjoint it replaced is the tests' reference), started
//     from one constant μ per command (issue 25.5), with the weight decay
//     chosen on held-out commands and a leave-one-command-out report
//     against one constant μ; IdentifySquared: one constant μ with that loss,
//     solved as bounded least squares (opt.LeastSquares) over μ and the
//     start poses with Model's forward-mode Jacobian (SquaredLS: stored at
//     the camera rows only, JᵀJ and Jᵀr formed from it for opt, skipping
//     the start-pose columns' exact 0s and 1s; the last step evaluated
//     value-only): 6 iterations, 7 evaluations (6 with the Jacobian) on
//     three 7-s demo-like logs where L-BFGS-B on NetFit's gradient took
//     101, to the same loss.
//   - EstimateOnset: the offset between a command stream and a camera
//     stream from the motion onset of a run that starts at rest.
//   - SynthesizeRealLike: recordings like a real low-cost robot's (raw PWM
//     channels in another order and sign, a camera with its own clock and
//     jitter, dead time, spin-up of eq. 2, command-dependent friction).
//   - Synthesize: synthetic logs like the paper's (240 Hz controls, 60 Hz
//     camera with Gaussian noise), for tests and experiments.
//
// Logs are read by ReadLog (LogSpec, RunsFromTable): commands w1..w4 or the
// logged channels of the parameter file's command map, camera poses on the
// same rows or merged by time from a file of their own (theta or
// theta_deg), runs split by traj; ReadStreams returns the two streams
// unmerged for EstimateOnset; ReadParams reads the parameter file with its
// warnings. Every error names the file, the line and the column.
//
// Input dynamics (issue 25, not the default): Params.Tau is a first-order
// lag of each wheel's speed behind its command (Run.Lagged), applied by
// Simulate; identification fits μ on the lagged commands.
package mecanum
