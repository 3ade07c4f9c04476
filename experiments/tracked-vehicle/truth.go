package main

import (
	"math"
	"math/rand/v2"
)

// trueRobot is the robot the logs come from, written separately from Robot
// in plain Go, with what a real log has and the model does not: a smooth
// motor curve (the model's table is piecewise linear between its knots),
// tracks that differ a little (left Coulomb level 2 % above the nominal,
// right 2 % below), a 1-ms integration inside every 10-ms control period,
// a control loop whose period jitters, encoders that report a track's mean
// speed over the period with noise, and a tracker with noise.
type trueRobot struct {
	Fs, Fc, B, Vs float64 // nominal friction: stiction, Coulomb (m/s²), viscous (1/s), Stribeck speed (m/s)
	Asym          float64 // left track's Coulomb level ×(1 + Asym), right's ×(1 − Asym)
	Fmax, K       float64 // motor curve Fmax·(1 − e^(−K|u|))/(1 − e^(−K)) (m/s²)
	W             float64 // track width (m)
	Sub           float64 // integration step (s)
}

// truth is the true robot of the experiment.
var truth = trueRobot{Fs: 1.2, Fc: 0.8, B: 1.5, Vs: 0.05, Asym: 0.02, Fmax: 2.5, K: 2.2, W: 0.5, Sub: 0.001}

// motor is the true drive of a command (m/s²), odd in u.
func (r trueRobot) motor(u float64) float64 {
	a := math.Abs(u)
	if a > 1 {
		a = 1
	}
	return math.Copysign(r.Fmax*(1-math.Exp(-r.K*a))/(1-math.Exp(-r.K)), u)
}

// Params are the true robot's nominal values in Robot's parameter order:
// the friction levels, and the motor curve at the table's knots.
func (r trueRobot) Params() []float64 {
	p := []float64{r.Fs, r.Fc, r.B, r.Vs}
	for _, k := range Knots[1:] {
		p = append(p, r.motor(k))
	}
	return p
}

// state of the true robot: pose and track speeds.
type state struct{ X, Y, Th, Vl, Vr float64 }

// track advances one track's speed by h under command u with Coulomb level
// fc: the same friction law as the model's, at a finer step.
func (r trueRobot) track(v, u, fc, h float64) float64 {
	free := v + h*(r.motor(u)-r.B*v)
	level := fc + (r.Fs-fc)*math.Exp(-(v/r.Vs)*(v/r.Vs))
	if math.Abs(free) <= h*level {
		return 0
	}
	return free - math.Copysign(h*level, free)
}

// advance runs the robot for dt under commands (ul, ur) in steps of Sub at
// most, and returns the tracks' mean speeds over dt (what encoders count).
func (r trueRobot) advance(s *state, ul, ur, dt float64) (ml, mr float64) {
	n := max(1, int(math.Ceil(dt/r.Sub-1e-9)))
	h := dt / float64(n)
	for range n {
		vl := r.track(s.Vl, ul, r.Fc*(1+r.Asym), h)
		vr := r.track(s.Vr, ur, r.Fc*(1-r.Asym), h)
		// Trapezoidal speeds over the sub-step, heading at its middle.
		v, w := (s.Vl+vl+s.Vr+vr)/4, (vr+s.Vr-vl-s.Vl)/(2*r.W)
		mid := s.Th + h*w/2
		s.X += h * v * math.Cos(mid)
		s.Y += h * v * math.Sin(mid)
		s.Th += h * w
		ml += h * (s.Vl + vl) / 2
		mr += h * (s.Vr + vr) / 2
		s.Vl, s.Vr = vl, vr
	}
	return ml / dt, mr / dt
}

// Sensor noise and the control loop's timing.
const (
	period   = 0.01   // s, nominal control period
	jitter   = 0.0015 // s, the period's uniform jitter (±)
	encNoise = 0.005  // m/s, encoder speed noise (σ)
	posNoise = 0.002  // m, tracker position noise (σ)
	thNoise  = 0.003  // rad, tracker heading noise (σ)
)

// logRun is one run of a log: row k at time T[k] holds the commands sent
// then (held until row k+1) and the measurements of the period before
// (row 0: the robot at rest, measured).
type logRun struct {
	T              []float64
	Ul, Ur         []float64
	El, Er         []float64 // encoder mean speeds over the period ending at T[k]
	X, Y, Th       []float64 // tracker
	TrueX, TrueY   []float64
	TrueVl, TrueVr []float64
}

// segment is a command held or ramped on both tracks for a while.
type segment struct {
	l0, l1, r0, r1 float64 // commands at the start and end (ramps)
	dur            float64 // s
}

// rest-to-motion command programs: each run starts at rest and breaks away
// by a step or a slow ramp through the stiction level, and stops (zero
// command: friction holds the track) or is held below the breakaway
// command, so that the logs see the tracks stick, break away and slide.
func program(rng *rand.Rand, dur float64) []segment {
	var segs []segment
	level := func() float64 { return 0.25 + 0.75*rng.Float64() }
	sign := func() float64 {
		if rng.IntN(4) == 0 {
			return -1
		}
		return 1
	}
	for t := 0.0; t < dur; {
		d := 1.5 + 1.5*rng.Float64()
		var s segment
		switch rng.IntN(5) {
		case 0: // step from (about) rest, straight or turning
			sg := sign()
			s = segment{l0: sg * level(), r0: sg * level(), dur: d}
			s.l1, s.r1 = s.l0, s.r0
		case 1: // slow ramp through the breakaway command
			a, b := 0.1+0.05*rng.Float64(), 0.35+0.3*rng.Float64()
			sg := sign()
			s = segment{l0: sg * a, l1: sg * b, r0: sg * a, r1: sg * (b - 0.1*rng.Float64()), dur: 2 + 2*rng.Float64()}
		case 2: // stop: friction holds the tracks
			s = segment{dur: d}
		case 3: // below breakaway (F < fs), slow commands in motion
			a := 0.05 + 0.15*rng.Float64()
			s = segment{l0: a, l1: a, r0: a + 0.1*rng.Float64(), dur: d}
			s.r1 = s.r0
		default: // spin or turn: tracks opposite or unequal
			s = segment{l0: level(), r0: -level(), dur: d}
			if rng.IntN(2) == 0 {
				s.r0 = 0.2 + 0.3*rng.Float64()
			}
			s.l1, s.r1 = s.l0, s.r0
		}
		segs = append(segs, s)
		t += s.dur
	}
	return segs
}

// command of the program at time t.
func command(segs []segment, t float64) (ul, ur float64) {
	for _, s := range segs {
		if t < s.dur {
			f := t / s.dur
			return s.l0 + f*(s.l1-s.l0), s.r0 + f*(s.r1-s.r0)
		}
		t -= s.dur
	}
	return 0, 0
}

// simulateLog drives the true robot through a rest-to-motion program of
// dur seconds (1 s at rest first) and logs it.
func simulateLog(r trueRobot, dur float64, seed uint64) *logRun {
	rng := rand.New(rand.NewPCG(seed, 0x7ac4))
	segs := append([]segment{{dur: 1}}, program(rng, dur-1)...)
	n := int(math.Round(dur / period))
	l := &logRun{}
	var s state
	var el, er float64
	t := 0.0
	for k := 0; k <= n; k++ {
		ul, ur := command(segs, t)
		l.T = append(l.T, t)
		l.Ul, l.Ur = append(l.Ul, ul), append(l.Ur, ur)
		l.El, l.Er = append(l.El, el+encNoise*rng.NormFloat64()), append(l.Er, er+encNoise*rng.NormFloat64())
		l.X = append(l.X, s.X+posNoise*rng.NormFloat64())
		l.Y = append(l.Y, s.Y+posNoise*rng.NormFloat64())
		l.Th = append(l.Th, s.Th+thNoise*rng.NormFloat64())
		l.TrueX, l.TrueY = append(l.TrueX, s.X), append(l.TrueY, s.Y)
		l.TrueVl, l.TrueVr = append(l.TrueVl, s.Vl), append(l.TrueVr, s.Vr)
		next := float64(k+1)*period + jitter*(2*rng.Float64()-1)
		el, er = r.advance(&s, ul, ur, next-t)
		t = next
	}
	return l
}
