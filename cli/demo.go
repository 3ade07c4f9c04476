package cli

import (
	"flag"
	"fmt"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/wheelgrad/wheelgrad/dataset"
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

func runDemo(e env, dir string, prog *progress) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	start := time.Now()
	w := e.stdout
	sink := newSink(e, nil, prog)
	fmt.Fprintln(w, "wheelgrad demo — data generated deterministically (seeded), figures in", dir)

	// 1. Mecanum identification (Luo et al. §VI–VII-A).
	m, err := robots.DemoIdentify(sink)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\n1. Mecanum robot: wheel friction from %d camera logs (%g s each, 240-Hz commands, 60-Hz camera, σ = 3 mm)\n\n", m.Runs, m.Duration)
	fmt.Fprintf(w, "   %-10s %8s %8s %8s %8s\n", "", "μ1", "μ2", "μ3", "μ4")
	fmt.Fprintf(w, "   %-10s %8.3f %8.3f %8.3f %8.3f\n", "true", m.True[0], m.True[1], m.True[2], m.True[3])
	fmt.Fprintf(w, "   %-10s %8.3f %8.3f %8.3f %8.3f\n", "identified", m.Identified[0], m.Identified[1], m.Identified[2], m.Identified[3])
	fmt.Fprintf(w, "\n   L-BFGS-B: %d iterations, %d evaluations, %s wall\n", m.Iterations, m.Evaluations, m.Wall.Round(time.Millisecond))
	// Sample inputs for a first run of identify / validate / simulate on
	// files: the log, the identified parameters and the fit plot.
	mlog := filepath.Join(dir, "mecanum-log.csv")
	if err := e.writeOut(mlog, m.WriteLog); err != nil {
		return err
	}
	mjson := filepath.Join(dir, "mecanum-identified.json")
	if err := e.writeOut(mjson, func(w io.Writer) error { return dataset.WriteJSON(w, m.Params) }); err != nil {
		return err
	}
	mfit := filepath.Join(dir, "mecanum-fit.png")
	if err := e.drawFigure(mfit, m.Figure); err != nil {
		return err
	}

	// 2. Figure 8 with the right lobe reversed (Luo et al. §VII-B).
	f8, err := robots.DemoFigure8(m, sink)
	if err != nil {
		return err
	}
	plan, syn, tr := f8.Follow.Plan, f8.Follow.Synthesis.Synthesis, f8.Executed.Tracking
	fmt.Fprintf(w, "\n2. Figure 8, %g s, right lobe driven backwards: %d × 4 wheel commands (%g per second, |ω_s| ≤ %g rad/s)\n\n", f8.Path.Duration(), plan.K, f8.Follow.Req.Rate, plan.Wmax)
	fmt.Fprintf(w, "   synthesis        %d L-BFGS-B iterations, %d evaluations, %s\n", syn.Iterations, syn.Evaluations, syn.Runtime.Round(time.Millisecond))
	fmt.Fprintf(w, "   executed on the true robot (true μ, exact simulation):\n")
	fmt.Fprintf(w, "   distance to the curve   RMS %.1f mm, max %.1f mm\n", 1e3*tr.RMS, 1e3*tr.Max)
	fmt.Fprintf(w, "   on time                 RMS %.1f mm\n", 1e3*tr.OnTimeRMS)
	fmt.Fprintf(w, "   driven backwards        %.0f %% of the right lobe; forwards %.0f %% of the left\n", 100*tr.ReversedRight, 100*tr.ForwardLeft)
	f8png := filepath.Join(dir, "figure8.png")
	if err := e.drawFigure(f8png, &robots.Figure{Title: "Figure 8, right lobe driven backwards", XLabel: "x (m)", YLabel: "y (m)", Equal: true,
		Series: append([]robots.Series{robots.ReferenceSeries(f8.Path)}, robots.SenseSeries("executed", f8.Executed.Poses, f8.Executed.Velocity)...)}); err != nil {
		return err
	}
	ctl := filepath.Join(dir, "figure8-controls.csv")
	if err := e.writeOut(ctl, f8.Follow.WriteControls); err != nil {
		return err
	}

	// 3. Differential-drive calibration (Park, Lee, Kuipers §III).
	dd, err := robots.DemoCalibrate(sink)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\n3. Differential drive (Kikuuwe friction): calibration from a %.0f-s log (%d rows at h = %.2f s, castor hang-ups, spikes)\n\n", dd.Seconds, dd.Rows, dd.H)
	fmt.Fprintf(w, "   %-6s %10s %10s %10s %8s\n", "", "true", "start", "fitted", "error")
	for i, n := range dd.Names {
		fmt.Fprintf(w, "   %-6s %10.4g %10.4g %10.4g %7.1f%%\n", n, dd.True[i], dd.Start[i], dd.Fitted[i], 100*(dd.Fitted[i]-dd.True[i])/dd.True[i])
	}
	fmt.Fprintf(w, "\n   %d segments of 50 steps, %d L-BFGS-B iterations, %d evaluations, %s\n", dd.Segments, dd.Iterations, dd.Evaluations, dd.Runtime.Round(time.Millisecond))
	// Figure: one minute of the log, measured v, and the long-term
	// prediction from rest of the start and the fitted parameters.
	ddp := filepath.Join(dir, "diffdrive.png")
	if err := e.drawFigure(ddp, &robots.Figure{Title: "Differential drive: forward speed, first minute of the log", XLabel: "t (s)", YLabel: "v (m/s)", Series: []robots.Series{
		{Name: "measured", X: dd.T, Y: dd.Measured, RGB: color.RGBA{160, 160, 160, 255}},
		{Name: "start parameters", X: dd.T, Y: dd.StartPrediction, Color: 2, Dashed: true},
		{Name: "calibrated", X: dd.T, Y: dd.Calibrated, Color: 1},
	}}); err != nil {
		return err
	}
	dlog := filepath.Join(dir, "diffdrive-log.csv")
	if err := e.writeOut(dlog, dd.WriteLog); err != nil {
		return err
	}
	djson := filepath.Join(dir, "diffdrive-calibrated.json")
	if err := e.writeOut(djson, func(w io.Writer) error { return dataset.WriteJSON(w, dd.Params) }); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nwrote %s, %s, %s, %s, %s, %s, %s, %s (demo took %s)\n", mlog, mjson, mfit, f8png, ctl, ddp, dlog, djson, time.Since(start).Round(100*time.Millisecond))
	return nil
}
