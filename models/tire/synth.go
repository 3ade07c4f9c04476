package tire

import (
	"math"
	"math/rand/v2"
)

// Maneuver is one of the experiments of Table I as wheel-speed commands:
// Wheels(t) gives the commanded left and right wheel speeds (rad/s) at time
// t of a run of Duration seconds, for a robot of wheel radius R and track W.
type Maneuver struct {
	Name     string
	Duration float64
	Wheels   func(t, R, W float64) (wl, wr float64)
}

// unicycle converts a forward speed v (m/s) and yaw rate w (rad/s) to
// wheel speeds by the nominal (no-slip) skid-steer kinematics.
func unicycle(v, w, R, W float64) (wl, wr float64) {
	return (v - w*W/2) / R, (v + w*W/2) / R
}

func ramp(t, a, vmax float64) float64 { return math.Min(a*t, vmax) }

// Maneuvers are the eight experiments of Table I (v = 0.4 m/s, a = 1 m/s²,
// turns of radius 0.5 m).
func Maneuvers() []Maneuver {
	const v, a, rho = 0.4, 1.0, 0.5
	return []Maneuver{
		{"straight", 5, func(t, R, W float64) (float64, float64) { return unicycle(ramp(t, 2, v), 0, R, W) }},
		{"accelerate", 3, func(t, R, W float64) (float64, float64) {
			s := ramp(t, a, 1)
			if t > 2 {
				s = math.Max(0, 1-a*(t-2))
			}
			return unicycle(s, 0, R, W)
		}},
		{"u-turn-left", 2 + math.Pi*rho/v + 2, uTurn(v, rho, 1)},
		{"u-turn-right", 2 + math.Pi*rho/v + 2, uTurn(v, rho, -1)},
		{"paperclip", 12, func(t, R, W float64) (float64, float64) {
			// straights of 1.5 s accelerating to 0.8 m/s and braking, then
			// half circles at 0.4 m/s.
			ph := math.Mod(t, 6)
			if ph < 2 {
				s := math.Min(v+a*ph, 0.8)
				if ph > 1.2 {
					s = math.Max(v, 0.8-a*(ph-1.2))
				}
				return unicycle(s, 0, R, W)
			}
			if ph < 2+math.Pi*rho/v {
				return unicycle(v, v/rho, R, W)
			}
			return unicycle(v, 0, R, W)
		}},
		{"square", 4 * (2.5 + 2), func(t, R, W float64) (float64, float64) {
			ph := math.Mod(t, 4.5)
			if ph < 2.5 {
				return unicycle(ramp(ph, 2, v), 0, R, W)
			}
			return unicycle(0, math.Pi/2/2, R, W) // turn in place, 90° in 2 s
		}},
		{"circles-ccw", 3 * 2 * math.Pi * rho / v, func(t, R, W float64) (float64, float64) { return unicycle(ramp(t, 2, v), v/rho, R, W) }},
		{"circles-cw", 3 * 2 * math.Pi * rho / v, func(t, R, W float64) (float64, float64) { return unicycle(ramp(t, 2, v), -v/rho, R, W) }},
	}
}

func uTurn(v, rho, dir float64) func(t, R, W float64) (float64, float64) {
	return func(t, R, W float64) (float64, float64) {
		if t < 2 || t > 2+math.Pi*rho/v {
			return unicycle(ramp(t, 2, v), 0, R, W)
		}
		return unicycle(v, dir*v/rho, R, W)
	}
}

// SynthConfig sets up a synthetic log.
type SynthConfig struct {
	Rate      float64 // log rows per second (default 100)
	MotorTau  float64 // the wheels follow their commands with this lag (s, default 0.05)
	WheelStd  float64 // encoder noise of the logged wheel speeds (rad/s, default 0.05)
	PoseStd   float64 // motion-capture position noise (m, default 0.001)
	HeadStd   float64 // motion-capture heading noise (rad, default 0.005)
	PoseEvery int     // a pose every n-th row (default 1)
	Seed      uint64
}

func (c *SynthConfig) defaults() {
	if c.Rate == 0 {
		c.Rate = 100
	}
	if c.MotorTau == 0 {
		c.MotorTau = 0.05
	}
	if c.WheelStd == 0 {
		c.WheelStd = 0.05
	}
	if c.PoseStd == 0 {
		c.PoseStd = 0.001
	}
	if c.HeadStd == 0 {
		c.HeadStd = 0.005
	}
	if c.PoseEvery == 0 {
		c.PoseEvery = 1
	}
}

// Synthesize drives the robot p through a maneuver from rest and logs it:
// the true wheel speeds follow the commands through a first-order lag and
// are logged with encoder noise; poses are logged with motion-capture
// noise. The robot is integrated with p's own model at p.Dt (tests of the
// model; the experiment adds a robot the model does not describe).
func Synthesize(p Params, mv Maneuver, c SynthConfig) (*Run, error) {
	return SynthesizeSwitch(p, p, math.Inf(1), mv, c)
}

// SynthesizeSwitch is Synthesize on a floor that changes at time
// tSwitch from surface p to surface q (their tyre parameters; the robot
// is p's): the log of a robot driving from lino onto carpet.
func SynthesizeSwitch(p, q Params, tSwitch float64, mv Maneuver, c SynthConfig) (*Run, error) {
	c.defaults()
	rng := rand.New(rand.NewPCG(c.Seed, 77))
	n := int(math.Round(mv.Duration*c.Rate)) + 1
	r := &Run{T: make([]float64, n), WL: make([]float64, n), WR: make([]float64, n),
		X: make([]float64, n), Y: make([]float64, n), Psi: make([]float64, n)}
	var wl, wr float64
	per := int(math.Round(1 / (c.Rate * p.Dt)))
	steps := max((n-1)*per, 1)
	trueWL, trueWR := make([]float64, n), make([]float64, n)
	for i := range n {
		t := float64(i) / c.Rate
		cl, cr := mv.Wheels(t, p.R, p.W)
		a := 1 - math.Exp(-1/(c.Rate*c.MotorTau))
		wl += a * (cl - wl)
		wr += a * (cr - wr)
		trueWL[i], trueWR[i] = wl, wr
		r.T[i] = t
		r.WL[i], r.WR[i] = wl+c.WheelStd*rng.NormFloat64(), wr+c.WheelStd*rng.NormFloat64()
	}
	ks := min(steps, max(0, int(math.Round(tSwitch/p.Dt))))
	states := make([][6]float64, steps+1)
	x0 := make([]float64, 6)
	x0[3] = p.R * (trueWL[0] + trueWR[0]) / 2
	copy(states[0][:], x0)
	for _, part := range []struct {
		surf   Params
		lo, hi int
	}{{p, 0, ks}, {q, ks, steps}} {
		T := part.hi - part.lo
		if T == 0 {
			continue
		}
		u := make([]float64, 2*T)
		for k := range T {
			row := (part.lo + k) / per
			u[2*k], u[2*k+1] = trueWL[row], trueWR[row]
		}
		surf := p.withFree(part.surf.free())
		sim := simOf(surf, 1, T)
		if _, err := sim.Forward(surf.free(), surf.settings(), states[part.lo][:], u, nil); err != nil {
			return nil, err
		}
		for k := 1; k <= T; k++ {
			copy(states[part.lo+k][:], sim.State(k))
		}
	}
	for i := range n {
		s := states[min(i*per, steps)]
		r.X[i], r.Y[i], r.Psi[i] = math.NaN(), math.NaN(), math.NaN()
		if i%c.PoseEvery == 0 {
			r.X[i] = s[0] + c.PoseStd*rng.NormFloat64()
			r.Y[i] = s[1] + c.PoseStd*rng.NormFloat64()
			r.Psi[i] = s[2] + c.HeadStd*rng.NormFloat64()
		}
	}
	// The run starts from its first logged pose: make the first row's pose
	// exact, as a user's log starting at rest would be averaged.
	r.X[0], r.Y[0], r.Psi[0] = 0, 0, 0
	return r, nil
}
