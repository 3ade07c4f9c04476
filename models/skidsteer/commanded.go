package skidsteer

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/dyn"
	"github.com/wheelgrad/wheelgrad/opt"
)

// Inputs says what drives a window prediction.
type Inputs int

const (
	// Measured: the commands vc, wc of the log (from the measured wheel
	// speeds wl, wr of a wheel-speed log), through Model.
	Measured Inputs = iota
	// Commanded: the commanded wheel speeds wl_cmd, wr_cmd through the
	// input dynamics of LagModel (τ, dead time), starting from the window's
	// first measured wheel speeds (rest where the log has none).
	Commanded
)

func (i Inputs) String() string {
	if i == Commanded {
		return "commanded"
	}
	return "measured"
}

// WindowOptions configure the endpoint windows of FitWindows and
// PredictWindows.
type WindowOptions struct {
	Inputs Inputs
	// Horizon (s) is the length of a window: from a pose row to the first
	// pose row at least Horizon later, windows following each other
	// without overlap; 0 is one window per run, from its first pose row to
	// its last.
	Horizon float64
	// WeightPsi (m/rad) weighs the heading residual against the position
	// residuals (m) in the loss; 0 fits the end positions alone.
	WeightPsi float64
	// FitTau and FitDelay free the lag's time constant and the dead time
	// (Commanded only); held, they stay at the start parameters' Tau and
	// Delay. With Commanded and neither free and Tau = 0, the commands
	// drive the slip model directly ("without the lag").
	FitTau, FitDelay bool
	// SkipRepeats treats a pose row that repeats the previous pose row
	// exactly as no measurement (a pose source slower than the log, whose
	// stale value was copied forward): windows end at the row where their
	// last pose first appeared.
	SkipRepeats bool
	// DelayStarts is the number of further starting dead times, spread
	// evenly inside the register's range, when the dead time is free
	// (default 4; the start parameters' Delay is always tried).
	DelayStarts int
	// MaxIterations bounds the optimiser (default 500); Tol is its
	// relative loss reduction for convergence (0: opt's default).
	MaxIterations int
	Tol           float64
	// Hold names slip coefficients (a11 … a33) held at the start's values.
	Hold map[string]bool
	// WholeShortRuns makes a run whose poses span less than Horizon one
	// window (from its first pose row to its last) instead of none: a log
	// cut into short windows (the Warthog's 1.95-s ones) keeps them.
	WholeShortRuns bool
}

// WindowPrediction is one window's open-loop prediction: the end pose
// predicted from the window's first pose, and the pose measured there, both
// in the frame of the first pose.
type WindowPrediction struct {
	Run, From, To       int // run index and its rows
	Predicted, Measured Pose
}

// Err is the distance between the predicted and the measured end position.
func (w WindowPrediction) Err() float64 {
	return math.Hypot(w.Predicted.X-w.Measured.X, w.Predicted.Y-w.Measured.Y)
}

// EndpointRMS is the root mean square of the windows' end-position errors
// (NaN for none).
func EndpointRMS(ws []WindowPrediction) float64 {
	if len(ws) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, w := range ws {
		e := w.Err()
		s += e * e
	}
	return math.Sqrt(s / float64(len(ws)))
}

// EndpointMean is the mean of the windows' end-position errors (NaN for
// none).
func EndpointMean(ws []WindowPrediction) float64 {
	if len(ws) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, w := range ws {
		s += w.Err()
	}
	return s / float64(len(ws))
}

// WindowFit is the result of FitWindows.
type WindowFit struct {
	// Params are the start parameters with the fitted coefficients (and
	// Tau, Delay), their standard deviations in Std, TauStd and DelayStd.
	Params Params
	// Names, Value, Std and Free list every parameter of the fit (the nine
	// coefficients, then tau and delay with Commanded): σ from the
	// Gauss–Newton covariance scaled by the residual variance, 0 for a held
	// parameter.
	Names       []string
	Value, Std  []float64
	Free        []bool
	AtBound     []bool  // free parameters that ended on a bound (σ 0)
	Loss        float64 // ½ Σ residual² at the end
	Status      string  // the optimiser's verdict (opt.Status.Kind)
	Iterations  int
	Windows     int
	TrainRMS    float64 // end-position RMS over the windows fitted (m)
	Predictions []WindowPrediction
	// Result is the optimiser's result of the best start.
	Result *opt.Result
}

// windowSet is the windows of a set of runs as one batched rollout of a dyn
// model: lanes are windows, padded with dt = 0 to the longest.
type windowSet struct {
	m     *dyn.Model
	in    Inputs
	W, T  int
	q     []float64 // settings
	x0, u []float64
	z     []Pose
	pred  []WindowPrediction
	sim   *dyn.Sim
	wpsi  float64
}

// windowRows cuts a run into windows of pose rows (see WindowOptions.Horizon).
func windowRows(l *Log, horizon float64, skipRepeats bool) [][2]int {
	rows := l.PoseRows()
	if skipRepeats {
		kept := rows[:0:0]
		for k, i := range rows {
			if k == 0 || l.Pose[i] != l.Pose[rows[k-1]] {
				kept = append(kept, i)
			}
		}
		rows = kept
	}
	if len(rows) < 2 {
		return nil
	}
	if horizon <= 0 {
		return [][2]int{{rows[0], rows[len(rows)-1]}}
	}
	var out [][2]int
	for k := 0; k < len(rows); {
		j := k + 1
		for j < len(rows) && l.T[rows[j]] < l.T[rows[k]]+horizon-1e-9 {
			j++
		}
		if j == len(rows) {
			break
		}
		out = append(out, [2]int{rows[k], rows[j]})
		k = j
	}
	return out
}

func newWindowSet(runs []*Log, p Params, o WindowOptions) (*windowSet, error) {
	ws := &windowSet{in: o.Inputs, wpsi: o.WeightPsi, m: Model}
	if o.Inputs == Commanded {
		ws.m = LagModel
		if !(p.R > 0 && p.Track > 0) {
			return nil, errors.New("skidsteer: commanded wheel speeds need the wheel radius r and track width track")
		}
		ws.q = []float64{p.R, p.Track}
	}
	for ri, l := range runs {
		if o.Inputs == Commanded && (l.WlCmd == nil || l.WrCmd == nil) {
			return nil, &dataset.RowError{Row: 0, Column: "wl_cmd", Msg: fmt.Sprintf("run %d has no commanded wheel speeds wl_cmd, wr_cmd", ri)}
		}
		rows := windowRows(l, o.Horizon, o.SkipRepeats)
		if len(rows) == 0 && o.WholeShortRuns && o.Horizon > 0 {
			rows = windowRows(l, 0, o.SkipRepeats)
		}
		for _, w := range rows {
			ws.pred = append(ws.pred, WindowPrediction{Run: ri, From: w[0], To: w[1]})
			ws.T = max(ws.T, w[1]-w[0])
		}
	}
	ws.W = len(ws.pred)
	if ws.W == 0 {
		return nil, errors.New("skidsteer: no window with two poses in the runs")
	}
	W, T, S, U := ws.W, ws.T, ws.m.NS(), ws.m.NU()
	ws.x0 = make([]float64, S*W)
	ws.u = make([]float64, T*U*W)
	ws.z = make([]Pose, W)
	for k, w := range ws.pred {
		l := runs[w.Run]
		a, b := w.From, w.To
		for s, i := 0, a; i < b; s, i = s+1, i+1 {
			dt := l.T[i+1] - l.T[i]
			base := s * U * W
			if o.Inputs == Commanded {
				ws.u[base+k], ws.u[base+W+k], ws.u[base+2*W+k] = l.WlCmd[i], l.WrCmd[i], dt
			} else {
				ws.u[base+k], ws.u[base+W+k], ws.u[base+2*W+k] = l.Vc[i], l.Wc[i], dt
			}
		}
		if o.Inputs == Commanded {
			for i := a; i < b; i++ {
				if h := l.T[i+1] - l.T[i]; p.Delay > DeadTimeSteps*h*(1+1e-12) {
					return nil, &dataset.RowError{Row: i, Column: "t", Msg: fmt.Sprintf("the delay %g s is longer than %d log periods (%g s) here", p.Delay, DeadTimeSteps, DeadTimeSteps*h)}
				}
			}
			// The lag and the dead-time register start from the measured
			// wheel speeds at the window's first row, else from the
			// previous row's command (held), else from rest.
			var w0 [2]float64
			switch {
			case l.Wl != nil:
				w0 = [2]float64{l.Wl[a], l.Wr[a]}
			case a > 0:
				w0 = [2]float64{l.WlCmd[a-1], l.WrCmd[a-1]}
			}
			for side := range 2 {
				ws.x0[(3+side)*W+k] = w0[side]
				for j := range DeadTimeSteps {
					ws.x0[(5+side*DeadTimeSteps+j)*W+k] = w0[side]
				}
			}
		}
		// The heading change is summed over the window's pose rows, each
		// step wrapped: a log's headings may wrap at ±π and a window may
		// turn by more than π (consecutive poses must be less than half a
		// turn apart).
		z := Relative(l.Pose[a], l.Pose[b])
		turn, prev := 0.0, a
		for i := a + 1; i <= b; i++ {
			if l.HasPose[i] {
				turn += Wrap(l.Pose[i].Psi - l.Pose[prev].Psi)
				prev = i
			}
		}
		z.Psi = turn
		ws.z[k] = z
		ws.pred[k].Measured = z
	}
	ws.sim = ws.m.NewSim(W, T)
	return ws, nil
}

// eval is ½ Σ_w (x−zx)² + (y−zy)² + wψ²(ψ−zψ)² and its gradient over the
// model's parameters p (grad may be nil); it records the predictions.
func (ws *windowSet) eval(p, grad []float64) (float64, error) {
	if _, err := ws.sim.Forward(p, ws.q, ws.x0, ws.u, nil); err != nil {
		return 0, err
	}
	W := ws.W
	f := ws.sim.Final()
	var xTbar []float64
	if grad != nil {
		xTbar = make([]float64, len(f))
	}
	loss := 0.0
	w2 := ws.wpsi * ws.wpsi
	for k := range W {
		pr := Pose{f[k], f[W+k], f[2*W+k]}
		ws.pred[k].Predicted = pr
		z := ws.z[k]
		rx, ry, rp := pr.X-z.X, pr.Y-z.Y, pr.Psi-z.Psi
		loss += 0.5 * (rx*rx + ry*ry + w2*rp*rp)
		if xTbar != nil {
			xTbar[k], xTbar[W+k], xTbar[2*W+k] = rx, ry, w2*rp
		}
	}
	if grad != nil {
		ws.sim.Backward(p, ws.q, ws.u, nil, 0, xTbar, grad, nil, nil)
	}
	return loss, nil
}

// jacobian returns the residual Jacobian (3 rows per window: x, y, wψ·ψ)
// with respect to the parameters p, each window's rows by the generated
// reverse pass of a one-lane rollout (dyn.Sim.FinalJacobian).
func (ws *windowSet) jacobian(p []float64) (*mat.Dense, error) {
	W, T, S, U, P := ws.W, ws.T, ws.m.NS(), ws.m.NU(), ws.m.NP()
	sim := ws.m.NewSim(1, T)
	x0, u := make([]float64, S), make([]float64, T*U)
	jp := make([]float64, S*P)
	J := mat.NewDense(3*W, P, nil)
	for k := range W {
		for s := range S {
			x0[s] = ws.x0[s*W+k]
		}
		for i := range T * U {
			u[i] = ws.u[i*W+k]
		}
		if _, err := sim.Forward(p, ws.q, x0, u, nil); err != nil {
			return nil, err
		}
		if err := sim.FinalJacobian(p, ws.q, u, jp, nil); err != nil {
			return nil, err
		}
		for c := range 3 {
			sc := 1.0
			if c == 2 {
				sc = ws.wpsi
			}
			for j := range P {
				J.Set(3*k+c, j, sc*jp[c*P+j])
			}
		}
	}
	return J, nil
}

// modelParams is p as the parameter vector of the window set's model.
func (ws *windowSet) modelParams(p Params) []float64 {
	v := p.Coeffs()
	if ws.in == Commanded {
		v = append(v, p.Tau, p.Delay)
	}
	return v
}

// PredictWindows predicts every window of the runs open loop with p (see
// WindowOptions for the windows and the inputs).
func PredictWindows(runs []*Log, p Params, o WindowOptions) ([]WindowPrediction, error) {
	ws, err := newWindowSet(runs, p, o)
	if err != nil {
		return nil, err
	}
	if _, err := ws.eval(ws.modelParams(p), nil); err != nil {
		return nil, err
	}
	return ws.pred, nil
}

// FitWindows identifies the slip coefficients (and, with Commanded, the
// lag's τ and the dead time where o frees them) from the end poses of the
// runs' windows, each predicted open loop from its first pose: least
// squares over the end-pose residuals by L-BFGS-B with the gradient of the
// generated reverse pass, starting from start (its r and track convert
// wheel speeds). σ is the Gauss–Newton covariance (JᵀJ)⁻¹ scaled by the
// residual variance Σr²/(m − n).
func FitWindows(runs []*Log, start Params, o WindowOptions) (*WindowFit, error) {
	if err := start.Validate(); err != nil {
		return nil, err
	}
	ws, err := newWindowSet(runs, start, o)
	if err != nil {
		return nil, err
	}
	x := ws.modelParams(start)
	n := len(x)
	names := append([]string(nil), CoeffNames[:]...)
	lo, hi := make([]float64, n), make([]float64, n)
	free := make([]bool, n)
	for i, name := range CoeffNames {
		lo[i], hi[i], free[i] = -10, 10, !o.Hold[name]
	}
	// the forward speed and the in-place yaw rate keep the command's sign
	lo[0], lo[7] = -0.99, -0.99
	if o.Inputs == Commanded {
		names = append(names, LagNames[:]...)
		lo[9], hi[9], free[9] = 1e-3, 10, o.FitTau
		maxDelay := math.Inf(1)
		for _, l := range runs {
			for i := 1; i < len(l.T); i++ {
				maxDelay = min(maxDelay, float64(DeadTimeSteps)*(l.T[i]-l.T[i-1]))
			}
		}
		lo[10], hi[10], free[10] = 0, maxDelay, o.FitDelay
		if o.FitTau && x[9] == 0 {
			x[9] = 0.5
		}
		if start.Delay > maxDelay {
			return nil, fmt.Errorf("skidsteer: delay %g s is beyond the %d log periods (%g s) of the dead-time register", start.Delay, DeadTimeSteps, maxDelay)
		}
	}
	for i := range n {
		if !free[i] {
			lo[i], hi[i] = x[i], x[i]
		}
		x[i] = min(max(x[i], lo[i]), hi[i])
	}
	iters := o.MaxIterations
	if iters == 0 {
		iters = 500
	}
	obj := func(x, grad []float64) (float64, error) {
		f, err := ws.eval(x, grad)
		for i := range grad {
			if !free[i] {
				grad[i] = 0 // held (τ = 0: no lag has no finite ∂/∂τ)
			}
		}
		return f, err
	}
	// τ and the dead time trade against each other along a curved valley
	// (a longer dead time with a shorter lag): from one start the fit can
	// stop on the bound d = 0 with a better minimum inside. With the dead
	// time free, the fit starts from DelayStarts dead times spread over the
	// register as well and keeps the best.
	starts := [][]float64{x}
	if o.Inputs == Commanded && free[10] {
		ns := o.DelayStarts
		if ns == 0 {
			ns = 4
		}
		for k := 1; k <= ns; k++ {
			xs := append([]float64(nil), x...)
			xs[10] = hi[10] * float64(k) / float64(ns+1)
			starts = append(starts, xs)
		}
	}
	var res *opt.Result
	for _, x0 := range starts {
		r, err := opt.LBFGSB{}.Minimize(opt.Problem{Objective: obj, Lower: lo, Upper: hi}, x0, opt.Settings{MaxIterations: iters, FunctionTol: o.Tol})
		if err != nil {
			return nil, err
		}
		if res == nil || r.F < res.F {
			res = r
		}
	}
	xf := res.X
	loss, err := ws.eval(xf, nil)
	if err != nil {
		return nil, err
	}
	// A parameter that ends on a bound is held there for σ (the active
	// set): its σ is 0 and AtBound says so.
	atBound := make([]bool, n)
	inner := make([]bool, n)
	for i := range n {
		atBound[i] = free[i] && (xf[i] <= lo[i] || xf[i] >= hi[i])
		inner[i] = free[i] && !atBound[i]
	}
	std, err := ws.sigma(xf, inner, loss)
	if err != nil {
		return nil, err
	}
	p := start
	a := FromCoeffs(xf[:NumCoeffs])
	p.A = a.A
	var sd [3][3]float64
	for i := range NumCoeffs {
		sd[i/3][i%3] = std[i]
	}
	p.Std, p.Cov = &sd, nil
	if o.Inputs == Commanded {
		p.Tau, p.Delay, p.TauStd, p.DelayStd = xf[9], xf[10], std[9], std[10]
		p.Inputs = InputsCommanded
	}
	return &WindowFit{Params: p, Names: names, Value: append([]float64(nil), xf...), Std: std, Free: free, AtBound: atBound,
		Loss: loss, Status: res.Status.Kind(), Iterations: res.Iterations, Windows: ws.W,
		TrainRMS: EndpointRMS(ws.pred), Predictions: append([]WindowPrediction(nil), ws.pred...), Result: res}, nil
}

// sigma is the Gauss–Newton standard deviation of the free parameters.
func (ws *windowSet) sigma(x []float64, free []bool, loss float64) ([]float64, error) {
	J, err := ws.jacobian(x)
	if err != nil {
		return nil, err
	}
	var idx []int
	for i, f := range free {
		if f {
			idx = append(idx, i)
		}
	}
	m, nf := 3*ws.W, len(idx)
	if ws.wpsi == 0 {
		m = 2 * ws.W // the heading rows are zero
	}
	std := make([]float64, len(x))
	if m <= nf {
		return nil, fmt.Errorf("skidsteer: %d residuals for %d free parameters", m, nf)
	}
	info := mat.NewSymDense(nf, nil)
	r, _ := J.Dims()
	for a, i := range idx {
		for b := a; b < nf; b++ {
			s := 0.0
			for row := range r {
				s += J.At(row, i) * J.At(row, idx[b])
			}
			info.SetSym(a, b, s)
		}
	}
	var chol mat.Cholesky
	if !chol.Factorize(info) {
		return nil, errors.New("skidsteer: the windows do not determine every free parameter (singular information matrix): drive with varied speeds, turns and speed steps")
	}
	var inv mat.SymDense
	if err := chol.InverseTo(&inv); err != nil {
		return nil, err
	}
	s2 := 2 * loss / float64(m-nf)
	for a, i := range idx {
		std[i] = math.Sqrt(s2 * inv.At(a, a))
	}
	return std, nil
}

// PredictCommanded simulates a whole run from its commanded wheel speeds
// wl_cmd, wr_cmd with p's lag and dead time (SimulateCommanded), from the
// run's first pose (or the origin) and its first measured wheel speeds
// (rest where it has none): what `simulate` and `validate` predict for a
// log with commanded speeds. It returns the pose at every row.
func PredictCommanded(l *Log, p Params) ([]Pose, error) {
	if l.WlCmd == nil || l.WrCmd == nil {
		return nil, &dataset.RowError{Row: 0, Column: "wl_cmd", Msg: "the log has no commanded wheel speeds wl_cmd, wr_cmd"}
	}
	var w0 [2]float64
	if l.Wl != nil && l.Wr != nil {
		w0 = [2]float64{l.Wl[0], l.Wr[0]}
	}
	var pose0 Pose
	if rows := l.PoseRows(); len(rows) > 0 && rows[0] == 0 {
		pose0 = l.Pose[0]
	}
	return SimulateCommanded(p, pose0, w0, l.T, l.WlCmd, l.WrCmd)
}
