// Package pioneer holds the two drive-dynamics models of the Pioneer 3DX of
// Ivanjko, Petrinić and Petrović ("Modelling of mobile robot dynamics"):
// from the translational and rotational velocity references a navigation
// computer sends every 100 ms, they predict the velocities the robot
// measures (encoder averages over each 100-ms sample).
//
//   - The physical form (§2.1, §3.1, Fig. 7): reference saturation and slope
//     limits, kinematics to wheel speed references, the communication delay,
//     a PI wheel-speed controller per wheel, the DC motor (armature and
//     mechanical time constants) and the coupled wheel dynamics of eqs.
//     14–17, on the micro-controller's 5-ms internal step, averaged over the
//     sample as the encoders are. Defaults: Tables 1–2 in SI units.
//   - The experimental form (§2.2, §3.2, Fig. 8): per channel (v, ω), the
//     delay as whole samples plus a first-order ZOH lag for the fraction,
//     saturation and slope limits, and the threshold at zero velocity when the
//     direction changes, a straight line in the ramp slope (Fig. 6).
//
// Each form is defined once in the step language (package dyn,
// PhysicalStep and ExperimentalStep): the native rollout, the generated
// gradient and the gorgonia op come from that definition, with generated
// kernels (*_gen.go).
//
// What is exact and what is smoothed: at temperature T = 0 (the setting
// "T", used by Simulate) every non-smooth piece is exact — Clamp for the
// saturations and slope limits, Where for the sign switches, the release of
// the threshold and the moment the delayed reference arrives (exact to one
// internal step h), |·| for the slope magnitude. Identify minimises over
// smooth surrogates at T > 0 (SoftClamp, logistic steps of width T, SmoothAbs;
// width Tt in seconds for the arrival of the reference) and anneals T
// towards 0; the final loss is evaluated exact. The whole-sample part of a
// delay is not differentiable at all: it shifts the reference sequence, and
// Identify finds it by a small search. The lags, the PI, the motor and the
// wheel dynamics are smooth and never approximated.
//
// The loss is a sum of squares, and Identify minimises it by bounded least
// squares (opt.LeastSquares, the forward-mode Jacobian of the generated
// kernels), ending with a stage on the exact model itself; L-BFGS-B through
// the generated gradient remains (MethodLBFGSB). On the tests' drives and
// the sample log, least squares ends at an exact loss 0.01–6 % lower in
// fewer evaluations (37–96 % of L-BFGS-B's) and less time
// (TestLSQBeatsLBFGSB; the numbers in docs/performance.md): the annealed
// schedule alone leaves the exact loss that much above its optimum.
//
// GaussNewton gives the σ of the identified parameters: the Jacobian of
// Identify's residuals by central differences of the exact model,
// fit.Identifiability of JᵀJ, scaled by the residual variance and by
// fit.CorrelationInflation. A saturation the logs never reach, or a
// threshold (the exact loss is piecewise constant in it), is a null
// direction: σ = +Inf. On the model's own response with white noise the
// estimates' RMS error over 40 noise seeds was 0.87–1.34 σ.
//
// Logs are read by ReadLog (LogSpec, RunsFromTable): one row per sample with
// the references v_ref, w_ref and the measured v, w, runs split by traj;
// ReadParams reads the parameter file of either form. Every error names the
// file, the line and the column.
package pioneer
