package robots_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/control"
	"github.com/wheelgrad/wheelgrad/models/skidsteer"
	"github.com/wheelgrad/wheelgrad/robots"
)

func TestSkidSteerDrive(t *testing.T) {
	var m robots.SkidSteer
	s, err := skidsteer.SurfaceByName("asphalt")
	if err != nil {
		t.Fatal(err)
	}
	p := skidsteer.FromCoeffs(s.A[:])
	// The command line's -wmax default is the Mecanum robot's 30 rad/s:
	// not given (Set), the skid-steer's own bound applies.
	d, err := m.Drive(p, robots.DriveOptions{Wmax: 30, Vmax: 0.5, Dt: 0.05, Set: map[string]bool{"vmax": true}})
	if err != nil {
		t.Fatal(err)
	}
	if d.Dt != 0.05 || d.FixedStep || strings.Join(d.Columns, ",") != "vc,wc" || strings.Join(d.Pose, ",") != "x,y,psi" || d.Planned != "" || d.Truth != nil {
		t.Errorf("drive %+v", d)
	}
	if c := d.Plan.Controls; c[0].Hi != 0.5 || c[1].Hi != robots.DefaultSkidSteerWmax {
		t.Errorf("bounds vc ≤ %g, wc ≤ %g; want 0.5 and %g", c[0].Hi, c[1].Hi, robots.DefaultSkidSteerWmax)
	}
	plan, err := control.NewRobotPlan(d.Plan, control.Circle{R: 0.5, T: 20}, control.Tangent, 0, 4, d.Dt)
	if err != nil {
		t.Fatal(err)
	}
	f, err := control.FollowRobot(plan, d.Exact, control.FollowSettings{})
	if err != nil {
		t.Fatal(err)
	}
	if tr := f.Predicted.Tracking; tr.RMS > 0.005 {
		t.Errorf("predicted tracking RMS %.4g m", tr.RMS)
	}
	for _, c := range []struct {
		name string
		o    robots.DriveOptions
		want string
	}{
		{"wmax", robots.DriveOptions{Wmax: -1, Dt: 0.05, Set: map[string]bool{"wmax": true}}, "-wmax -1"},
		{"vmax", robots.DriveOptions{Vmax: -2, Dt: 0.05, Set: map[string]bool{"vmax": true}}, "-vmax -2"},
		{"dt", robots.DriveOptions{}, "-dt 0"},
	} {
		var ue robots.UsageError
		if _, err := m.Drive(p, c.o); !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want a UsageError with %q", c.name, err, c.want)
		}
	}
	d, err = m.Drive(&p, robots.DriveOptions{Dt: 0.05, Truth: skidsteer.FromCoeffs(make([]float64, 9))})
	if err != nil || d.Truth == nil {
		t.Errorf("with a truth: %+v, %v", d, err)
	}
	if _, err := m.Drive(struct{}{}, robots.DriveOptions{Dt: 0.05}); err == nil {
		t.Error("parameters of another type were taken")
	}
}
