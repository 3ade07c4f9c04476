package cli

import (
	"flag"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/wheelgrad/wheelgrad/control"
	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/figure"
	"github.com/wheelgrad/wheelgrad/models/diffdrive"
	"github.com/wheelgrad/wheelgrad/models/diffdrive/calibrate"
	"github.com/wheelgrad/wheelgrad/models/mecanum"
	"github.com/wheelgrad/wheelgrad/opt"
	"github.com/wheelgrad/wheelgrad/robots"
)

func init() {
	register(command{
		name:  "demo",
		usage: "demo [-out DIR]",
		summary: "The main job on embedded default data (generated deterministically): identify the Mecanum\n" +
			"robot's wheel friction from camera logs, synthesise the wheel commands of a 40-s figure 8\n" +
			"with the right lobe driven backwards, and calibrate the differential-drive model from a\n" +
			"2,250-s wheelchair log. Prints the tables and writes the figures into DIR.",
		flags: func(fs *flag.FlagSet, reg *robots.Registry) func(env) error {
			out := fs.String("out", "wheelgrad-demo", "directory for the demo's figures and files")
			quiet, verbose := addVerbosity(fs)
			return func(e env) error {
				return runDemo(e, *out, progressOn(e, *quiet, *verbose))
			}
		},
	})
}

// demoMu is the friction of the demo's Mecanum robot (the figure-8 setting).
var demoMu = [4]float64{0.6, 0.7, 0.8, 0.9}

// demoCommands are three different constant commands: with one command μ
// is not identifiable (B's null vector), with three it is.
var demoCommands = [][4]float64{{10, 12, 8, 14}, {-12, 10, -9, 13}, {9, -11, -13, 10}}

func runDemo(e env, dir string, prog *progress) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	start := time.Now()
	w := e.stdout
	fmt.Fprintln(w, "wheelgrad demo — data generated deterministically (seeded), figures in", dir)

	// 1. Mecanum identification (Luo et al. §VI–VII-A).
	truth := mecanum.DefaultParams()
	truth.Mu = demoMu[:]
	var runs []mecanum.Run
	for i, c := range demoCommands {
		r, _ := mecanum.Synthesize(truth, mecanum.SynthSpec{ID: fmt.Sprint(i + 1), Command: c, Duration: 7,
			Pose0: [3]float64{0.1 * float64(i), 0, 0.3 * float64(i)}, Noise: 0.003, HeadNoise: 0.01, Seed: uint64(i + 1)})
		runs = append(runs, r)
	}
	prog.printf("identifying μ …")
	fit, err := mecanum.NewFit(mecanum.DefaultParams(), runs, mecanum.DefaultConfig())
	if err != nil {
		return err
	}
	id, err := mecanum.Identify(fit, mecanum.IdentifyOptions{Init: [4]float64{0.5, 0.5, 0.5, 0.5}})
	prog.done()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\n1. Mecanum robot: wheel friction from %d camera logs (7 s each, 240-Hz commands, 60-Hz camera, σ = 3 mm)\n\n", len(runs))
	fmt.Fprintf(w, "   %-10s %8s %8s %8s %8s\n", "", "μ1", "μ2", "μ3", "μ4")
	fmt.Fprintf(w, "   %-10s %8.3f %8.3f %8.3f %8.3f\n", "true", demoMu[0], demoMu[1], demoMu[2], demoMu[3])
	fmt.Fprintf(w, "   %-10s %8.3f %8.3f %8.3f %8.3f\n", "identified", id.Mu[0], id.Mu[1], id.Mu[2], id.Mu[3])
	fmt.Fprintf(w, "\n   L-BFGS-B: %d iterations, %d evaluations, %s wall\n", id.Opt.Iterations, id.Opt.FuncEvaluations, id.Wall.Round(time.Millisecond))
	// Sample inputs for a first run of identify / validate / simulate on
	// files: the log, the identified parameters and the fit plot.
	mlog := filepath.Join(dir, "mecanum-log.csv")
	if err := writeMecanumRuns(mlog, runs); err != nil {
		return err
	}
	mjson := filepath.Join(dir, "mecanum-identified.json")
	mp := mecanum.DefaultParams()
	mp.Model, mp.Mu = "mecanum", id.Mu[:]
	if err := dataset.WriteJSONFile(mjson, mp); err != nil {
		return err
	}
	mfit := filepath.Join(dir, "mecanum-fit.png")
	direct := e
	direct.outs = nil // the demo writes its own directory, not declared outputs
	if err := plotMecanum(direct, mfit, fit, runs, id, mecanum.DefaultParams()); err != nil {
		return err
	}

	// 2. Figure 8 with the right lobe reversed (Luo et al. §VII-B).
	ident := mecanum.DefaultParams()
	ident.Mu = id.Mu[:]
	model, err := mecanum.NewDrive(ident)
	if err != nil {
		return err
	}
	path := control.Figure8{A: 1, T: 40}
	plan, err := control.NewPlan(model, path, control.Figure8ReverseRight, 2.35619, 4, 1.0/240, 30)
	if err != nil {
		return err
	}
	res, err := control.FollowDrive(plan, control.FollowSettings{
		Iteration: func(it opt.Iteration) { prog.printf("figure 8: iteration %d, loss %.4g", it.Iter, it.F) },
	})
	prog.done()
	if err != nil {
		return err
	}
	trueModel, _ := mecanum.NewDrive(truth)
	poses, vel := control.Execute(trueModel, plan.Start, res.Controls, plan.N, plan.Dt)
	tr := control.Track(path, 0, plan.Dt, poses, vel)
	fmt.Fprintf(w, "\n2. Figure 8, 40 s, right lobe driven backwards: %d × 4 wheel commands (4 per second, |ω_s| ≤ 30 rad/s)\n\n", plan.K)
	fmt.Fprintf(w, "   synthesis        %d L-BFGS-B iterations, %d evaluations, %s\n", res.Synthesis.Iterations, res.Synthesis.Evaluations, res.Synthesis.Runtime.Round(time.Millisecond))
	fmt.Fprintf(w, "   executed on the true robot (true μ, exact simulation):\n")
	fmt.Fprintf(w, "   distance to the curve   RMS %.1f mm, max %.1f mm\n", 1e3*tr.RMS, 1e3*tr.Max)
	fmt.Fprintf(w, "   on time                 RMS %.1f mm\n", 1e3*tr.OnTimeRMS)
	fmt.Fprintf(w, "   driven backwards        %.0f %% of the right lobe; forwards %.0f %% of the left\n", 100*tr.ReversedRight, 100*tr.ForwardLeft)
	rx, ry := control.Dense(path, 2000)
	f8 := filepath.Join(dir, "figure8.png")
	series := append([]figure.Series{{Name: "reference", X: rx, Y: ry, Color: color.RGBA{200, 200, 200, 255}, Width: 6}},
		senseSeries("executed", poses, vel)...)
	if err := figure.XY(f8, "Figure 8, right lobe driven backwards", "x (m)", "y (m)", true, series); err != nil {
		return err
	}
	ctl := filepath.Join(dir, "figure8-controls.csv")
	if err := dataset.WriteFileAtomic(ctl, func(out io.Writer) error {
		return robots.WriteWheelControls(out, res.Controls, plan.N, plan.Dt, plan.Start)
	}); err != nil {
		return err
	}

	// 3. Differential-drive calibration (Park, Lee, Kuipers §III).
	dd := diffdrive.Paper()
	prog.printf("generating the wheelchair log …")
	lg, err := diffdrive.Synthesize(dd, diffdrive.SynthConfig{Drive: diffdrive.Training, Seconds: 2250, Noise: 0.01, HangupEvery: 120, SpikeRate: 0.001, Seed: 1})
	if err != nil {
		return err
	}
	init := dd
	z := dd.Zeta()
	for i, f := range []float64{1.3, 0.7, 0.75, 1.25, 1.3, 0.8} {
		z[i] *= f
	}
	init = init.WithZeta(z)
	cal, err := calibrate.Calibrate(calibrate.Log{UF: lg.UF, UL: lg.UL, VR: lg.VR, VL: lg.VL}, init, calibrate.Options{
		Progress: func(stage int, it opt.Iteration) { prog.printf("calibrating: iteration %d, loss %.5g", it.Iter, it.F) }})
	prog.done()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\n3. Differential drive (Kikuuwe friction): calibration from a %.0f-s log (%d rows at h = %.2f s, castor hang-ups, spikes)\n\n", lg.T[len(lg.T)-1], len(lg.T), dd.H)
	names := []string{"c1", "c2", "α", "β", "γ", "μ"}
	fz, tz, iz := cal.Params.Zeta(), dd.Zeta(), init.Zeta()
	fmt.Fprintf(w, "   %-6s %10s %10s %10s %8s\n", "", "true", "start", "fitted", "error")
	for i, n := range names {
		fmt.Fprintf(w, "   %-6s %10.4g %10.4g %10.4g %7.1f%%\n", n, tz[i], iz[i], fz[i], 100*(fz[i]-tz[i])/tz[i])
	}
	fmt.Fprintf(w, "\n   %d segments of 50 steps, %d L-BFGS-B iterations, %d evaluations, %s\n", cal.Segments, cal.Iterations, cal.Evaluations, cal.Runtime.Round(time.Millisecond))
	// Figure: one minute of the log, measured v, and the long-term
	// prediction from rest of the start and the fitted parameters.
	n := int(math.Round(60 / dd.H))
	t := lg.T[:n]
	pred := func(p diffdrive.Params) []float64 {
		tr, err := p.Simulate(diffdrive.State{}, lg.UF[:n], lg.UL[:n])
		if err != nil {
			return make([]float64, n)
		}
		return tr.V
	}
	meas := make([]float64, n)
	for i := range meas {
		meas[i] = (lg.VR[i] + lg.VL[i]) / 2
	}
	ddp := filepath.Join(dir, "diffdrive.png")
	if err := figure.XY(ddp, "Differential drive: forward speed, first minute of the log", "t (s)", "v (m/s)", false, []figure.Series{
		{Name: "measured", X: t, Y: meas, Color: color.RGBA{160, 160, 160, 255}},
		{Name: "start parameters", X: t, Y: pred(init), Color: figure.Palette[1], Dashed: true},
		{Name: "calibrated", X: t, Y: pred(cal.Params), Color: figure.Palette[0]},
	}); err != nil {
		return err
	}
	dlog := filepath.Join(dir, "diffdrive-log.csv")
	if err := dataset.WriteFileAtomic(dlog, func(out io.Writer) error {
		return dataset.WriteCSV(out, []string{"t", "uf", "ul", "vr", "vl"}, [][]float64{lg.T, lg.UF, lg.UL, lg.VR, lg.VL})
	}); err != nil {
		return err
	}
	djson := filepath.Join(dir, "diffdrive-calibrated.json")
	if err := dataset.WriteJSONFile(djson, cal.Params); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nwrote %s, %s, %s, %s, %s, %s, %s, %s (demo took %s)\n", mlog, mjson, mfit, f8, ctl, ddp, dlog, djson, time.Since(start).Round(100*time.Millisecond))
	return nil
}

// writeMecanumRuns writes runs as a FORMATS.md Mecanum log (traj = run id;
// empty pose cells between camera samples).
func writeMecanumRuns(path string, runs []mecanum.Run) error {
	return dataset.WriteFileAtomic(path, func(out io.Writer) error {
		cw := dataset.NewWriter(out)
		cw.WriteHeader("t", "w1", "w2", "w3", "w4", "x", "y", "theta", "traj")
		for _, r := range runs {
			for k := range r.T {
				cw.WriteRow(dataset.Num(r.T[k]), dataset.Num(r.W[k][0]), dataset.Num(r.W[k][1]), dataset.Num(r.W[k][2]), dataset.Num(r.W[k][3]),
					dataset.Num(r.X[k]), dataset.Num(r.Y[k]), dataset.Num(r.Theta[k]), dataset.Text(r.ID))
			}
		}
		return cw.Flush()
	})
}
