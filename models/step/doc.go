// Package step is a generic model over a step written in package dyn: a
// user's own robot. From the step and the few facts it does not say itself
// (Config: the parameters' units, start values and bounds, which setting or
// input is the time step, the values of the other settings, the outputs'
// units and noise, whether outputs are the state after the step, which
// state lanes are a planar pose) it reads logs, identifies, simulates and
// validates, as the built-in models do:
//
//   - Logs (ReadRuns): a CSV with a time column t, an optional run column
//     traj, one column per input of the step (commands, held over
//     sensor-only rows) and one per output (measurements, empty where none
//     was taken), read by dataset.ReadLog (sensor files, offsets, column
//     maps, the gap policy). The step length is the median step of the
//     command rows, refined as the slope of their times against their step
//     numbers; commands are sampled onto that grid (zero-order hold) and
//     measurements compared at their own times (linear interpolation
//     between the grid's outputs).
//   - Identify: bounded least squares (opt.LeastSquares) over the measured
//     outputs' residuals, each divided by its noise σ (given, or
//     fit.NoiseStd of the log), with the Jacobian of the whole rollout from
//     one forward-mode pass (dyn's Sim.Jacobian), the parameters and every
//     run's start state fitted together; or L-BFGS-B on the same loss with
//     its gradient from the generated reverse pass (Sim.Backward). σ of a
//     parameter is Gauss–Newton's over the parameters and the start states
//     (fit.Identifiability), scaled by the residuals' standard deviation and
//     by fit.CorrelationInflation for residuals correlated in time.
//   - Simulate rolls the step under a log's commands from each run's start
//     (first measured output or logged state of each lane, an unmeasured
//     heading fitted to the first motion); Validate compares each measured
//     output (fit.Channel) from the start state MATLAB's compare would
//     estimate (fit.EstimateStart).
//
// Package robots wraps a Model as a robots.Model (robots.NewStepModel),
// adding the command line's usage errors and, with controls, follow.
package step
