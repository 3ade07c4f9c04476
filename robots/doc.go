// Package robots joins the models to the rest of the toolkit: for each
// model of models/*, what a face (the command line, a notebook, the fleet
// pipeline) needs to drive it.
//
// For now it holds the control.Robot constructors of the three models that
// synthesis drives along a path (NewDiffDriveRobot, NewSkidSteerRobot,
// NewMecanumRobot), each over its model package's own step. The registry
// of DESIGN.md (one adapter per model behind one interface: parameters,
// runs, simulate, identify, validation channels, a control.Robot, plans;
// Register for a user's own model) is later work.
package robots
