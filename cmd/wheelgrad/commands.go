package main

import (
	"flag"
	"slices"
)

// The subcommands of FORMATS.md. simulate, identify and follow validate
// their flags now; their models land one issue at a time (see models.go).

func init() {
	register(command{
		name:    "simulate",
		usage:   "simulate -model M -params P.json -controls C.csv [-out T.csv]",
		summary: "Forward rollout of the exact (non-smoothed) model; writes the trajectory CSV to stdout or -out.",
		flags: func(fs *flag.FlagSet) func(env) error {
			model := fs.String("model", "", "robot model: mecanum, diffdrive or skidsteer")
			params := fs.String("params", "", "parameter JSON file")
			controls := fs.String("controls", "", "controls CSV file")
			out := fs.String("out", "-", "trajectory CSV file (- for stdout)")
			return func(e env) error {
				for _, r := range [][2]string{{"params", *params}, {"controls", *controls}} {
					if err := required(r[0], r[1]); err != nil {
						return err
					}
				}
				_ = out
				return checkModel("simulate", *model)
			}
		},
	})
	register(command{
		name:    "identify",
		usage:   "identify -model M -data LOG.csv[,LOG2.csv...] [-init P.json] [-method lbfgsb|neldermead|cmaes] [-out P.json] [-plot F.png]",
		summary: "Calibrate the model's unknown parameters from one or more logs; writes parameter JSON.",
		flags: func(fs *flag.FlagSet) func(env) error {
			model := fs.String("model", "", "robot model: mecanum, diffdrive or skidsteer")
			data := fs.String("data", "", "log CSV file(s), comma-separated")
			fs.String("init", "", "parameter JSON: known constants and the optimiser's starting point")
			method := fs.String("method", "lbfgsb", "optimiser: lbfgsb, neldermead or cmaes")
			fs.String("out", "-", "parameter JSON file (- for stdout)")
			fs.String("plot", "", "PNG file: ground truth, identified and friction-free predictions")
			addVerbosity(fs)
			return func(e env) error {
				if err := required("data", *data); err != nil {
					return err
				}
				if !slices.Contains([]string{"lbfgsb", "neldermead", "cmaes"}, *method) {
					return usagef("unknown -method %q (one of lbfgsb, neldermead, cmaes)", *method)
				}
				return checkModel("identify", *model)
			}
		},
	})
	register(command{
		name:    "follow",
		usage:   "follow -model mecanum -params P.json -path figure8|circle|REF.csv [-duration S] [-rate N] [-wmax W] [-theta0 A] [-heading tangent|fixed|figure8-reverse-right] [-out C.csv] [-plot F.png]",
		summary: "Synthesise the wheel commands that drive the model along a path; writes a controls CSV that simulate accepts.",
		flags: func(fs *flag.FlagSet) func(env) error {
			model := fs.String("model", "", "robot model (mecanum)")
			params := fs.String("params", "", "parameter JSON file")
			path := fs.String("path", "", "figure8, circle, or a waypoint CSV t,x,y[,theta]")
			duration := fs.Float64("duration", 40, "seconds to run once around the path")
			rate := fs.Float64("rate", 4, "piecewise-constant control segments per second")
			wmax := fs.Float64("wmax", 30, "bound on every commanded wheel speed (rad/s)")
			fs.Float64("theta0", 0, "initial heading (rad)")
			heading := fs.String("heading", "tangent", "heading mode: tangent, fixed or figure8-reverse-right")
			fs.Float64("dt", 1.0/240, "integration step of the controls CSV (s)")
			fs.String("out", "-", "controls CSV file (- for stdout)")
			fs.String("plot", "", "PNG file: reference and predicted path")
			addVerbosity(fs)
			return func(e env) error {
				for _, r := range [][2]string{{"params", *params}, {"path", *path}} {
					if err := required(r[0], r[1]); err != nil {
						return err
					}
				}
				if !(*duration > 0) || !(*rate > 0) || !(*wmax > 0) {
					return usagef("-duration, -rate and -wmax must be positive")
				}
				if !slices.Contains([]string{"tangent", "fixed", "figure8-reverse-right"}, *heading) {
					return usagef("unknown -heading %q (one of tangent, fixed, figure8-reverse-right)", *heading)
				}
				if *model != "" && *model != "mecanum" {
					return usagef("follow supports -model mecanum only")
				}
				return checkModel("follow", *model)
			}
		},
	})
}

// addVerbosity adds the FORMATS.md progress overrides.
func addVerbosity(fs *flag.FlagSet) (quiet, verbose *bool) {
	return fs.Bool("quiet", false, "no progress output"), fs.Bool("v", false, "progress output even when stderr is not a terminal")
}
