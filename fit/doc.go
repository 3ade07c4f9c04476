// Package fit is what every identification shares, whatever the robot: a
// parameter (name, unit, value, bounds, held or free, σ and a verdict on
// how well the data determine it), one Report of a fit (values, σ, the
// optimiser's status, identifiability with named null directions, warnings
// as values), the diagnostics of a log that keep a user's own data in the
// wrong units, with a time gap or without motion from producing confident
// numbers, and the validation metrics of MATLAB's compare.
//
// The pieces:
//
//   - Param and Verdict: σ wider than a quarter of the bound range is never
//     "determined"; CheckDetermined refuses a fit with undetermined
//     parameters unless allowed; OnBound warns about values on a bound;
//     HeldSet turns fix/free lists into the held set.
//   - Gaps: CommandGaps finds the rows after a time gap in a run's command
//     stream, ApplyGaps applies a GapPolicy (error, split, bridge).
//   - TimeUnits, Scale, Chord, PoseNoise and AngleNoise (MAD estimates from
//     second differences, robust to outliers), PoseOutliers (time-aware:
//     a sparse tracker is judged against the motion possible between its
//     samples), SpikeWarnings, ResidualNoise, MaxAbs, NoMotion: units,
//     scale, noise, outliers and motion.
//   - Limits and Implausible: a model's physical limits (its robot's speed,
//     the largest plausible value of each command and measurement column),
//     given by each model, and the one check of a log against them.
//   - CorrelationInflation: Gauss–Newton σ assumes independent residuals; a
//     trajectory's residuals are correlated in time, and σ grows by
//     sqrt((1+ρ)/(1−ρ)) for a lag-1 autocorrelation ρ.
//   - Identifiability: σ per parameter and the null directions of JᵀJ;
//     NewDirection names a direction a model found itself.
//   - Status and Settings: an optimiser's opt.Result as a parameter file
//     records it, and the judgement converged / accepted / unconverged /
//     failed.
//   - Channel: NRMSE and fit % = 100·(1 − ‖y − ŷ‖/‖y − mean(y)‖) as
//     MATLAB's compare reports them, and the RMS error.
//   - EstimateStart: a validation rollout's initial state estimated as
//     compare does by default (least squares over the run with the model's
//     own rollout, opt.LeastSquares with a numerical Jacobian), instead of
//     the first noisy sample.
//   - Track: a run's measured and predicted poses; Endpoint and KStep (the
//     position error a horizon ahead, the model restarted from every
//     measured pose); DeadReckon gives velocity models' outputs poses.
//   - Validation: a validation's channels merged over its runs, per run
//     the endpoint and k-step errors, the horizon clipped to the longest
//     run; its JSON object, per-run CSV table and text report
//     (NewValidation, JSON, WriteRuns, WriteText), the same numbers a
//     notebook and validate print.
//   - Report: all of it for one fit (and what a summary says besides: the
//     data, the method, evaluations, time, the model's own lines), with
//     Report.JSON and Report.WriteSummary (the summary block of identify).
//   - AvailableMemory, NeedMemory, InputMemory: up-front memory estimates
//     that refuse, in one line, work this machine cannot hold.
//
// Nothing here prints on its own: warnings are Warning values that a face
// (the command line, a notebook, a fleet pipeline) presents, and the text
// writers write to the io.Writer they are given. Messages name the command
// line's flags (-gaps, -fix, -init, -allow-undetermined) where a remedy is
// one, because that is where users meet them.
package fit
