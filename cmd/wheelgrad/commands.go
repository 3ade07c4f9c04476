package main

import (
	"flag"
	"slices"
	"strconv"
	"strings"
)

// The subcommands of FORMATS.md. Flags are parsed and checked here; the work
// is done by the model's handler (see models.go).

func init() {
	register(command{
		name:    "simulate",
		usage:   "simulate -model M -params P.json -controls C.csv [-out T.csv]",
		summary: "Forward rollout of the exact (non-smoothed) model; writes the trajectory CSV to stdout or -out.",
		flags: func(fs *flag.FlagSet) func(env) error {
			model := fs.String("model", "", "robot model: "+strings.Join(modelNames, ", "))
			var a SimulateArgs
			fs.StringVar(&a.Params, "params", "", "parameter JSON file")
			fs.StringVar(&a.Controls, "controls", "", "controls CSV file")
			fs.StringVar(&a.Out, "out", "-", "trajectory CSV file (- for stdout)")
			return func(e env) error {
				for _, r := range [][2]string{{"params", a.Params}, {"controls", a.Controls}} {
					if err := required(r[0], r[1]); err != nil {
						return err
					}
				}
				h, ok := simulateHandlers[*model]
				if err := checkModel("simulate", *model, ok); err != nil {
					return err
				}
				if err := checkInputSize(a.Controls); err != nil {
					return err
				}
				return h(e, a)
			}
		},
	})
	register(command{
		name:    "identify",
		usage:   "identify -model M -data LOG.csv[,LOG2.csv...] [-init P.json] [-method lbfgsb|neldermead|cmaes] [-out P.json] [-plot F.png]",
		summary: "Calibrate the model's unknown parameters from one or more logs; writes parameter JSON.",
		flags: func(fs *flag.FlagSet) func(env) error {
			model := fs.String("model", "", "robot model: "+strings.Join(modelNames, ", "))
			data := fs.String("data", "", "log CSV file(s), comma-separated")
			var a IdentifyArgs
			fs.StringVar(&a.Init, "init", "", "parameter JSON: known constants and the optimiser's starting point")
			fs.StringVar(&a.Method, "method", "", "optimiser: lbfgsb (default), neldermead or cmaes; some models add their own")
			fs.StringVar(&a.Out, "out", "-", "parameter JSON file (- for stdout)")
			fs.StringVar(&a.Plot, "plot", "", "PNG file: measured and predicted trajectories")
			extra := map[string]*string{}
			for _, x := range identifyExtraFlags {
				v := x.def
				extra[x.name] = &v
				if x.def == "false" { // a switch: -online, not -online true
					fs.Var(boolString{&v}, x.name, x.usage)
					continue
				}
				fs.StringVar(&v, x.name, x.def, x.usage)
			}
			quiet, verbose := addVerbosity(fs)
			return func(e env) error {
				if err := required("data", *data); err != nil {
					return err
				}
				for _, p := range strings.Split(*data, ",") {
					if p = strings.TrimSpace(p); p != "" {
						a.Data = append(a.Data, p)
					}
				}
				if len(a.Data) == 0 {
					return usagef("-data names no file")
				}
				known := []string{"lbfgsb", "neldermead", "cmaes"}
				for _, m := range identifyMethods {
					known = append(known, m...)
				}
				if a.Method != "" && !slices.Contains(known, a.Method) {
					return usagef("unknown -method %q (one of %s)", a.Method, strings.Join(known, ", "))
				}
				h, ok := identifyHandlers[*model]
				if err := checkModel("identify", *model, ok); err != nil {
					return err
				}
				methods := append([]string{"lbfgsb", "neldermead", "cmaes"}, identifyMethods[*model]...)
				if a.Method != "" && !slices.Contains(methods, a.Method) {
					return usagef("unknown -method %q for %s (one of %s)", a.Method, *model, strings.Join(methods, ", "))
				}
				// A model's flag given with another model is a mistake, not a no-op.
				var misused error
				fs.Visit(func(f *flag.Flag) {
					for _, x := range identifyExtraFlags {
						if x.name == f.Name && x.model != *model && misused == nil {
							misused = usagef("-%s applies to -model %s only", x.name, x.model)
						}
					}
				})
				if misused != nil {
					return misused
				}
				a.Extra = map[string]string{}
				for k, v := range extra {
					a.Extra[k] = *v
				}
				a.Quiet, a.Verbose = *quiet, *verbose
				if err := checkInputSize(a.Data...); err != nil {
					return err
				}
				a.Prog = progressOn(e, *quiet, *verbose)
				return h(e, a)
			}
		},
	})
	register(command{
		name:    "follow",
		usage:   "follow -model mecanum|diffdrive|skidsteer -params P.json -path figure8|circle|REF.csv [-duration S] [-rate N] [-wmax W] [-umax U] [-vmax V] [-theta0 A] [-heading tangent|fixed|figure8-reverse-right] [-out C.csv] [-plot F.png] [-mpc TRUE.json]",
		summary: "Synthesise the commands that drive the model along a path; writes the model's controls CSV, which simulate accepts.",
		flags: func(fs *flag.FlagSet) func(env) error {
			model := fs.String("model", "mecanum", "robot model: "+strings.Join(modelNames, ", "))
			var a FollowArgs
			fs.StringVar(&a.Params, "params", "", "parameter JSON file")
			fs.StringVar(&a.Path, "path", "", "figure8, circle, or a waypoint CSV t,x,y[,theta]")
			fs.Float64Var(&a.Duration, "duration", 40, "seconds to run once around the path")
			fs.Float64Var(&a.Rate, "rate", 4, "piecewise-constant control segments per second")
			fs.Float64Var(&a.Wmax, "wmax", 30, "mecanum: bound on every commanded wheel speed (rad/s); skidsteer: bound on |wc| (rad/s, default 2)")
			addFollowModelFlags(fs, &a)
			fs.Float64Var(&a.Theta0, "theta0", 0, "initial heading (rad)")
			fs.StringVar(&a.Heading, "heading", "tangent", "heading mode: tangent, fixed or figure8-reverse-right")
			fs.Float64Var(&a.Dt, "dt", 1.0/240, "integration step of the controls CSV (s)")
			fs.StringVar(&a.Out, "out", "-", "controls CSV file (- for stdout)")
			fs.StringVar(&a.Plot, "plot", "", "PNG file: reference and predicted path")
			fs.StringVar(&a.MPC, "mpc", "", "parameter JSON of a simulated true robot: re-plan every second over an 8-s horizon from its pose, and report executed errors (closed loop vs open loop)")
			quiet, verbose := addVerbosity(fs)
			return func(e env) error {
				for _, r := range [][2]string{{"params", a.Params}, {"path", a.Path}} {
					if err := required(r[0], r[1]); err != nil {
						return err
					}
				}
				if !(a.Duration > 0) || !(a.Rate > 0) || !(a.Wmax > 0) || !(a.Dt > 0) || a.Dt > 1/a.Rate {
					return usagef("-duration, -rate, -wmax and -dt must be positive, with -dt at most one control segment (1/rate)")
				}
				if !slices.Contains([]string{"tangent", "fixed", "figure8-reverse-right"}, a.Heading) {
					return usagef("unknown -heading %q (one of tangent, fixed, figure8-reverse-right)", a.Heading)
				}
				a.Set = map[string]bool{}
				fs.Visit(func(f *flag.Flag) { a.Set[f.Name] = true })
				if err := checkFollowModelFlags(*model, a.Set); err != nil {
					return err
				}
				h, ok := followHandlers[*model]
				if err := checkModel("follow", *model, ok); err != nil {
					return err
				}
				if err := checkInputSize(a.Path); err != nil {
					return err
				}
				a.Prog = progressOn(e, *quiet, *verbose)
				return h(e, a)
			}
		},
	})
}

// identifyExtraFlags are model-specific identify flags (e.g. -cw for the
// differential drive's c_ω), declared by the models' files so that every
// model's flags show in `wheelgrad identify -h`. A model reads them from
// IdentifyArgs.Extra.
var identifyExtraFlags []extraFlag

type extraFlag struct{ name, def, usage, model string }

// boolString is an extra flag whose default is "false": a switch given as
// -name (or -name=true), stored as "true"/"false".
type boolString struct{ v *string }

func (b boolString) String() string {
	if b.v == nil {
		return "false"
	}
	return *b.v
}
func (b boolString) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	*b.v = strconv.FormatBool(v)
	return nil
}
func (b boolString) IsBoolFlag() bool { return true }

// addVerbosity adds the FORMATS.md progress overrides.
func addVerbosity(fs *flag.FlagSet) (quiet, verbose *bool) {
	return fs.Bool("quiet", false, "no progress output"), fs.Bool("v", false, "progress output even when stderr is not a terminal")
}
