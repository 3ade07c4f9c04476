// Package p3dx is an independent simulator of a Pioneer 3DX drive, the
// "true" robot the experiments identify models pioneer's two forms on. It
// shares no code with them and has effects neither form has: Coulomb
// friction and stiction in the wheels (stick–slip), a gearbox with reflected
// rotor inertia, a 12-V supply that saturates the PI controller (with
// anti-windup), the controller on a 5-ms internal loop reading quantised
// encoders, commands that arrive with a delay and jitter, log time stamps
// with jitter, and noisy reported velocities. It is integrated at 0.5 ms.
//
// The firmware logic (saturation, acceleration limits while the speed
// grows, deceleration limits while it shrinks) follows the Pioneer's ARCOS
// description, written from that, not from the models.
package p3dx

import (
	"math"
	"math/rand/v2"
)

// Robot is the simulated robot's description.
type Robot struct {
	Delay, DelayJitter float64 // command delay (s) and its uniform jitter (± s)
	Loop               float64 // firmware control period (s)
	Dt                 float64 // integration step (s)

	Vmax, Wmax             float64 // firmware velocity limits (m/s, rad/s)
	AccV, DecV, AccW, DecW float64 // firmware slope limits (m/s², rad/s²)
	Kp, Ki                 float64 // wheel-speed PI: V per rad/s, V per rad
	Vbat                   float64 // supply voltage (V)

	Gear, Kt, Ra, La, Jm float64 // gear ratio, torque constant (N·m/A), armature R (Ω), L (H), rotor inertia (kg·m²)
	Jw                   float64 // wheel inertia about its axle (kg·m²)
	Mass, Inertia        float64 // body mass (kg), inertia about the axle centre (kg·m²)
	Radius, Axle         float64 // wheel radius, axle length (m)

	Coulomb, Stiction, Viscous float64 // per wheel, at the wheel (N·m, N·m, N·m·s/rad)

	Ticks          float64 // encoder ticks per wheel revolution
	NoiseV, NoiseW float64 // σ of the reported v (m/s) and ω (rad/s)
	StampJitter    float64 // σ of the log's time stamps (s)
}

// Default is the robot of the experiments (a loaded Pioneer 3DX; values
// from the Pioneer's and its Pittman motors' data sheets where known).
func Default() Robot {
	return Robot{
		Delay: 0.17, DelayJitter: 0.01, Loop: 0.005, Dt: 0.0005,
		Vmax: 0.9, Wmax: 120 * math.Pi / 180, AccV: 0.35, DecV: 0.5, AccW: 90 * math.Pi / 180, DecW: 120 * math.Pi / 180,
		Kp: 2, Ki: 40, Vbat: 12,
		Gear: 38.3, Kt: 0.0231, Ra: 0.71, La: 0.00066, Jm: 7.1e-6, Jw: 0.004,
		Mass: 31, Inertia: 0.30, Radius: 0.0975, Axle: 0.33,
		Coulomb: 0.25, Stiction: 0.45, Viscous: 0.01,
		Ticks: 500 * 38.3, NoiseV: 0.004, NoiseW: 0.5 * math.Pi / 180, StampJitter: 0.002,
	}
}

// Log is what the navigation computer records: per 100-ms row the time
// stamp, the references it sent and the velocities the robot reported
// (averages over the last 100 ms).
type Log struct {
	T, Vref, Wref, V, W []float64
	// TrueV and TrueW are the noise-free averages (for plots).
	TrueV, TrueW []float64
}

// Drive sends the references (one per 100-ms sample, vref[k] at k·0.1 s) to
// the robot, starting at rest, and records its reports.
func (rb Robot) Drive(vref, wref []float64, seed uint64) Log {
	const Ts = 0.1
	rng := rand.New(rand.NewPCG(seed, 0xb0b))
	n := len(vref)
	arrive := make([]float64, n)
	for k := range arrive {
		arrive[k] = float64(k)*Ts + rb.Delay + rb.DelayJitter*(2*rng.Float64()-1)
	}
	r, half := rb.Radius, rb.Axle/2
	// wheel-space mass matrix: [a c; c a]
	jw := rb.Jw + rb.Gear*rb.Gear*rb.Jm
	a := rb.Mass*r*r/4 + rb.Inertia*r*r/(4*half*half) + jw
	c := rb.Mass*r*r/4 - rb.Inertia*r*r/(4*half*half)
	det := a*a - c*c
	inv := [2][2]float64{{a / det, -c / det}, {-c / det, a / det}}
	var (
		speed     [2]float64 // wheel speeds R, L (rad/s)
		angle     [2]float64 // wheel angles (rad)
		current   [2]float64
		integ     [2]float64
		volt      [2]float64
		stuck     = [2]bool{true, true}
		cmdV      float64 // firmware setpoints after the slope limits
		cmdW      float64
		target    [2]float64 // latest arrived references
		next      int        // next command to arrive
		lastTicks [2]float64 // encoder count at the last loop
		encSpeed  [2]float64
		winTicks  [2]float64 // encoder count at the start of the report window
	)
	ticks := func(i int) float64 { return math.Floor(angle[i] / (2 * math.Pi) * rb.Ticks) }
	steps := int(math.Round(Ts / rb.Dt))
	loopEvery := int(math.Round(rb.Loop / rb.Dt))
	lg := Log{}
	alpha := math.Exp(-rb.Dt * rb.Ra / rb.La)
	for k := range n {
		t := float64(k) * Ts
		// report at t: the window that ends here
		if k == 0 {
			lg.V, lg.W, lg.TrueV, lg.TrueW = append(lg.V, 0), append(lg.W, 0), append(lg.TrueV, 0), append(lg.TrueW, 0)
		} else {
			var d [2]float64
			for i := range 2 {
				d[i] = (ticks(i) - winTicks[i]) / rb.Ticks * 2 * math.Pi / Ts
			}
			v, w := r*(d[0]+d[1])/2, r*(d[0]-d[1])/(2*half)
			lg.TrueV, lg.TrueW = append(lg.TrueV, v), append(lg.TrueW, w)
			lg.V, lg.W = append(lg.V, v+rb.NoiseV*rng.NormFloat64()), append(lg.W, w+rb.NoiseW*rng.NormFloat64())
		}
		for i := range 2 {
			winTicks[i] = ticks(i)
		}
		lg.T = append(lg.T, t+rb.StampJitter*rng.NormFloat64())
		lg.Vref, lg.Wref = append(lg.Vref, vref[k]), append(lg.Wref, wref[k])
		for s := range steps {
			now := t + float64(s)*rb.Dt
			if s%loopEvery == 0 {
				for next < n && arrive[next] <= now {
					target = [2]float64{vref[next], wref[next]}
					next++
				}
				cmdV = ramp(cmdV, math.Max(-rb.Vmax, math.Min(rb.Vmax, target[0])), rb.AccV*rb.Loop, rb.DecV*rb.Loop)
				cmdW = ramp(cmdW, math.Max(-rb.Wmax, math.Min(rb.Wmax, target[1])), rb.AccW*rb.Loop, rb.DecW*rb.Loop)
				want := [2]float64{(cmdV + cmdW*half) / r, (cmdV - cmdW*half) / r}
				for i := range 2 {
					tk := ticks(i)
					encSpeed[i] = (tk - lastTicks[i]) / rb.Ticks * 2 * math.Pi / rb.Loop
					lastTicks[i] = tk
					e := want[i] - encSpeed[i]
					u := rb.Kp*e + rb.Ki*(integ[i]+e*rb.Loop)
					if math.Abs(u) < rb.Vbat { // anti-windup: integrate only unsaturated
						integ[i] += e * rb.Loop
					}
					volt[i] = math.Max(-rb.Vbat, math.Min(rb.Vbat, u))
				}
			}
			// armature: La di/dt = V − Ra i − Kt·Gear·ω, exact over Dt
			var tau [2]float64
			for i := range 2 {
				iss := (volt[i] - rb.Kt*rb.Gear*speed[i]) / rb.Ra
				current[i] = iss + (current[i]-iss)*alpha
				tau[i] = rb.Gear*rb.Kt*current[i] - rb.Viscous*speed[i]
			}
			// friction: stick if the torque that would stop the wheel this
			// step is within the stiction limit (Coulomb once sliding)
			var free [2]float64
			for i := range 2 {
				free[i] = speed[i] + rb.Dt*(inv[i][0]*tau[0]+inv[i][1]*tau[1])
			}
			var f [2]float64
			for i := range 2 {
				stop := free[i] / (rb.Dt * inv[i][i])
				limit := rb.Coulomb
				if stuck[i] {
					limit = rb.Stiction
				}
				if math.Abs(stop) <= limit {
					f[i], stuck[i] = stop, true
				} else {
					f[i], stuck[i] = math.Copysign(rb.Coulomb, free[i]), false
				}
			}
			for i := range 2 {
				speed[i] = free[i] - rb.Dt*(inv[i][0]*f[0]+inv[i][1]*f[1])
				if stuck[i] {
					speed[i] = 0
				}
				angle[i] += rb.Dt * speed[i]
			}
		}
	}
	return lg
}

// ramp moves cur towards want by at most acc while |cur| grows (or cur is
// 0) and at most dec while it shrinks.
func ramp(cur, want, acc, dec float64) float64 {
	d := want - cur
	lim := dec
	if cur == 0 || (cur > 0) == (d > 0) {
		lim = acc
	}
	return cur + math.Max(-lim, math.Min(lim, d))
}
