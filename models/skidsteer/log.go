package skidsteer

import (
	"fmt"
	"math"

	"github.com/wheelgrad/wheelgrad/dataset"
)

// Log is a FORMATS.md skidsteer log: commands vc, wc holding from T[i] to
// T[i+1], and a pose where HasPose[i] (e.g. 10-Hz visual odometry).
type Log struct {
	T, Vc, Wc []float64
	Pose      []Pose
	HasPose   []bool
	// Wl, Wr are the measured wheel speeds (rad/s) of a log in wheel-speed
	// form (Vc, Wc come from them), and WlCmd, WrCmd the commanded ones
	// where the log has wl_cmd, wr_cmd; nil when absent. LagModel predicts
	// from the commands, starting from the first measured speeds.
	Wl, Wr, WlCmd, WrCmd []float64
}

// maxSpeed bounds |vc| (m/s) and |wc| (rad/s): beyond it a log is surely in
// other units.
const maxSpeed = 100

// NewLog checks and assembles a log. x, y, psi may be nil (no poses); a NaN
// marks a row without a pose, and a row must have all three or none. Times
// must be finite and strictly increasing. A bad row is a *dataset.RowError
// (Run.Err names its file and line).
func NewLog(t, vc, wc, x, y, psi []float64) (*Log, error) {
	n := len(t)
	if n == 0 {
		return nil, &dataset.RowError{Row: 0, Column: "t", Msg: "no rows"}
	}
	if len(vc) != n || len(wc) != n {
		return nil, fmt.Errorf("skidsteer: %d times, %d vc, %d wc", n, len(vc), len(wc))
	}
	hasPoseCols := x != nil || y != nil || psi != nil
	if hasPoseCols && (len(x) != n || len(y) != n || len(psi) != n) {
		return nil, fmt.Errorf("skidsteer: pose columns need all of x, y, psi with %d rows", n)
	}
	l := &Log{T: t, Vc: vc, Wc: wc, Pose: make([]Pose, n), HasPose: make([]bool, n)}
	for i := range n {
		if math.IsNaN(t[i]) || math.IsInf(t[i], 0) {
			return nil, &dataset.RowError{Row: i, Column: "t", Msg: "time is not finite"}
		}
		if i > 0 && !(t[i] > t[i-1]) {
			return nil, &dataset.RowError{Row: i, Column: "t", Msg: "time not strictly increasing"}
		}
		for _, c := range []struct {
			name string
			v    float64
		}{{"vc", vc[i]}, {"wc", wc[i]}} {
			if math.IsNaN(c.v) || math.IsInf(c.v, 0) || math.Abs(c.v) > maxSpeed {
				return nil, &dataset.RowError{Row: i, Column: c.name, Msg: fmt.Sprintf("command %g is not finite or beyond ±%d", c.v, maxSpeed)}
			}
		}
		if !hasPoseCols {
			continue
		}
		nanX, nanY, nanP := math.IsNaN(x[i]), math.IsNaN(y[i]), math.IsNaN(psi[i])
		if nanX && nanY && nanP {
			continue
		}
		for _, c := range []struct {
			name string
			v    float64
			nan  bool
		}{{"x", x[i], nanX}, {"y", y[i], nanY}, {"psi", psi[i], nanP}} {
			if c.nan {
				return nil, &dataset.RowError{Row: i, Column: c.name, Msg: "pose is incomplete: x, y and psi must be all present or all empty"}
			}
			if math.IsInf(c.v, 0) {
				return nil, &dataset.RowError{Row: i, Column: c.name, Msg: "not finite"}
			}
		}
		l.Pose[i] = Pose{x[i], y[i], psi[i]}
		l.HasPose[i] = true
	}
	return l, nil
}

// PoseRows returns the indices of the rows with a pose.
func (l *Log) PoseRows() []int {
	var r []int
	for i, h := range l.HasPose {
		if h {
			r = append(r, i)
		}
	}
	return r
}

// Intervals are the IPEM measurements of a log: the pose change between pose
// samples span apart (non-overlapping, so that their noise is independent
// when the pose noise is a random walk, as with visual odometry), expressed in
// the frame of the first, and the commands in between as windows.
type Intervals struct {
	Windows *Windows
	Z       []Pose // measured pose change of each window
	From    []int  // row of each window's first pose
	To      []int  // row of each window's last pose
	Len     []int  // command rows of each window (the rest is padding)
}

// Intervals builds the measurements of the log. maxSteps bounds the command
// rows between two pose samples (the window graph is unrolled over them); 0
// means no bound.
func (l *Log) Intervals(span, maxSteps int) (*Intervals, error) {
	if span < 1 {
		span = 1
	}
	rows := l.PoseRows()
	if len(rows) < span+1 {
		return nil, &dataset.RowError{Row: len(l.T) - 1, Column: "x", Msg: fmt.Sprintf("the log has %d pose rows; calibration needs at least %d", len(rows), span+1)}
	}
	nw := (len(rows) - 1) / span
	steps := 0
	for k := range nw {
		steps = max(steps, rows[(k+1)*span]-rows[k*span])
	}
	if maxSteps > 0 && steps > maxSteps {
		for k := range nw {
			if rows[(k+1)*span]-rows[k*span] > maxSteps {
				return nil, &dataset.RowError{Row: rows[(k+1)*span], Column: "x", Msg: fmt.Sprintf("%d command rows since the previous pose (row %d); at most %d are integrated per interval", rows[(k+1)*span]-rows[k*span], rows[k*span], maxSteps)}
			}
		}
	}
	iv := &Intervals{Windows: NewWindows(nw, steps), Z: make([]Pose, nw), From: make([]int, nw), To: make([]int, nw), Len: make([]int, nw)}
	ws := iv.Windows
	for k := range nw {
		a, b := rows[k*span], rows[(k+1)*span]
		iv.From[k], iv.To[k], iv.Len[k] = a, b, b-a
		rot := 0.0
		for s, i := 0, a; i < b; s, i = s+1, i+1 {
			j := s*nw + k
			ws.Vc[j], ws.Wc[j], ws.Dt[j] = l.Vc[i], l.Wc[i], l.T[i+1]-l.T[i]
			rot += ws.Wc[j] * ws.Dt[j]
		}
		z := Relative(l.Pose[a], l.Pose[b])
		// Unwrap the measured heading change to the branch nearest the
		// commanded rotation, so that a window turning by more than π is
		// compared with its prediction on the right branch.
		z.Psi += 2 * math.Pi * math.Round((rot-z.Psi)/(2*math.Pi))
		iv.Z[k] = z
	}
	return iv, nil
}

// Window copies the commands of interval k (without padding) into vc, wc,
// dt, which are grown as needed, and returns them.
func (iv *Intervals) Window(k int, vc, wc, dt []float64) ([]float64, []float64, []float64) {
	ws := iv.Windows
	vc, wc, dt = vc[:0], wc[:0], dt[:0]
	for s := range iv.Len[k] {
		j := s*ws.W + k
		vc, wc, dt = append(vc, ws.Vc[j]), append(wc, ws.Wc[j]), append(dt, ws.Dt[j])
	}
	return vc, wc, dt
}
