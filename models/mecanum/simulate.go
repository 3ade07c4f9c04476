package mecanum

import (
	"fmt"
	"math"

	"github.com/wheelgrad/wheelgrad/dataset"
)

// Run is one trajectory of a log: control rows (e.g. 240 Hz) whose commands
// hold from the row's time to the next row's, and ground-truth poses on some
// rows (e.g. a 60 Hz camera), NaN elsewhere.
type Run struct {
	T           []float64    // row times, strictly increasing
	W           [][4]float64 // commanded wheel speeds ω_s (rad/s) per row
	X, Y, Theta []float64    // ground-truth pose per row, NaN where none; nil if the log has none
	// Origin names the run (ID, the traj value) and locates its rows in a
	// file for error messages (Table nil for synthetic runs): row i is
	// Table row Row+i.
	dataset.Origin
}

// Check refuses a run whose columns do not fit T (a run built in code;
// ReadLog's runs pass): W as long as T; X, Y, Theta of one length, at most
// T's (shorter: the later rows have no pose, e.g. a start pose alone).
func (r *Run) Check() error {
	n := len(r.T)
	if len(r.W) != n {
		return fmt.Errorf("mecanum: run %q: %d times, %d wheel-speed rows", r.ID, n, len(r.W))
	}
	if m := len(r.X); len(r.Y) != m || len(r.Theta) != m || m > n {
		return fmt.Errorf("mecanum: run %q: %d times, poses x, y, theta of lengths %d, %d, %d", r.ID, n, len(r.X), len(r.Y), len(r.Theta))
	}
	return nil
}

// Len is the number of rows.
func (r *Run) Len() int { return len(r.T) }

// Camera returns the rows that carry a ground-truth pose.
func (r *Run) Camera() []int {
	var k []int
	for i := range r.X {
		if !math.IsNaN(r.X[i]) {
			k = append(k, i)
		}
	}
	return k
}

// Velocity returns the body velocities (v_x, v_y, ω_z) of eqs. 3–4 for the
// commanded wheel speeds w and friction coefficients mu.
func (p Params) Velocity(w, mu [4]float64) (vx, vy, wz float64) {
	b := p.BMatrix()
	k := p.K()
	for j := range 4 {
		om := w[j] * (1 - mu[j]*k)
		vx += b[0][j] * om
		vy += b[1][j] * om
		wz += b[2][j] * om
	}
	return vx, vy, wz
}

// MuAt returns the friction coefficients acting under command w: the
// network's output when the parameters carry one, else Mu.
func (p Params) MuAt(w [4]float64) [4]float64 {
	if p.Friction != nil {
		return p.Friction.Predict(w)
	}
	return [4]float64(p.Mu)
}

// Simulate is the exact native rollout of FORMATS.md: the pose at each row's
// time, before that row's command acts, by explicit Euler with the angle at
// the start of the step (eq. 5). The run is anchored at its first
// ground-truth pose (at whatever row it falls; earlier rows are the same
// Euler steps taken backwards), or starts from x = y = θ = 0 at row 0 when it
// has none.
//
// A run that fails Check (columns of other lengths than T) gives poses that
// are all NaN, which every consumer refuses as non-finite (issue 26.6: an
// index panic before); Check says what is wrong.
func Simulate(p Params, r *Run) (x, y, th []float64) {
	n := r.Len()
	x, y, th = make([]float64, n), make([]float64, n), make([]float64, n)
	if n == 0 {
		return
	}
	if r.Check() != nil {
		for k := range n {
			x[k], y[k], th[k] = math.NaN(), math.NaN(), math.NaN()
		}
		return
	}
	if p.Tau > 0 {
		l := r.Lagged(p.Tau)
		r = &l
	}
	k0 := 0
	if cam := r.Camera(); len(cam) > 0 {
		k0 = cam[0]
		x[k0], y[k0], th[k0] = r.X[k0], r.Y[k0], r.Theta[k0]
	}
	for i := k0; i+1 < n; i++ {
		vx, vy, wz := p.Velocity(r.W[i], p.MuAt(r.W[i]))
		dt := r.T[i+1] - r.T[i]
		s, c := math.Sincos(th[i])
		x[i+1] = x[i] + dt*(c*vx-s*vy)
		y[i+1] = y[i] + dt*(s*vx+c*vy)
		th[i+1] = th[i] + dt*wz
	}
	for i := k0 - 1; i >= 0; i-- {
		vx, vy, wz := p.Velocity(r.W[i], p.MuAt(r.W[i]))
		dt := r.T[i+1] - r.T[i]
		th[i] = th[i+1] - dt*wz
		s, c := math.Sincos(th[i])
		x[i] = x[i+1] - dt*(c*vx-s*vy)
		y[i] = y[i+1] - dt*(s*vx+c*vy)
	}
	return x, y, th
}

// LogSpec is the CSV spec of a mecanum log or controls file (FORMATS.md):
// t, w1..w4, optional sparse x, y, theta, optional traj splitting runs.
// With pose, the x, y, theta columns are required (identify).
func LogSpec(pose bool) dataset.Spec {
	cols := []dataset.Column{{Name: "t"}, {Name: "w1"}, {Name: "w2"}, {Name: "w3"}, {Name: "w4"}}
	for _, c := range []string{"x", "y", "theta"} {
		cols = append(cols, dataset.Column{Name: c, Sparse: true, Optional: !pose})
	}
	cols = append(cols, dataset.Column{Name: "traj", Optional: true, Text: true})
	return dataset.Spec{Columns: cols, Time: "t", Group: "traj"}
}

// RunsFromTable splits a table read with LogSpec into runs (by traj, else one
// run). A row with only some of x, y, theta is an error naming its line and
// the first empty column.
func RunsFromTable(t *dataset.Table) ([]Run, error) {
	n := t.Len()
	tc := t.Col("t")
	w := [4][]float64{t.Col("w1"), t.Col("w2"), t.Col("w3"), t.Col("w4")}
	px, py, pth := t.Col("x"), t.Col("y"), t.Col("theta")
	hasPose := px != nil && py != nil && pth != nil
	if !hasPose && (px != nil || py != nil || pth != nil) {
		for _, c := range []string{"x", "y", "theta"} {
			if t.Col(c) == nil {
				return nil, t.Errorf(0, "", "missing column %q (a pose needs x, y and theta)", c)
			}
		}
	}
	ids := t.TextCol("traj")
	var runs []Run
	for i := 0; i < n; {
		j := i + 1
		for ids != nil && j < n && ids[j] == ids[i] {
			j++
		}
		if ids == nil {
			j = n
		}
		r := Run{Origin: dataset.Origin{Table: t, Row: i}, T: tc[i:j], W: make([][4]float64, j-i)}
		if ids != nil {
			r.ID = ids[i]
		}
		for k := i; k < j; k++ {
			for c := range 4 {
				r.W[k-i][c] = w[c][k]
			}
		}
		if hasPose {
			r.X, r.Y, r.Theta = px[i:j], py[i:j], pth[i:j]
			for k := i; k < j; k++ {
				nan := []bool{math.IsNaN(px[k]), math.IsNaN(py[k]), math.IsNaN(pth[k])}
				if nan[0] != nan[1] || nan[0] != nan[2] {
					for c, name := range []string{"x", "y", "theta"} {
						if nan[c] {
							return nil, t.Errorf(k, name, "empty cell: a camera pose needs x, y and theta on the same row")
						}
					}
				}
			}
		}
		runs = append(runs, r)
		i = j
	}
	return runs, nil
}
