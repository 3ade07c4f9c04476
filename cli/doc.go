// Package cli is the wheelgrad command line as a library: Main(args,
// registry) parses a subcommand's flags, asks the registry's robot model
// (package robots) for the work, and prints summaries (text or -json),
// writes output files all or nothing, and returns the exit status. The
// wheelgrad command (cmd/wheelgrad) is Main with robots.Default(); a user's
// own model gets every command with Main(args, robots.Default().With(m)).
//
// The command wheelgrad identifies wheeled robots from their logs and synthesises
// the wheel commands that drive them along a path, by gradients through
// differentiable models (see docs/cli.md for the contract of every subcommand,
// file and exit status).
//
//	wheelgrad demo [-out DIR]
//	wheelgrad simulate -model M -params P.json -controls C.csv [-out T.csv]
//	wheelgrad identify -model M -data LOG.csv [-init P.json] [-method lbfgsb|neldermead|cmaes] [-out P.json] [-plot F.png]
//	wheelgrad follow -model mecanum -params P.json -path figure8|circle|REF.csv [...]
//	wheelgrad import -bag RUN.mcap|RUN.bag -map MAP.json -model M [-out LOG.csv]
//
// Exit status 0 on success, 1 on a runtime failure, 2 on a usage error, 3
// when an optimiser stopped without converging (outputs written, the status
// recorded in the parameter file; -allow-unconverged makes it 0); errors go
// to stderr as one line naming the file, row and column at fault.
//
// The work is the library's: a model's robots adapter reads its logs and
// parameters, simulates, identifies and validates; fit computes the
// validation metrics (fit.Validation) and the report (fit.Report);
// control prepares and follows paths. No command branches on a model's
// name: it asks the model's interfaces (robots.Identifier, Simulator,
// Validator, Driver, Inspector, Planner) and passes on the
// model's robots.UsageError. Here: flags, summaries, and the shared
// mechanisms of every command: outputs.go (outputs declared and checked
// before any work, staged, committed all or nothing), status.go (exit
// statuses, memory estimates, panics as one line), jsonout.go (identify
// -json and simulate -json: one object on stdout, printed after the
// command's checks).
package cli
