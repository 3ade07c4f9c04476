// Package wheelgrad is the root of a Go toolkit for differentiable physics
// of wheeled mobile robots: robot models written once in the step language
// of package dyn, so that the gradient of a trajectory loss reaches the
// physical parameters (friction, motor constants) or the control signals;
// identification from logs, validation, simulation and control synthesis on
// top of them; and the wheelgrad command line (cmd/wheelgrad).
//
// This package holds no code. Its test, layering_test.go, holds the import
// table of DESIGN.md ("Packages (the rooms)") as data and fails on any
// import of a package of this module against it: see that file for the table,
// how it is read, and the ratchet of known violations that may only shrink.
//
// The reference of the command line, the log and parameter formats and the
// measured results is in docs/ (docs/README.md is its index).
package wheelgrad
