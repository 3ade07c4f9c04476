// Command real-warthog is issue 25's table on real data: DRIVE's Clearpath
// Warthog on grass (../shared/data/drive-warthog/windows.csv, 2-s windows
// at 20 Hz with commanded and measured wheel speeds and lidar ICP poses).
// It trains on the windows of even calib_step and tests on the odd ones,
// each window predicted open loop from its first pose to its last (the 2-s
// endpoint error), and prints the RMS and the mean over the test windows
// for
//
//   - the nominal model (a = 0) from measured and from commanded speeds;
//   - the slip model calibrated from measured wheel speeds by `wheelgrad
//     identify` (IPEM), and by the library's 2-s window fit
//     (skidsteer.FitWindows, the measure of the table);
//   - the slip model calibrated from commanded wheel speeds by `wheelgrad
//     identify -inputs commanded`: without input dynamics (-fix tau), through
//     the lag (τ), and through the lag and a dead time (-dead-time), the lag
//     starting from the window's first measured wheel speeds;
//
// with the σ and verdict of every parameter, and a figure (-fig) of the
// predicted against the ICP end positions of the test windows. The fits are
// the command line's own (cli.Run over robots.Default(): the commands are
// printed beside the table, and a user runs them as they are on the split
// files); the windows are scored with the parameter files they write
// (skidsteer.ReadParams, PredictWindows: what `validate -x0 first` reports
// as each run's endpoint error). The oracle of issue 25 (SciPy least squares
// of the same models on the same split) reports the mean endpoint error:
// 0.42 m from measured speeds, 0.61 m from commanded speeds through a lag.
// -fast runs on the 60 windows of testdata/windows-sample.csv (run from this
// directory or give -data).
package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/wheelgrad/wheelgrad/cli"
	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/figure"
	"github.com/wheelgrad/wheelgrad/models/skidsteer"
	"github.com/wheelgrad/wheelgrad/robots"
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

// Param is one identified parameter as `identify -json` reports it.
type Param struct {
	Name    string   `json:"name"`
	Value   float64  `json:"value"`
	Std     *float64 `json:"std"`
	Held    bool     `json:"held"`
	Verdict string   `json:"verdict"`
}

// Fit is one calibration: the command that made it (empty for the
// library's window fit), its parameters and the optimiser's end.
type Fit struct {
	Command    string
	Params     []Param
	Status     string
	Iterations int
}

// Row is one line of the table.
type Row struct {
	Name     string
	Inputs   skidsteer.Inputs
	Train    float64 // endpoint RMS over the training windows (m)
	Test     float64 // endpoint RMS over the test windows (m)
	TestMean float64 // mean endpoint error over the test windows (m)
	Fit      *Fit    // nil for a nominal row
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
	// Every keeps one window in Every (1: all), for a faster run.
	Every int
	// WeightPsi is the heading residual's weight (m/rad) in the library's
	// window fit.
	WeightPsi float64
}

// split writes the windows of even and odd calib_step (one in every) to
// train.csv and test.csv in dir, lines unchanged, and returns the fraction
// of rows whose ICP pose repeats the previous row's.
func split(path, dir string, every int) (stale float64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.ReuseRecord = false
	head, err := cr.Read()
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.TrimSpace(h)] = i
	}
	for _, c := range []string{"window", "calib_step", "x", "y", "yaw"} {
		if _, ok := col[c]; !ok {
			return 0, fmt.Errorf("%s: line 1: no column %s", path, c)
		}
	}
	var outs [2]*csv.Writer
	for k, name := range []string{"train.csv", "test.csv"} {
		o, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return 0, err
		}
		defer o.Close()
		outs[k] = csv.NewWriter(o)
		if err := outs[k].Write(head); err != nil {
			return 0, err
		}
	}
	seen := map[string]int{}
	var prev []string
	rows, repeats := 0, 0
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, fmt.Errorf("%s: %w", path, err)
		}
		w := rec[col["window"]]
		if prev != nil && prev[col["window"]] == w {
			rows++
			if rec[col["x"]] == prev[col["x"]] && rec[col["y"]] == prev[col["y"]] && rec[col["yaw"]] == prev[col["yaw"]] {
				repeats++
			}
		}
		prev = rec
		st, err := strconv.ParseFloat(rec[col["calib_step"]], 64)
		if err != nil || st != math.Trunc(st) {
			return 0, fmt.Errorf("%s: line %d, column calib_step: %q is not a whole number", path, line, rec[col["calib_step"]])
		}
		if _, ok := seen[w]; !ok {
			seen[w] = len(seen)
		}
		if seen[w]%max(every, 1) != 0 {
			continue
		}
		if err := outs[int(st)&1].Write(rec); err != nil {
			return 0, err
		}
	}
	for _, o := range outs {
		if o.Flush(); o.Error() != nil {
			return 0, o.Error()
		}
	}
	return float64(repeats) / float64(max(rows, 1)), nil
}

// readWindows reads a split file as the command line does.
func readWindows(path string) ([]*skidsteer.Log, error) {
	cm, err := dataset.ParseColumnMap(columns)
	if err != nil {
		return nil, err
	}
	p := skidsteer.Params{Model: "skidsteer", R: wheelRadius, Track: track}
	runs, err := skidsteer.ReadLog(path, skidsteer.LogOptions{Params: p, Columns: cm})
	if err != nil {
		return nil, err
	}
	var out []*skidsteer.Log
	for _, r := range runs {
		out = append(out, r.Log)
	}
	return out, nil
}

// identify runs `wheelgrad identify` on the training file with args and
// returns the parameter file it wrote and its -json report.
func identify(dir, name string, args ...string) (skidsteer.Params, *Fit, error) {
	out := filepath.Join(dir, name+".json")
	full := append([]string{"identify", "-model", "skidsteer", "-data", filepath.Join(dir, "train.csv"), "-init", filepath.Join(dir, "warthog.json"),
		"-columns", columns, "-json", "-quiet", "-allow-undetermined", "-out", out}, args...)
	var stdout, stderr bytes.Buffer
	if st := cli.Run(full, robots.Default(), &stdout, &stderr); st != 0 {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.LastIndex(msg, "\n"); i >= 0 {
			msg = msg[i+1:]
		}
		return skidsteer.Params{}, nil, fmt.Errorf("wheelgrad %s: exit %d: %s", strings.Join(full, " "), st, msg)
	}
	var rep struct {
		Params []Param `json:"params"`
		Fit    *struct {
			Status     string `json:"status"`
			Iterations int    `json:"iterations"`
		} `json:"fit"`
		Status *string `json:"status"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		return skidsteer.Params{}, nil, fmt.Errorf("identify -json: %w", err)
	}
	p, _, err := skidsteer.ReadParams(out, true)
	if err != nil {
		return skidsteer.Params{}, nil, err
	}
	f := &Fit{Command: "wheelgrad identify -model skidsteer -data train.csv -init warthog.json -columns '" + columns + "' -out " + name + ".json " + strings.Join(args, " "),
		Params: rep.Params}
	f.Status = "one pass of the filter"
	if rep.Status != nil {
		f.Status = *rep.Status
	}
	return p, f, nil
}

// Run computes the table.
func Run(o Options) (*Result, error) {
	dir, err := os.MkdirTemp("", "real-warthog")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	stale, err := split(o.Data, dir, o.Every)
	if err != nil {
		return nil, err
	}
	init := skidsteer.Params{Model: "skidsteer", R: wheelRadius, Track: track}
	b, _ := json.Marshal(init)
	if err := os.WriteFile(filepath.Join(dir, "warthog.json"), b, 0o644); err != nil {
		return nil, err
	}
	train, err := readWindows(filepath.Join(dir, "train.csv"))
	if err != nil {
		return nil, err
	}
	test, err := readWindows(filepath.Join(dir, "test.csv"))
	if err != nil {
		return nil, err
	}
	if len(train) == 0 || len(test) == 0 {
		return nil, fmt.Errorf("%s: %d training and %d test windows", o.Data, len(train), len(test))
	}
	res := &Result{TrainWindows: len(train), TestWindows: len(test), StalePoses: stale}
	eval := func(name string, p skidsteer.Params, f *Fit) error {
		wo := skidsteer.WindowOptions{Inputs: skidsteer.Measured}
		if p.FromCommands() {
			wo.Inputs = skidsteer.Commanded
		}
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
	nomCmd := init
	nomCmd.Inputs = skidsteer.InputsCommanded
	if err := eval("nominal, measured speeds", init, nil); err != nil {
		return nil, err
	}
	if err := eval("nominal, commanded speeds", nomCmd, nil); err != nil {
		return nil, err
	}
	// the library's 2-s window fit from measured speeds
	wf, err := skidsteer.FitWindows(train, init, skidsteer.WindowOptions{Inputs: skidsteer.Measured, WeightPsi: o.WeightPsi})
	if err != nil {
		return nil, err
	}
	lib := &Fit{Status: wf.Status, Iterations: wf.Iterations}
	for i, n := range wf.Names {
		sd := wf.Std[i]
		lib.Params = append(lib.Params, Param{Name: n, Value: wf.Value[i], Std: &sd, Held: !wf.Free[i]})
	}
	for _, c := range []struct {
		name, file string
		args       []string
	}{
		{"calibrated, measured speeds (IPEM)", "measured", nil},
		{"calibrated, measured speeds (windows)", "", nil},
		{"calibrated, commanded, no lag", "nolag", []string{"-inputs", "commanded", "-fix", "tau"}},
		{"calibrated, commanded, lag τ", "lag", []string{"-inputs", "commanded"}},
		{"calibrated, commanded, lag τ + dead time", "deadtime", []string{"-inputs", "commanded", "-dead-time"}},
	} {
		if c.file == "" {
			if err := eval(c.name, wf.Params, lib); err != nil {
				return nil, err
			}
			continue
		}
		p, f, err := identify(dir, c.file, c.args...)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.name, err)
		}
		if err := eval(c.name, p, f); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// Print writes the table, the parameters with their σ and verdicts, and
// the commands.
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
	fmt.Fprintf(w, "%-42s %21s %10.2f (measured), %.2f (commanded, lag)\n", "oracle (SciPy, issue 25)", "", 0.42, 0.61)
	for _, row := range r.Rows {
		if row.Fit == nil {
			continue
		}
		f := row.Fit
		how := "skidsteer.FitWindows (library)"
		if f.Command != "" {
			how = f.Command
		}
		fmt.Fprintf(w, "\n%s (%s): %s\n", row.Name, f.Status, how)
		for _, p := range f.Params {
			switch {
			case p.Held:
				fmt.Fprintf(w, "  %-6s %10.4f  (held)\n", p.Name, p.Value)
			case p.Std == nil:
				fmt.Fprintf(w, "  %-6s %10.4f  (σ unknown)\n", p.Name, p.Value)
			default:
				fmt.Fprintf(w, "  %-6s %10.4f ± %.4f  %s\n", p.Name, p.Value, *p.Std, p.Verdict)
			}
		}
	}
}

// Figure plots the predicted against the ICP end positions of the test
// windows, one panel per row.
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
	wpsi := flag.Float64("wpsi", 0, "weight of the heading residual (m/rad) in the library's window fit")
	out := flag.String("fig", "", "write the figure here (png, svg or pdf)")
	flag.Parse()
	o := Options{Data: *data, Every: 1, WeightPsi: *wpsi}
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
