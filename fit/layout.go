package fit

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
)

// Layout and data checks of a log that a wrong layout or a stretch of
// other driving would otherwise turn into wrong numbers or a misleading
// unit warning (issue 28, a real robot's log as a new user brings it).

// StaleCountWarning is StaleWarning over many runs of one file: n of total
// poses repeat the previous one, said once for the file (not once per run:
// DRIVE's 360 windows gave 360 lines).
func StaleCountWarning(file string, n, total, runs int) []Warning {
	if total == 0 || 10*n <= total {
		return nil
	}
	over := ""
	if runs > 1 {
		over = fmt.Sprintf(" over %d runs", runs)
	}
	return []Warning{Warnf(file, "%d of %d poses (%.0f %%)%s repeat the previous pose exactly: a pose sensor slower than the log's rate, or a frozen one; they carry no new measurement, yet count as poses where the robot stood still",
		n, total, 100*float64(n)/float64(total), over)}
}

// JumpsBack returns the rows at which the pose jumps back to the run's
// first pose: a step between fresh poses longer than 10× their median step
// (and than 5 cm) that lands within a tenth of its length of where the run
// started. Several runs concatenated on one clock without a traj column
// look like this (DRIVE's windows, each starting at 0).
func JumpsBack(x, y []float64, rows []int) []int {
	rows = freshRows(rows, x, y)
	if len(rows) < 3 {
		return nil
	}
	steps := make([]float64, 0, len(rows)-1)
	for i := 1; i < len(rows); i++ {
		steps = append(steps, math.Hypot(x[rows[i]]-x[rows[i-1]], y[rows[i]]-y[rows[i-1]]))
	}
	big := math.Max(10*median(slices.Clone(steps)), 0.05)
	x0, y0 := x[rows[0]], y[rows[0]]
	var out []int
	for i := 1; i < len(rows); i++ {
		jump := steps[i-1]
		if jump > big && math.Hypot(x[rows[i]]-x0, y[rows[i]]-y0) < jump/10 {
			out = append(out, rows[i])
		}
	}
	return out
}

// JumpsBackWarning warns of JumpsBack in a run without a traj column,
// naming the first lines (line maps a row to its file line).
func JumpsBackWarning(file string, x, y []float64, rows []int, line func(int) int) []Warning {
	j := JumpsBack(x, y, rows)
	if len(j) == 0 {
		return nil
	}
	var at []string
	for _, r := range j[:min(3, len(j))] {
		at = append(at, fmt.Sprint(line(r)))
	}
	more := ""
	if len(j) > 3 {
		more = ", …"
	}
	return []Warning{Warnf(file, "the poses jump back to the run's start %d time(s) (lines %s%s): several runs concatenated in one file? give each run its own traj value (a traj column, or -columns traj=COLUMN); read as one run, the jumps are fitted as motion",
		len(j), strings.Join(at, ", "), more)}
}

// Span is a stretch of a log, in its time unit (s).
type Span struct{ From, To float64 }

// CommandMotionSpans finds the stretches where the motion and the commands
// disagree: moving (a speed between fresh poses above 0.05 m/s, or a turn
// rate above 0.05 rad/s) while every command is zero — driven by hand or
// by another controller — and standing while a command is non-zero (a
// robot switched off, e-stopped or stuck). zero says whether row k's
// commands are all zero. Only stretches of at least minDur seconds count.
func CommandMotionSpans(t, x, y, psi []float64, rows []int, zero func(k int) bool, minDur float64) (manual, standing []Span) {
	if len(rows) == 0 {
		return nil, nil
	}
	last := rows[len(rows)-1:]
	rows = freshRows(rows, x, y, psi)
	if len(last) == 1 && rows[len(rows)-1] != last[0] {
		rows = append(rows, last[0]) // a log that ends standing
	}
	if len(rows) < 2 {
		return nil, nil
	}
	moving := make([]int8, len(t)) // 0 unknown, 1 moving, -1 standing
	for i := 1; i < len(rows); i++ {
		a, b := rows[i-1], rows[i]
		dt := t[b] - t[a]
		if !(dt > 0) {
			continue
		}
		v := math.Hypot(x[b]-x[a], y[b]-y[a]) / dt
		w := math.Abs(psi[b]-psi[a]) / dt
		m := int8(-1)
		if v > 0.05 || w > 0.05 {
			m = 1
		}
		for k := a + 1; k <= b; k++ {
			moving[k] = m
		}
	}
	return motionSpans(t, moving, zero, minDur)
}

// CommandSpeedSpans is CommandMotionSpans for a velocity model's log, whose
// motion is measured as a forward speed v (m/s) and a turn rate w (rad/s)
// at the rows given (diffdrive's wheel speeds, the Pioneer's v, w): moving
// where |v| > 0.05 m/s or |w| > 0.05 rad/s.
func CommandSpeedSpans(t, v, w []float64, rows []int, zero func(k int) bool, minDur float64) (manual, standing []Span) {
	moving := make([]int8, len(t))
	for _, k := range rows {
		if math.IsNaN(v[k]) || math.IsNaN(w[k]) {
			continue
		}
		moving[k] = -1
		if math.Abs(v[k]) > 0.05 || math.Abs(w[k]) > 0.05 {
			moving[k] = 1
		}
	}
	return motionSpans(t, moving, zero, minDur)
}

// motionSpans collects the stretches of at least minDur s where moving
// (1 moving, -1 standing, 0 unknown) and the commands (zero) disagree.
func motionSpans(t []float64, moving []int8, zero func(k int) bool, minDur float64) (manual, standing []Span) {
	collect := func(want int8, cmdZero bool) []Span {
		var out []Span
		start := -1
		flush := func(end int) {
			if start >= 0 && t[end]-t[start] >= minDur {
				out = append(out, Span{t[start], t[end]})
			}
			start = -1
		}
		for k := range t {
			ok := moving[k] == want && zero(k) == cmdZero
			switch {
			case ok && start < 0:
				start = k
			case !ok && start >= 0:
				flush(k - 1)
			}
		}
		if start >= 0 {
			flush(len(t) - 1)
		}
		return out
	}
	return collect(1, true), collect(-1, false)
}

// CommandMotionWarnings says CommandMotionSpans, each kind with its total
// time and its longest stretches: to be given before any unit warning,
// which such stretches would otherwise mislead (45 s of manual driving
// read as poses in mm).
func CommandMotionWarnings(file string, t, x, y, psi []float64, rows []int, zero func(k int) bool) []Warning {
	manual, standing := CommandMotionSpans(t, x, y, psi, rows, zero, 1)
	return spanWarnings(file, t, manual, standing)
}

// CommandSpeedWarnings is CommandMotionWarnings for a velocity model's log
// (CommandSpeedSpans): to be given before any unit warning.
func CommandSpeedWarnings(file string, t, v, w []float64, rows []int, zero func(k int) bool) []Warning {
	manual, standing := CommandSpeedSpans(t, v, w, rows, zero, 1)
	return spanWarnings(file, t, manual, standing)
}

func spanWarnings(file string, t []float64, manual, standing []Span) []Warning {
	var out []Warning
	say := func(sp []Span, what, why string) {
		if len(sp) == 0 {
			return
		}
		total := 0.0
		for _, s := range sp {
			total += s.To - s.From
		}
		long := append([]Span(nil), sp...)
		sort.SliceStable(long, func(i, j int) bool { return long[i].To-long[i].From > long[j].To-long[j].From })
		var at []string
		for _, s := range long[:min(3, len(long))] {
			at = append(at, fmt.Sprintf("%.1f–%.1f s", s.From-t[0], s.To-t[0]))
		}
		more := ""
		if len(long) > 3 {
			more = fmt.Sprintf(" and %d more", len(long)-3)
		}
		out = append(out, Warnf(file, "the robot %s for %.3g s in %d stretch(es) (%s%s after the run's first row): %s; leave them out (-where, -from, -to) before trusting the fit or the unit checks",
			what, total, len(sp), strings.Join(at, ", "), more, why))
	}
	say(manual, "moves while every command is zero", "driven by hand or by another controller?")
	say(standing, "stands still while commanded to move", "switched off, e-stopped or stuck?")
	return out
}

// RunOutliers returns the indices of the runs whose error lies far above
// the others': above the median plus k robust standard deviations (1.4826
// times the median absolute deviation). With fewer than 5 runs, none.
func RunOutliers(errs []float64, k float64) []int {
	var v []float64
	for _, e := range errs {
		if !math.IsNaN(e) {
			v = append(v, e)
		}
	}
	if len(v) < 5 {
		return nil
	}
	m := median(v)
	dev := make([]float64, len(v))
	for i, e := range v {
		dev[i] = math.Abs(e - m)
	}
	s := madScale * median(dev)
	if s == 0 {
		return nil
	}
	var out []int
	for i, e := range errs {
		if e > m+k*s {
			out = append(out, i)
		}
	}
	return out
}

// RunOutlierWarnings names the runs (by their traj ids) whose endpoint
// error is an outlier among the runs' (RunOutliers, 5 robust σ), the worst
// first: a mislabelled or disturbed run dominates a mean.
func RunOutlierWarnings(file string, ids []string, endpoint []float64) []Warning {
	o := RunOutliers(endpoint, 5)
	if len(o) == 0 {
		return nil
	}
	sort.SliceStable(o, func(i, j int) bool { return endpoint[o[i]] > endpoint[o[j]] })
	var at []string
	for _, i := range o[:min(5, len(o))] {
		at = append(at, fmt.Sprintf("%s (%.3g m)", ids[i], endpoint[i]))
	}
	more := ""
	if len(o) > 5 {
		more = fmt.Sprintf(" and %d more", len(o)-5)
	}
	m := median(nonNaN(endpoint))
	return []Warning{Warnf(file, "%d run(s) end far from the others' endpoint errors (median %.3g m): %s%s; look at them (a mislabelled command, a slip, a pose glitch) before trusting a mean",
		len(o), m, strings.Join(at, ", "), more)}
}

func nonNaN(v []float64) []float64 {
	var out []float64
	for _, e := range v {
		if !math.IsNaN(e) {
			out = append(out, e)
		}
	}
	return out
}

// WorseThanNominal warns when a calibration predicts its own data worse
// than the nominal model it started from (what: the error's name, e.g.
// "2-s prediction error (RMS)"): the fit minimised something else than
// this error, or the data do not support the model.
func WorseThanNominal(file, what string, nominal, calibrated float64, unit string) []Warning {
	if !(calibrated > nominal) || nominal <= 0 {
		return nil
	}
	return []Warning{Warnf(file, "the calibration predicts its own data worse than the nominal model: %s %.4g %s calibrated vs %.4g %s nominal; the fit's objective is not this error, or the log does not support the model (stale poses, a stretch of other driving, too little excitation)",
		what, calibrated, unit, nominal, unit)}
}

// OutlierWarnings names the runs whose endpoint error is far above the
// others' (RunOutlierWarnings: median + 5 robust σ, at least 5 runs), by
// their IDs; file names the logs.
func (v *Validation) OutlierWarnings(file string) []Warning {
	ids := make([]string, len(v.Runs))
	ep := make([]float64, len(v.Runs))
	for i, m := range v.Runs {
		ids[i], ep[i] = runName(m.ID, i), m.Endpoint
	}
	return RunOutlierWarnings(file, ids, ep)
}
