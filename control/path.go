package control

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/wheelgrad/wheelgrad/dataset"
)

// Path is a reference trajectory: position and velocity as functions of
// time, defined on [0, Duration()].
type Path interface {
	// At returns the reference position and velocity at time t.
	At(t float64) (x, y, vx, vy float64)
	Duration() float64
	// Heading returns a heading given by the path itself (from a waypoint
	// file's theta column) and true, or false when the path has none.
	Heading(t float64) (float64, bool)
	Name() string
}

// Circle is FORMATS.md's circle: radius R (0.5 m), centre (0, R); it starts at
// the origin heading +x and runs counter-clockwise once in T seconds.
type Circle struct {
	R, T float64
}

func (c Circle) At(t float64) (x, y, vx, vy float64) {
	w := 2 * math.Pi / c.T
	s := w * t
	return c.R * math.Sin(s), c.R - c.R*math.Cos(s), c.R * w * math.Cos(s), c.R * w * math.Sin(s)
}
func (c Circle) Duration() float64               { return c.T }
func (c Circle) Heading(float64) (float64, bool) { return 0, false }
func (c Circle) Name() string                    { return "circle" }

// Figure8 is FORMATS.md's figure 8, the lemniscate of Gerono through the
// origin: x = A·sin s, y = A·sin s·cos s, s = 2π·t/T, right lobe (x > 0) first.
type Figure8 struct {
	A, T float64
}

func (f Figure8) At(t float64) (x, y, vx, vy float64) {
	w := 2 * math.Pi / f.T
	s := w * t
	return f.A * math.Sin(s), f.A * math.Sin(s) * math.Cos(s), f.A * w * math.Cos(s), f.A * w * math.Cos(2*s)
}
func (f Figure8) Duration() float64               { return f.T }
func (f Figure8) Heading(float64) (float64, bool) { return 0, false }
func (f Figure8) Name() string                    { return "figure8" }

// Waypoints is a path read from a REF.csv file (t,x,y[,theta]): positions
// are interpolated by a natural cubic spline through the waypoints
// (velocities are its derivative), headings linearly on the unwrapped angle.
// Time is shifted so the path starts at t = 0.
type Waypoints struct {
	file     string
	t        []float64
	x, y     cubic
	theta    []float64 // unwrapped; nil without a theta column
	t0, tend float64
	// resampled is the number of waypoints in the file when they were
	// unevenly timed and resampled (0 otherwise).
	resampled int
}

// UnevenRatio: waypoints whose longest time step exceeds this many times
// their shortest are resampled at a uniform step by linear interpolation
// before the spline: a natural cubic spline through unevenly spaced knots
// overshoots (metres beyond the waypoints).
const UnevenRatio = 2.0

// Resampled returns the number of waypoints the file had when they were
// resampled at a uniform step (UnevenRatio), and the number used; 0, 0 when
// they were used as they are.
func (w *Waypoints) Resampled() (from, to int) {
	if w.resampled == 0 {
		return 0, 0
	}
	return w.resampled, len(w.t)
}

// uniform resamples (t, v) at n+1 uniform times over [0, t[end]] by linear
// interpolation.
func uniform(t, v []float64, n int) []float64 {
	out := make([]float64, n+1)
	T := t[len(t)-1]
	j := 0
	for k := range out {
		tk := T * float64(k) / float64(n)
		for j+2 < len(t) && t[j+1] <= tk {
			j++
		}
		a := (tk - t[j]) / (t[j+1] - t[j])
		out[k] = v[j] + a*(v[j+1]-v[j])
	}
	return out
}

// ReadWaypoints reads a REF.csv. At least two waypoints are needed.
func ReadWaypoints(path string) (*Waypoints, error) {
	tab, err := dataset.ReadFile(path, dataset.Spec{
		Columns: []dataset.Column{{Name: "t"}, {Name: "x"}, {Name: "y"}, {Name: "theta", Optional: true}},
		Time:    "t",
	})
	if err != nil {
		return nil, err
	}
	if tab.Len() < 2 {
		return nil, fmt.Errorf("%s: a path needs at least two waypoints, the file has %d", path, tab.Len())
	}
	if err := checkWaypointJumps(tab); err != nil {
		return nil, err
	}
	t := tab.Col("t")
	w := &Waypoints{file: path, t0: t[0], tend: t[len(t)-1]}
	w.t = make([]float64, len(t))
	for i := range t {
		w.t[i] = t[i] - t[0]
	}
	xs, ys := tab.Col("x"), tab.Col("y")
	var th []float64
	if tab.Has("theta") {
		th = Unwrap(tab.Col("theta"))
	}
	lo, hi := math.Inf(1), 0.0
	for i := 1; i < len(w.t); i++ {
		d := w.t[i] - w.t[i-1]
		lo, hi = math.Min(lo, d), math.Max(hi, d)
	}
	if hi > UnevenRatio*lo {
		// uniform at the shortest step (at most 20 points per waypoint;
		// the count is capped before it becomes an int: a step of 1e-20 s
		// beside one of 1 s asks for 1e20 points, past int's range)
		n := 20 * len(w.t)
		if k := math.Ceil(w.t[len(w.t)-1]/lo - 1e-9); k < float64(n) {
			n = max(int(k), 1)
		}
		xs, ys = uniform(w.t, xs, n), uniform(w.t, ys, n)
		if th != nil {
			th = uniform(w.t, th, n)
		}
		w.resampled = len(w.t)
		T := w.t[len(w.t)-1]
		w.t = make([]float64, n+1)
		for k := range w.t {
			w.t[k] = T * float64(k) / float64(n)
		}
	}
	w.x = newCubic(w.t, xs)
	w.y = newCubic(w.t, ys)
	w.theta = th
	return w, nil
}

func (w *Waypoints) At(t float64) (x, y, vx, vy float64) {
	x, vx = w.x.eval(t)
	y, vy = w.y.eval(t)
	return
}
func (w *Waypoints) Duration() float64 { return w.t[len(w.t)-1] }
func (w *Waypoints) Name() string      { return w.file }

func (w *Waypoints) Heading(t float64) (float64, bool) {
	if w.theta == nil {
		return 0, false
	}
	i := sort.SearchFloat64s(w.t, t)
	switch {
	case i <= 0:
		return w.theta[0], true
	case i >= len(w.t):
		return w.theta[len(w.t)-1], true
	}
	a := (t - w.t[i-1]) / (w.t[i] - w.t[i-1])
	return w.theta[i-1] + a*(w.theta[i]-w.theta[i-1]), true
}

// cubic is a natural cubic spline y(t) with its derivative; written here
// because the path needs value and derivative at arbitrary t, extrapolated
// linearly outside the knots.
type cubic struct {
	t, y, m []float64 // m: second derivatives at the knots
}

func newCubic(t, y []float64) cubic {
	n := len(t)
	m := make([]float64, n)
	if n > 2 {
		// Tridiagonal system for the interior second derivatives (natural ends).
		a := make([]float64, n)
		b := make([]float64, n)
		c := make([]float64, n)
		d := make([]float64, n)
		for i := 1; i < n-1; i++ {
			h0, h1 := t[i]-t[i-1], t[i+1]-t[i]
			a[i], b[i], c[i] = h0, 2*(h0+h1), h1
			d[i] = 6 * ((y[i+1]-y[i])/h1 - (y[i]-y[i-1])/h0)
		}
		for i := 2; i < n-1; i++ { // Thomas algorithm
			f := a[i] / b[i-1]
			b[i] -= f * c[i-1]
			d[i] -= f * d[i-1]
		}
		for i := n - 2; i >= 1; i-- {
			m[i] = (d[i] - c[i]*m[i+1]) / b[i]
		}
	}
	return cubic{t: t, y: append([]float64(nil), y...), m: m}
}

func (c cubic) eval(t float64) (y, dy float64) {
	n := len(c.t)
	i := sort.SearchFloat64s(c.t, t)
	if i <= 0 {
		i = 1
	}
	if i >= n {
		i = n - 1
	}
	t0, t1 := c.t[i-1], c.t[i]
	h := t1 - t0
	slope0 := (c.y[i]-c.y[i-1])/h - h*(2*c.m[i-1]+c.m[i])/6
	slope1 := (c.y[i]-c.y[i-1])/h + h*(c.m[i-1]+2*c.m[i])/6
	switch {
	case t < t0: // linear extrapolation
		return c.y[i-1] + slope0*(t-t0), slope0
	case t > t1:
		return c.y[i] + slope1*(t-t1), slope1
	}
	a, b := (t1-t)/h, (t-t0)/h
	y = a*c.y[i-1] + b*c.y[i] + ((a*a*a-a)*c.m[i-1]+(b*b*b-b)*c.m[i])*h*h/6
	dy = (c.y[i]-c.y[i-1])/h + (-(3*a*a-1)*c.m[i-1]+(3*b*b-1)*c.m[i])*h/6
	return y, dy
}

// NewPath returns the named path (circle, figure8) or reads a waypoint file.
func NewPath(name string, duration float64) (Path, error) {
	if !(duration > 0) {
		return nil, errors.New("control: the path duration must be positive")
	}
	switch name {
	case "circle":
		return Circle{R: 0.5, T: duration}, nil
	case "figure8":
		return Figure8{A: 1, T: duration}, nil
	}
	return ReadWaypoints(name)
}

// Unwrap removes 2π jumps from a sequence of angles.
func Unwrap(a []float64) []float64 {
	out := make([]float64, len(a))
	if len(a) == 0 {
		return out
	}
	out[0] = a[0]
	for i := 1; i < len(a); i++ {
		d := a[i] - a[i-1]
		d -= 2 * math.Pi * math.Round(d/(2*math.Pi))
		out[i] = out[i-1] + d
	}
	return out
}

// Dense samples p's positions at n+1 uniform times over its duration (for
// figures).
func Dense(p Path, n int) (x, y []float64) {
	x, y = make([]float64, n+1), make([]float64, n+1)
	for i := range x {
		x[i], y[i], _, _ = p.At(p.Duration() * float64(i) / float64(n))
	}
	return x, y
}
