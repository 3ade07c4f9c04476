package control

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/dyn"
	"github.com/wheelgrad/wheelgrad/models/diffdrive"
	"github.com/wheelgrad/wheelgrad/models/skidsteer"
)

// kernels are the two implementations of a model's step: generated and
// interpreted; both must equal the native twin.
func kernels(m *dyn.Model) map[string]dyn.Kernel {
	return map[string]dyn.Kernel{"generated": m.NewKernel(), "interpreter": m.NewInterpreter()}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

// The diffdrive step with a pose equals diffdrive.Params.Step (exact
// friction, T = 0) and StepWheelSmooth (T > 0), and its pose is the
// unicycle Euler step from Params.Body, over rollouts that lock and unlock
// the wheels (commands around the deadband, stops).
func TestDiffDrivePoseMatchesNative(t *testing.T) {
	p := diffdrive.Paper()
	rng := rand.New(rand.NewPCG(1, 2))
	for name, k := range kernels(DiffDrivePose) {
		st, err := DiffDrivePose.NewStepperWith(k)
		if err != nil {
			t.Fatal(err)
		}
		for _, band := range []float64{0, 0.05} {
			q := []float64{p.L, p.H, band}
			z := p.Zeta()
			var s diffdrive.State
			pose := Pose{X: 0.2, Y: -0.1, Theta: 0.5}
			locked := 0
			for step := range 3000 {
				uf, ul := 0.0, 0.0
				switch (step / 100) % 4 {
				case 0:
					uf, ul = 4*rng.NormFloat64(), 4*rng.NormFloat64() // around the deadband (≈ 3)
				case 1:
					uf, ul = 20+10*rng.Float64(), 15*rng.NormFloat64()
				case 2: // stop
				case 3:
					uf, ul = -30*rng.Float64(), 40*rng.NormFloat64()
				}
				x := []float64{s.SdR, s.SddR, s.SdL, s.SddL, pose.X, pose.Y, pose.Theta}
				xn := make([]float64, 7)
				y := make([]float64, 3)
				if _, err := st.Step(z[:], q, x, []float64{uf, ul}, xn, y); err != nil {
					t.Fatal(err)
				}
				var want diffdrive.State
				if band == 0 {
					var lock [2]bool
					want, lock = p.Step(s, uf, ul)
					if lock[0] {
						locked++
					}
				} else {
					vr, vl := p.Input(uf, ul)
					want.SdR, want.SddR = p.StepWheelSmooth(s.SdR, s.SddR, vr, band)
					want.SdL, want.SddL = p.StepWheelSmooth(s.SdL, s.SddL, vl, band)
				}
				v, w := p.Body(s)
				wantPose := Pose{X: pose.X + p.H*v*math.Cos(pose.Theta), Y: pose.Y + p.H*v*math.Sin(pose.Theta), Theta: pose.Theta + p.H*w}
				got := []float64{want.SdR, want.SddR, want.SdL, want.SddL, wantPose.X, wantPose.Y, wantPose.Theta}
				for i := range got {
					if !near(xn[i], got[i]) {
						t.Fatalf("%s, T = %g, step %d: state %s = %.17g, native %.17g", name, band, step, DiffDrivePose.Spec().State[i], xn[i], got[i])
					}
				}
				if y[0] != xn[4] || y[1] != xn[5] || y[2] != xn[6] {
					t.Fatalf("%s: outputs %v are not the next pose %v", name, y, xn[4:])
				}
				s = want
				pose = wantPose
			}
			if band == 0 && locked < 50 {
				t.Errorf("%s: the right wheel locked on %d steps only: the test does not reach the clamp", name, locked)
			}
		}
	}
}

// The skid-steer step equals skidsteer.Step.
func TestSkidSteerMatchesNative(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, surf := range skidsteer.Table2 {
		a := surf.A[:]
		for name, k := range kernels(SkidSteer) {
			st, err := SkidSteer.NewStepperWith(k)
			if err != nil {
				t.Fatal(err)
			}
			pose := skidsteer.Pose{X: 1, Y: -2, Psi: 3}
			for step := range 500 {
				vc, wc, dt := rng.NormFloat64(), 2*rng.NormFloat64(), 0.01+0.1*rng.Float64()
				xn := make([]float64, 3)
				if _, err := st.Step(a, nil, []float64{pose.X, pose.Y, pose.Psi}, []float64{vc, wc, dt}, xn, nil); err != nil {
					t.Fatal(err)
				}
				want := skidsteer.Step(a, pose, vc, wc, dt)
				if !near(xn[0], want.X) || !near(xn[1], want.Y) || !near(xn[2], want.Psi) {
					t.Fatalf("%s %s step %d: %v, native %+v", surf.Name, name, step, xn, want)
				}
				pose = want
			}
		}
	}
}

// The Mecanum step equals the exact model of Mecanum.Execute (itself pinned
// to models/mecanum's Simulate).
func TestMecanumPoseMatchesNative(t *testing.T) {
	r, err := NewMecanumRobot(testRobot.Params, 30)
	if err != nil {
		t.Fatal(err)
	}
	c := randomControls(7, 11)
	start := Pose{X: 0.1, Y: -0.2, Theta: 0.4}
	want, wantVel := testRobot.Execute(start, c, 12, 1.0/240)
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
		edit func(r *Robot)
		want string
	}{
		{"no model", func(r *Robot) { r.Model = nil }, "without a model"},
		{"params", func(r *Robot) { r.Params = r.Params[:3] }, "3 parameters, want 9"},
		{"pose lane", func(r *Robot) { r.Heading = "theta" }, `pose lane "theta"`},
		{"unknown control", func(r *Robot) { r.Controls = append(r.Controls, Control{Input: "w", Lo: -1, Hi: 1}) }, `control "w"`},
		{"bounds", func(r *Robot) { r.Controls = []Control{{Input: "vc", Lo: 1, Hi: 1}, r.Controls[1]} }, "lo < hi"},
		{"dt and step", func(r *Robot) { r.Step = 0.1 }, "not both"},
		{"no step", func(r *Robot) { r.DtInput = "" }, "no step"},
		{"uncovered input", func(r *Robot) { r.Controls = r.Controls[:1] }, `input "wc" is neither`},
		{"NaN", func(r *Robot) { r.State0 = []float64{0, math.NaN(), 0} }, "NaN"},
	} {
		r := good
		r.Controls = append([]Control(nil), good.Controls...)
		c.edit(&r)
		err := r.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
}
