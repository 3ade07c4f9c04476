package main

import (
	"errors"
	"fmt"
	"math"

	"github.com/wheelgrad/wheelgrad/dyn"
	"github.com/wheelgrad/wheelgrad/opt"
	"gonum.org/v1/gonum/mat"
)

// Output lanes of Robot that the identification compares with the log:
// the encoders' mean track speeds.
var encOutputs = []string{"el", "er"}

// dataset is a log's runs laid out for Robot's Sim: B lanes (runs) of T
// steps, step k of run j driven by row k's commands over the time to row
// k+1, its outputs compared with row k+1's encoders.
type dataset struct {
	B, T int
	x0   []float64 // [S][B]: at rest at the origin
	u    []float64 // [T][U][B]
	meas []float64 // [len(encOutputs)][T][B]
}

func newDataset(runs []*logRun) (*dataset, error) {
	if len(runs) == 0 {
		return nil, errors.New("no runs")
	}
	B, T := len(runs), len(runs[0].T)-1
	U, S := Robot.NU(), Robot.NS()
	d := &dataset{B: B, T: T, x0: make([]float64, S*B), u: make([]float64, T*U*B), meas: make([]float64, len(encOutputs)*T*B)}
	iul, iur, idt := Robot.Index("input", "ul"), Robot.Index("input", "ur"), Robot.Index("input", "dt")
	for j, r := range runs {
		if len(r.T)-1 != T {
			return nil, fmt.Errorf("run %d has %d steps, run 0 %d", j, len(r.T)-1, T)
		}
		for t := range T {
			d.u[(t*U+iul)*B+j] = r.Ul[t]
			d.u[(t*U+iur)*B+j] = r.Ur[t]
			d.u[(t*U+idt)*B+j] = r.T[t+1] - r.T[t]
			d.meas[(0*T+t)*B+j] = r.El[t+1]
			d.meas[(1*T+t)*B+j] = r.Er[t+1]
		}
	}
	return d, nil
}

// bounds of the identification: physical signs, and a box wide enough
// that no estimate ends on it.
var (
	lower = []float64{0.05, 0.05, 0.01, 0.005, 0.05, 0.05, 0.05, 0.05, 0.05}
	upper = []float64{5, 5, 10, 1, 10, 10, 10, 10, 10}
)

// lsProblem: residuals (model − encoder)/σ over both encoders, every step
// of every run, with their Jacobian with respect to all nine parameters
// from one forward-mode rollout (Sim.Jacobian); a trial point without a
// Jacobian is a value-only rollout. nonFinite counts residuals or Jacobian
// entries that were not finite, over every evaluation.
func lsProblem(d *dataset, nonFinite *int) (opt.LSProblem, error) {
	sim := Robot.NewSim(d.B, d.T)
	j, err := sim.NewJac(dyn.Wrt{})
	if err != nil {
		return opt.LSProblem{}, err
	}
	j.JXT, j.JCost = nil, nil
	q := []float64{truth.W}
	ny := Robot.NY() * d.T * d.B
	y := make([]float64, ny)
	j.Y = y
	rows := make([]int, 0, len(d.meas)) // output row of each residual
	for _, name := range encOutputs {
		c := Robot.Index("output", name)
		for i := range d.T * d.B {
			rows = append(rows, c*d.T*d.B+i)
		}
	}
	const w = 1 / encNoise
	return opt.LSProblem{M: len(rows), Lower: lower, Upper: upper, Residuals: func(x, r []float64, jac *mat.Dense) error {
		if jac == nil {
			if _, err := sim.Value(x, q, d.x0, d.u, y); err != nil {
				return err
			}
		} else {
			if err := sim.Jacobian(x, q, d.x0, d.u, j); err != nil {
				return err
			}
			for i, row := range rows {
				for c := range j.D {
					v := w * j.JY[row*j.D+c]
					if !finite(v) {
						*nonFinite++
					}
					jac.Set(i, c, v)
				}
			}
		}
		for i, row := range rows {
			r[i] = (y[row] - d.meas[i]) * w
			if !finite(r[i]) {
				*nonFinite++
			}
		}
		return nil
	}}, nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// identification is the outcome of identify.
type identification struct {
	Start, X, Sigma []float64
	Status          string
	Reason          string
	Iterations      int
	Cost            float64
	NonFinite       int // non-finite residuals or Jacobian entries seen
}

// identify fits Robot's nine parameters to the log by bounded least
// squares (opt.LeastSquares, trust region) from start.
func identify(d *dataset, start []float64) (*identification, error) {
	id := &identification{Start: start}
	p, err := lsProblem(d, &id.NonFinite)
	if err != nil {
		return nil, err
	}
	ls := opt.LeastSquares{TrialJacobian: true}
	res, err := ls.Solve(p, start, opt.Settings{Names: Robot.Spec().Params, MaxIterations: 100})
	if err != nil {
		return nil, err
	}
	id.X, id.Status, id.Reason, id.Iterations, id.Cost = res.X, res.Status.String(), res.Reason, res.Iterations, res.F
	if cov, err := ls.Covariance(p, res); err == nil {
		id.Sigma = cov.Sigma
	}
	for _, v := range res.X {
		if !finite(v) {
			id.NonFinite++
		}
	}
	return id, nil
}

// selfChecks is what dyn's gradient check says of the model.
type selfChecks struct {
	// Builtin: the built-in check of the model's first Backward (dyn's own,
	// on by default): passed, its relative error and stencil.
	Builtin        bool
	BuiltinRel     float64
	BuiltinStencil string
	// AtFit: the built-in check of a fresh instance's first Backward at the
	// identified values on the log (random output weights).
	AtFit   dyn.Check
	AtFitOK bool
	// Kink: the built-in check of a fresh model's first Backward at the
	// stiction kink (checkKink): passed, and what it measured.
	Kink      dyn.Check
	KinkOK    bool
	NonFinite int // non-finite gradient entries
}

// builtinCheck takes the gradient of the least-squares cost at x by the
// reverse pass (Sim.Backward); the model's first Backward runs dyn's
// built-in check of it (an error if it fails).
func builtinCheck(d *dataset, x []float64, sc *selfChecks) error {
	q := []float64{truth.W}
	sim := Robot.NewSim(d.B, d.T)
	y := make([]float64, Robot.NY()*d.T*d.B)
	if _, err := sim.Forward(x, q, d.x0, d.u, y); err != nil {
		return err
	}
	// The adjoint of ½‖r‖² with r = (y − meas)/σ.
	ybar := make([]float64, len(y))
	for k, name := range encOutputs {
		c := Robot.Index("output", name)
		for i := range d.T * d.B {
			ybar[c*d.T*d.B+i] = (y[c*d.T*d.B+i] - d.meas[k*d.T*d.B+i]) / (encNoise * encNoise)
		}
	}
	pbar := make([]float64, Robot.NP())
	if err := sim.Backward(x, q, d.u, ybar, 0, nil, pbar, nil, nil); err != nil {
		return err
	}
	sc.Builtin, sc.BuiltinRel = Robot.SelfChecked()
	if c, ok := Robot.LastSelfCheck(); ok {
		sc.BuiltinStencil = c.Stencil
	}
	for _, v := range pbar {
		if !finite(v) {
			sc.NonFinite++
		}
	}
	return nil
}

// checkAtFit runs the built-in self-check of a fresh instance of the model
// (the check runs once per model, on its first Backward) at the
// identified values x on the log, with random weights of the outputs and
// the final states (a Backward with no upstream adjoint).
//
// Not with the least-squares adjoint (residuals/σ²) there: measured, the
// optimum sits exactly on a stick–slip switch (along a random parameter
// direction the one-sided slopes are 133.56 and 396.7; the reverse pass
// gives 133.559, the side of the point's branch), the check takes the
// one-sided difference, and at its step 1e-6 the round-off of that
// difference (about 0.01, over a cost that is a cancelled sum of signed
// residual terms) is 5·10⁻⁵ of the small net derivative: the check fails
// (4.9e-5 > 1e-5) although the backward difference at h = 1e-5 agrees
// with the reverse pass to 2·10⁻⁶.
func checkAtFit(d *dataset, x []float64, sc *selfChecks) error {
	m := define("tracked_vehicle_at_the_fit")
	ok, c, err := firstBackward(m, x, d.x0, d.u, d.B, d.T, nil, sc)
	sc.AtFit, sc.AtFitOK = c, ok
	return err
}

// firstBackward runs m's first Forward and Backward (the upstream adjoint
// of the final states xTbar, none of the outputs) and returns whether the
// built-in self-check passed and what it measured; an error only when the
// rollout itself fails.
func firstBackward(m *dyn.Model, p, x0, u []float64, B, T int, xTbar []float64, sc *selfChecks) (bool, dyn.Check, error) {
	q := []float64{truth.W}
	sim := m.NewSim(B, T)
	if _, err := sim.Forward(p, q, x0, u, nil); err != nil {
		return false, dyn.Check{}, err
	}
	pbar := make([]float64, m.NP())
	err := sim.Backward(p, q, u, nil, 0, xTbar, pbar, nil, nil)
	c, _ := m.LastSelfCheck()
	passed, _ := m.SelfChecked()
	for _, v := range pbar {
		if !finite(v) {
			sc.NonFinite++
		}
	}
	return err == nil && passed, c, nil
}

// checkKink runs the built-in self-check of a fresh instance of the model
// at the stiction kink: fs set to the table's value at the knot 0.2, two
// tracks at rest commanded ±0.2 — their drive equals the breakaway level
// to rounding in every step, where the exact clamp switches — and, so
// that the gradient is not trivially zero, two lanes sliding at 0.3 m/s
// under 0.5.
func checkKink(x []float64, sc *selfChecks) error {
	m := define("tracked_vehicle_at_the_kink")
	p := append([]float64(nil), x...)
	p[pFs] = p[pF0]
	const B, T = 4, 60
	U, S := m.NU(), m.NS()
	x0 := make([]float64, S*B)
	u := make([]float64, T*U*B)
	iul, iur, idt := m.Index("input", "ul"), m.Index("input", "ur"), m.Index("input", "dt")
	ivl, ivr := m.Index("state", "vl"), m.Index("state", "vr")
	for j := range B {
		ul, ur := Knots[1], -Knots[1]
		if j%2 == 1 {
			ul, ur = ur, ul
		}
		if j >= 2 {
			ul, ur = 0.5, 0.5
			x0[ivl*B+j], x0[ivr*B+j] = 0.3, 0.3
		}
		for t := range T {
			u[(t*U+iul)*B+j], u[(t*U+iur)*B+j], u[(t*U+idt)*B+j] = ul, ur, period
		}
	}
	xTbar := make([]float64, S*B)
	for i := range xTbar {
		xTbar[i] = 1
	}
	ok, c, err := firstBackward(m, p, x0, u, B, T, xTbar, sc)
	sc.Kink, sc.KinkOK = c, ok
	return err
}
