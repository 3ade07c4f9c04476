// Package control synthesises the commands that drive a robot model along a
// path (Luo et al. §VII-B): reference paths (circle, figure 8, waypoint
// files), heading modes, control synthesis by gradient through the model,
// receding-horizon re-planning, and the tracking metrics. It knows no
// particular robot: a model reaches it through one of two interfaces.
//
// Robot drives any model written in the step language of package dyn
// (RobotPlan, RobotSynthesizer, RunRobotMPC): its loss gradient comes from
// the model's own generated reverse pass in dyn.Sim, with the pose read
// from the step's outputs (after the step, or at its start as the models
// that report a log row's pose do). package robots builds the Robot of each
// model of models/* (robots.NewDiffDriveRobot, NewSkidSteerRobot,
// NewMecanumRobot).
//
// Drive is a robot whose four commands set its body velocity directly,
// planned through a gorgonia graph (Plan, Synthesizer, RunMPC), so that
// the gradient may flow through command-dependent friction networks: the
// Mecanum robot of models/mecanum (mecanum.Drive).
//
// Angles follow FORMATS.md: the Mecanum robot's forward axis is its body y
// axis, which points along the world direction (−sin θ, cos θ); travelling in
// direction φ forwards therefore means θ = φ − π/2. Heading modes and Track
// use that convention; a Robot's ForwardAxis converts its own heading to it.
package control
