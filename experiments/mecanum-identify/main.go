// Command mecanum-identify reproduces Luo, Boularias and Aanjaneya §VII-A
// (Figs. 5–7) on synthetic data generated like the paper's: 8 constant-command
// trajectories of 6–8 s, 2 runs each, 240 Hz controls, a 60 Hz camera with
// σ = 3 mm (and 5 mrad on the heading), and a friction μ that depends on the
// command. It prints the Fig. 6 table (run time, iterations and evaluations
// of L-BFGS-B with the analytic gradient, with the gradient generated from
// the step definition (identify's default) and with the autodiff gradient,
// Nelder–Mead and CMA-ES), the prediction RMS of each trajectory's
// second run, and writes Fig. 7 (loss vs iteration; final loss vs fraction
// of the data) as PNGs.
//
//	go run ./experiments/mecanum-identify [-out DIR] [-quick]
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/wheelgrad/wheelgrad/figure"
	"github.com/wheelgrad/wheelgrad/models/mecanum"
	"github.com/wheelgrad/wheelgrad/opt"
)

func main() {
	out := flag.String("out", filepath.Join("out", "mecanum-identify"), "output directory")
	quick := flag.Bool("quick", false, "two trajectories, short runs (smoke test)")
	flag.Parse()
	if err := run(os.Stdout, *out, *quick); err != nil {
		fmt.Fprintln(os.Stderr, "mecanum-identify:", err)
		os.Exit(1)
	}
}

// trueMu is the friction the synthetic robot has under command w: it grows
// with the wheel's speed, so different trajectories see different μ (§VI).
func trueMu(w [4]float64) [4]float64 {
	var m [4]float64
	for j := range 4 {
		m[j] = 0.3 + 0.02*math.Abs(w[j]) + 0.04*float64(j)
	}
	return m
}

var commands = [][4]float64{
	{8, 8, 8, 8}, {-6, 6, -6, 6}, {4, 10, 10, 4}, {10, 4, 4, 10},
	{6, -6, 6, -6}, {9, 5, 3, 8}, {-5, 7, -4, 9}, {7, 7, 3, 3},
}

type traj struct {
	cmd        [4]float64
	mu         [4]float64
	runs       [2]mecanum.Run
	truth      [2][3][]float64
	durationS  float64
	cameraRows int
}

func makeData(quick bool) []traj {
	n := len(commands)
	if quick {
		n = 2
	}
	var ts []traj
	for i := range n {
		tr := traj{cmd: commands[i], mu: trueMu(commands[i])}
		tr.durationS = 6 + 2*float64(i)/float64(len(commands)-1)
		if quick {
			tr.durationS = 2
		}
		p := mecanum.DefaultParams()
		p.Mu = tr.mu[:]
		for k := range 2 {
			tr.runs[k], tr.truth[k] = mecanum.Synthesize(p, mecanum.SynthSpec{
				ID: fmt.Sprintf("%d.%d", i+1, k+1), Command: tr.cmd, Duration: tr.durationS,
				Pose0: [3]float64{0.05 * float64(k), -0.03 * float64(k), 0.3*float64(i) + 0.1*float64(k)},
				Noise: 0.003, HeadNoise: 0.005, Seed: uint64(1000 + 10*i + k),
			})
		}
		tr.cameraRows = len(tr.runs[0].Camera())
		ts = append(ts, tr)
	}
	return ts
}

type method struct {
	name   string
	engine mecanum.Engine // L-BFGS-B's gradient
	opts   mecanum.IdentifyOptions
}

func run(w io.Writer, dir string, quick bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	data := makeData(quick)
	base := mecanum.DefaultParams()
	init := [4]float64{0.5, 0.5, 0.5, 0.5}
	methods := []method{
		{"L-BFGS-B, analytic gradient", mecanum.EngineAnalytic, mecanum.IdentifyOptions{Method: mecanum.LBFGSB, Init: init}},
		{"L-BFGS-B, generated (dyn)", mecanum.EngineGenerated, mecanum.IdentifyOptions{Method: mecanum.LBFGSB, Init: init}},
		{"L-BFGS-B, autodiff gradient", mecanum.EngineGraph, mecanum.IdentifyOptions{Method: mecanum.LBFGSB, Init: init}},
		{"Nelder-Mead (eq. 14)", mecanum.EngineGenerated, mecanum.IdentifyOptions{Method: mecanum.NelderMead, Init: init}},
		{"CMA-ES", mecanum.EngineGenerated, mecanum.IdentifyOptions{Method: mecanum.CMAES, Init: init, Seed: 1}},
	}
	fmt.Fprintf(w, "Mecanum identification (Luo et al. §VII-A) on synthetic data: %d trajectories × 2 runs,\n", len(data))
	fmt.Fprintf(w, "240 Hz controls, 60 Hz camera (σ = 3 mm, 5 mrad), μ depending on the command; loss eq. 8 with\n")
	fmt.Fprintf(w, "the start pose estimated (marker term 0.2). Each trajectory's first run is fitted alone.\n\n")
	fmt.Fprintf(w, "Fig. 6: run time, iterations, evaluations\n")
	fmt.Fprintf(w, "%-5s", "traj")
	for _, m := range methods {
		fmt.Fprintf(w, " | %-30s", m.name)
	}
	fmt.Fprintln(w)
	totals := make([]struct {
		t      time.Duration
		it, ev int
	}, len(methods))
	var lbfgs []*mecanum.Result
	var fits []*mecanum.Fit
	for i, tr := range data {
		f, err := mecanum.NewFit(base, []mecanum.Run{tr.runs[0]}, mecanum.DefaultConfig())
		if err != nil {
			return err
		}
		fits = append(fits, f)
		fmt.Fprintf(w, "%-5d", i+1)
		for mi, m := range methods {
			o := m.opts
			if quick && m.opts.Method != mecanum.LBFGSB {
				o.Settings.MaxEvaluations = 300
			}
			res, err := mecanum.Identify(f.WithEngine(m.engine), o)
			if err != nil {
				return fmt.Errorf("trajectory %d, %s: %w", i+1, m.name, err)
			}
			if mi == 0 {
				lbfgs = append(lbfgs, res)
			}
			totals[mi].t += res.Wall
			totals[mi].it += res.Opt.Iterations
			totals[mi].ev += res.Opt.FuncEvaluations
			fmt.Fprintf(w, " | %8.3fs %5d it %6d ev %2s", res.Wall.Seconds(), res.Opt.Iterations, res.Opt.FuncEvaluations, conv(res.Opt.Status))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%-5s", "total")
	for _, t := range totals {
		fmt.Fprintf(w, " | %8.3fs %5d it %6d ev   ", t.t.Seconds(), t.it, t.ev)
	}
	fmt.Fprintf(w, "\n(* = stopped by a limit or failure rather than converged)\n\n")

	// Prediction of each trajectory's second run from its own first camera
	// pose, against what the true μ predicts from there and against the
	// camera.
	fmt.Fprintf(w, "Prediction of the second run (from its first camera pose), RMS over all rows\n")
	fmt.Fprintf(w, "%-5s %-34s %-34s %12s %12s %12s %s\n", "traj", "μ identified (run 1)", "μ true", "vs true-μ", "vs truth", "Uranus", "null direction (μ)")
	var cmds, mus [][4]float64
	for i, tr := range data {
		p := base
		p.Mu = lbfgs[i].Mu[:]
		r2 := tr.runs[1]
		x, y, _ := mecanum.Simulate(p, &r2)
		pt := base
		pt.Mu = tr.mu[:]
		xt, yt, _ := mecanum.Simulate(pt, &r2)
		pu := base
		pu.Mu = []float64{0, 0, 0, 0}
		xu, yu, _ := mecanum.Simulate(pu, &r2)
		u := lbfgs[i].Ident.Undetermined()
		nd := "-"
		if len(u) > 0 {
			nd = fmt.Sprintf("%.3f", u[0])
		}
		fmt.Fprintf(w, "%-5d %-34s %-34s %10.2fmm %10.2fmm %10.1fmm %s\n", i+1, fmt.Sprintf("%.3f", lbfgs[i].Mu), fmt.Sprintf("%.3f", tr.mu),
			1000*rms(x, y, xt, yt), 1000*rms(x, y, tr.truth[1][0], tr.truth[1][1]), 1000*rms(xu, yu, tr.truth[1][0], tr.truth[1][1]), nd)
		cmds, mus = append(cmds, tr.cmd), append(mus, lbfgs[i].Mu)
	}

	// Friction as a function of the command: the 4-16-4 network on the
	// per-trajectory estimates, used to predict the second runs.
	net, nres, err := mecanum.TrainFrictionNet(cmds, mus, 1e-3, 1)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nFriction network 4-16-4 trained on the %d per-trajectory μ (%d L-BFGS-B iterations); second runs:\n", len(cmds), nres.Iterations)
	pn := base
	pn.Mu = nil
	pn.Friction = net
	var worst float64
	for _, tr := range data {
		r2 := tr.runs[1]
		x, y, _ := mecanum.Simulate(pn, &r2)
		worst = math.Max(worst, rms(x, y, tr.truth[1][0], tr.truth[1][1]))
	}
	fmt.Fprintf(w, "  worst prediction RMS vs truth %.2f mm\n", 1000*worst)

	// Fig. 7 (top): loss vs iteration of L-BFGS-B.
	var ss []figure.Series
	for i, r := range lbfgs {
		var it, f []float64
		for _, tp := range r.Opt.Trace {
			it, f = append(it, float64(tp.Iter)), append(f, tp.F)
		}
		ss = append(ss, figure.Series{Name: fmt.Sprintf("trajectory %d", i+1), X: it, Y: f})
	}
	top := filepath.Join(dir, "fig7-loss-vs-iteration.png")
	if err := figure.XY(top, "L-BFGS-B (analytic gradient): loss vs iteration", "iteration", "loss (eq. 8 + marker)", false, ss); err != nil {
		return err
	}
	// Fig. 7 (bottom): final loss on the whole run vs fraction of the data
	// (the first part of the run) used to fit.
	fracs := []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1}
	fmt.Fprintf(w, "\nFig. 7 (bottom): loss on the whole first run, relative to the fit on all of it, vs fraction used\n%-5s", "traj")
	for _, fr := range fracs {
		fmt.Fprintf(w, " %6.0f%%", 100*fr)
	}
	fmt.Fprintln(w)
	var bs []figure.Series
	for i, tr := range data {
		full := lbfgs[i].Opt.F
		var xs, ys []float64
		fmt.Fprintf(w, "%-5d", i+1)
		for _, fr := range fracs {
			r := tr.runs[0]
			n := int(math.Round(fr * float64(r.Len())))
			r.T, r.W, r.X, r.Y, r.Theta = r.T[:n], r.W[:n], r.X[:n], r.Y[:n], r.Theta[:n]
			f, err := mecanum.NewFit(base, []mecanum.Run{r}, mecanum.DefaultConfig())
			if err != nil {
				return err
			}
			res, err := mecanum.Identify(f, mecanum.IdentifyOptions{Init: init})
			if err != nil {
				return err
			}
			// the start pose of the partial fit is the start pose of the run
			l := fits[i].Loss(res.X)
			xs, ys = append(xs, 100*fr), append(ys, l/full)
			fmt.Fprintf(w, " %7.3f", l/full)
		}
		fmt.Fprintln(w)
		bs = append(bs, figure.Series{Name: fmt.Sprintf("trajectory %d", i+1), X: xs, Y: ys})
	}
	bottom := filepath.Join(dir, "fig7-loss-vs-data.png")
	if err := figure.XY(bottom, "Final loss on the whole run vs data used", "data used (%)", "loss / loss with 100 %", false, bs); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nwrote %s, %s\n", top, bottom)
	return nil
}

func conv(s opt.Status) string {
	if s.Converged() {
		return ""
	}
	return "*"
}

func rms(x, y, xt, yt []float64) float64 {
	var s float64
	for i := range x {
		s += (x[i]-xt[i])*(x[i]-xt[i]) + (y[i]-yt[i])*(y[i]-yt[i])
	}
	return math.Sqrt(s / float64(len(x)))
}
