package skidsteer

import (
	"math"
	"math/rand/v2"
)

// DiagnosticRadii are the alternating CCW (+) and CW (−) turn radii (m) of
// the diagnostic trajectory of Ordonez et al. §4, from nearly straight to
// sharp.
var DiagnosticRadii = []float64{749.89, -421.69, 237.13, -133.35, 79.43, -50.12, 31.62, -19.95, 12.58, -9.33, 8.12, -7.07, 6.15, -5.35, 4.45, -3.54, 2.81, -2.23, 1.77, -1.41, 1.11, -0.88, 0.70, -0.56}

// DiagnosticSpeeds are its forward speeds (m/s).
var DiagnosticSpeeds = []float64{0.2, 0.4, 0.6}

// DiagnosticCommands returns the diagnostic trajectory of §4 sampled every
// dt seconds: the turn radius decreases in a spiral (DiagnosticRadii), each
// radius driven at the three speeds in turn, each command held for hold
// seconds (5 s in the paper): 72 commands, 6 minutes. The yaw rate command is
// vc/ρ.
func DiagnosticCommands(dt, hold float64) (t, vc, wc []float64) {
	var cmds [][2]float64
	for _, r := range DiagnosticRadii {
		for _, v := range DiagnosticSpeeds {
			cmds = append(cmds, [2]float64{v, v / r})
		}
	}
	return holdCommands(cmds, dt, hold)
}

// RandomCommands returns n commands drawn from the diagnostic set (speed
// and radius uniformly at random), each held for hold seconds: the "random
// velocities and turn radii" of §2.2.
func RandomCommands(n int, dt, hold float64, seed uint64) (t, vc, wc []float64) {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	cmds := make([][2]float64, n)
	for i := range cmds {
		v := DiagnosticSpeeds[rng.IntN(len(DiagnosticSpeeds))]
		r := DiagnosticRadii[rng.IntN(len(DiagnosticRadii))]
		cmds[i] = [2]float64{v, v / r}
	}
	return holdCommands(cmds, dt, hold)
}

func holdCommands(cmds [][2]float64, dt, hold float64) (t, vc, wc []float64) {
	per := int(math.Round(hold / dt))
	for k, c := range cmds {
		for i := range per {
			t = append(t, float64(k*per+i)*dt)
			vc, wc = append(vc, c[0]), append(wc, c[1])
		}
	}
	// A last row closes the last command's interval.
	t = append(t, float64(len(cmds)*per)*dt)
	vc, wc = append(vc, 0), append(wc, 0)
	return
}

// Noise describes the synthetic terrain and sensor: slip that varies about
// the model (terrain non-uniformity, piecewise constant over each pose period)
// and visual odometry whose error is a random walk (it integrates frame to
// frame motion).
type Noise struct {
	// SlipFwd, SlipLat (m/s) and SlipYaw (rad/s): standard deviations of
	// the body-velocity disturbance.
	SlipFwd, SlipLat, SlipYaw float64
	// VOPos (m) and VOPsi (rad): standard deviation of the error of the
	// visual-odometry motion estimate between two pose samples, per axis.
	VOPos, VOPsi float64
}

// SurfaceNoise is the noise used for the Table 2 surfaces: 10-Hz visual
// odometry drifting by 2 mm and 2 mrad per frame, slip disturbances of a few
// mm/s and mrad/s on asphalt and concrete and three times that on grass,
// whose non-uniformity the paper notes (§4.2, Fig. 14).
func SurfaceNoise(surface string) Noise {
	n := Noise{SlipFwd: 0.004, SlipLat: 0.002, SlipYaw: 0.005, VOPos: 0.002, VOPsi: 0.002}
	if surface == "grass" {
		n.SlipFwd, n.SlipLat, n.SlipYaw = 0.012, 0.006, 0.015
	}
	return n
}

// Generate drives the commands t, vc, wc (as FORMATS.md rows) over a terrain
// with slip coefficients a and the given noise, from pose (0, 0, 0), and
// returns the log with a visual-odometry pose on every poseEvery-th row, and
// the true poses of all rows.
func Generate(a []float64, t, vc, wc []float64, poseEvery int, noise Noise, seed uint64) (*Log, []Pose) {
	rng := rand.New(rand.NewPCG(seed, 0x7e11a))
	n := len(t)
	truth := make([]Pose, n)
	var dFwd, dLat, dYaw float64
	for i := 0; i+1 < n; i++ {
		if i%poseEvery == 0 {
			dFwd = noise.SlipFwd * rng.NormFloat64()
			dLat = noise.SlipLat * rng.NormFloat64()
			dYaw = noise.SlipYaw * rng.NormFloat64()
		}
		fwd, lat, yaw := Velocity(a, vc[i], wc[i])
		fwd, lat, yaw = fwd+dFwd, lat+dLat, yaw+dYaw
		p, h := truth[i], t[i+1]-t[i]
		c, s := math.Cos(p.Psi), math.Sin(p.Psi)
		truth[i+1] = Pose{p.X + h*(c*fwd-s*lat), p.Y + h*(s*fwd+c*lat), p.Psi + h*yaw}
	}
	x, y, psi := make([]float64, n), make([]float64, n), make([]float64, n)
	// Visual odometry integrates its frame-to-frame motion estimates, so its
	// trajectory is self-consistent: each estimated increment is the true one
	// plus noise, composed onto the previous estimate (a heading error then
	// rotates the rest of the path, as it does on a real robot).
	var vo Pose
	last := -1
	for i := range n {
		if i%poseEvery != 0 {
			x[i], y[i], psi[i] = math.NaN(), math.NaN(), math.NaN()
			continue
		}
		if last < 0 {
			vo = truth[i]
		} else {
			d := Relative(truth[last], truth[i])
			d.X += noise.VOPos * rng.NormFloat64()
			d.Y += noise.VOPos * rng.NormFloat64()
			d.Psi += noise.VOPsi * rng.NormFloat64()
			vo = Compose(vo, d)
		}
		last = i
		x[i], y[i], psi[i] = vo.X, vo.Y, Wrap(vo.Psi)
	}
	l, err := NewLog(t, vc, wc, x, y, psi)
	if err != nil {
		panic(err) // generated data is valid by construction
	}
	return l, truth
}
