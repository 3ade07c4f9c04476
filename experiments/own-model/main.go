// Command own-model is the worked example of "Your own model" (README):
// a robot model written once in the step language (unicycle/model.go, 33 lines),
// synthetic logs from its native rollout with tracker noise and command
// noise the model does not know about, and identification of its three
// parameters — at 8 runs × 150 steps and at 4 runs × 20,000 steps — in
// two ways: by bounded least squares (opt.LeastSquares) over the tracker
// residuals with their exact Jacobian from the forward-mode rollout
// (Sim.Jacobian, one pass carrying three tangents), and, for comparison,
// by L-BFGS-B on the same loss through the generated reverse-mode gradient.
//
// For each size it prints the compile time of the loss graph, the time of
// one value+gradient, the time of the native rollout and their ratio (with
// the generated kernel and with the interpreter), the bytes allocated per
// value+gradient, L-BFGS-B's iterations and time, the time of the
// residuals with their Jacobian and its ratio to the native rollout, the
// least-squares iterations and time, the relative difference of the two
// final losses (positive: L-BFGS-B ended higher), and the parameter errors
// of the least-squares fit; it writes fit-<runs>x<steps>.png. With -json
// the last line is
//
//	{"compile_s":…, "grad_s":…, "native_s":…, "ratio":…, "param_rel_err":[…],
//	 "iterations":…, "jacobian_s":…}
//
// for the 4 × 20,000 case: iterations are the least-squares solver's,
// jacobian_s the median time of one residual+Jacobian evaluation.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"time"

	G "gorgonia.org/gorgonia"

	"github.com/wheelgrad/wheelgrad/ad"
	"github.com/wheelgrad/wheelgrad/cli/stage"
	"github.com/wheelgrad/wheelgrad/dyn"
	"github.com/wheelgrad/wheelgrad/experiments/own-model/unicycle"
	"github.com/wheelgrad/wheelgrad/figure"
	"github.com/wheelgrad/wheelgrad/opt"
	"gonum.org/v1/gonum/mat"
)

func main() {
	out := flag.String("out", filepath.Join("out", "own-model"), "output directory for the PNGs")
	asJSON := flag.Bool("json", false, "print the 4 × 20,000 result as JSON on the last line")
	quick := flag.Bool("quick", false, "smaller sizes (smoke test)")
	logs := flag.String("logs", "", "write two synthetic log CSVs (train.csv, held-out.csv: 4 runs × 30 s each) into this directory for the command line of experiments/own-model/cli, and stop")
	flag.Parse()
	if *logs != "" {
		if err := writeLogs(*logs); err != nil {
			fmt.Fprintln(os.Stderr, "own-model:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(os.Stdout, *out, *asJSON, *quick); err != nil {
		fmt.Fprintln(os.Stderr, "own-model:", err)
		os.Exit(1)
	}
}

const (
	dt       = 0.01  // s
	posNoise = 0.005 // m, tracker
	cmdNoise = 0.03  // m/s, what the motors really got, unknown to the model
)

type size struct {
	B, T     int
	cmdNoise float64
}

var (
	truth = []float64{0.25, 1.2, 0.6} // tau, k, c
	start = []float64{0.5, 1.0, 0.3}
	lower = []float64{0.02, 0.2, 0}
	upper = []float64{5, 5, 5}
)

// data is a set of runs: initial states, commands, measured positions.
type data struct {
	B, T   int
	x0, u  []float64 // [4][B], [T][2][B]
	xm, ym []float64 // [T][B]: position after each step
}

// writeLogs writes train.csv and held-out.csv into dir: the true robot
// (truth) under commands at 100 Hz stamped with ±2 ms jitter and command
// noise the model does not know, a tracker at 50 Hz on its own clock with
// 5-mm noise (unicycle.Log).
func writeLogs(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i, name := range []string{"train.csv", "held-out.csv"} {
		l := unicycle.Log{Runs: 4, Steps: 3000, Dt: dt, Truth: truth, CmdNoise: cmdNoise, PosNoise: posNoise, TrackEvery: 2, Jitter: 0.002, Seed: uint64(i + 1)}
		if err := stage.WriteFileAtomic(filepath.Join(dir, name), l.Write); err != nil {
			return err
		}
	}
	return nil
}

// synth drives the true robot with piecewise-constant commands (held 0.3–2
// s) plus command noise, and measures its position with tracker noise.
func synth(B, T int, cmdNoise float64, seed uint64) (*data, error) {
	rng := rand.New(rand.NewPCG(seed, 42))
	d := &data{B: B, T: T, x0: make([]float64, 4*B), u: make([]float64, T*2*B)}
	exec := make([]float64, len(d.u))
	for j := range B {
		d.x0[j], d.x0[B+j], d.x0[2*B+j] = rng.NormFloat64(), rng.NormFloat64(), rng.Float64()*2*math.Pi
		var uc, wc float64
		hold := 0
		for t := range T {
			if hold == 0 {
				hold = 30 + rng.IntN(170)
				uc, wc = -0.5+2*rng.Float64(), -1+2*rng.Float64()
				if rng.IntN(5) == 0 {
					uc = 0 // stops: friction holds the robot
				}
			}
			hold--
			d.u[(t*2)*B+j], d.u[(t*2+1)*B+j] = uc, wc
			exec[(t*2)*B+j], exec[(t*2+1)*B+j] = uc+cmdNoise*rng.NormFloat64(), wc
		}
	}
	sim := Robot.NewSim(B, T)
	y := make([]float64, 2*T*B)
	if _, err := sim.Forward(truth, []float64{dt}, d.x0, exec, y); err != nil {
		return nil, err
	}
	d.xm, d.ym = y[:T*B], y[T*B:]
	for i := range d.xm {
		d.xm[i] += posNoise * rng.NormFloat64()
		d.ym[i] += posNoise * rng.NormFloat64()
	}
	return d, nil
}

// compile builds the identification loss around one Rollout node:
// Σ ((x − xm)² + (y − ym)²) / (2σ²), the negative log-likelihood of the
// tracker noise, in ordinary gorgonia ops.
func compile(d *data, opts ...dyn.OpOption) (*ad.Program, error) {
	return ad.Compile([]ad.Param{{Name: "theta", Shape: []int{3}}}, func(g *ad.Graph, p []*G.Node) (*G.Node, error) {
		q, err := g.Input("dt", []float64{dt})
		if err != nil {
			return nil, err
		}
		tr, err := dyn.Rollout(Robot, p[0], q, g.Const(d.x0), g.Const(d.u), d.B, d.T, opts...)
		if err != nil {
			return nil, err
		}
		var loss *G.Node
		for _, o := range []struct {
			name string
			meas []float64
		}{{"x", d.xm}, {"y", d.ym}} {
			pred, err := tr.Output(o.name)
			if err != nil {
				return nil, err
			}
			r, err := G.Sub(pred, g.Const(o.meas))
			if err != nil {
				return nil, err
			}
			s, err := G.Sum(G.Must(G.Square(r)))
			if err != nil {
				return nil, err
			}
			if loss == nil {
				loss = s
			} else if loss, err = G.Add(loss, s); err != nil {
				return nil, err
			}
		}
		return G.Mul(loss, g.Scalar(1/(2*posNoise*posNoise)))
	})
}

// lsProblem is compile's loss as a least-squares problem: the residuals
// (pred − meas)/σ over x then y, so that ½‖r‖² is the loss, with their
// Jacobian with respect to (tau, k, c). One forward-mode rollout with a
// dyn.Fit forms the residuals and the Jacobian's rows in its loop (the
// kernel is generated with FitKernel), writing the rows straight into the
// solver's matrix (Residuals) or, on the solver's normal-equations path,
// only the 3×3 JᵀJ and Jᵀr (Normal: no 160,000×3 matrix at all). A trial
// point without a Jacobian is a value-only rollout (Sim.Value).
func lsProblem(d *data) (opt.LSProblem, error) {
	sim := Robot.NewSim(d.B, d.T)
	j, err := sim.NewJac(dyn.Wrt{})
	if err != nil {
		return opt.LSProblem{}, err
	}
	j.Y, j.JXT, j.JCost = nil, nil, nil
	meas := append(append([]float64(nil), d.xm...), d.ym...)
	m := len(meas)
	y := make([]float64, m)
	q := []float64{dt}
	const w = 1 / posNoise
	fit := &dyn.Fit{Meas: meas, Weight: []float64{w, w}}
	j.Fit = fit
	lanes := struct{ jtj, jtr []float64 }{make([]float64, d.B*j.D*j.D), make([]float64, d.B*j.D)}
	return opt.LSProblem{M: m, Lower: lower, Upper: upper, Residuals: func(x, r []float64, jac *mat.Dense) error {
		if jac == nil {
			if _, err := sim.Value(x, q, d.x0, d.u, y); err != nil {
				return err
			}
			for i, v := range y {
				r[i] = (v - meas[i]) * w
			}
			return nil
		}
		raw := jac.RawMatrix()
		if raw.Rows != m || raw.Cols != j.D {
			return fmt.Errorf("own-model: Jacobian matrix %d×%d, want %d×%d", raw.Rows, raw.Cols, m, j.D)
		}
		direct := raw.Stride == j.D
		if direct {
			j.JY = raw.Data[:m*j.D]
		} else if len(j.JY) != m*j.D {
			j.JY = make([]float64, m*j.D)
		}
		fit.R, fit.JTJ, fit.JTR = r, nil, nil
		if err := sim.Jacobian(x, q, d.x0, d.u, j); err != nil {
			return err
		}
		if !direct {
			for i := range m {
				copy(raw.Data[i*raw.Stride:i*raw.Stride+j.D], j.JY[i*j.D:(i+1)*j.D])
			}
		}
		return nil
	}, Normal: func(x, r, jtj, jtr []float64) error {
		j.JY = nil
		fit.R, fit.JTJ, fit.JTR = r, lanes.jtj, lanes.jtr
		if err := sim.Jacobian(x, q, d.x0, d.u, j); err != nil {
			return err
		}
		return j.Normal(jtj, jtr, d.B)
	}}, nil
}

// median of n timed calls of f, in seconds.
func timeIt(n int, f func() error) (float64, error) {
	ts := make([]float64, n)
	for i := range ts {
		t0 := time.Now()
		if err := f(); err != nil {
			return 0, err
		}
		ts[i] = time.Since(t0).Seconds()
	}
	sort.Float64s(ts)
	return ts[n/2], nil
}

type result struct {
	Runs, Steps int
	CompileS    float64   `json:"compile_s"`
	GradS       float64   `json:"grad_s"`
	NativeS     float64   `json:"native_s"`
	Ratio       float64   `json:"ratio"`
	ParamRelErr []float64 `json:"param_rel_err"`
	// Interpreter (no generated code): the same measurements.
	InterpGradS, InterpNativeS float64
	AllocPerGrad               float64 // bytes allocated per value+gradient
	Iterations                 int     // L-BFGS-B
	Status                     string
	IdentifyS                  float64
	Loss                       float64
	// Least squares with the forward-mode Jacobian.
	JacobianS   float64 // one residual+Jacobian evaluation
	LSIter      int
	LSStatus    string
	LSIdentifyS float64
	LSLoss      float64
}

func measure(d *data, reps int) (*result, *ad.Program, error) {
	r := &result{Runs: d.B, Steps: d.T}
	t0 := time.Now()
	prog, err := compile(d)
	if err != nil {
		return nil, nil, err
	}
	r.CompileS = time.Since(t0).Seconds()
	grad := make([]float64, 3)
	if r.GradS, err = timeIt(reps, func() error { _, err := prog.ValueAndGradInto(start, grad); return err }); err != nil {
		return nil, nil, err
	}
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	for range reps {
		if _, err := prog.ValueAndGradInto(start, grad); err != nil {
			return nil, nil, err
		}
	}
	runtime.ReadMemStats(&ms1)
	r.AllocPerGrad = float64(ms1.TotalAlloc-ms0.TotalAlloc) / float64(reps)
	q := []float64{dt}
	for _, k := range []struct {
		kernel dyn.Kernel
		dst    *float64
	}{{Robot.NewKernel(), &r.NativeS}, {Robot.NewInterpreter(), &r.InterpNativeS}} {
		sim, err := Robot.NewSimWith(k.kernel, d.B, d.T)
		if err != nil {
			return nil, nil, err
		}
		if *k.dst, err = timeIt(reps, func() error { _, err := sim.Forward(start, q, d.x0, d.u, nil); return err }); err != nil {
			return nil, nil, err
		}
	}
	r.Ratio = r.GradS / r.NativeS
	ip, err := compile(d, dyn.WithInterpreter())
	if err != nil {
		return nil, nil, err
	}
	if r.InterpGradS, err = timeIt(max(3, reps/4), func() error { _, err := ip.ValueAndGradInto(start, grad); return err }); err != nil {
		return nil, nil, err
	}
	t0 = time.Now()
	res, err := opt.LBFGSB{}.Minimize(opt.Problem{Objective: prog.Eval, Lower: lower, Upper: upper}, start, opt.Settings{})
	if err != nil {
		return nil, nil, err
	}
	r.IdentifyS = time.Since(t0).Seconds()
	r.Iterations, r.Status, r.Loss = res.Iterations, res.Status.String(), res.F
	lp, err := lsProblem(d)
	if err != nil {
		return nil, nil, err
	}
	rv := make([]float64, lp.M)
	jac := mat.NewDense(lp.M, 3, nil)
	if r.JacobianS, err = timeIt(reps, func() error { return lp.Residuals(start, rv, jac) }); err != nil {
		return nil, nil, err
	}
	t0 = time.Now()
	res, err = opt.LeastSquares{TrialJacobian: true}.Solve(lp, start, opt.Settings{Names: Robot.Spec().Params})
	if err != nil {
		return nil, nil, err
	}
	r.LSIdentifyS = time.Since(t0).Seconds()
	r.LSIter, r.LSStatus, r.LSLoss = res.Iterations, res.Status.String(), res.F
	for i, v := range res.X {
		r.ParamRelErr = append(r.ParamRelErr, (v-truth[i])/truth[i])
	}
	if _, err := prog.Value(res.X); err != nil { // leave the fit's trajectory in the op
		return nil, nil, err
	}
	return r, prog, nil
}

// plotFit draws run 0: measured positions, the model at the start values
// and at the identified ones.
func plotFit(path string, d *data, x []float64) error {
	sim := Robot.NewSim(d.B, d.T)
	y := make([]float64, 2*d.T*d.B)
	curves := []figure.Series{}
	every := max(1, d.T/400)
	var mx, my []float64
	for t := 0; t < d.T; t += every {
		mx, my = append(mx, d.xm[t*d.B]), append(my, d.ym[t*d.B])
	}
	curves = append(curves, figure.Series{Name: "measured (5 mm noise)", X: mx, Y: my, Points: true})
	for _, c := range []struct {
		name string
		p    []float64
	}{{"start values", start}, {"identified", x}} {
		if _, err := sim.Forward(c.p, []float64{dt}, d.x0, d.u, y); err != nil {
			return err
		}
		var px, py []float64
		for t := range d.T {
			px, py = append(px, y[t*d.B]), append(py, y[(d.T+t)*d.B])
		}
		curves = append(curves, figure.Series{Name: c.name, X: px, Y: py, Dashed: c.name == "start values"})
	}
	return figure.XY(path, fmt.Sprintf("own model, run 1 of %d (%d steps of %g s)", d.B, d.T, dt), "x (m)", "y (m)", true, curves)
}

func run(w io.Writer, out string, asJSON, quick bool) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	// The last size is the one -json reports: the long horizon with the
	// command noise the model does not know about (over 200-s open-loop
	// runs it drifts the position by decimetres, and biases the fit).
	sizes := []size{{8, 150, cmdNoise}, {4, 20000, 0}, {4, 20000, cmdNoise}}
	reps := 21
	if quick {
		sizes, reps = []size{{8, 150, cmdNoise}, {4, 2000, cmdNoise}}, 5
	}
	fmt.Fprintf(w, "Own model %q: %d instructions per step, generated kernel in use: %v\n", Robot.Name(), Robot.Ops(), Robot.Generated())
	fmt.Fprintf(w, "truth tau, k, c = %v; start %v; tracker noise %g m; * = with command noise %g m/s (unmodelled)\n\n", truth, start, posNoise, cmdNoise)
	fmt.Fprintf(w, "%-12s %9s %10s %10s %7s %12s %12s %8s %12s %6s %9s %10s %7s %6s %9s %9s  %s\n", "runs×steps", "compile", "value+grad", "native", "ratio",
		"interp v+g", "interp nat.", "ratio", "alloc/v+g", "iters", "identify", "jacobian", "ratio", "LS it", "LS ident", "Δloss",
		"least-squares parameter errors (tau, k, c)")
	var last *result
	for i, sz := range sizes {
		d, err := synth(sz.B, sz.T, sz.cmdNoise, uint64(i+1))
		if err != nil {
			return err
		}
		r, _, err := measure(d, reps)
		if err != nil {
			return err
		}
		x := make([]float64, 3)
		for k := range x {
			x[k] = truth[k] * (1 + r.ParamRelErr[k])
		}
		if err := plotFit(filepath.Join(out, fmt.Sprintf("fit-%dx%d-cmdnoise%g.png", sz.B, sz.T, sz.cmdNoise)), d, x); err != nil {
			return err
		}
		fmt.Fprintf(w, "%-12s %8.1fms %8.2fms %8.2fms %6.1f× %10.2fms %10.2fms %7.1f× %10.0fkB %6d %7.0fms %8.2fms %6.1f× %6d %7.0fms %9.1e  %+.2f%% %+.2f%% %+.2f%% (%s; L-BFGS-B %s)\n",
			fmt.Sprintf("%d×%d%s", sz.B, sz.T, map[bool]string{true: "*", false: ""}[sz.cmdNoise > 0]), 1e3*r.CompileS, 1e3*r.GradS, 1e3*r.NativeS, r.Ratio,
			1e3*r.InterpGradS, 1e3*r.InterpNativeS, r.InterpGradS/r.InterpNativeS, r.AllocPerGrad/1e3, r.Iterations, 1e3*r.IdentifyS,
			1e3*r.JacobianS, r.JacobianS/r.NativeS, r.LSIter, 1e3*r.LSIdentifyS, (r.Loss-r.LSLoss)/r.LSLoss,
			100*r.ParamRelErr[0], 100*r.ParamRelErr[1], 100*r.ParamRelErr[2], r.LSStatus, r.Status)
		last = r
	}
	ok, rel := Robot.SelfChecked()
	fmt.Fprintf(w, "\nbuilt-in gradient check on the first run: passed %v (relative error %.2g)\n", ok, rel)
	fmt.Fprintf(w, "figures in %s\n", out)
	if asJSON {
		b, err := json.Marshal(struct {
			CompileS    float64   `json:"compile_s"`
			GradS       float64   `json:"grad_s"`
			NativeS     float64   `json:"native_s"`
			Ratio       float64   `json:"ratio"`
			ParamRelErr []float64 `json:"param_rel_err"`
			Iterations  int       `json:"iterations"`
			JacobianS   float64   `json:"jacobian_s"`
		}{last.CompileS, last.GradS, last.NativeS, last.Ratio, last.ParamRelErr, last.LSIter, last.JacobianS})
		if err != nil {
			return err
		}
		fmt.Fprintln(w, string(b))
	}
	return nil
}
