package calibrate

import (
	"fmt"
	"io"
	"math"

	"github.com/wheelgrad/wheelgrad/dataset"
)

// Commands are the command columns of a diffdrive log (FORMATS.md): the
// joystick's forward and turning commands uf, ul.
var Commands = []string{"uf", "ul"}

// LogSpec is the CSV spec of a diffdrive log or controls file (FORMATS.md):
// t, uf, ul, the measured wheel speeds vr, vl (m/s at the rim; sparse, and
// with needSpeeds required, as identify needs them) and an optional traj
// column splitting runs.
func LogSpec(needSpeeds bool) dataset.Spec {
	return dataset.Spec{Time: "t", Group: "traj", Columns: []dataset.Column{
		{Name: "t"}, {Name: "uf"}, {Name: "ul"},
		{Name: "vr", Optional: !needSpeeds, Sparse: true}, {Name: "vl", Optional: !needSpeeds, Sparse: true},
		{Name: "traj", Optional: true, Text: true}}}
}

// Run is one run of a log: the rows' times, commands and wheel speeds (nil
// when the log has none), and where the rows came from.
type Run struct {
	T, UF, UL, VR, VL []float64
	dataset.Origin
}

// Log returns the run as a calibration log (one run).
func (r Run) Log() Log {
	return Log{UF: r.UF, UL: r.UL, VR: r.VR, VL: r.VL}
}

// RunsFromTable splits a table read with LogSpec (and put on the command
// rows by Grid) into runs, by traj, else one run. vr and vl go together.
func RunsFromTable(tab *dataset.Table) ([]Run, error) {
	if tab.Has("vr") != tab.Has("vl") {
		return nil, tab.Errorf(0, "", "the initial state needs both vr and vl columns")
	}
	ids := tab.TextCol("traj")
	var runs []Run
	for _, rr := range tab.Runs("traj") {
		i, j := rr[0], rr[1]
		cut := func(c string) []float64 {
			if v := tab.Col(c); v != nil {
				return v[i:j]
			}
			return nil
		}
		r := Run{T: cut("t"), UF: cut("uf"), UL: cut("ul"), VR: cut("vr"), VL: cut("vl"), Origin: dataset.Origin{Table: tab, Row: i}}
		if ids != nil {
			r.ID = ids[i]
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// Grid turns an asynchronous diffdrive log (wheel-speed samples on rows of
// their own, or from a separate file) into the model's grid: the rows that
// carry commands, with vr, vl interpolated linearly in time between the
// nearest samples; rows outside the samples' time span are dropped. A log
// without sensor-only rows is returned as it is; with need (identify) it
// must then have vr, vl on every row. Errors name the file, line and column.
func Grid(tab *dataset.Table, need bool) (*dataset.Table, error) {
	vr, vl := tab.Col("vr"), tab.Col("vl")
	if !tab.AnyHeld() {
		if need {
			for i := range vr {
				for _, c := range []struct {
					n string
					v []float64
				}{{"vr", vr}, {"vl", vl}} {
					if math.IsNaN(c.v[i]) {
						return nil, tab.Errorf(i, c.n, "empty cell: the wheel speeds are needed on every row of a synchronous log (or put them on rows of their own, without commands)")
					}
				}
			}
		}
		return tab, nil
	}
	if vr == nil || vl == nil {
		return tab, nil
	}
	t := tab.Col("t")
	keep := make([]bool, len(t))
	nr, nl := make([]float64, len(t)), make([]float64, len(t))
	for _, rr := range tab.Runs("traj") {
		var st []int // sample rows of the run
		for i := rr[0]; i < rr[1]; i++ {
			if math.IsNaN(vr[i]) != math.IsNaN(vl[i]) {
				c := "vr"
				if math.IsNaN(vl[i]) {
					c = "vl"
				}
				return nil, tab.Errorf(i, c, "empty cell: vr and vl go together")
			}
			if !math.IsNaN(vr[i]) {
				st = append(st, i)
			}
		}
		if len(st) < 2 {
			return nil, tab.Errorf(rr[0], "vr", "%d wheel-speed samples in the run: at least 2 are needed to interpolate them onto the command rows", len(st))
		}
		k := 0
		for i := rr[0]; i < rr[1]; i++ {
			if tab.Held(i) || t[i] < t[st[0]] || t[i] > t[st[len(st)-1]] {
				continue
			}
			for k+1 < len(st)-1 && t[st[k+1]] <= t[i] {
				k++
			}
			a, b := st[k], st[k+1]
			w := (t[i] - t[a]) / (t[b] - t[a])
			nr[i], nl[i] = vr[a]+w*(vr[b]-vr[a]), vl[a]+w*(vl[b]-vl[a])
			keep[i] = true
		}
	}
	return tab.Select(keep, map[string][]float64{"vr": nr, "vl": nl}), nil
}

// LogOptions say how ReadLog reads a recording (the asynchronous-stream
// rules of dataset.ReadLog).
type LogOptions struct {
	// NeedSpeeds requires the wheel speeds vr, vl (identify).
	NeedSpeeds bool
	// Sensors is a separate file of wheel speeds (t, vr, vl) merged into
	// the log by time (the command line's -poses); "" for none.
	Sensors string
	// Offset (s) is added to the sensor times before they are merged.
	Offset float64
	// Note receives one-line notes (rows ignored before the first
	// command); nil for none.
	Note io.Writer
	// Columns, when not nil, computes the log's columns from differently
	// named, scaled or expressed logged ones (ros_time in ns, a quaternion,
	// renames), filters rows and cuts a time range: dataset.ColumnMap.
	Columns *dataset.ColumnMap
	// HoldLast keeps sensor rows more than one command period after the
	// last command row, simulated with the last command held; by default
	// they are dropped with a warning on Note (dataset.DropAfterCommands).
	HoldLast bool
	// Cache, when not nil, parses the files once for every read through it
	// (dataset.ReadCache).
	Cache *dataset.ReadCache
}

// ReadLog reads a log split into runs by traj: sensor-only rows and a
// Sensors file are merged by time and the wheel speeds interpolated onto the
// command rows (Grid). Every error names the file, line and column. The
// time step is not judged here: CheckUniform and Resample do that against
// the model's h, and gaps are the caller's policy (Origin.CommandRows).
func ReadLog(path string, o LogOptions) ([]Run, error) {
	tab, err := dataset.ReadLog(path, LogSpec(o.NeedSpeeds), dataset.LogOptions{Commands: Commands, Sensors: o.Sensors, Offset: o.Offset, Note: o.Note, Columns: o.Columns, HoldLast: o.HoldLast, Cache: o.Cache})
	if err != nil {
		return nil, err
	}
	if tab, err = Grid(tab, o.NeedSpeeds); err != nil {
		return nil, err
	}
	if tab.Len() == 0 {
		return nil, &dataset.ParseError{File: path, Err: fmt.Errorf("%w: no row with commands lies within the time span of the wheel-speed samples", dataset.ErrNoRows)}
	}
	return RunsFromTable(tab)
}

// CheckUniform checks that t advances by h on every row of every run
// (FORMATS.md: logs are sampled uniformly at h, Park et al. §III-A) and
// names the first row that breaks it.
func CheckUniform(runs []Run, h float64) error {
	for _, r := range runs {
		for k := 1; k < len(r.T); k++ {
			if dt := r.T[k] - r.T[k-1]; math.Abs(dt-h) > 1e-3*h {
				return r.Errorf(k, "t", "time step %g s from the previous row, but the model's h is %g s (the log must be sampled uniformly at h)", dt, h)
			}
		}
	}
	return nil
}

// CheckStep refuses a run whose median time step is unlike h (by more than
// 20 %), naming the first row whose step is: the log's time unit or rate
// differs from the model's. hSource says where h came from, for the
// message (e.g. "h = 0.06 s, the default").
func CheckStep(r Run, h float64, hSource string) error {
	med := dataset.MedianStep(r.T)
	if med > 0 && math.Abs(med-h) > 0.2*h {
		for k := 1; k < len(r.T); k++ {
			if dt := r.T[k] - r.T[k-1]; math.Abs(dt-h) > 0.2*h {
				return r.Errorf(k, "t", "time step %g s from the previous row (the log's median step is %g s), but the model steps by %s", dt, med, hSource)
			}
		}
	}
	return nil
}

// Resample brings a run onto the model's uniform grid t0 + k·h. Steps
// within 0.1 % of h are taken as they are (the run's own log, worst ≤
// 1e-3·h); timing jitter (every step within 20 % of h) is resampled:
// commands held (zero-order, as the robot applied them), speeds
// interpolated linearly. A step off by more than 20 % is an error naming
// its row; hSource says where h came from. worst is the largest |step − h|.
func Resample(r Run, h float64, hSource string) (lg Log, worst float64, err error) {
	t := r.T
	lg = r.Log()
	for k := 1; k < len(t); k++ {
		dt := t[k] - t[k-1]
		if math.Abs(dt-h) > 0.2*h {
			return lg, 0, r.Errorf(k, "t", "time step %g s from the previous row, but the model steps by %s (the log must be sampled uniformly at h, jitter up to 20 %% is resampled)", dt, hSource)
		}
		worst = max(worst, math.Abs(dt-h))
	}
	if worst <= 1e-3*h {
		return lg, worst, nil
	}
	n := int(math.Floor((t[len(t)-1]-t[0])/h+1e-9)) + 1
	out := Log{UF: make([]float64, n), UL: make([]float64, n), VR: make([]float64, n), VL: make([]float64, n)}
	j := 0
	for k := range n {
		tk := t[0] + float64(k)*h
		for j+1 < len(t) && t[j+1] <= tk {
			j++
		}
		out.UF[k], out.UL[k] = lg.UF[j], lg.UL[j]
		a := 0.0
		if j+1 < len(t) {
			a = (tk - t[j]) / (t[j+1] - t[j])
		}
		lerp := func(v []float64) float64 {
			if j+1 >= len(v) {
				return v[j]
			}
			return v[j] + a*(v[j+1]-v[j])
		}
		out.VR[k], out.VL[k] = lerp(lg.VR), lerp(lg.VL)
	}
	return out, worst, nil
}
