package synth

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/robots"
)

// DefaultModels are the models a fleet has when Config.Models is empty.
var DefaultModels = []string{"mecanum", "skidsteer"}

// Config says what fleet to generate. Its zero value is a usable fleet of
// 40 robots over 5 days: a zero field takes the default its comment gives.
type Config struct {
	Robots int    // number of robots (default 40)
	Days   int    // days of logs per robot (default 5)
	Seed   uint64 // every random draw derives from it
	// Models are the robots' models, assigned in turn (default
	// DefaultModels); each needs an entry in the generator's model table.
	Models []string
	// DriftFraction of the robots drift by design (default 0.2; negative:
	// none); BrokenFraction of the steady robots' robot-days get a broken
	// log (default 0.03, at least one of each kind the fleet has room for;
	// negative: none).
	DriftFraction, BrokenFraction float64
	// Noise scales the model table's noise (each factor: 0 the table's
	// value, i.e. 1; negative: none).
	Noise Noise
	// Registry holds the models (nil: robots.Default()).
	Registry *robots.Registry
}

// Noise scales the three departures of a log from its model: sensor noise
// on the outputs, the difference between logged commands and what really
// drove the robot (a little model mismatch), and timing jitter of the
// logged clock.
type Noise struct {
	Sensor, Actuator, Jitter float64
}

func scale(f float64) float64 {
	switch {
	case f == 0:
		return 1
	case f < 0:
		return 0
	}
	return f
}

func (c Config) withDefaults() Config {
	if c.Robots == 0 {
		c.Robots = 40
	}
	if c.Days == 0 {
		c.Days = 5
	}
	if len(c.Models) == 0 {
		c.Models = slices.Clone(DefaultModels)
	}
	if c.DriftFraction == 0 {
		c.DriftFraction = 0.2
	}
	if c.BrokenFraction == 0 {
		c.BrokenFraction = 0.03
	}
	if c.Registry == nil {
		c.Registry = robots.Default()
	}
	return c
}

// Truth is what Write generated: each robot's true parameters per day,
// the drifts and the broken logs, for a test to hold a pipeline's results
// against.
type Truth struct {
	Manifest string // the manifest's path
	Robots   []Robot
	Broken   []Broken
}

// Robot is one robot's truth.
type Robot struct {
	ID, Model string
	Init      string // its init parameter file (relative to the fleet's dir)
	// Days are its robot-days in order (day 1 first).
	Days []Day
	// Drift is nil for a steady robot.
	Drift *Drift
}

// Day is one robot-day: its log and the parameters that made it (identify's
// names → values).
type Day struct {
	Day    int
	Data   string // the log (relative to the fleet's dir)
	Params map[string]float64
	Broken bool
}

// Drift is a change by design from a day on.
type Drift struct {
	Kind   string
	Day    int      // the first day with the changed parameters
	Params []string // identify's names of the parameters that move
	// Change is each parameter's relative change (or absolute, for a
	// coefficient near zero; Relative says which).
	Change   []float64
	Relative bool
}

// Broken is a log broken on purpose, with the substring of the error the
// toolkit gives for it.
type Broken struct {
	Robot string
	Day   int
	Data  string
	Kind  string
	Error string
}

// Steady says whether the robot keeps its parameters on every day.
func (r Robot) Steady() bool { return r.Drift == nil }

type nominal struct {
	spec  *spec
	model robots.Model
	init  []byte         // the init file (the model's nominal start)
	value map[string]any // the same, decoded
}

// Write generates a fleet into dir (created if missing): dir/manifest.csv,
// per robot ROBOT/init.json, and per robot-day ROBOT/DAY/log.csv. The same
// Config writes the same bytes.
func Write(dir string, cfg Config) (*Truth, error) {
	cfg = cfg.withDefaults()
	if cfg.Robots < 0 || cfg.Days < 0 {
		return nil, fmt.Errorf("synth: %d robots over %d days", cfg.Robots, cfg.Days)
	}
	tmp, err := os.MkdirTemp("", "fleet-synth")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	noms := map[string]*nominal{}
	for _, name := range cfg.Models {
		if noms[name] != nil {
			continue
		}
		n, err := loadNominal(cfg.Registry, name, tmp)
		if err != nil {
			return nil, err
		}
		noms[name] = n
	}
	tr := plan(cfg, noms)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	type job struct {
		r *Robot
		d int
	}
	var jobs []job
	for i := range tr.Robots {
		r := &tr.Robots[i]
		if err := os.MkdirAll(filepath.Join(dir, r.ID), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, r.Init), noms[r.Model].init, 0o644); err != nil {
			return nil, err
		}
		for d := range r.Days {
			jobs = append(jobs, job{r, d})
		}
	}
	broken := map[string]*Broken{}
	for i := range tr.Broken {
		broken[tr.Broken[i].Data] = &tr.Broken[i]
	}
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				j := jobs[i]
				errs[i] = writeDay(dir, tmp, cfg, noms[j.r.Model], j.r, &j.r.Days[j.d], broken[j.r.Days[j.d].Data])
			}
		})
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	var man bytes.Buffer
	w := dataset.NewWriter(&man)
	w.WriteHeader("robot", "model", "day", "data", "poses", "map", "offset", "init")
	for _, r := range tr.Robots {
		for _, d := range r.Days {
			w.WriteRow(dataset.Text(r.ID), dataset.Text(r.Model), dataset.Num(float64(d.Day)), dataset.Text(d.Data),
				dataset.Text(""), dataset.Text(""), dataset.Text(""), dataset.Text(r.Init))
		}
	}
	if err := w.Flush(); err != nil {
		return nil, err
	}
	tr.Manifest = filepath.Join(dir, "manifest.csv")
	return tr, os.WriteFile(tr.Manifest, man.Bytes(), 0o644)
}

// loadNominal reads the model's nominal start through its ParamReader.
func loadNominal(reg *robots.Registry, name, tmp string) (*nominal, error) {
	sp := specs[name]
	if sp == nil {
		return nil, fmt.Errorf("synth: no inputs known for model %q (the generator's model table has %v)", name, keys(specs))
	}
	m, ok := reg.Get(name)
	if !ok {
		return nil, fmt.Errorf("synth: model %q is not in the registry", name)
	}
	pr, ok1 := m.(robots.ParamReader)
	_, ok2 := m.(robots.Simulator)
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("synth: model %q cannot read parameters and simulate", name)
	}
	f := filepath.Join(tmp, name+"-nominal.json")
	if err := os.WriteFile(f, []byte(sp.init), 0o644); err != nil {
		return nil, err
	}
	p, _, err := pr.ReadParams(f, robots.ForStart)
	if err != nil {
		return nil, fmt.Errorf("synth: the nominal start of %s: %w", name, err)
	}
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return nil, err
	}
	n := &nominal{spec: sp, model: m, init: append(b, '\n')}
	if err := json.Unmarshal(b, &n.value); err != nil {
		return nil, err
	}
	for k, v := range sp.centre {
		n.value[k] = v
	}
	return n, nil
}

func keys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// rngFor is the random stream of one purpose, derived from the seed and
// the purpose's words (a robot, a day, what is drawn).
func rngFor(seed uint64, words ...any) *rand.Rand {
	h := fnv.New64a()
	fmt.Fprint(h, words...)
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// plan draws the robots: model, true parameters per day, drifts and broken
// robot-days.
func plan(cfg Config, noms map[string]*nominal) *Truth {
	tr := &Truth{}
	width := len(strconv.Itoa(cfg.Robots))
	for i := range cfg.Robots {
		id := fmt.Sprintf("r%0*d", max(3, width), i+1)
		name := cfg.Models[i%len(cfg.Models)]
		r := Robot{ID: id, Model: name, Init: filepath.Join(id, "init.json")}
		tr.Robots = append(tr.Robots, r)
	}
	prng := rngFor(cfg.Seed, "plan")
	order := prng.Perm(cfg.Robots)
	nDrift := 0
	if cfg.DriftFraction > 0 && cfg.Days >= 2 {
		nDrift = int(math.Round(cfg.DriftFraction * float64(cfg.Robots)))
	}
	for _, i := range order[:nDrift] {
		r := &tr.Robots[i]
		sp := noms[r.Model].spec
		d := sp.drifts[prng.IntN(len(sp.drifts))]
		dr := &Drift{Kind: d.kind, Day: 2 + prng.IntN(cfg.Days-1), Params: d.params, Relative: d.abs == 0}
		for range d.params {
			if d.abs == 0 {
				dr.Change = append(dr.Change, d.rel)
			} else {
				dr.Change = append(dr.Change, d.abs)
			}
		}
		r.Drift = dr
	}
	for i := range tr.Robots {
		r := &tr.Robots[i]
		sp := noms[r.Model].spec
		rng := rngFor(cfg.Seed, r.ID, "params")
		base := map[string]float64{}
		for _, p := range sp.params {
			c := centreOf(noms[r.Model].value, p)
			s := p.lo + (p.hi-p.lo)*rng.Float64()
			if rng.IntN(2) == 0 {
				s = -s
			}
			if p.abs > 0 {
				base[p.name] = c + s*p.abs
			} else {
				base[p.name] = c * (1 + s)
			}
		}
		for day := 1; day <= cfg.Days; day++ {
			drng := rngFor(cfg.Seed, r.ID, day, "wobble")
			ps := map[string]float64{}
			for _, p := range sp.params {
				v := base[p.name]
				if p.abs > 0 {
					v += p.wobble * p.abs * drng.NormFloat64()
				} else {
					v *= 1 + p.wobble*drng.NormFloat64()
				}
				ps[p.name] = v
			}
			if r.Drift != nil && day >= r.Drift.Day {
				for j, n := range r.Drift.Params {
					if r.Drift.Relative {
						ps[n] *= 1 + r.Drift.Change[j]
					} else {
						ps[n] += r.Drift.Change[j]
					}
				}
			}
			r.Days = append(r.Days, Day{Day: day, Data: filepath.Join(r.ID, strconv.Itoa(day), "log.csv"), Params: ps})
		}
	}
	// broken robot-days, on steady robots only, the kinds in turn
	if cfg.BrokenFraction > 0 {
		var cand [][2]int
		for i, r := range tr.Robots {
			if r.Drift == nil {
				for d := range r.Days {
					cand = append(cand, [2]int{i, d})
				}
			}
		}
		n := min(len(cand), max(len(brokenKinds), int(math.Round(cfg.BrokenFraction*float64(len(cand))))))
		for k, j := range prng.Perm(len(cand))[:n] {
			r := &tr.Robots[cand[j][0]]
			d := &r.Days[cand[j][1]]
			d.Broken = true
			kind := brokenKinds[k%len(brokenKinds)]
			tr.Broken = append(tr.Broken, Broken{Robot: r.ID, Day: d.Day, Data: d.Data, Kind: kind.name})
		}
		slices.SortFunc(tr.Broken, func(a, b Broken) int {
			if a.Robot != b.Robot {
				if a.Robot < b.Robot {
					return -1
				}
				return 1
			}
			return a.Day - b.Day
		})
	}
	return tr
}

// centreOf is the centre of a parameter's spread: the nominal value (or
// the table's centre) at its key and index.
func centreOf(v map[string]any, p param) float64 {
	x := v[p.key]
	for _, i := range p.idx {
		x = x.([]any)[i]
	}
	return x.(float64)
}

// setParam sets the parameter at its key and index in v (a decoded
// parameter file, modified in place).
func setParam(v map[string]any, p param, val float64) {
	if len(p.idx) == 0 {
		v[p.key] = val
		return
	}
	x := v[p.key].([]any)
	for _, i := range p.idx[:len(p.idx)-1] {
		x = x[i].([]any)
	}
	x[p.idx[len(p.idx)-1]] = val
}

// clone deep-copies a decoded JSON value.
func clone(v any) any {
	switch x := v.(type) {
	case map[string]any:
		c := make(map[string]any, len(x))
		for k, e := range x {
			c[k] = clone(e)
		}
		return c
	case []any:
		c := make([]any, len(x))
		for i, e := range x {
			c[i] = clone(e)
		}
		return c
	}
	return v
}

// round6 keeps a value to 1e-6 (µm, µrad, µs): the logs' resolution.
func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }

// writeDay simulates one robot-day through the registry and writes its
// log: clean commands, the simulation (driven by the commands plus the
// actuator mismatch) with sensor noise on the outputs' rows, and a jittered
// clock; broken as b says when b is not nil.
func writeDay(dir, tmp string, cfg Config, n *nominal, r *Robot, d *Day, b *Broken) error {
	sp := n.spec
	rng := rngFor(cfg.Seed, r.ID, d.Day, "log")
	rows := int(math.Round(sp.seconds / sp.dt))
	t := make([]float64, rows)
	for k := range t {
		t[k] = round6(float64(k) * sp.dt)
	}
	cmd := make([][]float64, len(sp.commands))
	act := make([][]float64, len(sp.commands))
	as := sp.actuator * scale(cfg.Noise.Actuator)
	for j, c := range sp.commands {
		cmd[j] = c.pieces(rng, rows, sp.dt)
		act[j] = make([]float64, rows)
		for k, v := range cmd[j] {
			cmd[j][k] = round6(v)
			act[j][k] = round6(v + as*(c.hi-c.lo)*rng.NormFloat64())
		}
	}
	// the simulation's input and parameters, through the registry
	base := filepath.Join(tmp, r.ID+"-"+strconv.Itoa(d.Day))
	var in bytes.Buffer
	w := dataset.NewWriter(&in)
	head := []string{"t"}
	for _, c := range sp.commands {
		head = append(head, c.name)
	}
	w.WriteHeader(head...)
	for k := range t {
		row := []float64{t[k]}
		for j := range act {
			row = append(row, act[j][k])
		}
		w.WriteFloats(row...)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := os.WriteFile(base+"-input.csv", in.Bytes(), 0o644); err != nil {
		return err
	}
	pv := clone(n.value).(map[string]any)
	for _, p := range sp.params {
		setParam(pv, p, d.Params[p.name])
	}
	pb, err := json.Marshal(pv)
	if err != nil {
		return err
	}
	if err := os.WriteFile(base+"-params.json", pb, 0o644); err != nil {
		return err
	}
	p, _, err := n.model.(robots.ParamReader).ReadParams(base+"-params.json", robots.ForPrediction)
	if err != nil {
		return fmt.Errorf("synth: %s day %d: the true parameters: %w", r.ID, d.Day, err)
	}
	sim, err := n.model.(robots.Simulator).Simulate(robots.SimulateRequest{Params: p, ParamsPath: base + "-params.json",
		Source: robots.Source{Path: base + "-input.csv"}})
	if err != nil {
		return fmt.Errorf("synth: %s day %d: simulating: %w", r.ID, d.Day, err)
	}
	var out bytes.Buffer
	if err := sim.Write(&out); err != nil {
		return err
	}
	cols := []dataset.Column{{Name: "t"}}
	for _, o := range sp.outputs {
		cols = append(cols, dataset.Column{Name: o.name})
	}
	tab, err := dataset.Read(&out, "simulation", dataset.Spec{Columns: cols, Time: "t"})
	if err != nil {
		return fmt.Errorf("synth: %s day %d: reading the simulation: %w", r.ID, d.Day, err)
	}
	if tab.Len() != rows {
		return fmt.Errorf("synth: %s day %d: the simulation has %d rows for %d", r.ID, d.Day, tab.Len(), rows)
	}
	// the log
	js := sp.jitter * scale(cfg.Noise.Jitter)
	ns := scale(cfg.Noise.Sensor)
	var lg bytes.Buffer
	w = dataset.NewWriter(&lg)
	for _, o := range sp.outputs {
		head = append(head, o.name)
	}
	w.WriteHeader(head...)
	cells := make([]dataset.Cell, len(head))
	for k := range t {
		tk := t[k]
		if k > 0 && js > 0 {
			tk = round6(tk + math.Max(-sp.dt/4, math.Min(sp.dt/4, js*rng.NormFloat64())))
		}
		cells[0] = dataset.Num(tk)
		for j := range cmd {
			cells[1+j] = dataset.Num(cmd[j][k])
		}
		for j, o := range sp.outputs {
			v := math.NaN()
			if k%o.every == 0 {
				v = round6(tab.Col(o.name)[k] + ns*o.noise*rng.NormFloat64())
			}
			cells[1+len(cmd)+j] = dataset.Num(v)
		}
		w.WriteRow(cells...)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	data := lg.Bytes()
	if b != nil {
		if data, err = breakLog(b, data, sp); err != nil {
			return err
		}
	}
	path := filepath.Join(dir, d.Data)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// SigmaScale is how much the fit's σ of the model understates its error on
// the generator's logs (1: it does not), measured: the RMS of (identified −
// true)/σ over the 40 × 5 fleet of seed 1. A drift test at k σ flags a
// steady robot of a model with SigmaScale s about as often as a test at
// k/s σ would with an honest σ. 0 for a model the generator does not know
// or has not measured.
func SigmaScale(model string) float64 {
	if sp := specs[model]; sp != nil {
		return sp.sigmaScale
	}
	return 0
}
