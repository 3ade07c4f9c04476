// Command real-warthog is issue 25's table on real data: DRIVE's Clearpath
// Warthog on grass (../shared/data/drive-warthog/windows.csv, 2-s windows
// at 20 Hz with commanded and measured wheel speeds and lidar ICP poses).
// It trains on the windows of even calib_step and tests on the odd ones,
// each window predicted open loop from its first pose to its last (the 2-s
// endpoint error), and prints the RMS over the test windows for
//
//   - the nominal model (a = 0) from measured and from commanded speeds;
//   - the slip model calibrated from measured wheel speeds (Model);
//   - the slip model calibrated from commanded wheel speeds without input
//     dynamics, and through the lag (LagModel: τ, then τ and a dead time),
//     the lag starting from the window's first measured wheel speeds;
//
// with the σ of every parameter, and a figure (-fig) of the predicted
// against the ICP end positions of the test windows. The oracle of issue 25
// (SciPy least squares of the same models on the same split) reports the
// mean endpoint error: the table gives it beside the RMS. -fast runs on the
// 60 windows of testdata/windows-sample.csv (run from this directory or
// give -data). The fits weigh the end positions alone by default (the
// measure of the table); -wpsi adds the heading residual.
//
// The log is read with the library's reader (skidsteer.ReadLog with a
// dataset.ColumnMap naming the file's columns), as `wheelgrad identify`
// would read it.
package main

import (
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/figure"
	"github.com/wheelgrad/wheelgrad/models/skidsteer"
)

// Warthog's geometry (DRIVE's configuration).
const (
	wheelRadius = 0.3
	track       = 1.08
)

// columns maps windows.csv to a skid-steer wheel-speed log.
const columns = "traj=window,wl=meas_left,wr=meas_right,wl_cmd=cmd_left,wr_cmd=cmd_right,psi=yaw:rad"

// Sample is the fast form's data: 30 training and 30 test windows of
// windows.csv, lines unchanged (testdata/README.md).
var Sample = filepath.Join("testdata", "windows-sample.csv")

// Row is one line of the table.
type Row struct {
	Name     string
	Inputs   skidsteer.Inputs
	Train    float64 // endpoint RMS over the training windows (m)
	Test     float64 // endpoint RMS over the test windows (m)
	TestMean float64 // mean endpoint error over the test windows (m)
	Fit      *skidsteer.WindowFit
	TestPred []skidsteer.WindowPrediction
}

// Result is the experiment's table.
type Result struct {
	TrainWindows, TestWindows int
	StalePoses                float64 // fraction of rows repeating the previous ICP pose
	Rows                      []Row
}

// Options of a run.
type Options struct {
	Data string // windows.csv
	// Every keeps one window in Every (1: all), for the fast form.
	Every int
	// WeightPsi is the heading residual's weight (m/rad) in the fits.
	WeightPsi float64
	// SkipRepeats fits on poses that are not stale repeats (the test
	// windows are always scored at their last row).
	SkipRepeats bool
}

// load reads the windows and splits them by calib_step parity.
func load(o Options) (train, test []*skidsteer.Log, stale float64, err error) {
	cm, err := dataset.ParseColumnMap(columns)
	if err != nil {
		return nil, nil, 0, err
	}
	p := skidsteer.Params{Model: "skidsteer", R: wheelRadius, Track: track}
	runs, err := skidsteer.ReadLog(o.Data, skidsteer.LogOptions{Params: p, Columns: cm})
	if err != nil {
		return nil, nil, 0, err
	}
	steps, err := calibSteps(o.Data)
	if err != nil {
		return nil, nil, 0, err
	}
	every := max(o.Every, 1)
	var rows, repeats int
	for k, r := range runs {
		step, ok := steps[r.ID]
		if !ok {
			return nil, nil, 0, fmt.Errorf("%s: window %q has no calib_step", o.Data, r.ID)
		}
		for i := 1; i < len(r.T); i++ {
			rows++
			if r.Pose[i] == r.Pose[i-1] {
				repeats++
			}
		}
		if k%every != 0 {
			continue
		}
		if step%2 == 0 {
			train = append(train, r.Log)
		} else {
			test = append(test, r.Log)
		}
	}
	if len(train) == 0 || len(test) == 0 {
		return nil, nil, 0, fmt.Errorf("%s: %d training and %d test windows", o.Data, len(train), len(test))
	}
	return train, test, float64(repeats) / float64(rows), nil
}

// calibSteps reads each window's calib_step.
func calibSteps(path string) (map[string]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cr := csv.NewReader(f)
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	iw, is := -1, -1
	for i, h := range head {
		switch strings.TrimSpace(h) {
		case "window":
			iw = i
		case "calib_step":
			is = i
		}
	}
	if iw < 0 || is < 0 {
		return nil, fmt.Errorf("%s: line 1: want columns window and calib_step", path)
	}
	out := map[string]int{}
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		s, err := strconv.ParseFloat(rec[is], 64)
		if err != nil || s != math.Trunc(s) {
			return nil, fmt.Errorf("%s: line %d, column calib_step: %q is not a whole number", path, line, rec[is])
		}
		out[rec[iw]] = int(s)
	}
}

// Run computes the table.
func Run(o Options) (*Result, error) {
	train, test, stale, err := load(o)
	if err != nil {
		return nil, err
	}
	res := &Result{TrainWindows: len(train), TestWindows: len(test), StalePoses: stale}
	p0 := skidsteer.Params{Model: "skidsteer", R: wheelRadius, Track: track}
	eval := func(name string, p skidsteer.Params, wo skidsteer.WindowOptions, f *skidsteer.WindowFit) error {
		tr, err := skidsteer.PredictWindows(train, p, wo)
		if err != nil {
			return err
		}
		te, err := skidsteer.PredictWindows(test, p, wo)
		if err != nil {
			return err
		}
		res.Rows = append(res.Rows, Row{Name: name, Inputs: wo.Inputs, Train: skidsteer.EndpointRMS(tr), Test: skidsteer.EndpointRMS(te), TestMean: skidsteer.EndpointMean(te), Fit: f, TestPred: te})
		return nil
	}
	meas := skidsteer.WindowOptions{Inputs: skidsteer.Measured, WeightPsi: o.WeightPsi}
	cmd := skidsteer.WindowOptions{Inputs: skidsteer.Commanded, WeightPsi: o.WeightPsi}
	if err := eval("nominal, measured speeds", p0, meas, nil); err != nil {
		return nil, err
	}
	if err := eval("nominal, commanded speeds", p0, cmd, nil); err != nil {
		return nil, err
	}
	fits := []struct {
		name string
		o    skidsteer.WindowOptions
	}{
		{"calibrated, measured speeds", meas},
		{"calibrated, commanded, no lag", cmd},
		{"calibrated, commanded, lag τ", withLag(cmd, true, false)},
		{"calibrated, commanded, lag τ + dead time", withLag(cmd, true, true)},
	}
	for _, c := range fits {
		fo := c.o
		fo.SkipRepeats = o.SkipRepeats
		f, err := skidsteer.FitWindows(train, p0, fo)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.name, err)
		}
		if err := eval(c.name, f.Params, c.o, f); err != nil {
			return nil, err
		}
	}
	return res, nil
}

func withLag(o skidsteer.WindowOptions, tau, delay bool) skidsteer.WindowOptions {
	o.FitTau, o.FitDelay = tau, delay
	return o
}

// Print writes the table and the parameters with their σ.
func (r *Result) Print(w io.Writer) {
	fmt.Fprintf(w, "Warthog on grass (DRIVE): %d training windows (even calib_step), %d test windows (odd); %.0f %% of rows repeat the previous ICP pose\n\n",
		r.TrainWindows, r.TestWindows, 100*r.StalePoses)
	fmt.Fprintf(w, "%-42s %10s %10s %8s %10s %8s\n", "model (2-s endpoint error)", "train RMS", "test RMS", "vs nom", "test mean", "vs nom")
	nom, nomMean := map[skidsteer.Inputs]float64{}, map[skidsteer.Inputs]float64{}
	for _, row := range r.Rows {
		if row.Fit == nil {
			nom[row.Inputs], nomMean[row.Inputs] = row.Test, row.TestMean
		}
		fmt.Fprintf(w, "%-42s %10.3f %10.3f %7.2f× %10.3f %7.2f×\n", row.Name, row.Train, row.Test, nom[row.Inputs]/row.Test, row.TestMean, nomMean[row.Inputs]/row.TestMean)
	}
	for _, row := range r.Rows {
		if row.Fit == nil {
			continue
		}
		f := row.Fit
		fmt.Fprintf(w, "\n%s (%s after %d iterations, %d windows):\n", row.Name, f.Status, f.Iterations, f.Windows)
		for i, n := range f.Names {
			if !f.Free[i] {
				fmt.Fprintf(w, "  %-6s %10.4f  (held)\n", n, f.Value[i])
				continue
			}
			if f.AtBound[i] {
				fmt.Fprintf(w, "  %-6s %10.4f  (at its bound)\n", n, f.Value[i])
				continue
			}
			fmt.Fprintf(w, "  %-6s %10.4f ± %.4f\n", n, f.Value[i], f.Std[i])
		}
	}
}

// Figure plots the predicted against the ICP end positions of the test
// windows for the nominal and the best calibrated model of each input.
func (r *Result) Figure(path string) error {
	var ps []figure.Panel
	for _, row := range r.Rows {
		var icp, pred, miss figure.Series
		icp.Name, pred.Name = "ICP", "predicted"
		for _, w := range row.TestPred {
			icp.X, icp.Y = append(icp.X, w.Measured.X), append(icp.Y, w.Measured.Y)
			pred.X, pred.Y = append(pred.X, w.Predicted.X), append(pred.Y, w.Predicted.Y)
			miss.X, miss.Y = append(miss.X, w.Measured.X, w.Predicted.X), append(miss.Y, w.Measured.Y, w.Predicted.Y)
		}
		icp.Points, pred.Points, miss.Segments, miss.Width = true, true, true, 0.5
		ps = append(ps, figure.Panel{Title: fmt.Sprintf("%s: RMS %.2f m, mean %.2f m", row.Name, row.Test, row.TestMean), XLabel: "x (m)", YLabel: "y (m)", Series: []figure.Series{miss, icp, pred}})
	}
	return figure.Panels(path, "Warthog 2-s windows (test): end positions", 2, ps)
}

func main() {
	data := flag.String("data", filepath.Join("..", "shared", "data", "drive-warthog", "windows.csv"), "the windows CSV (default: DRIVE's, from the repository's root)")
	fast := flag.Bool("fast", false, "the 60 windows of testdata/windows-sample.csv (CI), unless -data is given")
	wpsi := flag.Float64("wpsi", 0, "weight of the heading residual (m/rad)")
	out := flag.String("fig", "", "write the figure here (png, svg or pdf)")
	skip := flag.Bool("skip-repeats", false, "fit on poses that are not stale repeats")
	flag.Parse()
	o := Options{Data: *data, Every: 1, WeightPsi: *wpsi, SkipRepeats: *skip}
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "data" })
	if *fast && !given {
		o.Data = Sample
	}
	r, err := Run(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "real-warthog:", err)
		os.Exit(1)
	}
	r.Print(os.Stdout)
	if *out != "" {
		if err := r.Figure(*out); err != nil {
			fmt.Fprintln(os.Stderr, "real-warthog:", err)
			os.Exit(1)
		}
	}
}
