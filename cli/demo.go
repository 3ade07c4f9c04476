package cli

import (
	"flag"
	"fmt"
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
	m.WriteText(w)
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
	f8.WriteText(w)
	f8png := filepath.Join(dir, "figure8.png")
	if err := e.drawFigure(f8png, f8.Figure()); err != nil {
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
	dd.WriteText(w)
	ddp := filepath.Join(dir, "diffdrive.png")
	if err := e.drawFigure(ddp, dd.Figure()); err != nil {
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
