package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/figure"
	"github.com/wheelgrad/wheelgrad/models/diffdrive"
	"github.com/wheelgrad/wheelgrad/models/diffdrive/calibrate"
	"github.com/wheelgrad/wheelgrad/opt"
)

// The differential-drive model of Park, Lee, Kuipers (FORMATS.md, model
// diffdrive): simulate rolls out the exact model, identify calibrates ζ as in
// their §III-A.

func init() {
	simulateHandlers["diffdrive"] = simulateDiffDrive
	identifyHandlers["diffdrive"] = identifyDiffDrive
	identifyExtraFlags = append(identifyExtraFlags, extraFlag{name: "cw", def: "1",
		usage: "diffdrive: weight c_ω of the angular-velocity error in the L1 loss (Park et al. eq. 22)", model: "diffdrive"})
}

// readDiffDriveParams reads a parameter file; keys it lacks keep the values
// of def (l and h default to 0.55 and 0.06).
func readDiffDriveParams(path string, def diffdrive.Params) (diffdrive.Params, error) {
	p := def
	if err := dataset.ReadJSONFile(path, &p, true); err != nil {
		return p, err
	}
	if p.Model != "diffdrive" {
		return p, fmt.Errorf("%s: key \"model\": %q, want \"diffdrive\"", path, p.Model)
	}
	if err := p.Validate(); err != nil {
		return p, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// checkUniform checks that t advances by h on every row (FORMATS.md: logs
// are sampled uniformly at h) and names the first row that breaks it.
func checkUniform(tab *dataset.Table, h float64) error {
	t := tab.Col("t")
	ids := tab.TextCol("traj")
	for k := 1; k < len(t); k++ {
		if ids != nil && ids[k] != ids[k-1] {
			continue // a new run
		}
		if dt := t[k] - t[k-1]; math.Abs(dt-h) > 1e-3*h {
			return tab.Errorf(k, "t", "time step %g s from the previous row, but the model's h is %g s (the log must be sampled uniformly at h)", dt, h)
		}
	}
	return nil
}

func simulateDiffDrive(e env, a SimulateArgs) error {
	p, err := readDiffDriveParams(a.Params, diffdrive.Params{L: diffdrive.DefaultL, H: diffdrive.DefaultH})
	if err != nil {
		return err
	}
	tab, err := readLog(e, a.source(), dataset.Spec{Time: "t", Group: "traj", Columns: []dataset.Column{
		{Name: "t"}, {Name: "uf"}, {Name: "ul"},
		{Name: "vr", Optional: true, Sparse: true}, {Name: "vl", Optional: true, Sparse: true},
		{Name: "traj", Optional: true, Text: true}}}, []string{"uf", "ul"}, nil, nil)
	if err != nil {
		return err
	}
	if tab, err = diffDriveGrid(tab, false); err != nil {
		return err
	}
	if err := checkUniform(tab, p.H); err != nil {
		return err
	}
	if tab.Has("vr") != tab.Has("vl") {
		return tab.Errorf(0, "", "the initial state needs both vr and vl columns")
	}
	t := tab.Col("t")
	ids := tab.TextCol("traj")
	var cols [6][]float64
	for _, rr := range diffDriveRuns(tab) {
		a, b := rr[0], rr[1]
		// each run starts at rest, or from the wheel speeds of its first row
		var s0 diffdrive.State
		if tab.Has("vr") {
			vr, vl := tab.Col("vr")[a], tab.Col("vl")[a]
			if math.IsNaN(vr) != math.IsNaN(vl) {
				return tab.Errorf(a, "vr", "the first row gives one of vr, vl but not the other")
			}
			if !math.IsNaN(vr) {
				s0.SdR, s0.SdL = vr, vl
			}
		}
		tr, err := p.Simulate(s0, tab.Col("uf")[a:b], tab.Col("ul")[a:b])
		if err != nil {
			return err
		}
		for i, c := range [][]float64{t[a:b], tr.VR, tr.VL, tr.V, tr.W} {
			cols[i] = append(cols[i], c...)
		}
	}
	return e.writeOut(a.Out, func(w io.Writer) error {
		if ids == nil {
			return dataset.WriteCSV(w, []string{"t", "vr", "vl", "v", "w"}, cols[:5])
		}
		cw := dataset.NewWriter(w)
		cw.WriteHeader("t", "vr", "vl", "v", "w", "traj")
		for i := range cols[0] {
			cw.WriteRow(dataset.Num(cols[0][i]), dataset.Num(cols[1][i]), dataset.Num(cols[2][i]), dataset.Num(cols[3][i]), dataset.Num(cols[4][i]), dataset.Text(ids[i]))
		}
		return cw.Flush()
	})
}

// diffDriveRuns returns the [first, end) rows of each run (traj), or one.
func diffDriveRuns(tab *dataset.Table) [][2]int {
	ids := tab.TextCol("traj")
	n := tab.Len()
	var out [][2]int
	for i := 0; i < n; {
		j := i + 1
		for ids != nil && j < n && ids[j] == ids[i] {
			j++
		}
		if ids == nil {
			j = n
		}
		out = append(out, [2]int{i, j})
		i = j
	}
	return out
}

func identifyDiffDrive(e env, a IdentifyArgs) error {
	cw, err := strconv.ParseFloat(a.Extra["cw"], 64)
	if err != nil || !(cw >= 0) || math.IsInf(cw, 0) {
		return usagef("-cw %q: want a finite number ≥ 0", a.Extra["cw"])
	}
	if len(a.Data) != 1 {
		return usagef("-model diffdrive calibrates from one -data log, got %d", len(a.Data))
	}
	init := diffdrive.Paper()
	if a.Init != "" {
		if init, err = readDiffDriveParams(a.Init, init); err != nil {
			return err
		}
	}
	offset, err := a.fixedOffset("diffdrive")
	if err != nil {
		return err
	}
	tab, err := readLog(e, a.sources(offset)[0], dataset.Spec{Time: "t", Group: "traj", Columns: []dataset.Column{
		{Name: "t"}, {Name: "uf"}, {Name: "ul"}, {Name: "vr", Sparse: true}, {Name: "vl", Sparse: true},
		{Name: "traj", Optional: true, Text: true}}}, []string{"uf", "ul"}, nil, nil)
	if err != nil {
		return err
	}
	if tab, err = diffDriveGrid(tab, true); err != nil {
		return err
	}
	if err := checkUniform(tab, init.H); err != nil {
		return err
	}
	o := calibrate.Options{CW: cw, Progress: func(stage int, it opt.Iteration) {
		a.Prog.printf("diffdrive: iteration %d, loss %.6g, %v", it.Iter, it.F, it.Elapsed.Round(1e6))
	}}
	switch a.Method {
	case "", "lbfgsb":
	case "neldermead":
		o.Method = opt.NelderMead{}
	case "cmaes":
		o.Method = opt.CMAES{Seed: 1}
	default:
		return usagef("unknown -method %q for diffdrive", a.Method)
	}
	lg := calibrate.Log{UF: tab.Col("uf"), UL: tab.Col("ul"), VR: tab.Col("vr"), VL: tab.Col("vl")}
	if tab.Has("traj") {
		for _, r := range diffDriveRuns(tab) {
			lg.Runs = append(lg.Runs, r[0])
		}
	}
	if len(lg.UF) < 53 {
		return tab.Errorf(len(lg.UF)-1, "", "%d rows: calibration needs at least 53 (one segment of 50 steps)", len(lg.UF))
	}
	res, err := calibrate.Calibrate(lg, init, o)
	a.Prog.done()
	if err != nil {
		return fmt.Errorf("%s: %w", a.Data[0], err)
	}
	if a.Verbose {
		fmt.Fprintf(e.stderr, "diffdrive: %d segments of 50 steps (stride %d), %d iterations, %d evaluations, mean |error| %.4g, %v\n",
			res.Segments, res.Stride, res.Iterations, res.Evaluations, res.MeanAbs, res.Runtime.Round(1e6))
	}
	if a.Plot != "" {
		tr, err := res.Params.Simulate(diffdrive.State{SdR: lg.VR[0], SdL: lg.VL[0]}, lg.UF, lg.UL)
		if err != nil {
			return err
		}
		v := make([]float64, len(lg.VR))
		for i := range v {
			v[i] = (lg.VR[i] + lg.VL[i]) / 2
		}
		err = figure.XY(a.Plot, "diffdrive: measured and predicted v (simulated from t = 0)", "t (s)", "v (m/s)", false, []figure.Series{
			{Name: "measured", X: tab.Col("t"), Y: v},
			{Name: "model", X: tab.Col("t"), Y: tr.V},
		})
		if err != nil {
			return err
		}
	}
	js, err := json.MarshalIndent(res.Params, "", "  ")
	if err != nil {
		return err
	}
	return e.writeOut(a.Out, func(w io.Writer) error {
		_, err := w.Write(append(js, '\n'))
		return err
	})
}

// diffDriveGrid turns an asynchronous diffdrive log (wheel-speed samples on
// rows of their own, or from -poses) into the model's uniform grid: the rows
// that carry commands, with vr, vl interpolated linearly in time between the
// nearest samples; grid rows outside the samples' time span are dropped. A
// log without sensor-only rows is returned as it is, where need (identify)
// asks for vr, vl on every row.
func diffDriveGrid(tab *dataset.Table, need bool) (*dataset.Table, error) {
	vr, vl := tab.Col("vr"), tab.Col("vl")
	if !tab.AnyHeld() {
		if need {
			for i := range vr {
				for _, c := range []struct {
					n string
					v []float64
				}{{"vr", vr}, {"vl", vl}} {
					if math.IsNaN(c.v[i]) {
						return nil, tab.Errorf(i, c.n, "empty cell: the wheel speeds are needed on every row of a synchronous log (or put them on rows of their own, without commands)")
					}
				}
			}
		}
		return tab, nil
	}
	if vr == nil || vl == nil {
		return tab, nil
	}
	t := tab.Col("t")
	keep := make([]bool, len(t))
	nr, nl := make([]float64, len(t)), make([]float64, len(t))
	for _, rr := range diffDriveRuns(tab) {
		var st []int // sample rows of the run
		for i := rr[0]; i < rr[1]; i++ {
			if math.IsNaN(vr[i]) != math.IsNaN(vl[i]) {
				c := "vr"
				if math.IsNaN(vl[i]) {
					c = "vl"
				}
				return nil, tab.Errorf(i, c, "empty cell: vr and vl go together")
			}
			if !math.IsNaN(vr[i]) {
				st = append(st, i)
			}
		}
		if len(st) < 2 {
			return nil, tab.Errorf(rr[0], "vr", "%d wheel-speed samples in the run: at least 2 are needed to interpolate them onto the command rows", len(st))
		}
		k := 0
		for i := rr[0]; i < rr[1]; i++ {
			if tab.Held(i) || t[i] < t[st[0]] || t[i] > t[st[len(st)-1]] {
				continue
			}
			for k+1 < len(st)-1 && t[st[k+1]] <= t[i] {
				k++
			}
			a, b := st[k], st[k+1]
			w := (t[i] - t[a]) / (t[b] - t[a])
			nr[i], nl[i] = vr[a]+w*(vr[b]-vr[a]), vl[a]+w*(vl[b]-vl[a])
			keep[i] = true
		}
	}
	return tab.Select(keep, map[string][]float64{"vr": nr, "vl": nl}), nil
}
