// Package skidsteer is the slip-enhanced kinematic model of a skid-steered
// robot of Ordonez et al. (§2.1–2.2, eqs. 2–3) and its online calibration by
// integrated prediction error minimisation (IPEM, Seegmiller et al.).
//
// The commanded forward speed vc and yaw rate wc map to the actual body
// velocities through nine slip coefficients a (eq. 3, FORMATS.md "skidsteer"):
//
//	forward = vc + a11·vc + a12·wc + a13·vc·wc
//	lateral =      a21·vc + a22·wc + a23·vc·wc
//	yawrate = wc + a31·vc + a32·wc + a33·vc·wc
//
// integrated by explicit Euler with the heading at the start of each step.
// The nominal model (a differential drive that never slips, eq. 1) is a = 0;
// a32 < 0 is the understeer that dominates skid steering.
//
// The package holds
//
//   - Model: eqs. 2–3 and the Euler step written once in the step language
//     of package dyn (step.go, generated kernel step_gen.go), from which
//     come the default IPEM Jacobian (WindowJacobian: one rollout and three
//     generated reverse sweeps per interval) and the batch objective (Batch:
//     a dyn.Rollout node with the loss as a gorgonia graph around it);
//   - Params (the FORMATS.md parameter file), Simulate (native, exact) and
//     Table 2's coefficients for asphalt, concrete and grass;
//   - Windows: many short integration windows (the commands between two pose
//     samples) integrated from the window's own start, natively (Predict, with
//     the hand-written forward-mode Jacobian JacobianNative) and as one
//     gorgonia graph over vectors of windows (BuildWindows), whose lanes may
//     carry their own coefficients so that one backward pass yields a whole
//     Jacobian (GraphJacobian): the references the dyn forms are tested
//     against;
//   - IPEM: an extended Kalman filter over the nine coefficients whose
//     measurement is the pose change between two pose samples expressed in the
//     frame of the first; and Batch, the same residuals summed over all
//     intervals as one objective for L-BFGS, with its Gauss–Newton covariance;
//   - a generator of the paper's diagnostic trajectory (§4) with
//     visual-odometry noise, and the 2-s along-track / cross-track prediction
//     errors of Figs. 12–14.
//
// Input dynamics (issue 25): LagModel drives the same slip model from
// commanded wheel speeds wl_cmd, wr_cmd through a first-order lag τ and a
// dead time (dyn.Lag, dyn.DeadTime; generated kernel lag_gen.go), starting
// from the first measured wheel speeds; SimulateCommanded is its exact
// native reference. FitWindows identifies the slip coefficients (and τ, the
// dead time) from the end poses of windows predicted open loop from their
// first pose — from the measured speeds (Model) or from the commands
// (LagModel) — by L-BFGS-B over the generated reverse pass, with
// Gauss–Newton σ; PredictWindows and EndpointRMS/EndpointMean score held-out
// windows (experiments/real-warthog). Parameters identified from the
// commands say so (Params.Inputs "commanded", FromCommands), and
// CommandedFrom predicts a whole log from its commands anchored at a pose
// row: what `identify -inputs commanded`, `simulate` and `validate` use.
//
// Logs are read by ReadLog (LogSpec, RunsFromTable): the commands vc, wc or
// the wheel speeds wl, wr (with the optional commanded wl_cmd, wr_cmd), poses on the same rows or merged by time from a
// file of their own, the parameter file's command map, runs split by traj;
// ReadParams reads the parameter file with its warnings. Every error names
// the file, the line and the column.
package skidsteer
