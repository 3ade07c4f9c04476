package p3dx

import (
	"math"
	"math/rand/v2"
)

// Cases are the references of the paper's first data set: clearly separated
// critical cases — steps, ramps, constant speeds and direction reversals,
// of v and ω apart and together — at most 0.3 m/s and 50 °/s, one value per
// 100-ms sample. repeat ≥ 1 strings the sequence that many times with
// amplitudes varied by the seeded draws (0.6–1 of the maxima).
func Cases(repeat int, seed uint64) (vref, wref []float64) {
	rng := rand.New(rand.NewPCG(seed, 0xca5e))
	const vm, wm = 0.3, 50 * math.Pi / 180
	hold := func(v, w float64, s float64) {
		for range int(math.Round(s / 0.1)) {
			vref, wref = append(vref, v), append(wref, w)
		}
	}
	ramp := func(v0, v1, w0, w1, s float64) {
		n := int(math.Round(s / 0.1))
		for i := 1; i <= n; i++ {
			f := float64(i) / float64(n)
			vref, wref = append(vref, v0+(v1-v0)*f), append(wref, w0+(w1-w0)*f)
		}
	}
	hold(0, 0, 1)
	for range repeat {
		a := 0.6 + 0.4*rng.Float64()
		b := 0.6 + 0.4*rng.Float64()
		v, w := a*vm, b*wm
		hold(v, 0, 3)                         // step, constant
		hold(0, 0, 2)                         // step down to rest
		hold(-v/2, 0, 2.5)                    // backwards step
		hold(0, 0, 1.5)                       //
		ramp(0, v, 0, 0, 2)                   // ramp up
		hold(v, 0, 2)                         //
		ramp(v, -v, 0, 0, 4)                  // ramp through zero: reversal
		hold(-v, 0, 1.5)                      //
		ramp(-v, 0, 0, 0, 1.5)                // ramp to rest
		hold(0, w, 3)                         // turn on the spot
		hold(0, 0, 2)                         //
		ramp(0, 0, w, -w, 3)                  // rotational reversal
		hold(0, -w, 1.5)                      //
		ramp(0, 0, -w, 0, 1)                  //
		hold(0, 0, 1.5)                       //
		hold(v*0.7, w*0.6, 3)                 // arc
		ramp(v*0.7, -v*0.5, w*0.6, -w*0.8, 3) // both reverse
		hold(-v*0.5, -w*0.8, 1.5)             //
		hold(0, 0, 2)                         //
		ramp(0, v, 0, w*0.5, 0.8)             // steep ramps
		ramp(v, -v, w*0.5, -w*0.5, 1.2)
		hold(0, 0, 2)
	}
	return vref, wref
}

// Navigation are references like those of a navigation algorithm (a
// dynamic window): a new (v, ω) every 0.1–0.3 s chosen within reach of the
// previous one under accelerations of 0.25 m/s² and 0.8 rad/s² (the motion
// constraints the navigation respects), towards goals that change
// every few seconds (cruising, slowing for obstacles, turning on the spot,
// backing up); at most 0.6 m/s and 63 °/s; seconds long.
func Navigation(seconds float64, seed uint64) (vref, wref []float64) {
	rng := rand.New(rand.NewPCG(seed, 0x4a7))
	const vm, wm = 0.6, 63 * math.Pi / 180
	n := int(math.Round(seconds / 0.1))
	var v, w, gv, gw float64
	nextGoal, nextCmd := 0, 0
	for k := range n {
		if k >= nextGoal {
			switch u := rng.Float64(); {
			case u < 0.45: // cruise with a curve
				gv, gw = vm*(0.4+0.6*rng.Float64()), wm*(2*rng.Float64()-1)*0.6
			case u < 0.65: // slow down for an obstacle, turn away
				gv, gw = vm*0.2*rng.Float64(), wm*math.Copysign(0.6+0.4*rng.Float64(), rng.Float64()-0.5)
			case u < 0.8: // turn on the spot
				gv, gw = 0, wm*math.Copysign(0.5+0.5*rng.Float64(), rng.Float64()-0.5)
			case u < 0.9: // back up
				gv, gw = -vm*0.3*rng.Float64(), wm*0.3*(2*rng.Float64()-1)
			default: // stop
				gv, gw = 0, 0
			}
			nextGoal = k + 15 + rng.IntN(40)
		}
		if k >= nextCmd {
			// within the dynamic window of one command period
			dt := 0.1 * float64(1+rng.IntN(3))
			v += math.Max(-0.25*dt, math.Min(0.25*dt, gv-v+0.05*rng.NormFloat64()))
			w += math.Max(-0.8*dt, math.Min(0.8*dt, gw-w+0.1*rng.NormFloat64()))
			v = math.Max(-vm, math.Min(vm, v))
			w = math.Max(-wm, math.Min(wm, w))
			nextCmd = k + int(math.Round(dt/0.1))
		}
		vref, wref = append(vref, v), append(wref, w)
	}
	return vref, wref
}
