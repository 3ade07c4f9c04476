// Command diffdrive-calibrate reproduces the calibration and evaluation of
// Park, Lee, Kuipers §III on synthetic wheelchair data shaped like theirs:
// a 2,250-s training log of steps, sinusoids and random commands at h = 0.06 s
// generated from their ζ* with encoder noise, castor hang-ups and spikes, a
// 500-s robot-driven and a 350-s human-driven test log. It calibrates ζ from
// a perturbed start, prints Tables I/II (long-term simulation from t = 0 with
// only the initial state), compares optimiser coordinates and annealing,
// sweeps the segment length N, repeats the calibration on the second, real
// parameter set (the Vulcan robot's), and writes PNGs like Figs. 3, 5, 6 and 9.
//
//	go run ./experiments/diffdrive-calibrate [-out DIR] [-quick]
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/wheelgrad/wheelgrad/figure"
	"github.com/wheelgrad/wheelgrad/models/diffdrive"
	"github.com/wheelgrad/wheelgrad/models/diffdrive/calibrate"
)

func main() {
	out := flag.String("out", filepath.Join("out", "diffdrive-calibrate"), "output directory for the PNGs")
	quick := flag.Bool("quick", false, "short logs and a short sweep (smoke test)")
	flag.Parse()
	if err := run(*out, *quick); err != nil {
		fmt.Fprintln(os.Stderr, "diffdrive-calibrate:", err)
		os.Exit(1)
	}
}

// config is the experiment's size.
type config struct {
	train, robot, human float64 // seconds
	sweep               []int
}

func run(out string, quick bool) error {
	cfg := config{train: 2250, robot: 500, human: 350, sweep: []int{1, 10, 50, 200, 1000}}
	if quick {
		cfg = config{train: 300, robot: 100, human: 80, sweep: []int{1, 50}}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	truth := diffdrive.Paper()
	start := truth.WithZeta([6]float64{0.5, 0.005, 0.3, 5, 5, 0.25})
	train, err := diffdrive.Synthesize(truth, diffdrive.SynthConfig{Drive: diffdrive.Training, Seconds: cfg.train, Noise: 0.01, HangupEvery: 60, SpikeRate: 0.002, Seed: 1})
	if err != nil {
		return err
	}
	robot, _ := diffdrive.Synthesize(truth, diffdrive.SynthConfig{Drive: diffdrive.Robot, Seconds: cfg.robot, Noise: 0.01, HangupEvery: 90, SpikeRate: 0.001, Seed: 2})
	human, _ := diffdrive.Synthesize(truth, diffdrive.SynthConfig{Drive: diffdrive.Human, Seconds: cfg.human, Noise: 0.01, HangupEvery: 90, SpikeRate: 0.001, Seed: 3})
	lg := logOf(train)
	fmt.Printf("Synthetic wheelchair data from ζ* (Park et al. §III-A), h = %g s: training %.0f s (%d rows), robot-driven test %.0f s, human-driven test %.0f s\n",
		truth.H, cfg.train, len(train.T), cfg.robot, cfg.human)
	fmt.Printf("corruption: encoder noise σ = 0.01 m/s, castor hang-ups on %.1f %% of the rows (μ ×5), spikes on %.2f %%\n\n", 100*frac(train.Hangup), 100*frac(train.Spike))

	res, err := calibrate.Calibrate(lg, start, calibrate.Options{})
	if err != nil {
		return err
	}
	fmt.Printf("Calibration (fused graph, 2 shards, L-BFGS-B in steady-state coordinates, exact L1 loss): %d segments of 50 steps, stride %d\n", res.Segments, res.Stride)
	fmt.Printf("  %d iterations, %d evaluations, %v whole calibration (segmenting, graph compilation, optimisation)\n\n", res.Iterations, res.Evaluations, res.Runtime.Round(time.Millisecond))
	fmt.Printf("%-6s %10s %10s %10s %8s\n", "param", "truth", "start", "fitted", "error")
	for i, n := range diffdrive.ZetaNames {
		fmt.Printf("%-6s %10.5g %10.5g %10.5g %7.2f%%\n", n, truth.Zeta()[i], start.Zeta()[i], res.Params.Zeta()[i], 100*(res.Params.Zeta()[i]/truth.Zeta()[i]-1))
	}
	fmt.Println()

	// Tables I and II.
	for _, tl := range []struct {
		name string
		lg   *diffdrive.Log
	}{{"TABLE I: robot-driven test log", robot}, {"TABLE II: human-driven test log", human}} {
		et, err := longTerm(truth, tl.lg)
		if err != nil {
			return err
		}
		ef, err := longTerm(res.Params, tl.lg)
		if err != nil {
			return err
		}
		fmt.Printf("%s (simulated from t = 0 with only the initial state)\n", tl.name)
		fmt.Printf("  %-12s %22s %22s %8s\n", "", "true ζ*: abs. err / std", "fitted: abs. err / std", "ratio")
		fmt.Printf("  %-12s %10.4f / %9.4f %10.4f / %9.4f %8.3f\n", "v (m/s)", et.v, et.vs, ef.v, ef.vs, ef.v/et.v)
		fmt.Printf("  %-12s %10.4f / %9.4f %10.4f / %9.4f %8.3f\n\n", "ω (rad/s)", et.w, et.ws, ef.w, ef.ws, ef.w/et.w)
	}

	// Coordinates and annealing.
	fmt.Println("Optimiser coordinates and annealing (same log, same start; whole calibration time):")
	fmt.Printf("  %-8s %-16s %6s %6s %10s %12s %10s\n", "coords", "anneal", "iters", "evals", "time", "mean |err|", "max ζ err")
	coords := []calibrate.Coords{calibrate.Steady, calibrate.Scaled, calibrate.Raw}
	if quick {
		coords = coords[2:]
	}
	for _, c := range coords {
		for _, an := range []struct {
			name string
			s    []diffdrive.Smoothing
		}{{"exact", calibrate.DefaultAnneal}, {"smooth→exact", calibrate.SmoothThenExact}} {
			r, err := calibrate.Calibrate(lg, start, calibrate.Options{Coords: c, Anneal: an.s})
			if err != nil {
				fmt.Printf("  %-8v %-16s failed: %v\n", c, an.name, err)
				continue
			}
			fmt.Printf("  %-8v %-16s %6d %6d %10v %12.6f %9.2f%%\n", c, an.name, r.Iterations, r.Evaluations, r.Runtime.Round(time.Millisecond), r.MeanAbs, 100*worst(r.Params, truth))
		}
	}
	for _, rb := range []bool{false, true} {
		r, err := calibrate.Calibrate(lg, start, calibrate.Options{Robust: rb})
		if err != nil {
			return err
		}
		fmt.Printf("  initial states from %-28s max ζ err %.2f%%, %v\n", map[bool]string{false: "raw samples (eq. 24):", true: "5-sample running median:"}[rb], 100*worst(r.Params, truth), r.Runtime.Round(time.Millisecond))
	}
	graphs := []struct {
		name string
		g    calibrate.Graph
	}{{"native adjoint, 1 core", calibrate.Native}, {"primitive-op graph, 2 shards", calibrate.Primitive}}
	if quick {
		graphs = graphs[:1]
	}
	for _, g := range graphs {
		r, err := calibrate.Calibrate(lg, start, calibrate.Options{Graph: g.g})
		if err != nil {
			return err
		}
		fmt.Printf("  gradient from the %-30s %v (%d evaluations)\n", g.name+":", r.Runtime.Round(time.Millisecond), r.Evaluations)
	}
	fmt.Println()

	// Segment length sweep.
	fmt.Println("Segment length N (about 3,800 segments each; the paper: N = 1 and N > 1000 fail):")
	fmt.Printf("  %6s %9s %7s %10s %12s %14s %14s\n", "N", "segments", "iters", "time", "max ζ err", "robot v err", "human v err")
	for _, N := range cfg.sweep {
		r, err := calibrate.Calibrate(lg, start, calibrate.Options{N: N})
		if err != nil {
			fmt.Printf("  %6d failed: %v\n", N, err)
			continue
		}
		er, _ := longTerm(r.Params, robot)
		eh, _ := longTerm(r.Params, human)
		fmt.Printf("  %6d %9d %7d %10v %11.2f%% %14.4f %14.4f\n", N, r.Segments, r.Iterations, r.Runtime.Round(time.Millisecond), 100*worst(r.Params, truth), er.v, eh.v)
	}
	fmt.Println()

	// The second, real parameter set (the Vulcan robot: ±100 joystick).
	vt := diffdrive.Vulcan()
	vtrain, err := diffdrive.Synthesize(vt, diffdrive.SynthConfig{Drive: diffdrive.Training, Seconds: cfg.train, Noise: 0.01, HangupEvery: 60, SpikeRate: 0.002, Scale: 2, Seed: 11})
	if err != nil {
		return err
	}
	vstart := vt.WithZeta([6]float64{0.5, 0.01, 0.15, 7, 6, 0.2})
	vr, err := calibrate.Calibrate(logOf(vtrain), vstart, calibrate.Options{})
	if err != nil {
		return err
	}
	fmt.Printf("Second parameter set (Vulcan: l = %.4f m, a = 0.0245, g = 0.155, joystick ±100): %v, max ζ err %.2f%%\n", vt.L, vr.Runtime.Round(time.Millisecond), 100*worst(vr.Params, vt))
	for i, n := range diffdrive.ZetaNames {
		fmt.Printf("  %-6s truth %9.5g fitted %9.5g (%+.2f%%)\n", n, vt.Zeta()[i], vr.Params.Zeta()[i], 100*(vr.Params.Zeta()[i]/vt.Zeta()[i]-1))
	}

	return plots(out, res.Params, train, robot, human, cfg)
}

func logOf(l *diffdrive.Log) calibrate.Log {
	return calibrate.Log{UF: l.UF, UL: l.UL, VR: l.VR, VL: l.VL}
}

func frac(b []bool) float64 {
	n := 0
	for _, x := range b {
		if x {
			n++
		}
	}
	return float64(n) / float64(len(b))
}

func worst(p, truth diffdrive.Params) float64 {
	w := 0.0
	for i, v := range p.Zeta() {
		w = math.Max(w, math.Abs(v/truth.Zeta()[i]-1))
	}
	return w
}

// errs are the mean absolute errors and the standard deviations of the
// errors of v and ω (Tables I, II).
type errs struct{ v, vs, w, ws float64 }

// longTerm simulates the whole log from its first measured state and
// compares with the measurements.
func longTerm(p diffdrive.Params, lg *diffdrive.Log) (errs, error) {
	tr, err := p.Simulate(diffdrive.State{SdR: lg.VR[0], SdL: lg.VL[0]}, lg.UF, lg.UL)
	if err != nil {
		return errs{}, err
	}
	n := float64(len(lg.T))
	var e errs
	var mv, mw float64
	ev, ew := make([]float64, len(lg.T)), make([]float64, len(lg.T))
	for k := range lg.T {
		ev[k] = tr.V[k] - (lg.VR[k]+lg.VL[k])/2
		ew[k] = tr.W[k] - (lg.VR[k]-lg.VL[k])/p.L
		e.v += math.Abs(ev[k]) / n
		e.w += math.Abs(ew[k]) / n
		mv += ev[k] / n
		mw += ew[k] / n
	}
	for k := range ev {
		e.vs += (ev[k] - mv) * (ev[k] - mv) / n
		e.ws += (ew[k] - mw) * (ew[k] - mw) / n
	}
	e.vs, e.ws = math.Sqrt(e.vs), math.Sqrt(e.ws)
	return e, nil
}

func window(x []float64, t []float64, a, b float64) ([]float64, []float64) {
	var xs, ys []float64
	for i := range t {
		if t[i] >= a && t[i] <= b {
			xs, ys = append(xs, t[i]), append(ys, x[i])
		}
	}
	return xs, ys
}

func plots(out string, p diffdrive.Params, train, robot, human *diffdrive.Log, cfg config) error {
	sim := func(lg *diffdrive.Log) *diffdrive.Trajectory {
		tr, _ := p.Simulate(diffdrive.State{SdR: lg.VR[0], SdL: lg.VL[0]}, lg.UF, lg.UL)
		return tr
	}
	meas := func(lg *diffdrive.Log) (v, w, cmd []float64) {
		for k := range lg.T {
			v = append(v, (lg.VR[k]+lg.VL[k])/2)
			w = append(w, (lg.VR[k]-lg.VL[k])/p.L)
			cmd = append(cmd, lg.UF[k]/40)
		}
		return
	}
	speeds := func(name, title string, lg *diffdrive.Log, a, b float64) error {
		tr := sim(lg)
		v, _, cmd := meas(lg)
		x, mv := window(v, lg.T, a, b)
		_, pv := window(tr.V, lg.T, a, b)
		_, c := window(cmd, lg.T, a, b)
		return figure.XY(filepath.Join(out, name), title, "t (s)", "v (m/s)", false, []figure.Series{
			{Name: "measured", X: x, Y: mv},
			{Name: "model from t = 0", X: x, Y: pv},
			{Name: "command uf/40", X: x, Y: c, Dashed: true},
		})
	}
	t3 := math.Min(500, cfg.train)
	if err := speeds("fig3-training-steps.png", "Training set: steps (cf. Park et al. Fig. 3)", train, 0, t3); err != nil {
		return err
	}
	if err := speeds("fig6-robot-test.png", "Robot-driven test log (cf. Fig. 6)", robot, 0, cfg.robot); err != nil {
		return err
	}
	if err := speeds("fig9-human-test.png", "Human-driven test log (cf. Fig. 9)", human, 0, cfg.human); err != nil {
		return err
	}
	// Fig. 5: right and left wheel speeds with the predicted wheel locks.
	a, b := 1700.0, 1745.0
	if cfg.train < b {
		a, b = cfg.train-45, cfg.train
	}
	tr := sim(train)
	var ss []figure.Series
	for _, w := range []struct {
		name      string
		meas, pre []float64
		lock      []bool
	}{{"right", train.VR, tr.VR, tr.LockR}, {"left", train.VL, tr.VL, tr.LockL}} {
		x, m := window(w.meas, train.T, a, b)
		_, pr := window(w.pre, train.T, a, b)
		var lx, ly []float64
		for k := range train.T {
			if train.T[k] >= a && train.T[k] <= b && w.lock[k] {
				lx, ly = append(lx, train.T[k]), append(ly, 0)
			}
		}
		ss = append(ss, figure.Series{Name: w.name + " measured", X: x, Y: m},
			figure.Series{Name: w.name + " model", X: x, Y: pr, Dashed: true},
			figure.Series{Name: w.name + " wheel locked (model)", X: lx, Y: ly, Points: true})
	}
	if err := figure.XY(filepath.Join(out, "fig5-wheel-locks.png"), fmt.Sprintf("Wheel speeds and locks in [%.0f, %.0f] s (cf. Fig. 5)", a, b), "t (s)", "wheel speed (m/s)", false, ss); err != nil {
		return err
	}
	fmt.Printf("\nwrote %s/{fig3-training-steps,fig5-wheel-locks,fig6-robot-test,fig9-human-test}.png\n", out)
	return nil
}
