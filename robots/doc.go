// Package robots is the registry of robot models (Brax's envs): one
// adapter per model behind one interface, through which every face — the
// command line (package cli), a notebook, the fleet pipeline — reaches a
// model. robots computes nothing of its own and draws and prints nothing:
// an adapter turns a face's request (files, flags as typed values) into
// its model package's calls (models/*) and returns fit.Report values,
// parameters, channels and figures as data (Figure).
//
// # The registry
//
// Default returns the built-in models, in this order: Mecanum
// (models/mecanum), DiffDrive (models/diffdrive), SkidSteer
// (models/skidsteer), Pioneer (models/pioneer), Tire (models/tire).
// Registry.Get finds a model by its -model name, Names lists them;
// Register and With add a user's own.
//
// # The Model interface and its capabilities
//
// A Model is a name and a one-line Summary. What it can do is said by the
// interfaces it also implements, one command's work each; a face asks by
// type assertion and says in one line what a model cannot do:
//
//   - ParamReader: a parameter file read strictly (ForStart or
//     ForPrediction), doubtful values as warnings;
//   - Identifier: Methods, Options and Identify (IdentifyRequest: sources,
//     start, held and free parameters, gap policy, fit settings) returning
//     Identified: one fit.Report, the parameters, the outcome, a Figure;
//   - Simulator: Simulate one log's commands (SimulateRequest), a CSV
//     writer and, when asked, a Figure;
//   - Validator: Validate logs (ValidateRequest) into ValidationRun
//     values: fit.Channel per output, the track, the start state
//     (estimated as MATLAB's compare, or the first measured one);
//   - Driver: Drive, which Follow drives along a path (follow: prepare
//     the path, synthesise in segments or receding-horizon chunks, track,
//     MPC on a true robot, the controls CSV and the figure as data): a
//     control.Robot over the model's own dyn step, or, for the Mecanum
//     robot, a graph of the model (WheelDrive, PlanWheelFollow) so that
//     the gradient flows through friction networks;
//   - Planner: Plan a path to a goal around obstacles (the skid-steer's
//     SBMPO energy planner);
//   - Inspector: Inspect a log (a search over signed channel maps: the
//     Mecanum robot's four wheel channels, the skid-steer's vc, wc; the
//     two command columns of the tyre model, diffdrive and the Pioneer,
//     ranked by the start model's 2-s predictions).
//
// Of the built-in models every one is a ParamReader, Identifier,
// Simulator and Validator; Mecanum, DiffDrive and SkidSteer are Drivers,
// every one an Inspector, SkidSteer a Planner.
//
// A request's Sink receives warnings as they are found (they also come
// back as values) and progress lines; a Sink that is also a Noter shows
// the log readers' one-line notes (Diag.NoteWriter turns a model
// package's Note lines into warnings and notes). A model's mistake in the
// request (an unknown method, a flag that does not apply) is a UsageError.
//
// # A user's own model
//
// NewStepModel makes a Model (ParamReader, Identifier, Simulator,
// Validator and, with Controls and a Pose, Driver) from a step written in
// package dyn and a StepModel saying what the step cannot say itself: the
// parameters' units, start values and bounds, which setting or input is
// the time step, the outputs' units and noise. The computation is package
// models/step; this adapter adds the usage errors and follow. With
// cli.Main it gets the whole command line (docs/own-model.md,
// experiments/own-model/cli):
//
//	m, err := robots.NewStepModel(robots.StepModel{
//		Name: "unicycle", Model: unicycle.Robot, Dt: "dt", AfterStep: true,
//		Pose:    [3]string{"x", "y", "th"},
//		Params:  []fit.Param{{Name: "tau", Unit: "s", Value: 0.5, Lower: 0.02, Upper: 5}, ...},
//		Outputs: []robots.Output{{Name: "x", Unit: "m"}, {Name: "y", Unit: "m"}},
//	})
//	if err != nil { ... }
//	os.Exit(cli.Main(os.Args[1:], robots.Default().With(m)))
//
// # From Go
//
// The same adapters are a library:
//
//	m, _ := robots.Default().Get("diffdrive")
//	out, err := m.(robots.Identifier).Identify(robots.IdentifyRequest{
//		Sources: []robots.Source{{Path: "wheelchair.csv"}},
//	})
//	fmt.Println(out.Report.Params[0].Name, out.Report.Params[0].Value, out.Report.Params[0].Std)
//
// (ExampleDiffDrive, ExampleSkidSteer, ExampleTire and
// ExampleMecanum_IdentifyWith run it on sample logs.)
package robots
