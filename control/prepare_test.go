package control

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A waypoint file stretched to a longer duration runs slower by that
// factor and says so; its first point is the start, and a tangent start
// heading is the path's direction turned to the robot's forward axis.
func TestPreparePathStretchesAndStarts(t *testing.T) {
	f := filepath.Join(t.TempDir(), "ref.csv")
	if err := os.WriteFile(f, []byte("t,x,y\n0,1,2\n1,2,2\n2,3,2\n3,4,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := PreparePath(PathSpec{Name: f, Duration: 6, StretchTo: true, Mode: Tangent, ForwardAxis: math.Pi / 2})
	if err != nil {
		t.Fatal(err)
	}
	if d := p.Path.Duration(); math.Abs(d-6) > 1e-12 {
		t.Errorf("duration %g, want 6", d)
	}
	if _, _, vx, _ := p.Path.At(3); math.Abs(vx-0.5) > 1e-6 {
		t.Errorf("speed %g at mid-path, want 0.5 m/s (1 m/s stretched twice)", vx)
	}
	// moving along +x with the forward axis the body's y: heading −π/2
	if p.Start.X != 1 || p.Start.Y != 2 || math.Abs(p.Start.Theta+math.Pi/2) > 1e-6 {
		t.Errorf("start %+v, want (1, 2, −π/2)", p.Start)
	}
	notes := strings.Join(p.Notes, "\n")
	for _, want := range []string{"stretched to -duration 6 s", "starting at the path's first point (1, 2)", "initial tangent heading"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	// -theta0 given: kept, no heading note
	p, err = PreparePath(PathSpec{Name: "circle", Duration: 10, Mode: Tangent, Theta0: 0.3, Theta0Given: true})
	if err != nil || p.Start.Theta != 0.3 || len(p.Notes) != 0 {
		t.Errorf("circle with theta0: %+v, %v", p, err)
	}
}

// The controls CSV holds one row per step and the final one, the
// segments' values held, the start pose on the first row only.
func TestWriteRobotControls(t *testing.T) {
	var b bytes.Buffer
	err := WriteRobotControls(&b, []string{"u"}, []string{"x", "y", "theta"}, [][]float64{{1}, {2}}, 2, 0.5, Pose{X: 1, Y: 2, Theta: 3})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 6 || lines[0] != "t,u,x,y,theta" || !strings.HasPrefix(lines[1], "0,1,1,2,3") ||
		!strings.HasPrefix(lines[3], "1,2,") || !strings.HasPrefix(lines[5], "2,2,") || strings.Contains(lines[2], ",1,2,3") {
		t.Errorf("controls CSV:\n%s", b.String())
	}
}
