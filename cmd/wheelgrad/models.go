package main

import (
	"fmt"
	"slices"
	"strings"
)

// Models known to the command line (FORMATS.md: -model).
var modelNames = []string{"mecanum", "diffdrive", "skidsteer"}

// SimulateArgs are the parsed flags of `wheelgrad simulate`.
type SimulateArgs struct {
	Params   string // parameter JSON path
	Controls string // controls CSV path
	Out      string // trajectory CSV path, "-" for stdout
}

// IdentifyArgs are the parsed flags of `wheelgrad identify`.
type IdentifyArgs struct {
	Data    []string // log CSV paths (-data a.csv,b.csv)
	Init    string   // parameter JSON path or ""
	Method  string   // lbfgsb, neldermead, cmaes, or a model-specific method (e.g. batch, ekf)
	Out     string   // parameter JSON path, "-" for stdout
	Plot    string   // PNG path or ""
	Extra   map[string]string
	Fit     fitSettings // -maxiter, -tol, -allow-unconverged (status.go)
	Verbose bool
	Quiet   bool
	Prog    *progress
}

// FollowArgs are the parsed flags of `wheelgrad follow`.
type FollowArgs struct {
	Params   string
	Path     string
	Duration float64
	Rate     float64
	Wmax     float64
	Theta0   float64
	Heading  string
	Dt       float64
	Out      string
	Plot     string
	MPC      string // parameter JSON of the simulated true robot, or ""
	Prog     *progress
	// Model-specific bounds and settings (follow_robot.go), and the flags
	// given on the command line (a model's default applies to the others).
	Umax, Vmax, Band float64
	Set              map[string]bool
}

// Each model registers its handlers from its own file (an init function in
// cmd/wheelgrad/<model>.go), so that models land independently. A model named
// in FORMATS.md whose handler has not landed is a runtime failure (exit 1)
// that says so, not a usage error.
var (
	simulateHandlers = map[string]func(env, SimulateArgs) error{}
	identifyHandlers = map[string]func(env, IdentifyArgs) error{}
	followHandlers   = map[string]func(env, FollowArgs) error{}
	// identifyMethods lists extra -method values a model accepts besides
	// lbfgsb, neldermead and cmaes (e.g. skidsteer: ekf, batch).
	identifyMethods = map[string][]string{}
)

func checkModel(cmd, model string, registered bool) error {
	if model == "" {
		return usagef("-model is required (one of %s)", strings.Join(modelNames, ", "))
	}
	if !slices.Contains(modelNames, model) {
		return usagef("unknown -model %q (one of %s)", model, strings.Join(modelNames, ", "))
	}
	if !registered {
		return fmt.Errorf("model %q is not available in this version of wheelgrad %s yet", model, cmd)
	}
	return nil
}

func required(flag, value string) error {
	if value == "" {
		return usagef("-%s is required", flag)
	}
	return nil
}
