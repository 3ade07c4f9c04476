package tire

import (
	"fmt"
	"math"
	"time"

	"github.com/wheelgrad/wheelgrad/opt"
)

// Batch is one online estimate of μ (§III-C).
type Batch struct {
	Start, End float64 // s, log time
	Mu         float64
	Loss       float64
	PoseRMS    float64 // m, over the batch's pose samples at the new μ
	Samples    int
	Elapsed    time.Duration // time the estimate took
}

// Online re-estimates μ alone over successive batches of batch seconds of
// one run (Westerhout et al. §III-C), every other parameter fixed at p's
// (from a previous identification). Each batch is simulated from the
// measured pose at its start with the body velocities the previous batch's
// model reached there (the run's initial velocities for the first), and μ
// is fitted by L-BFGS-B through the generated gradient, starting from the
// previous batch's μ. visit, if not nil, is called after each batch.
func Online(p Params, r *Run, batch float64, visit func(Batch)) ([]Batch, error) {
	if p.Tyre != "dugoff" {
		return nil, fmt.Errorf("tire: online adaptation estimates the Dugoff μ; the parameters use the %s law", p.Tyre)
	}
	if !(batch > 0) {
		return nil, fmt.Errorf("tire: batch length %v s, want > 0", batch)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if _, err := r.plan(p.Dt); err != nil {
		return nil, err
	}
	var out []Batch
	vel := r.Initial(p) // u, v, r carried from batch to batch
	mu := p.Mu
	t0 := r.T[0]
	for lo := 0; lo < len(r.T)-1; {
		hi := lo
		for hi+1 < len(r.T) && r.T[hi+1] <= t0+batch*(1+1e-9) {
			hi++
		}
		if hi == lo {
			hi = lo + 1
		}
		sub := r.slice(lo, hi+1)
		start := time.Now()
		st := sub.Initial(p)
		st[3], st[4], st[5] = vel[3], vel[4], vel[5]
		q := p
		q.Mu = mu
		f, err := newFit(q, []*Run{sub}, []int{0}, 1)
		if err != nil {
			return out, fmt.Errorf("batch at %g s: %w", r.T[lo], err)
		}
		for k := range 6 {
			f.shards[0].x0[k] = st[k]
		}
		lo1, hi1 := bounds("dugoff", "mu")
		res, err := opt.LBFGSB{}.Minimize(opt.Problem{Objective: f.eval, Lower: []float64{f.toX(0, lo1)}, Upper: []float64{f.toX(0, hi1)}},
			f.x0(), opt.Settings{FunctionTol: 1e-10, MaxIterations: 50})
		if err != nil {
			return out, fmt.Errorf("batch at %g s: %w", r.T[lo], err)
		}
		mu = f.theta(res.X)[0]
		b := Batch{Start: r.T[lo], End: r.T[hi], Mu: mu, Loss: res.F, Samples: f.nres / 3, Elapsed: time.Since(start)}
		if rs, err := f.residuals(res.X); err == nil && len(rs) > 0 {
			var s float64
			for i := 0; i < len(rs); i += 3 {
				s += rs[i]*rs[i] + rs[i+1]*rs[i+1]
			}
			b.PoseRMS = math.Sqrt(s / float64(len(rs)/3))
		}
		// The state the model reaches at the batch's end starts the next.
		sh := f.shards[0]
		copy(vel[:], []float64{0, 0, 0, sh.sim.Final()[3], sh.sim.Final()[4], sh.sim.Final()[5]})
		out = append(out, b)
		if visit != nil {
			visit(b)
		}
		lo = hi
		t0 = r.T[lo]
	}
	return out, nil
}

// slice returns rows [lo, hi) as a run.
func (r *Run) slice(lo, hi int) *Run {
	cut := func(s []float64) []float64 {
		if s == nil {
			return nil
		}
		return s[lo:hi]
	}
	return &Run{T: r.T[lo:hi], WL: r.WL[lo:hi], WR: r.WR[lo:hi], X: cut(r.X), Y: cut(r.Y), Psi: cut(r.Psi), U: cut(r.U), V: cut(r.V), R: cut(r.R)}
}
