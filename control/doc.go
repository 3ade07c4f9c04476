// Package control synthesises the commands that drive a robot model along a
// path (Luo et al. §VII-B): reference paths (circle, figure 8, waypoint
// files), heading modes, control synthesis by gradient through the model,
// and receding-horizon re-planning.
//
// Any model written in the step language of package dyn is driven through
// Robot (RobotPlan, RobotSynthesizer, RunRobotMPC): its loss gradient comes
// from the model's generated reverse pass in dyn.Sim. The differential drive
// with a pose, the skid-steer and the Mecanum robot are defined here
// (DiffDrivePose, SkidSteer, MecanumPose). The Mecanum robot also has its
// own gorgonia-graph synthesis (Plan, Synthesizer, RunMPC), which plans
// through command-dependent friction networks.
//
// EnergyPlanner is the energy-efficient planner of Ordonez et al. §4.3
// (SBMPO): an A*-type search over sampled yaw rates on the slip-calibrated
// skid-steer kinematics, costed by the terramechanic power look-up table of
// models/skidsteer/terra; Refine lowers the found plan's energy by gradient.
//
// Angles follow FORMATS.md: the Mecanum robot's forward axis is its body y
// axis, which points along the world direction (−sin θ, cos θ); travelling in
// direction φ forwards therefore means θ = φ − π/2. Heading modes and Track
// use that convention; a Robot's ForwardAxis converts its own heading to it.
package control
