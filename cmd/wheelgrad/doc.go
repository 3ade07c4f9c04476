// Command wheelgrad identifies wheeled robots from their logs and synthesises
// the wheel commands that drive them along a path, by gradients through
// differentiable models (see FORMATS.md for the contract of every subcommand,
// file and exit status).
//
//	wheelgrad demo [-out DIR]
//	wheelgrad simulate -model M -params P.json -controls C.csv [-out T.csv]
//	wheelgrad identify -model M -data LOG.csv [-init P.json] [-method lbfgsb|neldermead|cmaes] [-out P.json] [-plot F.png]
//	wheelgrad follow -model mecanum -params P.json -path figure8|circle|REF.csv [...]
//	wheelgrad import -bag RUN.mcap|RUN.bag -map MAP.json -model M [-out LOG.csv]
//
// Exit status 0 on success, 1 on a runtime failure, 2 on a usage error;
// errors go to stderr as one line naming the file, row and column at fault.
// The command is thin: it parses flags and calls the library.
package main
