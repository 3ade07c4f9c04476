package fit

import (
	"math"
	"sort"
)

// Track is one validation run's measured and predicted planar poses
// (x, y, heading) at its measured samples, in time order.
type Track struct {
	T          []float64
	Meas, Pred [][3]float64
	// DeadReckoned says the poses were integrated from speeds
	// (DeadReckon), not measured.
	DeadReckoned bool
}

// Add appends a sample; one with a NaN measured coordinate is skipped.
func (tr *Track) Add(t float64, meas, pred [3]float64) {
	if math.IsNaN(meas[0]) || math.IsNaN(meas[1]) || math.IsNaN(meas[2]) {
		return
	}
	tr.T, tr.Meas, tr.Pred = append(tr.T, t), append(tr.Meas, meas), append(tr.Pred, pred)
}

// Duration is the time from the first to the last sample (0 for fewer
// than two).
func (tr *Track) Duration() float64 {
	if len(tr.T) < 2 {
		return 0
	}
	return tr.T[len(tr.T)-1] - tr.T[0]
}

// Endpoint is the position error (m) at the run's last sample of the
// rollout from its start: ‖p̂(t_end) − p(t_end)‖; NaN without samples.
func (tr *Track) Endpoint() float64 {
	n := len(tr.T)
	if n == 0 {
		return math.NaN()
	}
	return math.Hypot(tr.Pred[n-1][0]-tr.Meas[n-1][0], tr.Pred[n-1][1]-tr.Meas[n-1][1])
}

// KStep returns the k-step-ahead position errors at horizon h (s): for
// every sample j with a sample k at least h later (the first such), the
// model's motion from t_j to t_k, re-anchored at the measured pose of j,
// against the measured pose of k:
//
//	p̂_k = p_j + R(θ_j − θ̂_j)·(p̂_k − p̂_j),   e = ‖p̂_k − p_k‖
//
// This is the model restarted from the measured pose at j, for a model
// whose motion does not depend on where it is (the planar models here:
// velocities in the body frame, then rotated and integrated), computed from
// the one rollout. No sample is h ahead of any other: nil.
func (tr *Track) KStep(h float64) []float64 {
	var out []float64
	for j := range tr.T {
		k := j + sort.SearchFloat64s(tr.T[j:], tr.T[j]+h-1e-9*math.Max(1, math.Abs(h)))
		if k >= len(tr.T) {
			break
		}
		mj, pj, pk, mk := tr.Meas[j], tr.Pred[j], tr.Pred[k], tr.Meas[k]
		d := mj[2] - pj[2]
		c, s := math.Cos(d), math.Sin(d)
		dx, dy := pk[0]-pj[0], pk[1]-pj[1]
		x, y := mj[0]+c*dx-s*dy, mj[1]+s*dx+c*dy
		out = append(out, math.Hypot(x-mk[0], y-mk[1]))
	}
	return out
}

// Dead reckons a track of planar poses from speeds v (m/s) and w (rad/s),
// measured and predicted, by explicit Euler from the origin: the pose a
// velocity model's outputs imply, so that its runs get endpoint and k-step
// position errors like a pose model's. Samples with a NaN speed are held
// at the previous speed.
func DeadReckon(t, vm, wm, vp, wp []float64) Track {
	tr := Track{DeadReckoned: true}
	var m, p [3]float64
	var lvm, lwm float64
	for k := range t {
		if k > 0 {
			dt := t[k] - t[k-1]
			a, b := vm[k-1], wm[k-1]
			if math.IsNaN(a) || math.IsNaN(b) {
				a, b = lvm, lwm
			}
			lvm, lwm = a, b
			m = [3]float64{m[0] + dt*a*math.Cos(m[2]), m[1] + dt*a*math.Sin(m[2]), m[2] + dt*b}
			p = [3]float64{p[0] + dt*vp[k-1]*math.Cos(p[2]), p[1] + dt*vp[k-1]*math.Sin(p[2]), p[2] + dt*wp[k-1]}
		}
		tr.T, tr.Meas, tr.Pred = append(tr.T, t[k]), append(tr.Meas, m), append(tr.Pred, p)
	}
	return tr
}
