package fleet

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/fit"
	"github.com/wheelgrad/wheelgrad/robots"
)

// Config is what a fleet run is asked for; the zero value of a field is
// its default.
type Config struct {
	// Out is the output folder (params/, history/, report.jsonl, ...).
	Out string
	// K: a parameter drifts when it moves by more than K·σ between two
	// calibrations of a robot, σ = √(σ_prev² + σ_today²) from the two fits'
	// reports, scaled as Sigma says (default 3; KAuto chooses it).
	K float64
	// KAuto sets K for the fleet (BonferroniK): the two-sided normal
	// quantile at which the fleet's comparisons together flag a steady
	// fleet with probability 5 %.
	KAuto bool
	// Sigma is how σ is taken: SigmaFleet (the default) scales the
	// reports' σ of each model's parameter by the fleet's own spread of
	// day-to-day changes, when that is wider (FlagDrift); SigmaReport takes
	// them as reported.
	Sigma string
	// FitDrop: a robot drifts when the previous calibration's fit % on a
	// day's logs is more than FitDrop points below the fit % of the day's
	// own calibration on them (default 10).
	FitDrop float64
	// Parallelism is how many robots a worker calibrates at once within a
	// bundle (default 1; each robot's days stay in order).
	Parallelism int
	// Registry names the registry of models (RegisterRegistry); "" is
	// robots.Default().
	Registry string
	// X0 is the start state of each validated run: robots.X0Estimate (the
	// default, as validate's -x0: MATLAB compare's least-squares start) or
	// robots.X0First (the run's first measured state: cheaper, about half
	// of the validations' CPU on the synthetic fleet).
	X0 string
	// Horizon (s) of the validation's k-step errors (default 2, as
	// validate's -horizon); it does not enter fit %.
	Horizon float64
}

func (c Config) withDefaults() Config {
	if c.K == 0 {
		c.K = 3
	}
	if c.Sigma == "" {
		c.Sigma = SigmaFleet
	}
	if c.FitDrop == 0 {
		c.FitDrop = 10
	}
	if c.Parallelism < 1 {
		c.Parallelism = 1
	}
	if c.X0 == "" {
		c.X0 = robots.X0Estimate
	}
	if c.Horizon == 0 {
		c.Horizon = 2
	}
	return c
}

var (
	regMu      sync.Mutex
	registries = map[string]func() *robots.Registry{"": robots.Default, "default": robots.Default}
)

// RegisterRegistry names a registry of models for Config.Registry, so that
// a pipeline's workers (which build their own, from the same binary) find
// a user's own models: call it from an init function of the program that
// runs the pipeline, as Beam's own registrations.
func RegisterRegistry(name string, f func() *robots.Registry) {
	regMu.Lock()
	defer regMu.Unlock()
	registries[name] = f
}

func registry(name string) (*robots.Registry, error) {
	regMu.Lock()
	f, ok := registries[name]
	regMu.Unlock()
	if !ok {
		return nil, fmt.Errorf("fleet: no registry %q (RegisterRegistry)", name)
	}
	return f(), nil
}

// DayReport is one robot-day of the fleet report (report.jsonl, one JSON
// object per line, keys in this order).
type DayReport struct {
	Robot string `json:"robot"`
	Day   string `json:"day"`
	Model string `json:"model"`
	// Status is the fit's (its optimiser's status: converged, stalled,
	// iteration limit, ...; "identified" for a fit without an optimiser,
	// such as an EKF), or "failed" for a dead letter.
	Status string `json:"status"`
	// Params are the entries of `identify -json`'s "params" ([] when
	// failed).
	Params json.RawMessage `json:"params"`
	// FitPercent is the previous calibration's fit % (MATLAB compare,
	// mean over the output channels) on this day's logs; null on a robot's
	// first day (or when there is no previous calibration).
	FitPercent *float64 `json:"fit_percent"`
	Drift      bool     `json:"drift"`
	// DriftParams name the parameters that moved by more than k σ.
	DriftParams []string `json:"drift_params"`
	// NRMSE is the previous calibration's NRMSE (mean over the channels),
	// FitDrop how many points its fit % is below that of the day's own
	// calibration on the same logs; both null where FitPercent is.
	NRMSE   *float64 `json:"nrmse"`
	FitDrop *float64 `json:"fit_drop"`
}

// DeadLetter is a robot-day that failed: the stage (read, init, identify,
// params, validate, write or panic) and its error, positioned (file, line,
// column) where the toolkit's readers say.
type DeadLetter struct {
	Robot string `json:"robot"`
	Day   string `json:"day"`
	Stage string `json:"stage"`
	Error string `json:"error"`
}

// Outcome is one robot-day's result: its report line, when it failed its
// dead letter, and its parameters' changes since the previous calibration
// (which FlagDrift judges with the whole fleet's).
type Outcome struct {
	Report  DayReport
	Dead    *DeadLetter
	Changes []Change
}

// Change is a parameter's move between a robot's two calibrations: Delta
// (today − previous) and Sigma = √(σ_prev² + σ_today²) from the reports.
type Change struct {
	Name         string
	Delta, Sigma float64
}

// done counts the robot-days calibrated in this process (Progress).
var done atomic.Int64

// Done is the number of robot-days this process has calibrated so far: the
// progress of a pipeline run in process (Prism's loopback workers).
func Done() int64 { return done.Load() }

// calibration is a robot's last good one.
type calibration struct {
	path   string // its parameter file
	params []fit.Param
}

// CalibrateRobot calibrates one robot's days in order (es: its entries,
// any order): per day, identify from the day's logs, validate the previous
// calibration on them, flag drift, write params/ROBOT/DAY.json all or
// nothing. A failing day is a dead letter and the next day is compared
// with the last good calibration. It is the pipeline's per-robot work,
// usable without Beam.
func CalibrateRobot(reg *robots.Registry, es []Entry, cfg Config) []Outcome {
	cfg = cfg.withDefaults()
	es = append([]Entry(nil), es...)
	sortEntries(es)
	var out []Outcome
	var prev *calibration
	for i := 0; i < len(es); {
		j := i
		for j < len(es) && es[j].Day == es[i].Day {
			j++
		}
		o, cal := calibrateDay(reg, es[i:j], prev, cfg)
		if cal != nil {
			prev = cal
		}
		out = append(out, o)
		done.Add(1)
		i = j
	}
	return out
}

// stageError is a failure of one stage of a robot-day.
type stageError struct {
	stage string
	err   error
}

func (s stageError) Error() string { return s.err.Error() }

func fail(stage string, err error) error { return stageError{stage, err} }

// calibrateDay is one robot-day; a panic in a model becomes a dead letter.
func calibrateDay(reg *robots.Registry, day []Entry, prev *calibration, cfg Config) (o Outcome, cal *calibration) {
	e := day[0]
	o.Report = DayReport{Robot: e.Robot, Day: e.Day, Model: e.Model, Status: "failed", Params: json.RawMessage("[]"), DriftParams: []string{}}
	final := paramsPath(cfg.Out, e.Robot, e.Day)
	partial := filepath.Join(filepath.Dir(final), "."+filepath.Base(final)+".partial")
	defer func() {
		if p := recover(); p != nil {
			err := fail("panic", fmt.Errorf("the model panicked: %v", p))
			if os.Getenv("WHEELGRAD_FLEET_STACKS") != "" {
				err = fail("panic", fmt.Errorf("the model panicked: %v\n%s", p, debug.Stack()))
			}
			o, cal = deadDay(o, err, final, partial), nil
		}
	}()
	rep, ch, c, err := runDay(reg, day, prev, cfg, partial)
	if err != nil {
		return deadDay(o, err, final, partial), nil
	}
	if err := os.Rename(partial, final); err != nil {
		return deadDay(o, fail("write", err), final, partial), nil
	}
	c.path = final
	return Outcome{Report: rep, Changes: ch}, c
}

// deadDay turns a failed robot-day into its dead letter, leaving no
// parameter file of that day (not even one of an earlier run).
func deadDay(o Outcome, err error, final, partial string) Outcome {
	os.Remove(partial)
	os.Remove(final)
	var se stageError
	stage := "identify"
	if errors.As(err, &se) {
		stage = se.stage
	}
	o.Dead = &DeadLetter{Robot: o.Report.Robot, Day: o.Report.Day, Stage: stage, Error: oneLine(err.Error())}
	return o
}

func oneLine(s string) string {
	if os.Getenv("WHEELGRAD_FLEET_STACKS") != "" {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

func paramsPath(out, robot, day string) string {
	return filepath.Join(out, "params", robot, day+".json")
}

// sources are a robot-day's logs as identify's -data, -poses, -offset and
// -columns give them.
func sources(day []Entry) ([]robots.Source, error) {
	var out []robots.Source
	for _, e := range day {
		off, auto, err := parseOffset(e.Offset)
		if err != nil {
			return nil, fmt.Errorf("%s: offset %v", e.Where, err)
		}
		cols, err := dataset.ParseColumnMap(e.Map)
		if err != nil {
			return nil, fmt.Errorf("%s: map: %v", e.Where, err)
		}
		out = append(out, robots.Source{Path: e.Data, Poses: e.Poses, Offset: off, AutoOffset: auto, Columns: cols})
	}
	return out, nil
}

// runDay does a robot-day's work up to its parameter file, staged at
// partial: what `wheelgrad identify -model M -data ... [-poses ...]
// [-offset ...] [-columns ...] [-init ...] -out` does, with every other
// flag at its default, then validate with the previous calibration.
func runDay(reg *robots.Registry, day []Entry, prev *calibration, cfg Config, partial string) (DayReport, []Change, *calibration, error) {
	e := day[0]
	rep := DayReport{Robot: e.Robot, Day: e.Day, Model: e.Model, DriftParams: []string{}}
	m, ok := reg.Get(e.Model)
	if !ok {
		return rep, nil, nil, fail("read", fmt.Errorf("%s: unknown model %q", e.Where, e.Model))
	}
	id, ok := m.(robots.Identifier)
	if !ok {
		return rep, nil, nil, fail("read", fmt.Errorf("%s: model %q cannot identify", e.Where, e.Model))
	}
	srcs, err := sources(day)
	if err != nil {
		return rep, nil, nil, fail("read", err)
	}
	var files []string
	for _, s := range srcs {
		files = append(files, s.Path)
		if s.Poses != "" {
			files = append(files, s.Poses)
		}
	}
	if err := dataset.CheckInputSize(files...); err != nil {
		return rep, nil, nil, fail("read", err)
	}
	req := robots.IdentifyRequest{Sources: srcs, InitPath: e.Init, Options: robots.DefaultOptions(id),
		Gaps: fit.GapsError, Sink: robots.Discard}
	if e.Init != "" {
		pr, ok := m.(robots.ParamReader)
		if !ok {
			return rep, nil, nil, fail("init", fmt.Errorf("model %q reads no parameter file", e.Model))
		}
		p, _, err := pr.ReadParams(e.Init, robots.ForStart)
		if err != nil {
			return rep, nil, nil, fail("init", err)
		}
		req.Init = p
	}
	cols, err := robots.ParamColumns(e.Init, req.Sources)
	if err != nil {
		return rep, nil, nil, fail("init", err)
	}
	out, err := id.Identify(req)
	if err != nil {
		return rep, nil, nil, fail("identify", err)
	}
	if err := out.Failure(); err != nil {
		return rep, nil, nil, fail("identify", err)
	}
	b, err := robots.ParamsFile(robots.WithColumns(out.Params, cols), out.Report.Status)
	if err != nil {
		return rep, nil, nil, fail("params", err)
	}
	rj, err := out.Report.JSON()
	if err != nil {
		return rep, nil, nil, fail("params", err)
	}
	var entries struct {
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(rj, &entries); err != nil {
		return rep, nil, nil, fail("params", err)
	}
	rep.Params = entries.Params
	rep.Status = "identified"
	if st := out.Report.Status; st != nil {
		rep.Status = st.Status
	}
	if err := os.MkdirAll(filepath.Dir(partial), 0o755); err != nil {
		return rep, nil, nil, fail("write", err)
	}
	if err := os.WriteFile(partial, b, 0o644); err != nil {
		return rep, nil, nil, fail("write", err)
	}
	cal := &calibration{params: out.Report.Params}
	if prev == nil {
		return rep, nil, cal, nil
	}
	changes := paramChanges(prev.params, out.Report.Params)
	if _, ok := m.(robots.Validator); ok {
		fp, nrmse, err := validate(m, prev.path, day, cfg)
		if err != nil {
			return rep, nil, nil, fail("validate", err)
		}
		own, _, err := validate(m, partial, day, cfg)
		if err != nil {
			return rep, nil, nil, fail("validate", err)
		}
		rep.FitPercent, rep.NRMSE, rep.FitDrop = finite(fp), finite(nrmse), finite(own-fp)
	}
	return rep, changes, cal, nil
}

func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// validate is `wheelgrad validate -model M -params P -data ...` on a
// robot-day's logs: fit % and NRMSE (fit.Channel.Fit), each the mean over
// the output channels (NaN when none has a finite value).
func validate(m robots.Model, params string, day []Entry, cfg Config) (fitPct, nrmse float64, err error) {
	pr, ok := m.(robots.ParamReader)
	if !ok {
		return 0, 0, fmt.Errorf("model %q reads no parameter file", m.Name())
	}
	p, _, err := pr.ReadParams(params, robots.ForPrediction)
	if err != nil {
		return 0, 0, err
	}
	srcs, err := sources(day)
	if err != nil {
		return 0, 0, err
	}
	if _, err := robots.ParamColumns(params, srcs); err != nil {
		return 0, 0, err
	}
	runs, err := m.(robots.Validator).Validate(robots.ValidateRequest{Params: p, ParamsPath: params, Sources: srcs,
		X0: cfg.X0, Gaps: fit.GapsError, Sink: robots.Discard})
	if err != nil {
		return 0, 0, err
	}
	v, err := fit.NewValidation(m.Name(), cfg.X0, runs, cfg.Horizon)
	if err != nil {
		return 0, 0, err
	}
	var sf, sn float64
	var n int
	for i := range v.Channels {
		f, e, _ := v.Channels[i].Fit()
		if math.IsNaN(f) || math.IsInf(f, 0) || math.IsNaN(e) || math.IsInf(e, 0) {
			continue
		}
		sf, sn, n = sf+f, sn+e, n+1
	}
	if n == 0 {
		return math.NaN(), math.NaN(), nil
	}
	return sf / float64(n), sn / float64(n), nil
}

// paramChanges are the moves of the parameters identified in both fits
// (neither held, σ of both finite and not both zero).
func paramChanges(a, b []fit.Param) []Change {
	var out []Change
	for _, q := range b {
		for _, p := range a {
			if p.Name != q.Name || p.Held || q.Held {
				continue
			}
			s := math.Hypot(p.Std, q.Std)
			if math.IsNaN(s) || math.IsInf(s, 0) || s == 0 {
				continue
			}
			out = append(out, Change{Name: q.Name, Delta: q.Value - p.Value, Sigma: s})
		}
	}
	return out
}
