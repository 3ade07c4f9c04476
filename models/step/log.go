package step

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/dyn"
	"github.com/wheelgrad/wheelgrad/fit"
)

// stepRun is one run of a step model's log: its rows (commands held over
// sensor-only rows, measurements NaN where none) and where they came from.
type stepRun struct {
	dataset.Origin
	file  string
	t     []float64
	u     [][]float64 // [command column][row]
	y     [][]float64 // [output][row]
	state [][]float64 // [state lane][row]: the log's column of that name, nil without
	isCmd func(int) bool
	cmdK  []int      // grid step of each command row (-1: a sensor row), from stepOf
	line  [2]float64 // mean step number and mean time of the command rows
	t0    float64    // time of grid step 0, from stepOf
	steps int        // grid steps of the run (grid)
}

// noteSink turns dataset.ReadLog's note lines into warnings.
type noteSink struct{ d *diag }

func (n noteSink) Write(b []byte) (int, error) {
	for _, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			n.d.add(fit.Warning{Msg: strings.TrimPrefix(l, "warning: ")})
		}
	}
	return len(b), nil
}

// spec is the log's dataset.Spec: t, traj, the commands, the outputs
// (sparse) and, optionally, any other state lane (its first value starts
// the run).
func (s *Model) logSpec() dataset.Spec {
	cols := []dataset.Column{{Name: "t"}, {Name: "traj", Optional: true, Text: true}}
	for _, n := range s.Inputs() {
		cols = append(cols, dataset.Column{Name: n})
	}
	for _, n := range s.spec.Outputs {
		cols = append(cols, dataset.Column{Name: n, Optional: true, Sparse: true})
	}
	for _, n := range s.spec.State {
		if !slices.Contains(s.spec.Outputs, n) && !slices.Contains(s.spec.Input, n) {
			cols = append(cols, dataset.Column{Name: n, Optional: true, Sparse: true})
		}
	}
	return dataset.Spec{Columns: cols, Time: "t", Group: "traj"}
}

// readRuns reads one source's runs, applying the gap policy (gaps ""
// judges none: simulate holds the last command).
func (s *Model) readRuns(src Source, gaps fit.GapPolicy, d *diag) ([]*stepRun, error) {
	var angles []string
	for _, o := range s.out {
		if o.Angle {
			angles = append(angles, o.Name)
		}
	}
	tab, err := dataset.ReadLog(src.Path, s.logSpec(), dataset.LogOptions{Commands: s.Inputs(), Angles: angles,
		Sensors: src.Poses, Offset: src.Offset, Note: noteSink{d}, Columns: src.Columns, HoldLast: src.HoldLast, Cache: src.Cache})
	if err != nil {
		return nil, err
	}
	t := tab.Col("t")
	d.add(fit.TimeUnits(src.Path, t)...)
	ids := tab.TextCol("traj")
	var runs []*stepRun
	for _, rr := range tab.Runs("traj") {
		o := dataset.Origin{Table: tab, Row: rr[0]}
		if ids != nil {
			o.ID = ids[rr[0]]
		}
		isCmd := o.CommandRows()
		pieces := [][2]int{{0, rr[1] - rr[0]}}
		if gaps != "" {
			ps, ws, err := fit.ApplyGaps(gaps, t[rr[0]:rr[1]], isCmd, true, func(row int, msg string) error { return o.Errorf(row, "t", "%s", msg) })
			d.add(ws...)
			if err != nil {
				return nil, err
			}
			if ps != nil {
				pieces = ps
			}
		}
		for _, pc := range pieces {
			if pc[1]-pc[0] < 2 {
				continue
			}
			a, b := rr[0]+pc[0], rr[0]+pc[1]
			r := &stepRun{Origin: dataset.Origin{Table: tab, Row: a, ID: o.ID}, file: src.Path, t: t[a:b]}
			if isCmd != nil {
				off := pc[0]
				r.isCmd = func(i int) bool { return isCmd(off + i) }
			}
			for _, n := range s.Inputs() {
				r.u = append(r.u, tab.Col(n)[a:b])
			}
			for _, n := range s.spec.Outputs {
				c := tab.Col(n)
				if c == nil {
					c = make([]float64, len(tab.Line))
					for i := range c {
						c[i] = math.NaN()
					}
				}
				r.y = append(r.y, c[a:b])
			}
			for _, n := range s.spec.State {
				var c []float64
				if tab.Has(n) {
					c = tab.Col(n)[a:b]
				}
				r.state = append(r.state, c)
			}
			runs = append(runs, r)
		}
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("%s: no run with two rows or more", src.Path)
	}
	return runs, nil
}

// MaxSteps caps the steps of one run on the log's grid (its span over the
// step length): 10⁷, 28 hours at 100 Hz. A log's rows bound the rest of
// the work, but a time gap bridged by -gaps bridge is held step by step:
// a gap of 10⁶ s at 0.01 s was 10⁸ steps (an identification that did not
// end), one of 10³⁰ s a step count past int's range (a panic).
const MaxSteps = 10_000_000

// stepOf is the step (s) of the runs' command streams: the median of the
// steps between consecutive command rows, pooled; a run whose own median
// differs by more than 5 % gets a warning (its commands are sampled onto
// the common grid).
func stepOf(runs []*stepRun, d *diag) (float64, error) {
	var all []float64
	per := make([]float64, len(runs))
	for k, r := range runs {
		var ds []float64
		prev := -1
		for i := range r.t {
			if r.isCmd != nil && !r.isCmd(i) {
				continue
			}
			if prev >= 0 {
				ds = append(ds, r.t[i]-r.t[prev])
			}
			prev = i
		}
		all = append(all, ds...)
		per[k] = median(ds)
	}
	dt := median(all)
	if !(dt > 0) || math.IsInf(dt, 0) {
		r := runs[0]
		return 0, r.Errorf(0, "t", "no two command rows to take the step from")
	}
	for _, r := range runs {
		// before any step count becomes an int (a gap bridged by -gaps
		// bridge can be any length)
		if n := len(r.t); n > 0 {
			if steps := (r.t[n-1] - r.t[0]) / dt; !(steps <= MaxSteps) {
				return 0, r.Errorf(n-1, "t", "the run lasts %.6g s: %.3g steps of the log's %g s, above the limit of %.0e (memory and time grow with them); cut the log, or split it at its gaps (-gaps split)", r.t[n-1]-r.t[0], steps, dt, float64(MaxSteps))
			}
		}
	}
	// Each command row's step number counts the periods from the previous
	// one (jitter under half a period moves none; a gap of n periods
	// counts n), and the step is refined as the slope of the command times
	// against their step numbers (least squares pooled over the runs): the
	// median of jittered steps is off by a thousandth of a period, which
	// biases a fitted time constant as much; the slope averages it away.
	var sxy, sxx float64
	for _, r := range runs {
		r.cmdK = make([]int, len(r.t))
		var ks, ts []float64
		k, prev := 0, -1
		for i := range r.t {
			if r.isCmd != nil && !r.isCmd(i) {
				r.cmdK[i] = -1
				continue
			}
			if prev >= 0 {
				k += max(1, int(math.Round((r.t[i]-r.t[prev])/dt)))
			}
			r.cmdK[i], prev = k, i
			ks, ts = append(ks, float64(k)), append(ts, r.t[i])
		}
		km, tm := mean(ks), mean(ts)
		r.line = [2]float64{km, tm}
		for i := range ks {
			sxy += (ks[i] - km) * (ts[i] - tm)
			sxx += (ks[i] - km) * (ks[i] - km)
		}
	}
	if fine := sxy / sxx; sxx > 0 && math.Abs(fine-dt) < 0.05*dt {
		dt = fine
	}
	for _, r := range runs {
		// The grid's origin: the fitted time of step 0, not the first
		// command's jittered stamp.
		r.t0 = r.line[1] - dt*r.line[0]
	}
	for k, r := range runs {
		if math.Abs(per[k]-dt) > 0.05*dt {
			d.add(fit.Warning{File: r.file, Row: r.Table.Line[r.Row], Msg: fmt.Sprintf("this run's command step %.4g s differs from the %.4g s of the others; its commands are sampled every %.4g s", per[k], dt, dt)})
		}
	}
	return dt, nil
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	sort.Float64s(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}

// stepSample is one measured value and where the rollout predicts it:
// between outputs k and k+1 of lane b, w of the way.
type stepSample struct {
	b, c, k, row int
	w, t, meas   float64
}

// stepBatch is a rollout of runs as the lanes of one dyn.Sim on a common
// grid of step dt: inputs sampled from the commands (zero-order hold, each
// command row at its nearest grid step), measurements at their own times.
type stepBatch struct {
	s       *Model
	runs    []*stepRun
	B, T    int
	dt      float64
	q, u    []float64
	samples []stepSample
	sim     *dyn.Sim
	y       []float64
}

// batch lays the runs on the grid of step dt.
func (s *Model) batch(runs []*stepRun, dt float64) *stepBatch {
	a := 0.0
	if s.c.AfterStep {
		a = 1
	}
	bt := &stepBatch{s: s, runs: runs, B: len(runs), dt: dt, q: slices.Clone(s.q)}
	if s.dtSet >= 0 {
		bt.q[s.dtSet] = dt
	}
	for _, r := range runs {
		span := (r.t[len(r.t)-1] - r.t0) / dt
		r.steps = max(int(math.Ceil(span-a-1e-9))+1, int(math.Ceil(span-1e-9)), 1)
		bt.T = max(bt.T, r.steps)
	}
	nu := len(s.spec.Input)
	bt.u = make([]float64, bt.T*nu*bt.B)
	cols := s.Inputs()
	for b, r := range runs {
		cur := make([]float64, len(cols))
		next := 0 // next row whose command is not yet applied
		for k := range bt.T {
			for next < len(r.t) && (r.cmdK[next] < 0 || r.cmdK[next] <= k) {
				if r.cmdK[next] >= 0 {
					for c := range cols {
						cur[c] = r.u[c][next]
					}
				}
				next++
			}
			ci := 0
			for i := range nu {
				v := dt
				if i != s.dtInput {
					v = cur[ci]
					ci++
				}
				bt.u[(k*nu+i)*bt.B+b] = v
			}
		}
		for c := range s.spec.Outputs {
			for i, v := range r.y[c] {
				if math.IsNaN(v) {
					continue
				}
				f := (r.t[i]-r.t0)/dt - a
				if f < -1e-9 {
					continue // before the first output: the start state's
				}
				k := int(math.Floor(f + 1e-9))
				w := max(f-float64(k), 0)
				if w < 1e-9 {
					w = 0
				}
				if k >= r.steps || (w > 0 && k+1 >= r.steps) {
					continue
				}
				bt.samples = append(bt.samples, stepSample{b: b, c: c, k: k, row: i, w: w, t: r.t[i], meas: v})
			}
		}
	}
	bt.sim = s.c.Model.NewSim(bt.B, bt.T)
	bt.y = make([]float64, len(s.spec.Outputs)*bt.T*bt.B)
	return bt
}

// at is the index of output c of lane b after step k in a [NY][T][B] block.
func (bt *stepBatch) at(c, k, b int) int { return (c*bt.T+k)*bt.B + b }

// pred is the prediction of sample i from the outputs y.
func (bt *stepBatch) pred(i int) float64 {
	sm := &bt.samples[i]
	v := bt.y[bt.at(sm.c, sm.k, sm.b)]
	if sm.w > 0 {
		v = (1-sm.w)*v + sm.w*bt.y[bt.at(sm.c, sm.k+1, sm.b)]
	}
	return v
}

// residual is measured − predicted of sample i, wrapped for an angle.
func (bt *stepBatch) residual(i int) float64 {
	sm := &bt.samples[i]
	e := sm.meas - bt.pred(i)
	if bt.s.out[sm.c].Angle {
		e = math.Remainder(e, 2*math.Pi)
	}
	return e
}

// x0 lays per-run start states ([b][S]) out as the Sim's [S][B].
func (bt *stepBatch) x0(starts [][]float64) []float64 {
	ns := len(bt.s.spec.State)
	x := make([]float64, ns*bt.B)
	for b := range bt.B {
		for k := range ns {
			x[k*bt.B+b] = starts[b][k]
		}
	}
	return x
}

// value rolls the batch (outputs into bt.y); states keeps the trajectory.
func (bt *stepBatch) value(p []float64, starts [][]float64, states bool) error {
	var err error
	if states {
		_, err = bt.sim.Forward(p, bt.q, bt.x0(starts), bt.u, bt.y)
	} else {
		_, err = bt.sim.Value(p, bt.q, bt.x0(starts), bt.u, bt.y)
	}
	if err != nil {
		return fmt.Errorf("%s: the rollout failed: %w", bt.runs[0].file, err)
	}
	return nil
}

// stateAt is state lane k of lane b at time t, linear between grid states
// (after a Forward).
func (bt *stepBatch) stateAt(k, b int, t float64) float64 {
	r := bt.runs[b]
	ns := len(bt.s.spec.State)
	f := math.Min(math.Max((t-r.t0)/bt.dt, 0), float64(bt.T))
	i := int(math.Floor(f))
	w := f - float64(i)
	v := bt.sim.X[(i*ns+k)*bt.B+b]
	if w > 1e-9 && i < bt.T {
		v = (1-w)*v + w*bt.sim.X[((i+1)*ns+k)*bt.B+b]
	}
	return v
}

// guess is a run's first start state: each lane from its first measured
// output or logged column of that name, else 0; an unmeasured heading of
// the Pose the best of 64 directions for the run's first motion under p.
func (s *Model) guess(r *stepRun, dt float64, p []float64) ([]float64, error) {
	ns := len(s.spec.State)
	x := make([]float64, ns)
	known := make([]bool, ns)
	for k, n := range s.spec.State {
		col := r.state[k]
		if c := slices.Index(s.spec.Outputs, n); c >= 0 {
			col = r.y[c]
		}
		for _, v := range col {
			if !math.IsNaN(v) {
				x[k], known[k] = v, true
				break
			}
		}
	}
	h := s.pose[2]
	if h < 0 || known[h] {
		return x, nil
	}
	// The heading: 64 lanes of the run's first 10 s (or its whole), the
	// best refined by a parabola through its neighbours' costs.
	cut := len(r.t)
	for cut > 2 && r.t[cut-1]-r.t0 > 10 {
		cut--
	}
	short := *r
	short.t = r.t[:cut]
	short.u = make([][]float64, len(r.u))
	for c := range r.u {
		short.u[c] = r.u[c][:cut]
	}
	short.y = make([][]float64, len(r.y))
	for c := range r.y {
		short.y[c] = r.y[c][:cut]
	}
	const n = 64
	lanes := make([]*stepRun, n)
	starts := make([][]float64, n)
	for i := range lanes {
		c := short
		lanes[i] = &c
		starts[i] = slices.Clone(x)
		starts[i][h] = 2 * math.Pi * float64(i) / n
	}
	bt := s.batch(lanes, dt)
	if err := bt.value(p, starts, false); err != nil {
		return x, nil // the nominal model diverges: keep 0 and let the fit say
	}
	cost := make([]float64, n)
	for i := range bt.samples {
		if c := bt.samples[i].c; c == s.poseOut[0] || c == s.poseOut[1] {
			e := bt.residual(i)
			cost[bt.samples[i].b] += e * e
		}
	}
	best := 0
	for i := range cost {
		if cost[i] < cost[best] {
			best = i
		}
	}
	x[h] = starts[best][h]
	cm, c0, cp := cost[(best+n-1)%n], cost[best], cost[(best+1)%n]
	if den := cm - 2*c0 + cp; den > 0 {
		x[h] += 0.5 * (cm - cp) / den * 2 * math.Pi / n
	}
	return x, nil
}

func mean(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(max(len(v), 1))
}
