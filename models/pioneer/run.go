package pioneer

import (
	"fmt"
	"math"

	"github.com/wheelgrad/wheelgrad/dyn"

	"github.com/wheelgrad/wheelgrad/dataset"
)

// Run is one log run, one row per 100-ms sample: the references sent at
// time T[k] (v_ref in m/s, w_ref in rad/s) and, optionally, the velocities
// measured at T[k] (the encoder averages over the sample that ends there;
// NaN where a row has none).
type Run struct {
	T, Vref, Wref []float64
	V, W          []float64 // nil: no measurements
	// Origin locates the run's rows in the file it was read from (zero
	// for a run built in code), for errors naming the file and line.
	dataset.Origin
}

// Check refuses runs the models cannot take: no rows, non-finite or
// non-increasing times, rows not one sample Ts apart (within ±50 %: the
// models are discrete at Ts), non-finite references, columns of unequal
// length.
func (r *Run) Check(Ts float64) error {
	n := len(r.T)
	if n == 0 {
		return &dataset.RowError{Row: 0, Column: "t", Msg: "the run has no rows"}
	}
	for _, c := range []struct {
		name string
		v    []float64
		opt  bool
	}{{"v_ref", r.Vref, false}, {"w_ref", r.Wref, false}, {"v", r.V, true}, {"w", r.W, true}} {
		if c.v == nil && c.opt {
			continue
		}
		if len(c.v) != n {
			return &dataset.RowError{Row: 0, Column: c.name, Msg: fmt.Sprintf("%d values for %d rows", len(c.v), n)}
		}
		for i, x := range c.v {
			if math.IsInf(x, 0) || (!c.opt && math.IsNaN(x)) {
				return &dataset.RowError{Row: i, Column: c.name, Msg: fmt.Sprintf("%v is not a finite number", x)}
			}
		}
	}
	for i, t := range r.T {
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return &dataset.RowError{Row: i, Column: "t", Msg: fmt.Sprintf("%v is not a finite time", t)}
		}
		if i == 0 {
			continue
		}
		dt := t - r.T[i-1]
		if !(dt > 0) {
			return &dataset.RowError{Row: i, Column: "t", Msg: fmt.Sprintf("time %g does not increase (previous row %g)", t, r.T[i-1])}
		}
		if dt < 0.5*Ts || dt > 1.5*Ts {
			return &dataset.RowError{Row: i, Column: "t", Msg: fmt.Sprintf("%g s after the previous row: the models are discrete at Ts = %g s (rows must be one sample apart, ±50 %%)", dt, Ts)}
		}
	}
	return nil
}

// start is the velocity the run starts with: the first row's measurement if
// it has one, else rest. Before the run, the reference is taken to have
// held this velocity (it fills the delay line).
func (r *Run) start() (v0, w0 float64) {
	if r.V != nil && !math.IsNaN(r.V[0]) && !math.IsNaN(r.W[0]) {
		return r.V[0], r.W[0]
	}
	return 0, 0
}

// ref is the reference of row k, the start velocity before the run.
func (r *Run) ref(k int) (float64, float64) {
	if k < 0 {
		return r.start()
	}
	return r.Vref[k], r.Wref[k]
}

// measured is row k's measurement and its weight (0 without one).
func (r *Run) measured(k int) (v, w, wt float64) {
	if r.V == nil || k >= len(r.T) || math.IsNaN(r.V[k]) || math.IsNaN(r.W[k]) {
		return 0, 0, 0
	}
	return r.V[k], r.W[k], 1
}

// batch is the rollout of several runs as lanes of one dyn.Sim: sample k of
// run j (from row k to row k+1) is steps k·N … k·N+N−1 of lane j (N internal
// steps per sample, 1 for the experimental form); lanes shorter than the
// longest are padded with weight 0.
type batch struct {
	p      Params
	m      *dyn.Model
	runs   []*Run
	N      int
	B, T   int
	x0, u  []float64
	q      []float64
	tIdx   int // index of the temperature T in q
	sim    *dyn.Sim
	y      []float64
	dv, dw int
}

// newBatch lays the runs out for p's form with whole-sample delays dv, dw
// (one shared delay, dv, in the physical form) and residual weights sv, sw.
func newBatch(p Params, runs []*Run, dv, dw int, sv, sw float64) *batch {
	b := &batch{p: p, m: p.Step(), runs: runs, N: p.Substeps(), B: len(runs), dv: dv, dw: dw}
	rows := 0
	for _, r := range runs {
		rows = max(rows, len(r.T))
	}
	b.T = max(rows-1, 1) * b.N
	U := b.m.NU()
	b.u = make([]float64, b.T*U*b.B)
	b.x0 = make([]float64, b.m.NS()*b.B)
	B := b.B
	set := func(t, k, j int, v float64) { b.u[(t*U+k)*B+j] = v }
	for j, r := range runs {
		n := len(r.T)
		for k := 0; k < max(rows-1, 1); k++ {
			kk := min(k, max(n-2, 0)) // padding repeats the last sample, weight 0
			vm, wm, wt := r.measured(kk + 1)
			if k != kk || n < 2 {
				wt = 0
			}
			if p.Form == FormExperimental {
				vr, _ := r.ref(kk - dv)
				_, wr := r.ref(kk - dw)
				for i, v := range []float64{vr, wr, vm, wm, wt} {
					set(k, i, j, v)
				}
				continue
			}
			vc, wc := r.ref(kk - dv)
			vp, wp := r.ref(kk - dv - 1)
			h := *p.H
			for s := 0; s < b.N; s++ {
				first, last := 0.0, 0.0
				if s == 0 {
					first = 1
				}
				if s == b.N-1 {
					last = 1
				}
				for i, v := range []float64{vp, wp, vc, wc, float64(s) * h, first, last, vm, wm, wt} {
					set(k*b.N+s, i, j, v)
				}
			}
		}
		b.initial(j, r)
	}
	if p.Form == FormPhysical {
		b.q = []float64{p.Ts, *p.H, 0, 0, sv, sw}
	} else {
		b.q = []float64{p.Ts, 0, deltaDir, sv, sw}
	}
	b.tIdx = b.m.Index("setting", "T")
	b.sim = b.m.NewSim(b.B, b.T)
	b.y = make([]float64, b.m.NY()*b.T*b.B)
	return b
}

// deltaDir is the speed (m/s, rad/s) above which the experimental form's
// direction of motion follows its output.
const deltaDir = 0.01

// initial sets lane j's initial state: the start velocity held steadily
// (physical: wheel speeds, the current that balances the viscous friction
// and the PI integral that holds it; experimental: the limited reference
// and the lag at the start velocity, the direction of motion its sign, or
// forwards).
func (b *batch) initial(j int, r *Run) {
	v0, w0 := r.start()
	B := b.B
	set := func(name string, v float64) { b.x0[b.m.Index("state", name)*B+j] = v }
	if b.p.Form == FormExperimental {
		set("s_v", v0)
		set("yv", v0)
		set("s_w", w0)
		set("yw", w0)
		dir := func(v float64) float64 {
			if v < -deltaDir {
				return -1
			}
			return 1
		}
		set("dirv", dir(v0))
		set("dirw", dir(w0))
		return
	}
	q := b.p.Physical
	set("rv", v0)
	set("rw", w0)
	kE := *q.I0 / (*q.TM * *q.KA * *q.KM)
	for _, wh := range []struct {
		side string
		th   float64
	}{{"R", (v0 + w0**q.B/2) / *q.R}, {"L", (v0 - w0**q.B/2) / *q.R}} {
		i := *q.K * wh.th / *q.KM
		u := i / *q.KA + kE*wh.th
		set("th"+wh.side, wh.th)
		set("i"+wh.side, i)
		set("e"+wh.side, *q.TI*u / *q.KR)
	}
}

// run rolls the batch at temperature T (and Tt = T·Ts/vscale for the
// arrival of the physical form's reference) with parameter vector x; with
// grad it adds the gradient of the summed cost. It returns the summed cost.
func (b *batch) run(x []float64, T float64, grad []float64) (float64, error) {
	b.setT(T)
	c, err := b.sim.Forward(x, b.q, b.x0, b.u, b.y)
	if err != nil {
		return c, err
	}
	if grad != nil {
		if err := b.sim.Backward(x, b.q, b.u, nil, 1, nil, grad, nil, nil); err != nil {
			return c, err
		}
	}
	return c, nil
}

// timePerSpeed converts a velocity temperature (m/s) into the width of the
// delayed reference's arrival (s): 0.02 m/s ↔ 20 ms.
const timePerSpeed = 1.0

// predicted returns run j's predicted v, w per row after the last run: row 0
// is the start velocity, row k+1 the average over sample k.
func (b *batch) predicted(j int) (v, w []float64) {
	r := b.runs[j]
	n := len(r.T)
	v, w = make([]float64, n), make([]float64, n)
	v[0], w[0] = r.start()
	for k := 0; k+1 < n; k++ {
		t := k*b.N + b.N - 1
		v[k+1] = b.y[(0*b.T+t)*b.B+j]
		w[k+1] = b.y[(1*b.T+t)*b.B+j]
	}
	return v, w
}

// Simulate predicts the measured velocities of a run with p, exactly
// (temperature 0): one (v, w) per row, row 0 the start velocity (the first
// row's measurement, or rest), row k+1 the encoder average over the sample
// from row k to row k+1.
func Simulate(p Params, r *Run) (v, w []float64, err error) {
	if err := p.Validate(); err != nil {
		return nil, nil, err
	}
	if err := r.Check(p.Ts); err != nil {
		return nil, nil, err
	}
	dv, dw := p.Delays()
	b := newBatch(p, []*Run{r}, dv, dw, 1, 1)
	if _, err := b.run(p.vector(), 0, nil); err != nil {
		return nil, nil, err
	}
	v, w = b.predicted(0)
	return v, w, nil
}
