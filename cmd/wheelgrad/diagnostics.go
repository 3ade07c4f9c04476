package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/wheelgrad/wheelgrad/dataset"
)

// Diagnostics every identify (and validate) handler shares, so that a
// user's own log in the wrong units, with a gap, without motion or without
// the excitation a parameter needs gets a warning or an error instead of
// confident numbers (issue 16). A new model's handler calls:
//
//   - gapRows / gapError (or splitAt) on each run's time column, honouring
//     IdentifyArgs.Gaps (error, split, bridge);
//   - d.timeUnits on each time column;
//   - d.scale with what the log measured against what the commands predict
//     under the nominal (or -init) model, and refuseNoMotion when nothing moved;
//   - after the fit: verdict per parameter (never "determined" when σ is
//     wider than the bound range), d.onBound, d.residuals, and
//     printSummary, the one summary block of every identify;
//   - checkDetermined: undetermined parameters are refused (exit 1) unless
//     -allow-undetermined.

// diag collects the warnings of one command and prints each on stderr as
// it is found ("warning: ..."), so that they also reach a user who pipes
// stdout away.
type diag struct {
	w     io.Writer
	warns []string
}

func newDiag(w io.Writer) *diag { return &diag{w: w} }

func (d *diag) warnf(format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	d.warns = append(d.warns, msg)
	fmt.Fprintf(d.w, "warning: %s\n", msg)
}

// gapFactor: a step longer than this many times the run's median step is a
// gap (rows missing). Jitter and the odd dropped message stay below it.
const gapFactor = 5

// Gap policies (-gaps).
const (
	gapsError  = "error"  // a gap is an error naming its row (default)
	gapsSplit  = "split"  // a gap ends the run; the next row starts a new one
	gapsBridge = "bridge" // hold the last command across the gap (on purpose)
)

// gapRows returns the rows k ≥ 1 whose step from row k−1 exceeds gapFactor
// times the median step, and the median step.
func gapRows(t []float64) (rows []int, med float64) {
	rows, _, med = commandGaps(t, nil)
	return rows, med
}

// commandGaps finds the gaps of a run's command stream: isCmd(i) tells the
// rows that carry commands (nil: every row, a synchronous log). In an
// asynchronous log (FORMATS.md additions: sensor-only rows hold the previous
// command) a gap is a step between consecutive command rows longer than
// gapFactor times their median step; sensor rows inside it do not bridge
// it, and sensor rows after the last command row are not a gap (the last
// command holds, as the format says). rows are the command rows after each
// gap, prev the command rows before them.
func commandGaps(t []float64, isCmd func(int) bool) (rows, prev []int, med float64) {
	var idx []int
	for i := range t {
		if isCmd == nil || isCmd(i) {
			idx = append(idx, i)
		}
	}
	if len(idx) < 2 {
		return nil, nil, 0
	}
	steps := make([]float64, len(idx)-1)
	for k := 1; k < len(idx); k++ {
		steps[k-1] = t[idx[k]] - t[idx[k-1]]
	}
	slices.Sort(steps)
	med = steps[len(steps)/2]
	if !(med > 0) {
		return nil, nil, med
	}
	for k := 1; k < len(idx); k++ {
		if t[idx[k]]-t[idx[k-1]] > gapFactor*med {
			rows, prev = append(rows, idx[k]), append(prev, idx[k-1])
		}
	}
	return rows, prev, med
}

// gapMessage says what a gap at row k (after command row p) is and what to
// do about it.
func gapMessage(t []float64, k, p int, med float64, canSplit bool) string {
	fix := "-gaps split to start a new run there, -gaps bridge to hold the last command across it, or cut the log"
	if !canSplit {
		fix = "-gaps bridge to hold the last command across it, or cut the log into pieces without gaps"
	}
	return fmt.Sprintf("time gap of %.4g s before this row (the log steps by %.4g s): the commands in the gap are unknown; pass %s", t[k]-t[p], med, fix)
}

// checkGaps applies the -gaps policy to one run's time column: nil pieces
// mean "use the run whole"; with split, the [from, to) row ranges of the
// pieces (sensor-only rows inside a gap belong to neither). isCmd marks
// the command rows of an asynchronous log (nil: every row). errAt
// positions the error at a row of the run.
func checkGaps(d *diag, policy string, t []float64, isCmd func(int) bool, canSplit bool, errAt func(row int, msg string) error) ([][2]int, error) {
	rows, prev, med := commandGaps(t, isCmd)
	if len(rows) == 0 {
		return nil, nil
	}
	switch policy {
	case gapsBridge:
		g := 0.0
		for i, k := range rows {
			g = max(g, t[k]-t[prev[i]])
		}
		d.warnf("bridged %d time gap(s) (the longest %.4g s) by holding the last command (-gaps bridge)", len(rows), g)
		return nil, nil
	case gapsSplit:
		if canSplit {
			var out [][2]int
			from := 0
			for i, k := range rows {
				out = append(out, [2]int{from, prev[i] + 1})
				from = k
			}
			return append(out, [2]int{from, len(t)}), nil
		}
	}
	return nil, errAt(rows[0], gapMessage(t, rows[0], prev[0], med, canSplit))
}

// timeUnits warns about a time column that steps like milliseconds.
func (d *diag) timeUnits(file string, t []float64) {
	if med := dataset.MedianStep(t); med > 0.5 {
		d.warnf("%s: t steps by a median %.4g s between rows: is t in milliseconds? (FORMATS.md: seconds; a robot log steps by milliseconds)", file, med)
	}
}

// scale compares a measured amount of motion with what the commands predict
// under the nominal model (ratio measured/predicted). Friction and slip make
// the ratio somewhat below 1; beyond [1/5, 3] the units are probably wrong.
// big and small say what probably is.
func (d *diag) scale(file, what string, measured, predicted float64, big, small string) {
	if !(predicted > 1e-9) || !(measured >= 0) {
		return
	}
	r := measured / predicted
	switch {
	case r > 3:
		d.warnf("%s: the measured %s is %.3g× what the commands predict: %s", file, what, r, big)
	case r < 0.2:
		d.warnf("%s: the measured %s is %.3g× what the commands predict: %s", file, what, r, small)
	}
}

// chord sums the distances and heading changes between pose samples at
// least minDt apart (the camera noise then adds little). A heading step is
// unwrapped by 2π only when that leaves less than half a radian: a log in
// degrees keeps its large steps.
func chord(t, x, y, th []float64, rows []int, minDt float64) (dist, turn float64) {
	if len(rows) == 0 {
		return 0, 0
	}
	last := rows[0]
	for _, k := range rows[1:] {
		if t[k]-t[last] < minDt {
			continue
		}
		dist += math.Hypot(x[k]-x[last], y[k]-y[last])
		if th != nil {
			dth := th[k] - th[last]
			if w := dth - 2*math.Pi*math.Round(dth/(2*math.Pi)); math.Abs(dth) > math.Pi && math.Abs(w) < 0.5 {
				dth = w
			}
			turn += math.Abs(dth)
		}
		last = k
	}
	return dist, turn
}

// poseNoise estimates the position noise (m) of samples at rows from their
// second differences (σ² ≈ mean(Δ²)/6 for white noise on a smooth path).
func poseNoise(x, y []float64, rows []int) float64 {
	var s float64
	n := 0
	for i := 2; i < len(rows); i++ {
		a, b, c := rows[i-2], rows[i-1], rows[i]
		dx := x[c] - 2*x[b] + x[a]
		dy := y[c] - 2*y[b] + y[a]
		s += dx*dx + dy*dy
		n += 2
	}
	if n == 0 {
		return math.NaN()
	}
	return math.Sqrt(s / float64(n) / 6)
}

// residuals warns when the fit's residual RMS is far above the measurement
// noise (and above floor, in the same unit): the model does not explain the
// log.
func (d *diag) residuals(what string, rms, noise, floor float64, unit string) {
	if rms > 10*noise && rms > floor {
		d.warnf("the %s residual RMS %.3g %s is %.0f× the measurement noise (≈%.2g %s, from the samples' scatter): the model does not explain these logs — wrong units, a time gap, a wrong constant in -init, or motion the model lacks?",
			what, rms, unit, rms/noise, noise, unit)
	}
}

// maxAbs is the largest |v| over the finite values.
func maxAbs(v ...[]float64) float64 {
	m := 0.0
	for _, c := range v {
		for _, x := range c {
			if !math.IsNaN(x) {
				m = max(m, math.Abs(x))
			}
		}
	}
	return m
}

// noMotion is the error of a log in which nothing moves: no parameter can
// be identified from it, and the start values would come back unchanged as
// if calibrated.
func noMotion(file, what string) error {
	return fmt.Errorf("%s: %s: nothing in the log excites the model, so no parameter can be identified (the start values would come back unchanged)", file, what)
}

// param is one identified parameter for the summary.
type param struct {
	Name   string
	Value  float64
	Std    float64 // NaN: not known
	Lo, Hi float64 // bounds (±Inf: none)
	// Fixed: held at its -init value (-fix).
	Fixed bool
	// Undetermined: the data do not determine it (from the model's own
	// analysis, e.g. a null direction of the Jacobian).
	Undetermined bool
}

// verdict says how well the data determine p. It never says "determined"
// when σ is unknown-but-flagged, NaN, or wider than a quarter of the bound
// range (±2σ would span the whole range).
func (p param) verdict() string {
	switch {
	case p.Fixed:
		return "fixed at -init"
	case p.Undetermined || math.IsInf(p.Std, 0):
		return "NOT determined by these logs"
	case math.IsNaN(p.Std):
		return ""
	}
	rng := p.Hi - p.Lo
	if !math.IsInf(rng, 0) && !math.IsNaN(rng) && rng > 0 {
		switch {
		case p.Std > rng/4:
			return "NOT determined by these logs (σ spans the bound range)"
		case p.Std > rng/20:
			return "poorly determined"
		}
		return "determined"
	}
	switch {
	case p.Std > 0.5*math.Abs(p.Value) && p.Std > 0.1:
		return "NOT determined by these logs"
	case p.Std > 0.2*math.Abs(p.Value) && p.Std > 0.02:
		return "poorly determined"
	}
	return "determined"
}

func (p param) determined() bool { return !strings.HasPrefix(p.verdict(), "NOT") }

// onBound warns about parameters that ended on a bound of their range: the
// optimum lies outside, which real data rarely put there.
func (d *diag) onBound(ps []param) {
	for _, p := range ps {
		if p.Fixed || math.IsInf(p.Lo, 0) || math.IsInf(p.Hi, 0) {
			continue
		}
		tol := 1e-3 * (p.Hi - p.Lo)
		b := ""
		switch {
		case p.Value-p.Lo <= tol:
			b = fmt.Sprintf("lower bound %g", p.Lo)
		case p.Hi-p.Value <= tol:
			b = fmt.Sprintf("upper bound %g", p.Hi)
		}
		if b != "" {
			d.warnf("%s ended on its %s: the data pull it beyond its plausible range — wrong units (positions in mm, speeds in rpm or deg/s, time in ms), a time gap, or a wrong constant in -init?", p.Name, b)
		}
	}
}

// checkDetermined refuses (exit 1) a result with undetermined parameters
// unless allowed: a value the data do not determine is the start value or
// the optimiser's drift, not a calibration.
// remedy says what helps (e.g. which -fix); "" for the generic advice.
func checkDetermined(d *diag, ps []param, allow bool, remedy string) error {
	var bad []string
	for _, p := range ps {
		if !p.determined() {
			bad = append(bad, p.Name)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	if allow {
		d.warnf("%s not determined by these logs; written anyway (-allow-undetermined)", strings.Join(bad, ", "))
		return nil
	}
	if remedy == "" {
		remedy = "add logs that excite them, or hold them with -fix " + strings.Join(bad, ",")
	}
	return fmt.Errorf("%s not determined by these logs (σ wider than the plausible range, or no excitation): parameters not written; %s, or pass -allow-undetermined to write them anyway", strings.Join(bad, ", "), remedy)
}

// summary is the block every identify prints (FORMATS.md addition): what
// was fitted, how, the parameters with σ where known, the fit, warnings.
type summary struct {
	Model, Method string
	Data          string // e.g. "3 runs, 5040 rows"
	Params        []param
	Iterations    int
	Evaluations   int
	Elapsed       time.Duration
	Status        string
	Fit           []string // lines about the fit (loss, residual RMS, prediction errors)
	Notes         []string // the model's own extra lines (identifiability, ...)
}

func (s summary) print(w io.Writer, d *diag) {
	fmt.Fprintf(w, "%s identify: %s\n", s.Model, s.Data)
	it := ""
	if s.Iterations > 0 {
		it = fmt.Sprintf(", %d iterations", s.Iterations)
	}
	if s.Evaluations > 0 {
		it += fmt.Sprintf(", %d evaluations", s.Evaluations)
	}
	st := ""
	if s.Status != "" {
		st = ", " + s.Status
	}
	fmt.Fprintf(w, "  method %s%s, %s%s\n", s.Method, it, s.Elapsed.Round(time.Millisecond), st)
	width := 0
	for _, p := range s.Params {
		width = max(width, len([]rune(p.Name)))
	}
	for _, p := range s.Params {
		pad := strings.Repeat(" ", width-len([]rune(p.Name)))
		sd := "σ unknown"
		if !math.IsNaN(p.Std) {
			sd = fmt.Sprintf("± %.3g", p.Std)
		}
		v := p.verdict()
		if v != "" {
			v = "  (" + v + ")"
		}
		fmt.Fprintf(w, "  %s%s = %11.5g %s%s\n", p.Name, pad, p.Value, sd, v)
	}
	for _, l := range s.Fit {
		fmt.Fprintf(w, "  %s\n", l)
	}
	for _, l := range s.Notes {
		fmt.Fprintf(w, "  %s\n", l)
	}
	if n := len(d.warns); n > 0 {
		fmt.Fprintf(w, "  %d warning(s) (on stderr): check the log's units and gaps before trusting these numbers\n", n)
	} else {
		fmt.Fprintf(w, "  no warnings\n")
	}
}

// reportWriter is where the summary goes: stdout, or stderr when the
// parameters go to stdout.
func reportWriter(e env, a IdentifyArgs) io.Writer {
	if a.Out == "-" || a.Out == "" {
		return e.stderr
	}
	return e.stdout
}

// failureHint adds the likely causes to a numerical failure of the
// optimiser (a NaN or Inf loss).
func failureHint(err error) error {
	if err == nil {
		return nil
	}
	s := err.Error()
	if strings.Contains(s, "NaN") || strings.Contains(s, "Inf") || strings.Contains(s, "not finite") {
		return fmt.Errorf("%w — the model blew up: usually inputs in the wrong units (rpm or deg/s for rad/s, mm for m, ms for s, joystick commands not normalised to [-1, 1]) or a start point in -init far from plausible values", err)
	}
	return err
}

// fixedSet parses -fix and -free into the set of held parameters, given
// the names the model identifies. -free lists the identified ones (the rest
// are held); both name parameters as the summary does.
func fixedSet(names []string, fix, free string) (map[string]bool, error) {
	split := func(s string) []string {
		var out []string
		for _, f := range strings.Split(s, ",") {
			if f = strings.TrimSpace(f); f != "" {
				out = append(out, f)
			}
		}
		return out
	}
	fx, fr := split(fix), split(free)
	if len(fx) > 0 && len(fr) > 0 {
		return nil, usagef("-fix and -free exclude each other")
	}
	check := func(flag string, l []string) error {
		for _, n := range l {
			if !slices.Contains(names, n) {
				return usagef("-%s %s: unknown parameter (this model identifies %s)", flag, n, strings.Join(names, ", "))
			}
		}
		return nil
	}
	if err := check("fix", fx); err != nil {
		return nil, err
	}
	if err := check("free", fr); err != nil {
		return nil, err
	}
	held := map[string]bool{}
	for _, n := range fx {
		held[n] = true
	}
	if len(fr) > 0 {
		for _, n := range names {
			held[n] = !slices.Contains(fr, n)
		}
	}
	if len(held) > 0 {
		all := true
		for _, n := range names {
			all = all && held[n]
		}
		if all {
			return nil, usagef("-fix/-free leave no parameter to identify")
		}
	}
	return held, nil
}

// tableRowErr positions a message at a row of a table.
func tableRowErr(tab *dataset.Table, offset int) func(int, string) error {
	return func(row int, msg string) error { return tab.Errorf(offset+row, "t", "%s", msg) }
}
