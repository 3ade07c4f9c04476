package control

import (
	"errors"
	"math"
	"testing"

	"github.com/wheelgrad/wheelgrad/dyn"
)

// stickyUnicycle is a unicycle held by stiction: it moves only when a
// command exceeds the breakaway level s, so that from rest, with zero
// commands, the loss has a zero gradient (issue 21.4: planning from rest
// stopped at once, and the tracking read 0.00 mm for a robot that never
// left its start, which lies on the path).
var stickyUnicycle = dyn.MustDefine(dyn.Spec{
	Name:   "sticky_unicycle",
	State:  []string{"x", "y", "th"},
	Input:  []string{"u", "w", "dt"},
	Params: []string{"s"},
}, func(s *dyn.Step) {
	x, y, th := s.State("x"), s.State("y"), s.State("th")
	u, w, dt := s.Input("u"), s.Input("w"), s.Input("dt")
	stick, zero := s.Param("s"), s.Const(0)
	v := dyn.Where(dyn.Gt(dyn.Abs(u), stick), u, zero)
	r := dyn.Where(dyn.Gt(dyn.Abs(w), stick), w, zero)
	s.Next("x", x.Add(dt.Mul(v).Mul(dyn.Cos(th))))
	s.Next("y", y.Add(dt.Mul(v).Mul(dyn.Sin(th))))
	s.Next("th", th.Add(dt.Mul(r)))
})

func stickyRobot(breakaway float64) Robot {
	return Robot{
		Model:  stickyUnicycle,
		Params: []float64{breakaway},
		State0: make([]float64, 3),
		X:      "x", Y: "y", Heading: "th",
		Controls: []Control{{Input: "u", Lo: -1, Hi: 1, Scale: 0.03}, {Input: "w", Lo: -2, Hi: 2, Scale: 0.1}},
		DtInput:  "dt",
		Guess:    func(fwd, _, yaw float64) []float64 { return []float64{fwd, yaw} },
	}
}

// A robot that never leaves its start is a failure of FollowRobot
// (ErrNotFollowed, with the result), not a distance of 0 to the path: on
// the circle the initial guess asks 0.31 m/s and 0.63 rad/s, and a
// breakaway level of 0.5 holds the speed (the robot only turns on the
// spot); the same robot without stiction follows the circle.
func TestFollowRobotThatNeverMoves(t *testing.T) {
	path := Circle{R: 0.5, T: 10}
	for _, c := range []struct {
		breakaway float64
		follows   bool
	}{{0.5, false}, {0, true}} {
		r := stickyRobot(c.breakaway)
		plan, err := NewRobotPlan(r, path, Tangent, 0, 4, 0.05)
		if err != nil {
			t.Fatal(err)
		}
		f, err := FollowRobot(plan, r, FollowSettings{})
		if f == nil {
			t.Fatalf("breakaway %g: no result: %v", c.breakaway, err)
		}
		tr := f.Predicted.Tracking
		t.Logf("breakaway %g: %d iterations (%s); RMS %.3g m, travelled %.3g m of %.3g m; %v", c.breakaway, f.Synthesis.Iterations, f.Synthesis.Status, tr.RMS, tr.Travelled, tr.PathLength, err)
		if c.follows {
			if err != nil || tr.RMS > 0.01 || tr.Coverage < 0.999 {
				t.Errorf("without stiction: RMS %.4f m, coverage %.4f, %v", tr.RMS, tr.Coverage, err)
			}
			continue
		}
		if !errors.Is(err, ErrNotFollowed) {
			t.Errorf("stuck robot (travelled %g m): error %v, want ErrNotFollowed", tr.Travelled, err)
		}
	}
}

// FollowDrive plans, executes and tracks a Drive: the linear test drive
// follows the figure 8 with the right lobe reversed.
func TestFollowDrive(t *testing.T) {
	plan, err := NewPlan(testDrive, Figure8{A: 1, T: 20}, Figure8ReverseRight, 3*math.Pi/4, 4, 1.0/240, 30)
	if err != nil {
		t.Fatal(err)
	}
	iters := 0
	f, err := FollowDrive(plan, FollowSettings{Iteration: func(int, float64) { iters++ }})
	if err != nil {
		t.Fatal(err)
	}
	tr := f.Predicted.Tracking
	t.Logf("RMS %.3g m, max %.3g m, reversed %.3f, %d iterations", tr.RMS, tr.Max, tr.ReversedRight, f.Synthesis.Iterations)
	if tr.RMS > 0.015 || tr.Max > 0.05 || tr.ReversedRight < 0.85 || tr.ForwardLeft < 0.85 || len(f.Controls) != plan.K {
		t.Errorf("RMS %.4f m, max %.4f m, reversed %.3f, forward %.3f, %d segments", tr.RMS, tr.Max, tr.ReversedRight, tr.ForwardLeft, len(f.Controls))
	}
	if iters != f.Synthesis.Iterations || iters == 0 {
		t.Errorf("Iteration called %d times, %d iterations", iters, f.Synthesis.Iterations)
	}
}
