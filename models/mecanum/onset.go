package mecanum

import (
	"errors"
	"fmt"
	"math"
)

// Onset is the time offset between a command stream and a camera stream
// estimated from the motion onset of a run that starts at rest: the camera's
// first frame that has left the rest pose by Threshold is matched with the
// time the model, driven by the commands from their onset, needs to move as
// far. Offset is what to add to the camera's times to put them on the
// commands' clock; it also absorbs a motor dead time and the wheels'
// spin-up (Luo eq. 2), which the steady-state model of eq. 3 does not have.
type Onset struct {
	Offset       float64
	CommandOnset float64 // first non-zero command (commands' clock, s)
	MotionOnset  float64 // first camera frame past Threshold (camera clock, s)
	Lag          float64 // the model's time from CommandOnset to Threshold (s)
	Threshold    float64 // m
	Noise        float64 // position scatter of the camera at rest (m)
}

// ErrNoMotion is a run whose poses never leave the rest pose.
var ErrNoMotion = errors.New("no motion")

// ErrNotAtRest is a run that does not start at rest.
var ErrNotAtRest = errors.New("not at rest at the start")

// restFrames is how many camera frames at the start define the rest pose.
const restFrames = 8

// EstimateOnset estimates the offset for one run from its command stream
// (times ct, commands w) and its camera poses (times camT, x, y, th). The
// distance from rest is |Δ(x, y)| + lab·|Δθ|, so that a turn on the spot
// counts as motion.
func EstimateOnset(p Params, ct []float64, w [][4]float64, camT, x, y, th []float64) (Onset, error) {
	return estimateOnset(p, ct, w, camT, x, y, th, true)
}

// EstimateOnsetNoLag is EstimateOnset without the model's lag (Lag = 0): for
// commands whose wiring is not known yet (wheelgrad inspect); the start
// poses fitted afterwards absorb the few centimetres the lag is worth.
func EstimateOnsetNoLag(p Params, ct []float64, w [][4]float64, camT, x, y, th []float64) (Onset, error) {
	return estimateOnset(p, ct, w, camT, x, y, th, false)
}

func estimateOnset(p Params, ct []float64, w [][4]float64, camT, x, y, th []float64, lag bool) (Onset, error) {
	var o Onset
	if len(camT) < restFrames+2 {
		return o, fmt.Errorf("%d camera frames: the onset needs at least %d (%d at rest)", len(camT), restFrames+2, restFrames)
	}
	c0 := -1
	for i, v := range w {
		if v != ([4]float64{}) {
			c0 = i
			break
		}
	}
	if c0 < 0 {
		return o, fmt.Errorf("%w: every command is zero", ErrNoMotion)
	}
	o.CommandOnset = ct[c0]
	// rest pose and scatter from the first frames
	var mx, my, mt float64
	for k := range restFrames {
		mx += x[k] / restFrames
		my += y[k] / restFrames
		mt += th[k] / restFrames
	}
	dist := func(k int) float64 { return math.Hypot(x[k]-mx, y[k]-my) + p.Lab*math.Abs(th[k]-mt) }
	var ss float64
	for k := range restFrames {
		ss += dist(k) * dist(k)
	}
	o.Noise = math.Sqrt(ss / restFrames)
	o.Threshold = math.Max(0.01, 6*o.Noise)
	for k := range restFrames {
		if dist(k) > o.Threshold {
			return o, fmt.Errorf("%w: the first %d camera frames spread over %.3g m (the onset needs a run that starts at rest)", ErrNotAtRest, restFrames, dist(k))
		}
	}
	k1 := -1
	for k := restFrames; k < len(camT); k++ {
		if dist(k) > o.Threshold {
			k1 = k
			break
		}
	}
	if k1 < 0 {
		return o, fmt.Errorf("%w: the camera never sees the robot more than %.3g m from its rest pose", ErrNoMotion, o.Threshold)
	}
	// interpolate the crossing between frames k1-1 and k1
	d0, d1 := dist(k1-1), dist(k1)
	o.MotionOnset = camT[k1-1] + (camT[k1]-camT[k1-1])*(o.Threshold-d0)/(d1-d0)
	if !lag {
		o.Offset = o.CommandOnset - o.MotionOnset
		return o, nil
	}
	// the model's lag: integrate from rest at the command onset
	var px, py, pt float64
	for i := c0; i+1 < len(ct); i++ {
		vx, vy, wz := p.Velocity(w[i], p.MuAt(w[i]))
		dt := ct[i+1] - ct[i]
		s, c := math.Sincos(pt)
		nx, ny, nt := px+dt*(c*vx-s*vy), py+dt*(s*vx+c*vy), pt+dt*wz
		if d := math.Hypot(nx, ny) + p.Lab*math.Abs(nt); d >= o.Threshold {
			prev := math.Hypot(px, py) + p.Lab*math.Abs(pt)
			o.Lag = ct[i] - o.CommandOnset + dt*(o.Threshold-prev)/(d-prev)
			o.Offset = o.CommandOnset + o.Lag - o.MotionOnset
			return o, nil
		}
		px, py, pt = nx, ny, nt
	}
	return o, fmt.Errorf("%w: the model, driven by the commands, never moves %.3g m", ErrNoMotion, o.Threshold)
}
