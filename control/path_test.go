package control

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
)

func TestCircleAndFigure8MatchFormats(t *testing.T) {
	c := Circle{R: 0.5, T: 40}
	x, y, vx, vy := c.At(0)
	if x != 0 || y != 0 || !(vx > 0) || math.Abs(vy) > 1e-15 {
		t.Errorf("circle start (%g,%g) velocity (%g,%g): want the origin heading +x", x, y, vx, vy)
	}
	if x, y, _, _ := c.At(10); math.Abs(x-0.5) > 1e-12 || math.Abs(y-0.5) > 1e-12 {
		t.Errorf("circle at a quarter: (%g,%g), want (0.5,0.5): counter-clockwise", x, y)
	}
	f := Figure8{A: 1, T: 40}
	if x, _, _, _ := f.At(5); !(x > 0.7) {
		t.Errorf("figure 8 at t = T/8: x = %g, want the right lobe first", x)
	}
	if x, y, _, _ := f.At(20); math.Abs(x) > 1e-12 || math.Abs(y) > 1e-12 {
		t.Errorf("figure 8 at T/2: (%g,%g), want the crossing at the origin", x, y)
	}
	// Velocities are the time derivatives of positions.
	for _, p := range []Path{c, f} {
		for _, tt := range []float64{0.3, 7, 19.9, 33} {
			step := &fd.Settings{Formula: fd.Central, Step: 1e-5}
			dx := fd.Derivative(func(t float64) float64 { x, _, _, _ := p.At(t); return x }, tt, step)
			dy := fd.Derivative(func(t float64) float64 { _, y, _, _ := p.At(t); return y }, tt, step)
			_, _, vx, vy := p.At(tt)
			if math.Abs(dx-vx) > 1e-8 || math.Abs(dy-vy) > 1e-8 {
				t.Errorf("%s at %g: velocity (%g,%g) vs differences (%g,%g)", p.Name(), tt, vx, vy, dx, dy)
			}
		}
	}
}

func TestHeadingModes(t *testing.T) {
	r, err := Sample(Circle{R: 0.5, T: 40}, 160, Tangent, -math.Pi/2)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(r.Theta[0]+math.Pi/2) > 1e-12 {
		t.Errorf("circle tangent start heading %g, want −π/2 (FORMATS: -theta0 -1.5708)", r.Theta[0])
	}
	if d := r.Theta[160] - r.Theta[0]; math.Abs(d-2*math.Pi) > 1e-9 {
		t.Errorf("circle tangent heading turns by %g, want 2π", d)
	}
	r, err = Sample(Figure8{A: 1, T: 40}, 160, Figure8ReverseRight, 2.35619)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(r.Theta[0]-3*math.Pi/4) > 1e-9 {
		t.Errorf("reversed figure 8 start heading %g, want 3π/4 (FORMATS: -theta0 2.35619)", r.Theta[0])
	}
	for i := range r.T {
		if r.X[i] > 1e-9 && !r.Reverse[i] || r.X[i] < -1e-9 && r.Reverse[i] {
			t.Fatalf("sample %d at x = %g: reverse = %v", i, r.X[i], r.Reverse[i])
		}
		// The forward axis (−sin θ, cos θ) points against the travel direction on the right lobe.
		fx, fy := -math.Sin(r.Theta[i]), math.Cos(r.Theta[i])
		dot := (fx*r.VX[i] + fy*r.VY[i]) / math.Hypot(r.VX[i], r.VY[i])
		// Outside the ramp around the crossing (t = 20) the forward axis is
		// exactly against / along the travel; inside it the sign still flips
		// exactly at the crossing.
		outside := math.Abs(r.T[i]-20) > DefaultHeadingRamp/2
		if math.Abs(r.X[i]) > 1e-9 && outside && (r.Reverse[i] && dot > -0.999 || !r.Reverse[i] && dot < 0.999) {
			t.Fatalf("sample %d: forward·velocity = %g with reverse = %v", i, dot, r.Reverse[i])
		}
		if r.X[i] > 1e-9 && dot >= 0 || r.X[i] < -1e-9 && dot <= 0 {
			t.Fatalf("sample %d at x = %g: forward·velocity = %g, wrong sense", i, r.X[i], dot)
		}
	}
	r, _ = Sample(Figure8{A: 1, T: 40}, 40, Fixed, 0.7)
	for _, th := range r.Theta {
		if th != 0.7 {
			t.Fatalf("fixed heading %g, want 0.7", th)
		}
	}
	if _, err := ParseHeading("sideways"); err == nil {
		t.Error("unknown heading accepted")
	}
}

func TestWaypointsFile(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("# a circle as waypoints, starting at t = 5\nt,x,y,theta\n")
	c := Circle{R: 0.5, T: 40}
	for i := 0; i <= 200; i++ {
		tt := 0.2 * float64(i)
		x, y, _, _ := c.At(tt)
		b.WriteString(strings.Join([]string{ftoa(tt + 5), ftoa(x), ftoa(y), ftoa(math.Mod(tt, 2*math.Pi))}, ",") + "\n")
	}
	path := filepath.Join(dir, "ref.csv")
	os.WriteFile(path, []byte(b.String()), 0o644)
	p, err := NewPath(path, 40)
	if err != nil {
		t.Fatal(err)
	}
	if p.Duration() != 40 {
		t.Errorf("duration %g, want 40 (times shifted to start at 0)", p.Duration())
	}
	for _, tt := range []float64{1.1, 13.7, 29.95} {
		x, y, vx, vy := p.At(tt)
		xc, yc, vxc, vyc := c.At(tt)
		if math.Hypot(x-xc, y-yc) > 1e-5 || math.Hypot(vx-vxc, vy-vyc) > 1e-4 {
			t.Errorf("t=%g: spline (%g,%g,%g,%g) vs circle (%g,%g,%g,%g)", tt, x, y, vx, vy, xc, yc, vxc, vyc)
		}
	}
	if th, ok := p.Heading(7.1); !ok || math.Abs(th-7.1) > 1e-9 {
		t.Errorf("heading at 7.1: %g %v (the theta column unwrapped)", th, ok)
	}
	for _, bad := range []string{"t,x\n0,1\n", "t,x,y\n0,0,0\n", "t,x,y\n0,0,0\n0,1,1\n", "t,x,y\n0,0,NaN\n1,1,1\n"} {
		os.WriteFile(path, []byte(bad), 0o644)
		if _, err := NewPath(path, 40); err == nil || !strings.Contains(err.Error(), "ref.csv") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: err = %v, want a one-line error naming the file", bad, err)
		}
	}
}

func ftoa(v float64) string { return strconvFormat(v) }

// Unevenly timed waypoints (evenly spaced along a curve, time steps of
// 0.02 s and 1 s alternating) are resampled: the spline stays near the
// curve (a natural cubic through the raw knots swings far off it).
func TestWaypointsUnevenResampled(t *testing.T) {
	var b strings.Builder
	b.WriteString("t,x,y\n")
	tt := 0.0
	for i := 0; i < 21; i++ {
		x := 0.1 * float64(i)
		fmt.Fprintf(&b, "%g,%g,%g\n", tt, x, 0.5*x+0.3*math.Sin(x))
		if i%2 == 0 {
			tt += 0.02
		} else {
			tt += 1
		}
	}
	path := filepath.Join(t.TempDir(), "w.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := ReadWaypoints(path)
	if err != nil {
		t.Fatal(err)
	}
	if from, to := w.Resampled(); from != 21 || to < 21 {
		t.Errorf("Resampled() = %d, %d", from, to)
	}
	worst := 0.0
	for k := 0; k <= 1000; k++ {
		s := w.Duration() * float64(k) / 1000
		x, y, _, _ := w.At(s)
		worst = math.Max(worst, math.Abs(y-(0.5*x+0.3*math.Sin(x))))
	}
	if worst > 0.02 {
		t.Errorf("the path leaves the waypoints' curve by %.3f m", worst)
	}
}
