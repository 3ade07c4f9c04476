package step

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/dyn"
	"github.com/wheelgrad/wheelgrad/fit"
	"github.com/wheelgrad/wheelgrad/opt"
	"gonum.org/v1/gonum/mat"
)

// Methods: "lsq", bounded least squares (opt.LeastSquares) over the
// measured outputs' residuals with the forward-mode Jacobian of the whole
// rollout (dyn's Sim.Jacobian).
// "lbfgsb" minimises the same loss by L-BFGS-B with its gradient from the
// generated reverse pass (Sim.Backward): one gradient for a few rollouts
// whatever the number of parameters, for a model with many.
func (s *Model) Methods() []string { return []string{"lsq", "lbfgsb"} }

// readAll reads every source's runs and the common step.
func (s *Model) readAll(srcs []Source, gaps fit.GapPolicy, d *diag) ([]*stepRun, float64, error) {
	var runs []*stepRun
	for _, src := range srcs {
		rs, err := s.readRuns(src, gaps, d)
		if err != nil {
			return nil, 0, err
		}
		runs = append(runs, rs...)
	}
	dt, err := stepOf(runs, d)
	return runs, dt, err
}

// noise is each output's σ: the StepModel's, else estimated from the
// measurements (fit.NoiseStd over the runs).
func (s *Model) noise(runs []*stepRun, d *diag) ([]float64, []bool) {
	sd := make([]float64, len(s.out))
	est := make([]bool, len(s.out))
	for c, o := range s.out {
		if o.Noise > 0 {
			sd[c] = o.Noise
			continue
		}
		var seqs [][]float64
		for _, r := range runs {
			var v []float64
			for _, x := range r.y[c] {
				if !math.IsNaN(x) {
					v = append(v, x)
				}
			}
			seqs = append(seqs, v)
		}
		sd[c], est[c] = fit.NoiseStd(seqs...), true
		if !(sd[c] > 0) || math.IsInf(sd[c], 0) {
			d.add(fit.Warnf("", "the noise of output %s cannot be estimated from the log (%g): its residuals are weighed as if σ = 1 %s; give Output.Noise", o.Name, sd[c], o.Unit))
			sd[c] = 1
		}
	}
	return sd, est
}

// Identify fits the free parameters and every run's start state by bounded
// least squares (opt.LeastSquares) over the residuals of the measured
// outputs, each divided by its noise σ, with their Jacobian from one
// forward-mode rollout (dyn's Sim.Jacobian). σ of each parameter is
// Gauss–Newton's (fit.Identifiability over the parameters and the start
// states, so it includes the start states' uncertainty) scaled by the
// residuals' standard deviation and by fit.CorrelationInflation for
// residuals correlated in time.
func (s *Model) Identify(srcs []Source, o IdentifyOptions) (*Identified, error) {
	t0 := time.Now()
	d := newDiag(o.Sink)
	method := o.Method
	if method == "" {
		method = "lsq"
	}
	if !slices.Contains(s.Methods(), method) {
		return nil, fmt.Errorf("%s: unknown method %q (one of %s)", s.c.Name, o.Method, strings.Join(s.Methods(), ", "))
	}
	start := o.Start
	if start.Values == nil {
		start = s.Defaults()
	} else if err := start.Validate(); err != nil {
		return nil, err
	}
	names := s.spec.Params
	free := s.Free(o.Held)
	if len(free) == 0 {
		return nil, fmt.Errorf("no parameter of %s is left to identify", s.c.Name)
	}
	gaps := o.Gaps
	if gaps == "" {
		gaps = fit.GapsError
	}
	runs, dt, err := s.readAll(srcs, gaps, d)
	if err != nil {
		return nil, err
	}
	files := make([]string, len(srcs))
	for i, src := range srcs {
		files[i] = src.Path
	}
	bt := s.batch(runs, dt)
	if len(bt.samples) == 0 {
		return nil, fmt.Errorf("%s: no measured output (%s) after the first row: nothing to identify from", strings.Join(files, ","), strings.Join(s.spec.Outputs, ", "))
	}
	if moving := slices.ContainsFunc(runs, func(r *stepRun) bool {
		return slices.ContainsFunc(r.y, func(c []float64) bool { return fit.MaxAbs(c)-minOf(c) > 0 })
	}); !moving {
		return nil, fit.NoMotion(strings.Join(files, ","), strings.Join(s.spec.Outputs, ", "))
	}
	sd, estimated := s.noise(runs, d)
	ns, np, nb := len(s.spec.State), len(free), bt.B
	// x: the free parameters, then each run's start state.
	x := make([]float64, np+nb*ns)
	lo, hi := make([]float64, len(x)), make([]float64, len(x))
	cols := make([]string, len(x))
	for i, k := range free {
		x[i], lo[i], hi[i], cols[i] = start.Values[k], s.c.Params[k].Lower, s.c.Params[k].Upper, names[k]
	}
	for b, r := range runs {
		g, err := s.guess(r, dt, start.Values)
		if err != nil {
			return nil, err
		}
		for k := range ns {
			j := np + b*ns + k
			x[j], lo[j], hi[j] = g[k], math.Inf(-1), math.Inf(1)
			cols[j] = fmt.Sprintf("%s(run %d)", s.spec.State[k], b+1)
		}
	}
	lp, p, err := bt.problem(start.Values, free, sd, lo, hi)
	if err != nil {
		return nil, err
	}
	m := lp.M
	settings := o.Fit.Apply(opt.Settings{Names: cols, Callback: func(it opt.Iteration) bool {
		d.sink.Progress("%s identify: iteration %d, loss %.6g", s.c.Name, it.Iter, it.F)
		return true
	}})
	var res *opt.Result
	if method == "lbfgsb" {
		var f opt.Objective
		if f, err = bt.objective(start.Values, free, sd); err == nil {
			res, err = opt.LBFGSB{}.Minimize(opt.Problem{Objective: f, Lower: lo, Upper: hi}, x, settings)
		}
	} else {
		res, err = opt.LeastSquares{TrialJacobian: true}.Solve(lp, x, settings)
	}
	d.sink.Done()
	if err != nil {
		return nil, fmt.Errorf("%s identify: %w", s.c.Name, err)
	}
	// σ at the solution: JᵀJ of the weighted residuals.
	r := make([]float64, m)
	J := mat.NewDense(m, len(x), nil)
	if err := lp.Residuals(res.X, r, J); err != nil {
		return nil, err
	}
	var jtj mat.SymDense
	jtj.SymOuterK(1, J.T())
	ident, err := fit.Identifiability(cols, &jtj)
	if err != nil {
		return nil, err
	}
	var ss float64
	series := make([][]float64, nb*len(s.out))
	raw := make([][]float64, len(s.out))
	for i, sm := range bt.samples {
		ss += r[i] * r[i]
		series[sm.b*len(s.out)+sm.c] = append(series[sm.b*len(s.out)+sm.c], r[i])
		raw[sm.c] = append(raw[sm.c], r[i]*sd[sm.c])
	}
	dof := m - len(x)
	scale := math.NaN()
	if dof > 0 {
		scale = math.Sqrt(ss / float64(dof))
	}
	infl, rho := fit.CorrelationInflation(series)
	// Null directions among the parameters; one among the start states
	// alone (a run that starts at rest under a friction that holds it
	// shows no initial speed) costs the parameters nothing.
	var null []fit.Direction
	var startNull []string
	for _, dir := range ident.Null {
		pc := make([]float64, len(names))
		var n2 float64
		for i, k := range free {
			pc[k] = dir.Coef[i]
			n2 += pc[k] * pc[k]
		}
		if math.Sqrt(n2) > 0.1 {
			null = append(null, fit.NewDirection(names, pc))
		} else {
			startNull = append(startNull, dir.Text)
		}
	}
	out := Params{Model: s.c.Name, Names: slices.Clone(names), Values: slices.Clone(p)}
	def := s.Defaults()
	out.lower, out.upper = def.lower, def.upper
	var ps []fit.Param
	for k, q := range s.c.Params {
		fp := fit.Param{Name: q.Name, Unit: q.Unit, Value: p[k], Lower: q.Lower, Upper: q.Upper, Std: math.NaN()}
		if i := slices.Index(free, k); i >= 0 {
			fp.Std = ident.Std[i] * scale * infl
			fp.Undetermined = math.IsInf(ident.Std[i], 1)
			if math.IsNaN(fp.Std) {
				fp.StdReason = "fewer residuals than parameters and start states"
			}
		} else {
			fp.Held = true
		}
		ps = append(ps, fp)
	}
	d.add(fit.OnBound(ps)...)
	for c, o := range s.out {
		if !estimated[c] && len(raw[c]) > 0 {
			d.add(fit.ResidualNoise("output "+o.Name, fit.RMS(raw[c]), sd[c], 0, o.Unit)...)
		}
	}
	outcome := func() error {
		ws, err := o.Fit.Check(s.c.Name+" identify", res)
		d.add(ws...)
		return err
	}()
	var refused error
	if o.Fit.Settled(res) {
		ws, err := fit.CheckDetermined(ps, o.AllowUndetermined, "")
		d.add(ws...)
		refused = err
	}
	rep := fit.Report{
		Model:       s.c.Name,
		Data:        fmt.Sprintf("%d run(s), %d samples of %s, step %.4g s", nb, m, strings.Join(s.spec.Outputs, ", "), dt),
		Method:      map[string]string{"lsq": "lsq (forward-mode Jacobian)", "lbfgsb": "lbfgsb (reverse-mode gradient)"}[method],
		Params:      ps,
		Status:      fit.NewStatus(method, res),
		Null:        null,
		Evaluations: res.FuncEvaluations,
		Elapsed:     time.Since(t0),
		Residual:    s.residualFigure(raw, r),
	}
	var noise []string
	for c, o := range s.out {
		how := "given"
		if estimated[c] {
			how = "estimated from the log"
		}
		noise = append(noise, fmt.Sprintf("%s %.3g %s (%s)", o.Name, sd[c], o.Unit, how))
	}
	rep.Lines = append(rep.Lines,
		fmt.Sprintf("residuals weighed by the output noise σ: %s", strings.Join(noise, ", ")),
		fmt.Sprintf("σ: Gauss–Newton × %.3g for residuals correlated in time (lag-1 autocorrelation %.2f), the start state of every run (%s) estimated with the parameters", infl, rho, strings.Join(s.spec.State, ", ")))
	if len(startNull) > 0 {
		rep.Lines = append(rep.Lines, "start states the data do not determine (no part in the parameters' σ): "+strings.Join(startNull, "; "))
	}
	rep.Warnings = d.ws
	return &Identified{Report: rep, Params: out, Refused: refused, Outcome: outcome}, nil
}

// residualFigure is the fit's one residual figure: the RMS in the outputs'
// unit when they share one, else in units of their noise σ.
func (s *Model) residualFigure(raw [][]float64, weighted []float64) fit.Residual {
	unit := s.out[0].Unit
	same := true
	for _, o := range s.out {
		same = same && o.Unit == unit && !o.Angle
	}
	if same {
		return fit.Residual{Name: "outputs " + strings.Join(s.spec.Outputs, ", "), Unit: unit, RMS: fit.RMS(raw...)}
	}
	return fit.Residual{Name: "outputs in units of their noise σ", Unit: "σ", RMS: fit.RMS(weighted)}
}

func minOf(v []float64) float64 {
	m := math.Inf(1)
	for _, x := range v {
		if !math.IsNaN(x) {
			m = math.Min(m, x)
		}
	}
	return m
}

// Simulation is a simulated log: t, traj (when the log has it) and the
// state lanes at every row's time.
type Simulation struct {
	Header   []string
	Rows     [][]dataset.Cell
	Warnings []fit.Warning
}

// Write writes the simulation as CSV.
func (sim *Simulation) Write(w io.Writer) error {
	cw := dataset.NewWriter(w)
	if err := cw.WriteHeader(sim.Header...); err != nil {
		return err
	}
	for _, row := range sim.Rows {
		if err := cw.WriteRow(row...); err != nil {
			return err
		}
	}
	return cw.Flush()
}

// Simulate rolls the model under the log's commands from each run's start
// (the first measured output or logged state of each lane, 0 for the
// others, an unmeasured heading fitted to the first motion): the state
// lanes at every row's time.
func (s *Model) Simulate(p Params, src Source, sink Sink) (*Simulation, error) {
	d := newDiag(sink)
	if err := p.Validate(); err != nil {
		return nil, err
	}
	runs, dt, err := s.readAll([]Source{src}, "", d)
	if err != nil {
		return nil, err
	}
	bt := s.batch(runs, dt)
	starts := make([][]float64, len(runs))
	for b, r := range runs {
		if starts[b], err = s.guess(r, dt, p.Values); err != nil {
			return nil, err
		}
	}
	if err := bt.value(p.Values, starts, true); err != nil {
		return nil, err
	}
	traj := runs[0].Table.Has("traj")
	header := []string{"t"}
	if traj {
		header = append(header, "traj")
	}
	header = append(header, s.spec.State...)
	var rows [][]dataset.Cell
	for b, r := range runs {
		for _, t := range r.t {
			row := []dataset.Cell{dataset.Num(t)}
			if traj {
				row = append(row, dataset.Text(r.ID))
			}
			for k := range s.spec.State {
				row = append(row, dataset.Num(bt.stateAt(k, b, t)))
			}
			rows = append(rows, row)
		}
	}
	return &Simulation{Header: header, Rows: rows, Warnings: d.ws}, nil
}

// ValidateOptions are a validation's gap policy ("": an error), its start
// state (First: the guess Simulate starts from; otherwise estimated,
// fit.EstimateStart) and where its warnings go.
type ValidateOptions struct {
	Gaps  fit.GapPolicy
	First bool
	Sink  Sink
}

// Validation is one run's validation: its traj id, each measured output
// against its prediction, the start state and, with a Pose, the track.
type Validation struct {
	ID         string
	Channels   []fit.Channel
	Track      fit.Track
	Start      []float64
	StartNames []string
}

// Validate predicts each run of the log from its start state (estimated,
// fit.EstimateStart, or with First the guess Simulate starts from) and
// compares every measured output (fit.Channel). With a Pose, the run's
// track pairs measured and predicted positions; a heading the log does not
// measure is the model's own in both, so the k-step errors re-anchor the
// position only.
func (s *Model) Validate(p Params, src Source, o ValidateOptions) ([]Validation, error) {
	d := newDiag(o.Sink)
	if err := p.Validate(); err != nil {
		return nil, err
	}
	gaps := o.Gaps
	if gaps == "" {
		gaps = fit.GapsError
	}
	var out []Validation
	runs, dt, err := s.readAll([]Source{src}, gaps, d)
	if err != nil {
		return nil, err
	}
	for _, r := range runs {
		bt := s.batch([]*stepRun{r}, dt)
		if len(bt.samples) == 0 {
			return nil, r.Errorf(0, s.spec.Outputs[0], "validate needs measured outputs (%s): this run has none after its first row", strings.Join(s.spec.Outputs, ", "))
		}
		predict := func(x0 []float64) ([]fit.Channel, error) {
			if err := bt.value(p.Values, [][]float64{x0}, true); err != nil {
				return nil, err
			}
			chs := make([]fit.Channel, len(s.out))
			for c, o := range s.out {
				chs[c] = fit.Channel{Name: o.Name, Unit: o.Unit, Angle: o.Angle}
			}
			for i, sm := range bt.samples {
				chs[sm.c].Add(0, sm.t, sm.meas, bt.pred(i))
			}
			return chs, nil
		}
		g, err := s.guess(r, dt, p.Values)
		if err != nil {
			return nil, err
		}
		x0, chs := g, []fit.Channel(nil)
		if o.First {
			chs, err = predict(g)
		} else {
			x0, chs, err = fit.EstimateStart(g, predict)
		}
		if err != nil {
			return nil, r.Err(err)
		}
		if _, err := predict(x0); err != nil { // the states of x0's rollout, for the track
			return nil, r.Err(err)
		}
		vr := Validation{ID: r.ID, Channels: chs, Start: x0, StartNames: slices.Clone(s.spec.State)}
		if s.pose[0] >= 0 {
			vr.Track = s.track(bt, r)
		}
		out = append(out, vr)
	}
	return out, nil
}

// track pairs a run's measured positions with the predicted ones at the
// rows that measure both x and y.
func (s *Model) track(bt *stepBatch, r *stepRun) fit.Track {
	var tr fit.Track
	hc := slices.Index(s.spec.Outputs, s.c.Pose[2])
	for i, t := range r.t {
		mx, my := r.y[s.poseOut[0]][i], r.y[s.poseOut[1]][i]
		if math.IsNaN(mx) || math.IsNaN(my) {
			continue
		}
		ph := bt.stateAt(s.pose[2], 0, t)
		mh := ph
		if hc >= 0 && !math.IsNaN(r.y[hc][i]) {
			mh = r.y[hc][i]
		}
		tr.Add(t, [3]float64{mx, my, mh}, [3]float64{bt.stateAt(s.pose[0], 0, t), bt.stateAt(s.pose[1], 0, t), ph})
	}
	return tr
}

// problem is the least-squares problem of identify over the batch: x is
// the free parameters (indices free of the step's, the others held at p0)
// then every run's start state; residual i is (predicted − measured)/σ of
// sample i's output, predicted between two grid outputs; the Jacobian
// comes from one forward-mode rollout (Sim.Jacobian with the start states'
// block columns spread out per run). p is the parameter vector the last
// evaluation used.
func (bt *stepBatch) problem(p0 []float64, free []int, sd, lo, hi []float64) (opt.LSProblem, []float64, error) {
	s := bt.s
	ns, np, nb := len(s.spec.State), len(free), bt.B
	p := slices.Clone(p0)
	starts := make([][]float64, nb)
	unpack := func(x []float64) {
		for i, k := range free {
			p[k] = x[i]
		}
		for b := range nb {
			starts[b] = x[np+b*ns : np+(b+1)*ns]
		}
	}
	jac, err := bt.sim.NewJac(dyn.Wrt{Params: free, X0: true})
	if err != nil {
		return opt.LSProblem{}, nil, err
	}
	jac.JXT, jac.JCost, jac.Y = nil, nil, bt.y
	m := len(bt.samples)
	w := make([]float64, m)
	for i, sm := range bt.samples {
		w[i] = 1 / sd[sm.c]
	}
	dcol := jac.D
	lp := opt.LSProblem{M: m, Lower: lo, Upper: hi, Residuals: func(x, r []float64, J *mat.Dense) error {
		unpack(x)
		if J == nil {
			if err := bt.value(p, starts, false); err != nil {
				return err
			}
		} else if err := bt.sim.Jacobian(p, bt.q, bt.x0(starts), bt.u, jac); err != nil {
			return err
		}
		for i := range bt.samples {
			r[i] = -bt.residual(i) * w[i] // predicted − measured
		}
		if J == nil {
			return nil
		}
		J.Zero()
		for i, sm := range bt.samples {
			row := J.RawRowView(i)
			add := func(idx int, f float64) {
				src := jac.JY[idx*dcol : (idx+1)*dcol]
				for c := range np {
					row[c] += f * src[c]
				}
				for k := range ns {
					row[np+sm.b*ns+k] += f * src[np+k]
				}
			}
			add(bt.at(sm.c, sm.k, sm.b), (1-sm.w)*w[i])
			if sm.w > 0 {
				add(bt.at(sm.c, sm.k+1, sm.b), sm.w*w[i])
			}
		}
		return nil
	}}
	return lp, p, nil
}

// objective is the problem's loss ½‖r‖² with its gradient from the
// generated reverse pass (Sim.Backward): the residuals' adjoints spread
// onto the two grid outputs each is interpolated from.
func (bt *stepBatch) objective(p0 []float64, free []int, sd []float64) (opt.Objective, error) {
	s := bt.s
	ns, np := len(s.spec.State), len(free)
	p := slices.Clone(p0)
	starts := make([][]float64, bt.B)
	ybar := make([]float64, len(bt.y))
	pbar := make([]float64, len(p))
	x0bar := make([]float64, ns*bt.B)
	return func(x, grad []float64) (float64, error) {
		for i, k := range free {
			p[k] = x[i]
		}
		for b := range bt.B {
			starts[b] = x[np+b*ns : np+(b+1)*ns]
		}
		if err := bt.value(p, starts, grad != nil); err != nil {
			return 0, err
		}
		var f float64
		clear(ybar)
		for i, sm := range bt.samples {
			w := 1 / sd[sm.c]
			r := -bt.residual(i) * w
			f += 0.5 * r * r
			ybar[bt.at(sm.c, sm.k, sm.b)] += r * w * (1 - sm.w)
			if sm.w > 0 {
				ybar[bt.at(sm.c, sm.k+1, sm.b)] += r * w * sm.w
			}
		}
		if grad == nil {
			return f, nil
		}
		if err := bt.sim.Backward(p, bt.q, bt.u, ybar, 0, nil, pbar, x0bar, nil); err != nil {
			return 0, err
		}
		for i, k := range free {
			grad[i] = pbar[k]
		}
		for b := range bt.B {
			for k := range ns {
				grad[np+b*ns+k] = x0bar[k*bt.B+b]
			}
		}
		return f, nil
	}, nil
}
