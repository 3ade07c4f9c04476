package robots

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/wheelgrad/wheelgrad/ad"
	"github.com/wheelgrad/wheelgrad/control"
	"github.com/wheelgrad/wheelgrad/models/diffdrive"
	"github.com/wheelgrad/wheelgrad/models/skidsteer"
)

// The robots of the tests: the differential drive of Park et al. (ζ*)
// planned with the friction surrogate, the skid-steer on asphalt (Ordonez
// et al. Table 2), and the Mecanum robot of the other tests.
func testDiffDrive(t testing.TB, band float64) control.Robot {
	t.Helper()
	r, err := NewDiffDriveRobot(diffdrive.Paper(), band, DefaultJoystickMax)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func testSkidSteer(t testing.TB) control.Robot {
	t.Helper()
	s, err := skidsteer.SurfaceByName("asphalt")
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewSkidSteerRobot(skidsteer.FromCoeffs(s.A[:]), DefaultSkidSteerVmax, DefaultSkidSteerWmax)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func testMecanumRobot(t testing.TB) control.Robot {
	t.Helper()
	r, err := NewMecanumRobot(testRobot.Params, 30)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// On the Mecanum robot the native loss through dyn.Sim equals the graph
// synthesizer's loss, term by term: the same conventions for any model.
func TestRobotLossEqualsMecanumSynthesizer(t *testing.T) {
	r := testMecanumRobot(t)
	for _, c := range []struct {
		name   string
		path   control.Path
		mode   control.HeadingMode
		theta0 float64
	}{
		{"circle tangent", control.Circle{R: 0.5, T: 6}, control.Tangent, -math.Pi / 2},
		{"figure8 reversed", control.Figure8{A: 1, T: 8}, control.Figure8ReverseRight, 3 * math.Pi / 4},
		{"figure8 fixed", control.Figure8{A: 1, T: 5}, control.Fixed, 0.3},
	} {
		mp := smallPlan(t, c.path, c.mode, c.theta0, testRobot)
		mp.Start.X, mp.Start.Y = 0.01, -0.02
		ms, err := control.NewSynthesizer(mp)
		if err != nil {
			t.Fatal(err)
		}
		rp, err := control.NewRobotPlan(r, c.path, c.mode, c.theta0, 1, 1.0/10)
		if err != nil {
			t.Fatal(err)
		}
		rp.Start.X, rp.Start.Y = 0.01, -0.02
		rs, err := control.NewRobotSynthesizer(rp)
		if err != nil {
			t.Fatal(err)
		}
		for seed := range uint64(3) {
			mc := randomControls(mp.K, seed)
			rows := make([][]float64, len(mc))
			for i := range mc {
				rows[i] = mc[i][:]
			}
			want, wt := ms.NativeLoss(ms.Flatten(mc))
			got, gt, err := rs.Terms(rs.Flatten(rows))
			if err != nil {
				t.Fatal(err)
			}
			// The velocity comes from the pose change over dt here, from the
			// body velocity there: equal up to rounding of the positions.
			for _, v := range [][3]any{{"total", got, want}, {"position", gt.Position, wt.Position}, {"velocity", gt.Velocity, wt.Velocity},
				{"heading", gt.Heading, wt.Heading}, {"smooth", gt.Smooth, wt.Smooth}} {
				g, w := v[1].(float64), v[2].(float64)
				if math.Abs(g-w) > 1e-10*math.Max(1, math.Abs(w)) {
					t.Errorf("%s seed %d: %s %.16g, control.Synthesizer %.16g", c.name, seed, v[0], g, w)
				}
			}
		}
	}
}

// The gradient of the tracking loss (generated reverse pass of each model
// through dyn.Sim, summed over segments, plus the smoothness term) equals
// central differences of the loss.
func TestRobotLossGradient(t *testing.T) {
	for _, c := range []struct {
		name   string
		r      control.Robot
		path   control.Path
		mode   control.HeadingMode
		theta0 float64
		rate   float64
		dt     float64
		noise  float64 // σ of the controls around the initial guess
		step   float64 // relative step of the central differences
		tol    float64
	}{
		// The surrogate's third derivative is large (its band is 4 % of μ):
		// the central difference's truncation error falls as h² down to
		// 3e-7 at h = 1e-5 (measured: 2.6e-6 at 3e-5, 2.9e-5 at 1e-4), then
		// round-off grows.
		{"diffdrive surrogate, figure 8", testDiffDrive(t, DefaultFrictionBand*diffdrive.Paper().Mu), control.Figure8{A: 1, T: 9.6}, control.Tangent, math.Pi / 4, 1 / (4 * 0.06), 0.06, 2, 1e-5, 1e-5},
		{"skidsteer, circle", testSkidSteer(t), control.Circle{R: 0.5, T: 6}, control.Tangent, 0, 2, 0.05, 0.3, 1e-4, 1e-6},
		{"mecanum, figure 8 reversed", testMecanumRobot(t), control.Figure8{A: 1, T: 6}, control.Figure8ReverseRight, 3 * math.Pi / 4, 1, 0.1, 5, 1e-4, 1e-6},
	} {
		p, err := control.NewRobotPlan(c.r, c.path, c.mode, c.theta0, c.rate, c.dt)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		p.Start.X, p.Start.Y = 0.02, -0.01
		s, err := control.NewRobotSynthesizer(p)
		if err != nil {
			t.Fatal(err)
		}
		for seed := range uint64(2) {
			rng := rand.New(rand.NewPCG(seed, 9))
			g := s.InitialGuess()
			for i := range g {
				for j := range g[i] {
					g[i][j] += c.noise * rng.NormFloat64()
				}
			}
			x := s.Flatten(g)
			grad := make([]float64, len(x))
			if _, err := s.Loss(x, grad); err != nil {
				t.Fatal(err)
			}
			f := func(x []float64) (float64, error) { return s.Loss(x, nil) }
			chk, err := ad.CheckGrad(f, grad, x, c.step)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s seed %d: %v", c.name, seed, chk)
			if chk.MaxRelErr > c.tol {
				t.Errorf("%s seed %d: %v", c.name, seed, chk)
			}
		}
	}
}
