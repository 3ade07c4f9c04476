package mecanum

import (
	"math"

	"github.com/wheelgrad/wheelgrad/opt"
)

// ContinuationWindow is the first window (s) of Identify's continuation.
//
// Over a long log the loss of eq. 8 is far from convex in μ: a start 0.3 off
// in μ moves the predicted path by metres after a minute, and the closest
// point of the spline term then lies on the wrong loop of the path. Measured
// on a 125-s log (240 Hz, σ = 3 mm, true μ = .6 .7 .8 .9, commands varying
// smoothly; experiments/mecanum-long): a fit of the whole log from μ = 0.5
// ends at μ = 0.41 1.02 0.08 0.62, residual 0.5 m, "function converged".
// Over the first 8 s the same start is in the right basin (as the paper's
// 7-s runs are), and each answer is a start within the basin of a window
// twice as long.
const ContinuationWindow = 8.0

// Window is one fit of the continuation: the runs cut to their first
// Seconds.
type Window struct {
	Seconds    float64
	Mu         [4]float64
	Iterations int
	Status     opt.Status
}

// span is the longest time from a run's first to its last camera pose.
func (f *Fit) span() float64 {
	var s float64
	for _, sg := range f.segs {
		r := sg.run
		s = math.Max(s, r.T[sg.k0+sg.n-1]-r.T[sg.k0])
	}
	return s
}

// continuation solves the runs cut to windows of ContinuationWindow·2^k
// seconds from their first camera pose, each from the previous answer, and
// returns the last answer (μ and start poses, the layout of f) as the start
// for the whole log; nil when the runs are short.
func (f *Fit) continuation(o IdentifyOptions) ([]float64, []Window, error) {
	total := f.span()
	if total <= 2*ContinuationWindow {
		return nil, nil, nil
	}
	var x []float64
	var out []Window
	for w := ContinuationWindow; w < total/1.5; w *= 2 {
		runs := make([]Run, len(f.segs))
		for i, sg := range f.segs {
			r := *sg.run
			t0 := r.T[sg.k0]
			n := sg.k0 + sg.n
			for n > sg.k0+1 && r.T[n-1] > t0+w {
				n--
			}
			r.T, r.W = r.T[:n], r.W[:n]
			r.X, r.Y, r.Theta = r.X[:n], r.Y[:n], r.Theta[:n]
			runs[i] = r
		}
		sub, err := NewFit(f.P, runs, f.Cfg)
		if err != nil {
			continue // too few camera poses in the window: a longer one
		}
		so := o
		so.Start, so.NoContinuation = x, true
		if so.Start == nil {
			so.Start = sub.X0(o.Init)
		}
		res, err := Identify(sub, so)
		if err != nil {
			return nil, nil, err
		}
		x = res.X
		out = append(out, Window{Seconds: w, Mu: res.Mu, Iterations: res.Opt.Iterations, Status: res.Opt.Status})
	}
	return x, out, nil
}

// CameraNoise estimates the camera's position noise σ (m) from the logs
// alone: for equally spaced samples the second difference of a position is
// the motion's a·Δt² (0.3 mm at 1 m/s² and 60 Hz) plus noise of variance 6σ².
// It is the yardstick for the fit's residual: a residual far above it means
// a wrong optimum or a model (or units) that do not match. NaN without three
// equally spaced samples.
func (f *Fit) CameraNoise() float64 {
	var ss float64
	var n int
	for _, sg := range f.segs {
		t := sg.tcam
		for i := 1; i+1 < len(t); i++ {
			h1, h2 := t[i]-t[i-1], t[i+1]-t[i]
			if math.Abs(h1-h2) > 0.01*h1 {
				continue
			}
			dx := sg.gx[i+1] - 2*sg.gx[i] + sg.gx[i-1]
			dy := sg.gy[i+1] - 2*sg.gy[i] + sg.gy[i-1]
			ss += dx*dx + dy*dy
			n += 2
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return math.Sqrt(ss / float64(n) / 6)
}
