package cli

import (
	"flag"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/wheelgrad/wheelgrad/control"
	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/fit"
	"github.com/wheelgrad/wheelgrad/robots"
)

// The subcommands of FORMATS.md. Flags are parsed and checked here; the work
// is done by the model's handler (see models.go).

func init() {
	register(command{
		name:    "simulate",
		usage:   "simulate -model M -params P.json -controls C.csv [-poses CAM.csv] [-offset S|auto] [-columns MAP] [-where C=V] [-from S] [-to S] [-out T.csv] [-plot F.png] [-json]",
		summary: "Forward rollout of the exact (non-smoothed) model; writes the trajectory CSV to stdout or -out.",
		flags: func(fs *flag.FlagSet, reg *robots.Registry) func(env) error {
			model := fs.String("model", "", "robot model: "+strings.Join(reg.Names(), ", "))
			var a SimulateArgs
			fs.StringVar(&a.Params, "params", "", "parameter JSON file")
			fs.StringVar(&a.Controls, "controls", "", "controls CSV file")
			fs.StringVar(&a.Out, "out", "-", "trajectory CSV file (- for stdout; with -json, - writes none)")
			fs.BoolVar(&a.JSON, "json", false, "print one JSON summary object on stdout (model, rows, runs, columns, final row, warnings) instead of the CSV, which goes only to a named -out")
			addPosesFlag(fs, &a.Poses)
			addHoldLastFlag(fs, &a.HoldLast)
			offset := fs.String("offset", "", "seconds added to the times of the sensor samples (-poses or the log's own) before merging them with the commands, or auto (mecanum: from the motion onset)")
			fs.StringVar(&a.Plot, "plot", "", "PNG, SVG or PDF file: the predicted path against the log's measured poses (mecanum, skidsteer, tire), or the simulated v, ω against time over the measured ones (diffdrive, pioneer)")
			columns := addColumnsFlags(fs)
			return func(e env) error {
				var err error
				if a.Columns, err = columns(); err != nil {
					return err
				}
				// -offset auto and -plot: the model says whether it can
				// (a robots.UsageError, a simulation without a figure).
				if a.Auto = *offset == "auto"; !a.Auto {
					if a.Offset, err = parseOffset(*offset); err != nil {
						return err
					}
				}
				for _, r := range [][2]string{{"params", a.Params}, {"controls", a.Controls}} {
					if err := required(r[0], r[1]); err != nil {
						return err
					}
				}
				*model = strings.ToLower(strings.TrimSpace(*model))
				h, ok := simulateHandler(reg, *model)
				if err := checkModel(reg, "simulate", *model, ok); err != nil {
					return err
				}
				if err := e.declareFiles([]flagPath{{"params", a.Params}, {"controls", a.Controls}, {"poses", a.Poses}}, []flagPath{{"out", a.Out}, {"plot", a.Plot}}); err != nil {
					return err
				}
				if err := dataset.CheckInputSize(a.Controls); err != nil {
					return err
				}
				if err := fit.InputMemory("simulating "+a.Controls, a.Controls); err != nil {
					return err
				}
				if a.JSON {
					return simulateJSON(e, *model, a, h)
				}
				return h(e, a)
			}
		},
	})
	register(command{
		name:    "identify",
		usage:   "identify -model M -data LOG.csv[,LOG2.csv...] [-poses CAM.csv,...] [-init P.json] [-method lbfgsb|neldermead|cmaes|ipem|batch] [-fix a,b | -free a,b] [-gaps error|split|bridge] [-columns MAP] [-where C=V] [-from S] [-to S] [-maxiter N] [-tol T] [-allow-unconverged] [-allow-undetermined] [-out P.json] [-plot F.png|F.svg|F.pdf] [-json]",
		summary: "Calibrate the model's unknown parameters from one or more logs; writes parameter JSON.",
		flags: func(fs *flag.FlagSet, reg *robots.Registry) func(env) error {
			model := fs.String("model", "", "robot model: "+strings.Join(reg.Names(), ", "))
			data := fs.String("data", "", "log CSV file(s), comma-separated")
			var a IdentifyArgs
			fs.StringVar(&a.Init, "init", "", "parameter JSON: known constants and the optimiser's starting point")
			fs.StringVar(&a.Method, "method", "", "optimiser: lbfgsb, neldermead or cmaes (default lbfgsb; skidsteer: ipem, alias ekf, the default, and batch, least squares on lbfgsb's objective; tire: lbfgsb only; pioneer: lsq, least squares, the default, or lbfgsb)")
			fs.StringVar(&a.Gaps, "gaps", gapsError, "time gaps in a log (a step over 5× the median): error (name the row), split (start a new run after it) or bridge (hold the last command across it)")
			fs.StringVar(&a.Fix, "fix", "", "comma-separated parameters held at their -init (or default) values, e.g. mu1,mu3")
			fs.StringVar(&a.Free, "free", "", "comma-separated parameters to identify; the others are held (excludes -fix)")
			fs.BoolVar(&a.AllowUndetermined, "allow-undetermined", false, "write the parameters even when the logs do not determine some of them (a warning instead of exit status 1)")
			fs.StringVar(&a.Out, "out", "-", "parameter JSON file (- for stdout; with -json, - writes none)")
			fs.BoolVar(&a.JSON, "json", false, "print the fit's report as one JSON object on stdout (model, status, converged, params with σ, residual_rms, warnings); the summary goes to stderr and the parameters only to a named -out")
			fs.StringVar(&a.Plot, "plot", "", "PNG, SVG or PDF file (by extension): measured and predicted trajectories")
			var poses string
			addPosesFlag(fs, &poses)
			addHoldLastFlag(fs, &a.HoldLast)
			fs.StringVar(&a.Offset, "offset", "", "seconds added to the sensor streams' times before merging, or auto (mecanum: estimated from the motion onset and refined by the fit)")
			extra := map[string]*string{}
			extras := extraFlags(reg)
			for _, x := range extras {
				v := x.def
				extra[x.name] = &v
				if x.def == "false" { // a switch: -online, not -online true
					fs.Var(boolString{&v}, x.name, x.usage)
					continue
				}
				fs.StringVar(&v, x.name, x.def, x.usage)
			}
			fs.IntVar(&a.Fit.MaxIter, "maxiter", 0, "most optimiser iterations (0: the method's default, 1000 for the general methods)")
			fs.Float64Var(&a.Fit.Tol, "tol", 0, "convergence tolerance: relative reduction of the loss per iteration (0: the model's default)")
			fs.BoolVar(&a.Fit.AllowUnconverged, "allow-unconverged", false, "accept an optimiser that stopped at -maxiter or stalled (a warning, exit status 0) instead of exit status 3")
			quiet, verbose := addVerbosity(fs)
			columns := addColumnsFlags(fs)
			return func(e env) error {
				var err error
				if a.Columns, err = columns(); err != nil {
					return err
				}
				if a.Fit.MaxIter < 0 {
					return usagef("-maxiter %d: want a number of iterations ≥ 1 (0: the default)", a.Fit.MaxIter)
				}
				if !(a.Fit.Tol >= 0) || math.IsInf(a.Fit.Tol, 0) || a.Fit.Tol >= 1 {
					return usagef("-tol %g: want a relative tolerance in [0, 1) (0: the default)", a.Fit.Tol)
				}
				if err := required("data", *data); err != nil {
					return err
				}
				if a.Data, err = dataFiles(*data); err != nil {
					return err
				}
				*model = strings.ToLower(strings.TrimSpace(*model))
				if a.Poses, err = splitPoses(poses, len(a.Data)); err != nil {
					return err
				}
				if a.Offset != "auto" {
					if _, err := parseOffset(a.Offset); err != nil {
						return err
					}
				}
				h, ok := identifyHandler(reg, *model)
				if err := checkModel(reg, "identify", *model, ok); err != nil {
					return err
				}
				a.Method = strings.ToLower(a.Method)
				methods := methodsFor(reg, *model)
				if a.Method != "" && !slices.Contains(methods, a.Method) {
					return usagef("unknown -method %q for %s (one of %s)", a.Method, *model, strings.Join(methods, ", "))
				}
				if !slices.Contains([]string{gapsError, gapsSplit, gapsBridge}, a.Gaps) {
					return usagef("-gaps must be error, split or bridge, not %q", a.Gaps)
				}
				// A model's flag given with another model is a mistake, not a no-op.
				var misused error
				fs.Visit(func(f *flag.Flag) {
					for _, x := range extras {
						if x.name == f.Name && !slices.Contains(x.models, *model) && misused == nil {
							misused = usagef("-%s applies to -model %s only", x.name, strings.Join(x.models, " and "))
						}
					}
				})
				if misused != nil {
					return misused
				}
				a.Extra = map[string]string{}
				for _, x := range extras {
					if slices.Contains(x.models, *model) {
						a.Extra[x.name] = *extra[x.name]
					}
				}
				a.Quiet, a.Verbose = *quiet, *verbose
				if err := dataset.CheckInputSize(a.Data...); err != nil {
					return err
				}
				a.Prog = progressOn(e, *quiet, *verbose)
				a.Diag = newDiag(e.stderr)
				ins := []flagPath{{"init", a.Init}}
				for _, d := range a.Data {
					ins = append(ins, flagPath{"data", d})
				}
				for _, p := range a.Poses {
					ins = append(ins, flagPath{"poses", p})
				}
				outPath := a.Out
				if a.JSON && a.Out == "-" {
					// stdout holds the report: the parameters are checked, written nowhere
					a.Out, outPath = discardParams, ""
				}
				if err := e.declareFiles(ins, []flagPath{{"out", outPath}, {"plot", a.Plot}}); err != nil {
					return err
				}
				if err := fit.InputMemory("identifying from "+strings.Join(a.Data, ","), a.Data...); err != nil {
					return err
				}
				if a.JSON {
					return identifyJSON(e, *model, a, h)
				}
				return h(e, a)
			}
		},
	})
	register(command{
		name:    "follow",
		usage:   "follow -model mecanum|diffdrive|skidsteer -params P.json -path figure8|circle|REF.csv [-duration S] [-rate N] [-wmax W] [-umax U] [-vmax V] [-theta0 A] [-band T] [-heading tangent|fixed|figure8-reverse-right] [-dt S] [-out C.csv] [-plot F.png] [-mpc TRUE.json] [-quiet] [-v]",
		summary: "Synthesise the commands that drive the model along a path; writes the model's controls CSV, which simulate accepts.",
		flags: func(fs *flag.FlagSet, reg *robots.Registry) func(env) error {
			model := fs.String("model", "mecanum", "robot model: "+strings.Join(reg.Names(), ", "))
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
				for _, f := range []struct {
					name string
					v    float64
				}{{"duration", a.Duration}, {"rate", a.Rate}, {"wmax", a.Wmax}, {"dt", a.Dt}, {"theta0", a.Theta0}, {"umax", a.Umax}, {"vmax", a.Vmax}, {"band", a.Band}} {
					if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
						return usagef("-%s %g: want a finite number", f.name, f.v)
					}
				}
				if !(a.Duration > 0) || !(a.Rate > 0) || !(a.Wmax > 0) || !(a.Dt > 0) || a.Dt > 1/a.Rate {
					return usagef("-duration, -rate, -wmax and -dt must be positive, with -dt at most one control segment (1/rate)")
				}
				if !slices.Contains([]string{"tangent", "fixed", "figure8-reverse-right"}, a.Heading) {
					return usagef("unknown -heading %q (one of tangent, fixed, figure8-reverse-right)", a.Heading)
				}
				*model = strings.ToLower(strings.TrimSpace(*model))
				a.Set = map[string]bool{}
				fs.Visit(func(f *flag.Flag) { a.Set[f.Name] = true })
				if err := reg.CheckDriveFlags(*model, a.Set); err != nil {
					return modelErr(err)
				}
				h, ok := followHandler(reg, *model)
				if err := checkModel(reg, "follow", *model, ok); err != nil {
					return err
				}
				ins := []flagPath{{"params", a.Params}, {"mpc", a.MPC}}
				if a.Path != "figure8" && a.Path != "circle" {
					ins = append(ins, flagPath{"path", a.Path})
					if err := dataset.CheckInputSize(a.Path); err != nil {
						return err
					}
					if err := control.CheckWaypointScale(a.Path); err != nil {
						return err
					}
				}
				if err := e.declareFiles(ins, []flagPath{{"out", a.Out}, {"plot", a.Plot}}); err != nil {
					return err
				}
				// Memory: long paths are planned in receding-horizon chunks
				// (follow.go); the step limit there refuses the rest.
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

type extraFlag struct {
	name, def, usage, model string
	// models are the models that take the flag (extraFlags fills it)
	models []string
}

// extraFlags lists the model-specific identify flags: the options of the
// registry's Identifier models and the flags of the handler maps' models,
// each name once with every model that takes it.
func extraFlags(reg *robots.Registry) []extraFlag {
	var out []extraFlag
	at := map[string]int{}
	add := func(x extraFlag, model string) {
		if i, ok := at[x.name]; ok {
			out[i].models = append(out[i].models, model)
			return
		}
		x.models = []string{model}
		at[x.name] = len(out)
		out = append(out, x)
	}
	adapted := map[string]bool{}
	for _, n := range reg.Names() {
		m, _ := reg.Get(n)
		if id, ok := m.(robots.Identifier); ok {
			adapted[n] = true
			for _, o := range id.Options() {
				def := o.Default
				if o.Bool {
					def = "false"
				}
				add(extraFlag{name: o.Name, def: def, usage: o.Usage}, n)
			}
		}
	}
	for _, x := range identifyExtraFlags {
		if !adapted[x.model] {
			add(x, x.model)
		}
	}
	return out
}

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

// uniqueFiles refuses the same -data file named twice: it would count as
// two independent runs and halve the reported σ.
func uniqueFiles(files []string) error {
	var seen []string
	for _, f := range files {
		for _, g := range seen {
			same := filepath.Clean(f) == filepath.Clean(g)
			if st, err := os.Stat(f); err == nil {
				if st2, err := os.Stat(g); err == nil && os.SameFile(st, st2) {
					same = true
				}
			}
			if same {
				return usagef("-data names one file twice (%s and %s): each log counts once", g, f)
			}
		}
		seen = append(seen, f)
	}
	return nil
}
