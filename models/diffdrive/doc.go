// Package diffdrive is the discrete-time differential-drive model of Park,
// Lee and Kuipers ("Discrete-time dynamic modeling and calibration of
// differential-drive mobile robots with friction"): two load-motor-wheel units
// with the Kikuuwe fixed-step Coulomb friction (eqs. 3–5), the joystick input
// map (eqs. 20–21) and unicycle kinematics (eq. 19).
//
// It holds
//
//   - Params (the six calibrated constants c1, c2, α, β, γ, μ plus the known
//     axle length l and step h, JSON per FORMATS.md) and the steady-state
//     coordinates a = α/β, g = μγ/β of the authors' deployed code;
//   - the native exact model: Step, Simulate; a wheel whose stick
//     acceleration |μ̄| is within μ stops at exactly zero speed;
//   - the steady states and the friction deadband (eqs. 17–18) and the
//     feed-forward inverse of the paper's footnote 1 (desired v, ω → joystick);
//   - the calibration loss of §III-A (eqs. 22–24) on a Batch of M segments of
//     N steps, three ways: a primitive-op gorgonia graph (the reference), a
//     fused custom op (one node per step on [M] vectors, the fast path) and a
//     hand-written native adjoint (the speed limit the graph is measured
//     against);
//   - a synthetic wheelchair log generator shaped like the paper's data.
//
// The calibration driver that couples this model with the velocity loss and
// the optimiser is the subpackage calibrate.
//
// ReadParams reads the parameter file with its warnings; the logs are read
// by calibrate.ReadLog.
package diffdrive
