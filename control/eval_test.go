package control

import (
	"math"
	"strings"
	"testing"
)

// onPath returns n poses on the path c at the times (k+1)·dt (exactly on
// the curve, on time) and their velocities.
func onPath(c Path, n int, dt float64) ([]Pose, [][2]float64) {
	poses := make([]Pose, n)
	vel := make([][2]float64, n)
	for k := range poses {
		x, y, vx, vy := c.At(float64(k+1) * dt)
		poses[k] = Pose{X: x, Y: y, Theta: math.Atan2(vy, vx) - math.Pi/2}
		vel[k] = [2]float64{vx, vy}
	}
	return poses, vel
}

// A circle or figure 8 followed exactly is at distance 0 from the curve and
// covered whole at any step: at the 0.06-s step of the differential drive,
// 3 cm between poses, as at 240 Hz (issue 21.4: coverage read 79 % for a
// circle followed to 0.4 mm; the distance to the nearest 1-mm sample of the
// curve read 0.29 mm RMS for poses on it).
func TestCoverageAtCoarseSteps(t *testing.T) {
	c := Circle{R: 0.5, T: 12}
	for _, p := range []Path{c, Figure8{A: 1, T: 24}} {
		for _, dt := range []float64{1.0 / 240, 0.06, 0.24} {
			n := int(math.Round(p.Duration() / dt))
			poses, vel := onPath(p, n, dt)
			tr := Track(p, 0, dt, poses, vel)
			if tr.RMS > 1e-6 || tr.Max > 1e-6 || tr.OnTimeRMS > 1e-12 || tr.Coverage < 0.999 {
				t.Errorf("%s, dt = %g s: RMS %.2g m, max %.2g m, on time %.2g m, coverage %.4f, want 0, 0, 0 and the whole curve",
					p.Name(), dt, tr.RMS, tr.Max, tr.OnTimeRMS, tr.Coverage)
			}
			if err := tr.Followed(); err != nil {
				t.Errorf("%s, dt = %g s: %v", p.Name(), dt, err)
			}
		}
	}
	// Half the circle driven, from the first pose (dt after the start) to
	// the half: that arc and 5 cm past either end are covered, at either
	// step (the start is also the circle's end).
	L := 2 * math.Pi * c.R
	for _, dt := range []float64{1.0 / 240, 0.06} {
		want := (L/2 - L*dt/c.T + 2*coverRadius) / L
		n := int(math.Round(c.T / dt))
		poses, vel := onPath(c, n/2, dt)
		if tr := Track(c, 0, dt, poses, vel); math.Abs(tr.Coverage-want) > 0.001 {
			t.Errorf("dt = %g s, half the circle: coverage %.4f, want %.4f", dt, tr.Coverage, want)
		}
	}
}

// A robot that never leaves its start sits on a path through it at
// distance 0: Track reports it as not following (issue 21.4: 0.00 mm for a
// robot that never moved), with the distance travelled and the path's
// length.
func TestTrackRobotThatNeverMoves(t *testing.T) {
	c := Circle{R: 0.5, T: 10}
	dt := 0.05
	x0, y0, _, _ := c.At(0)
	poses := make([]Pose, 200)
	for k := range poses {
		poses[k] = Pose{X: x0, Y: y0}
	}
	tr := Track(c, 0, dt, poses, make([][2]float64, len(poses)))
	if tr.RMS != 0 {
		t.Fatalf("distance to the curve %g, want 0 (the start is on it)", tr.RMS)
	}
	if tr.Travelled != 0 || math.Abs(tr.PathLength-2*math.Pi*c.R) > 1e-3 {
		t.Errorf("travelled %g m of %g m, want 0 of %g", tr.Travelled, tr.PathLength, 2*math.Pi*c.R)
	}
	err := tr.Followed()
	if err == nil || !strings.Contains(err.Error(), "does not follow the path") {
		t.Errorf("Followed() = %v, want the robot reported as not following", err)
	}
	if tr.Coverage > 2*coverRadius/tr.PathLength+0.001 { // 5 cm either side of the start

		t.Errorf("coverage %.4f for a robot that never moved", tr.Coverage)
	}
}

// The distance to the curve never exceeds the distance to the point of the
// same time, which lies on the curve (up to the chords between the 1-mm
// samples, 1 mm²/(8·0.5 m) = 0.25 µm on this figure 8): for a trajectory
// that wanders 0.2 mm about the path (`follow` printed a figure 8 0.4 mm
// from the curve and 0.2 mm from on time).
func TestDistanceToCurveBelowOnTime(t *testing.T) {
	f := Figure8{A: 1, T: 40}
	dt := 1.0 / 240
	poses, vel := onPath(f, int(math.Round(f.T/dt)), dt)
	for k := range poses {
		s := float64(k) * dt
		poses[k].X += 2e-4 * math.Sin(3*s)
		poses[k].Y += 2e-4 * math.Cos(5*s)
	}
	tr := Track(f, 0, dt, poses, vel)
	t.Logf("RMS %.3g m, max %.3g m; on time RMS %.3g m, max %.3g m", tr.RMS, tr.Max, tr.OnTimeRMS, tr.OnTimeMax)
	if tr.RMS > tr.OnTimeRMS+1e-6 || tr.Max > tr.OnTimeMax+1e-6 {
		t.Errorf("distance to the curve RMS %.3g m, max %.3g m above the on-time RMS %.3g m, max %.3g m", tr.RMS, tr.Max, tr.OnTimeRMS, tr.OnTimeMax)
	}
}
