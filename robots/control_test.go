package robots

import (
	"math"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/control"
	"github.com/wheelgrad/wheelgrad/models/skidsteer"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

// The Mecanum robot's step (mecanum.Model, whose outputs are the pose at
// the start of a step) executed through Robot equals control.Execute of
// mecanum.Drive (itself pinned to models/mecanum's Simulate).
func TestMecanumRobotMatchesDrive(t *testing.T) {
	r, err := NewMecanumRobot(testRobot.Params, 30)
	if err != nil {
		t.Fatal(err)
	}
	c := randomControls(7, 11)
	start := control.Pose{X: 0.1, Y: -0.2, Theta: 0.4}
	want, wantVel := control.Execute(testRobot, start, c, 12, 1.0/240)
	rows := make([][]float64, len(c))
	for i := range c {
		rows[i] = c[i][:]
	}
	x0, _ := r.StartState(start)
	got, vel, _, err := r.Execute(x0, rows, 12, 1.0/240)
	if err != nil {
		t.Fatal(err)
	}
	for k := range want {
		if !near(got[k].X, want[k].X) || !near(got[k].Y, want[k].Y) || !near(got[k].Theta, want[k].Theta) {
			t.Fatalf("step %d: %+v, native %+v", k, got[k], want[k])
		}
		// The velocity from the pose change equals the step's world velocity
		// up to the rounding of the positions (1e-16 m / dt).
		if math.Abs(vel[k][0]-wantVel[k][0]) > 1e-10 || math.Abs(vel[k][1]-wantVel[k][1]) > 1e-10 {
			t.Fatalf("step %d: velocity %v, native %v", k, vel[k], wantVel[k])
		}
	}
}

// Robot.Validate names what is wrong.
func TestRobotValidate(t *testing.T) {
	good, err := NewSkidSteerRobot(skidsteer.Params{}, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		edit func(r *control.Robot)
		want string
	}{
		{"no model", func(r *control.Robot) { r.Model = nil }, "without a model"},
		{"params", func(r *control.Robot) { r.Params = r.Params[:3] }, "3 parameters, want 9"},
		{"pose lane", func(r *control.Robot) { r.Heading = "theta" }, `pose lane "theta"`},
		{"unknown control", func(r *control.Robot) { r.Controls = append(r.Controls, control.Control{Input: "w", Lo: -1, Hi: 1}) }, `control "w"`},
		{"bounds", func(r *control.Robot) { r.Controls = []control.Control{{Input: "vc", Lo: 1, Hi: 1}, r.Controls[1]} }, "lo < hi"},
		{"dt and step", func(r *control.Robot) { r.Step = 0.1 }, "not both"},
		{"no step", func(r *control.Robot) { r.DtInput = "" }, "no step"},
		{"uncovered input", func(r *control.Robot) { r.Controls = r.Controls[:1] }, `input "wc" is neither`},
		{"NaN", func(r *control.Robot) { r.State0 = []float64{0, math.NaN(), 0} }, "NaN"},
	} {
		r := good
		r.Controls = append([]control.Control(nil), good.Controls...)
		c.edit(&r)
		err := r.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
}
