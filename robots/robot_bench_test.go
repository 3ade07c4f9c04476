package robots

import (
	"math"
	"testing"

	"github.com/wheelgrad/wheelgrad/control"
	"github.com/wheelgrad/wheelgrad/models/diffdrive"
)

// Loss and gradient of a 40-s figure 8 through dyn.Sim, per model (one
// L-BFGS-B evaluation).
func BenchmarkRobotLossGrad(b *testing.B) {
	for _, c := range []struct {
		name string
		r    control.Robot
		dt   float64
	}{
		{"diffdrive_668steps", testDiffDrive(b, DefaultFrictionBand*diffdrive.Paper().Mu), 0.06},
		{"skidsteer_9600steps", testSkidSteer(b), 1.0 / 240},
		{"mecanum_9600steps", testMecanumRobot(b), 1.0 / 240},
	} {
		b.Run(c.name, func(b *testing.B) {
			path, rate, err := control.OnSteps(control.Figure8{A: 1, T: 40}, 4, c.dt)
			if err != nil {
				b.Fatal(err)
			}
			p, err := control.NewRobotPlan(c.r, path, control.Tangent, math.Pi/4, rate, c.dt)
			if err != nil {
				b.Fatal(err)
			}
			s, err := control.NewRobotSynthesizer(p)
			if err != nil {
				b.Fatal(err)
			}
			x := s.Flatten(s.InitialGuess())
			g := make([]float64, len(x))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Loss(x, g); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
