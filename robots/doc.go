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
//
// A user's own model written in package dyn joins the registry through
// NewStepModel (step.go): the step plus a StepModel saying what it cannot
// say itself (parameters' units, start values and bounds, which setting is
// the time step, the outputs' units and noise) make a Model with
// ParamReader, Simulator, Identifier (bounded least squares with the
// forward-mode Jacobian) and Validator; cli.Main(args,
// robots.Default().With(m)) then gives it the command line
// (docs/own-model.md, experiments/own-model/cli).
package robots
