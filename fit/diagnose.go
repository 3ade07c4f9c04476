package fit

import (
	"fmt"
	"math"
	"slices"

	"github.com/wheelgrad/wheelgrad/dataset"
)

// TimeUnits warns about a time column that steps like milliseconds (a
// median step over 0.5 s).
func TimeUnits(file string, t []float64) []Warning {
	if med := dataset.MedianStep(t); med > 0.5 {
		return []Warning{Warnf(file, "t steps by a median %.4g s between rows: is t in milliseconds? (FORMATS.md: seconds; a robot log steps by milliseconds)", med)}
	}
	return nil
}

// Scale compares a measured amount of motion with what the commands
// predict under the nominal model (ratio measured/predicted). Friction and
// slip make the ratio somewhat below 1; beyond [1/5, 3] the units are
// probably wrong. big and small say what probably is.
func Scale(file, what string, measured, predicted float64, big, small string) []Warning {
	if !(predicted > 1e-9) || !(measured >= 0) {
		return nil
	}
	r := measured / predicted
	switch {
	case r > 3:
		return []Warning{Warnf(file, "the measured %s is %.3g× what the commands predict: %s", what, r, big)}
	case r < 0.2:
		return []Warning{Warnf(file, "the measured %s is %.3g× what the commands predict: %s", what, r, small)}
	}
	return nil
}

// Chord sums the distances and heading changes between pose samples at
// rows at least minDt apart (the camera noise then adds little). th may be
// nil (no heading). A heading step is unwrapped by 2π only when that leaves
// less than half a radian: a log in degrees keeps its large steps.
func Chord(t, x, y, th []float64, rows []int, minDt float64) (dist, turn float64) {
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

// freshRows returns the rows whose values differ from the previous fresh
// row's in at least one of cols (the first row is fresh).
func freshRows(rows []int, cols ...[]float64) []int {
	out := make([]int, 0, len(rows))
	for i, r := range rows {
		if i > 0 {
			prev := out[len(out)-1]
			same := true
			for _, c := range cols {
				if c[r] != c[prev] {
					same = false
					break
				}
			}
			if same {
				continue
			}
		}
		out = append(out, r)
	}
	return out
}

// StalePoses counts the rows whose x, y repeat the previous row's exactly:
// a pose sensor slower than the log's rate re-logging its last value (52 %
// of the rows of DRIVE's Warthog recording). Such rows carry no new
// measurement.
func StalePoses(x, y []float64, rows []int) int {
	return len(rows) - len(freshRows(rows, x, y))
}

// StaleWarning warns when more than a tenth of the pose rows repeat the
// previous pose exactly (StalePoses): a model fitted to them sees the robot
// stand still between sensor updates.
func StaleWarning(file string, x, y []float64, rows []int) []Warning {
	n := StalePoses(x, y, rows)
	if len(rows) == 0 || 10*n <= len(rows) {
		return nil
	}
	return []Warning{Warnf(file, "%d of %d poses (%.0f %%) repeat the previous pose exactly: a pose sensor slower than the log's rate, or a frozen one; they carry no new measurement, yet count as poses where the robot stood still",
		n, len(rows), 100*float64(n)/float64(len(rows)))}
}

// madScale turns a median absolute deviation into the standard deviation
// of a normal distribution: 1/Φ⁻¹(3/4).
const madScale = 1.482602218505602

// PoseNoise estimates the position noise (m) of the samples at rows from
// their second differences Δ = p[k] − 2p[k−1] + p[k−2], which on a smooth
// path are white noise of variance 6σ². It is robust: σ_Δ is the median
// absolute deviation of the Δ of each coordinate from their median (times
// 1.4826, exact for normal noise), so one outlier or a jump does not
// dominate, and a steady curvature does not count as noise. A sample that
// repeats the previous one exactly (a stale pose: a sensor slower than the
// log's rate re-logs its last value) is skipped — otherwise half the second
// differences are exact zeros and the estimate reads 0. NaN with fewer
// than three fresh samples.
func PoseNoise(x, y []float64, rows []int) float64 {
	rows = freshRows(rows, x, y)
	if len(rows) < 3 {
		return math.NaN()
	}
	dev := make([]float64, 0, 2*(len(rows)-2))
	for _, p := range [][]float64{x, y} {
		d := make([]float64, 0, len(rows)-2)
		for i := 2; i < len(rows); i++ {
			a, b, c := rows[i-2], rows[i-1], rows[i]
			if v := p[c] - 2*p[b] + p[a]; !math.IsNaN(v) {
				d = append(d, v)
			}
		}
		m := median(d)
		for _, v := range d {
			dev = append(dev, math.Abs(v-m))
		}
	}
	if len(dev) == 0 {
		return math.NaN()
	}
	return madScale * median(dev) / math.Sqrt(6)
}

// AngleNoise estimates the noise (rad) of heading samples at rows as
// PoseNoise does, from second differences wrapped to (−π, π]: robust to an
// outlier, a wrap-around or a steady turn. A heading logged in degrees
// shows as a scatter of tenths of a radian or more. NaN with fewer than
// three fresh samples (repeats of the previous sample are skipped, as in
// PoseNoise).
func AngleNoise(th []float64, rows []int) float64 {
	rows = freshRows(rows, th)
	if len(rows) < 3 {
		return math.NaN()
	}
	d := make([]float64, 0, len(rows)-2)
	for i := 2; i < len(rows); i++ {
		v := th[rows[i]] - 2*th[rows[i-1]] + th[rows[i-2]]
		if v -= 2 * math.Pi * math.Round(v/(2*math.Pi)); !math.IsNaN(v) {
			d = append(d, v)
		}
	}
	m := median(d)
	for i, v := range d {
		d[i] = math.Abs(v - m)
	}
	if len(d) == 0 {
		return math.NaN()
	}
	return madScale * median(d) / math.Sqrt(6)
}

// NoiseStd estimates the standard deviation of white noise on samples of
// smooth signals from their second differences Δ²x = x[k−1] − 2x[k] + x[k+1]
// (variance 6σ² for white noise), robustly: 1.4826 × the median absolute
// deviation of all the sequences' Δ²x from their common median, / √6, so
// that a jump or an outlier does not count. NaN cells are skipped (the
// differences span them). NaN when no sequence has three samples.
func NoiseStd(seqs ...[]float64) float64 {
	var d []float64
	for _, s := range seqs {
		var v []float64
		for _, x := range s {
			if !math.IsNaN(x) {
				v = append(v, x)
			}
		}
		for i := 1; i+1 < len(v); i++ {
			d = append(d, v[i-1]-2*v[i]+v[i+1])
		}
	}
	if len(d) == 0 {
		return math.NaN()
	}
	m := median(d)
	for i, v := range d {
		d[i] = math.Abs(v - m)
	}
	return madScale * median(d) / math.Sqrt(6)
}

// median of v (v is reordered); NaN when empty.
func median(v []float64) float64 {
	n := len(v)
	if n == 0 {
		return math.NaN()
	}
	slices.Sort(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// ResidualNoise warns when a fit's residual RMS is over 10× the
// measurement noise (and above floor, in the same unit): the model does not
// explain the log.
func ResidualNoise(what string, rms, noise, floor float64, unit string) []Warning {
	if rms > 10*noise && rms > floor {
		return []Warning{Warnf("", "the %s residual RMS %.3g %s is %.0f× the measurement noise (≈%.2g %s, from the samples' scatter): the model does not explain these logs — wrong units, a time gap, a wrong constant in -init, or motion the model lacks?",
			what, rms, unit, rms/noise, noise, unit)}
	}
	return nil
}

// MaxAbs is the largest |v| over the values that are not NaN.
func MaxAbs(v ...[]float64) float64 {
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

// NoMotion is the error of a log in which nothing moves (what says which
// columns): no parameter can be identified from it, and the start values
// would come back unchanged as if calibrated.
func NoMotion(file, what string) error {
	return fmt.Errorf("%s: %s: nothing in the log excites the model, so no parameter can be identified (the start values would come back unchanged)", file, what)
}

// poseDeviation is a fresh position sample's deviation from the path
// between its fresh neighbours a, c interpolated at its time: e = p[b] −
// (wa·p[a] + wc·p[c]), wa = (t[c]−t[b])/(t[c]−t[a]), wc = 1 − wa (the
// midpoint, wa = wc = ½, when t is nil or not increasing). For white noise
// σ each coordinate of e has standard deviation s·σ, s = √(1 + wa² + wc²)
// (√(3/2) at the midpoint).
type poseDeviation struct {
	ex, ey float64 // deviation (m)
	s      float64 // noise scale √(1 + wa² + wc²)
	reach  float64 // how far p[b] lies beyond the positions reachable between a and c (m); +Inf without a speed
}

// deviation of sample b between a and c. reach is the excess of the path
// a → b → c over what a robot of speed at most speed covers in t[c] − t[a]
// (or over the chord when that is longer): |p[b]−p[a]| + |p[c]−p[b]| −
// max(speed·(t[c]−t[a]), |p[c]−p[a]|). It is positive only outside the
// ellipse of points the robot can visit between the two samples, whatever
// time b was taken at: a tracker that stamps its poses on arrival (an ICP
// delivered late and in bursts) moves b along the path, not off it.
func deviation(t, x, y []float64, a, b, c int, speed float64) poseDeviation {
	wa := 0.5
	reach := math.Inf(1)
	if t != nil && t[c] > t[a] {
		if t[b] >= t[a] && t[c] >= t[b] {
			wa = (t[c] - t[b]) / (t[c] - t[a])
		}
		if speed > 0 {
			ab := math.Hypot(x[b]-x[a], y[b]-y[a])
			bc := math.Hypot(x[c]-x[b], y[c]-y[b])
			ac := math.Hypot(x[c]-x[a], y[c]-y[a])
			reach = ab + bc - max(speed*(t[c]-t[a]), ac)
		}
	}
	wc := 1 - wa
	return poseDeviation{
		ex:    x[b] - (wa*x[a] + wc*x[c]),
		ey:    y[b] - (wa*y[a] + wc*y[c]),
		s:     math.Sqrt(1 + wa*wa + wc*wc),
		reach: reach,
	}
}

// poseDeviations are the deviations of the fresh samples rows[1:n−1] (rows
// already fresh) and the noise σ estimated robustly from them: 1.4826 ×
// the median absolute deviation of e/s per coordinate from its median. On
// evenly timed samples this is PoseNoise; on a sparse tracker of a moving
// robot the motion between samples inflates it (a conservative outlier
// test).
func poseDeviations(t, x, y []float64, rows []int, speed float64) ([]poseDeviation, float64) {
	n := len(rows)
	if n < 3 {
		return nil, math.NaN()
	}
	devs := make([]poseDeviation, n)
	var dx, dy []float64
	for i := 1; i < n-1; i++ {
		d := deviation(t, x, y, rows[i-1], rows[i], rows[i+1], speed)
		devs[i] = d
		if !math.IsNaN(d.ex) && !math.IsNaN(d.ey) && !math.IsInf(d.ex, 0) && !math.IsInf(d.ey, 0) {
			dx, dy = append(dx, d.ex/d.s), append(dy, d.ey/d.s)
		}
	}
	var all []float64
	for _, d := range [][]float64{dx, dy} {
		m := median(slices.Clone(d))
		for _, v := range d {
			all = append(all, math.Abs(v-m))
		}
	}
	return devs, madScale * median(all)
}

// PoseOutliers returns the rows (of rows) whose position is a tracker's
// outlier by two tests, both failed:
//   - noise: it lies off the path between its fresh neighbours,
//     interpolated at its time, by more than k standard deviations of the
//     deviation's noise (σ estimated from the samples themselves, robustly:
//     one outlier does not move it);
//   - motion (when t is given and speed > 0): it lies, by more than the
//     same k deviations, outside the positions a robot of speed at most
//     speed (m/s) can visit in the time between its neighbours.
//
// A dense tracker (motion capture, a 60-fps camera) is judged by the first
// test, the second allowing speed·Δt (a few cm); a sparse tracker of a
// moving robot (a 1-Hz ICP, poses stamped on arrival) deviates from the
// interpolated path by its motion and its timing, which the second test
// allows. t may be nil (samples evenly timed, no motion test). A single
// outlier A shows as e = A at its row and less at each neighbour: only the
// largest of three adjacent deviations is returned. Repeats of the
// previous pose (a tracker slower than the log) are skipped. For normal
// noise a sample is a false alarm with probability e^(−k²/2) (the Rayleigh
// tail of the 2-D deviation): 1.5·10⁻⁸ for k = 6. None when σ is not
// positive.
func PoseOutliers(t, x, y []float64, rows []int, k, speed float64) []int {
	out, _, _ := poseOutliers(t, x, y, rows, k, speed)
	return out
}

func poseOutliers(t, x, y []float64, rows []int, k, speed float64) ([]int, []poseDeviation, float64) {
	rows = freshRows(rows, x, y)
	devs, sigma := poseDeviations(t, x, y, rows, speed)
	if !(sigma > 0) {
		return nil, nil, sigma
	}
	n := len(rows)
	size := make([]float64, n)
	for i := 1; i < n-1; i++ {
		size[i] = math.Hypot(devs[i].ex, devs[i].ey)
	}
	var idx []int
	var sel []poseDeviation
	for i := 1; i < n-1; i++ {
		lim := k * devs[i].s * sigma
		if size[i] > lim && devs[i].reach > lim && size[i] >= size[i-1] && size[i] >= size[i+1] {
			idx, sel = append(idx, rows[i]), append(sel, devs[i])
		}
	}
	return idx, sel, sigma
}

// OutlierK is the threshold of PoseOutlierWarnings in standard deviations of
// the pose noise: a false alarm per 7·10⁷ samples of normal noise.
const OutlierK = 6

// PoseOutlierWarnings warns of each position sample that is a tracker's
// outlier (PoseOutliers with k = OutlierK): off the path between its
// neighbours beyond the pose noise, and beyond where the robot, at speed
// at most speed (m/s, its limit; 0: no motion test), could have been
// between them. A least-squares fit follows such a sample (one 1.9 m off
// among 2,000 moved a tyre fit's stiffnesses 2.4×, issue 26.2). t gives the
// samples' times, so that a sparse tracker on a moving robot (the
// Warthog's ICP, fresh poses at ~1.4 Hz stamped on arrival) is judged
// against the motion between its samples. Each warning names the file's
// line (line maps a row index to it; nil: the row index + 1) and the
// columns x, y; at most five are listed, the rest counted in the last.
func PoseOutlierWarnings(file string, t, x, y []float64, rows []int, speed float64, line func(row int) int) []Warning {
	out, devs, sigma := poseOutliers(t, x, y, rows, OutlierK, speed)
	var ws []Warning
	for n, r := range out {
		if n == 5 {
			ws = append(ws, Warnf(file, "%d more position outliers like these (%d in all): the fit follows them; remove those rows or cut the spans out (-from/-to)", len(out)-n, len(out)))
			break
		}
		d := devs[n]
		size := math.Hypot(d.ex, d.ey)
		ln := r + 1
		if line != nil {
			ln = line(r)
		}
		motion := ""
		if !math.IsInf(d.reach, 1) {
			motion = fmt.Sprintf(", %.3g m beyond where the robot can be between them at %.3g m/s", d.reach, speed)
		}
		ws = append(ws, Warning{File: file, Row: ln, Msg: fmt.Sprintf(
			"columns x, y: the position lies %.3g m off its neighbours' path%s, %.0f× the pose noise (%.3g m): a tracker outlier? A least-squares fit follows it: remove the row or cut the span out (-from/-to)",
			size, motion, size/(d.s*sigma), sigma)})
	}
	return ws
}

// SpikeK is the threshold of SpikeWarnings in noise deviations.
const SpikeK = 8

// SpikeWarnings warns of each sample of a measured channel (column) that
// jumps away from both its neighbours, in the same direction, by more than
// SpikeK deviations of the channel's noise (1.4826 × the median absolute
// first difference / √2, which steps and ramps do not move): a glitch or a
// corrupt value (a velocity of 1e30 m/s) that a fit would follow. A step
// is not a spike: it leaves one neighbour. Each warning names the file's
// line (line: nil for row + 1) and the column; at most five are listed.
func SpikeWarnings(file, column string, v []float64, rows []int, line func(int) int) []Warning {
	if len(rows) < 3 {
		return nil
	}
	var d []float64
	for i := 1; i < len(rows); i++ {
		if x := v[rows[i]] - v[rows[i-1]]; !math.IsNaN(x) && !math.IsInf(x, 0) {
			d = append(d, math.Abs(x))
		}
	}
	sigma := madScale * median(d) / math.Sqrt2
	if !(sigma > 0) {
		var mags []float64
		for _, r := range rows {
			mags = append(mags, math.Abs(v[r]))
		}
		sigma = 1e-6 * math.Max(1, median(mags)) // quantised or constant: only gross values
	}
	lim := SpikeK * math.Sqrt2 * sigma
	var ws []Warning
	count := 0
	for i := 1; i < len(rows)-1; i++ {
		a := v[rows[i]] - v[rows[i-1]]
		b := v[rows[i]] - v[rows[i+1]]
		if !(a*b > 0 && math.Min(math.Abs(a), math.Abs(b)) > lim) {
			continue
		}
		count++
		if count > 5 {
			continue
		}
		ln := rows[i] + 1
		if line != nil {
			ln = line(rows[i])
		}
		ws = append(ws, Warning{File: file, Row: ln, Msg: fmt.Sprintf(
			"column %s: %.4g jumps %.3g away from both neighbours (%.0f× the channel's noise, %.3g): a glitch or corrupt value? The fit follows it: fix or remove the row",
			column, v[rows[i]], math.Min(math.Abs(a), math.Abs(b)), math.Min(math.Abs(a), math.Abs(b))/(math.Sqrt2*sigma), sigma)})
	}
	if count > 5 {
		ws = append(ws, Warnf(file, "column %s: %d more spikes like these (%d in all)", column, count-5, count))
	}
	return ws
}
