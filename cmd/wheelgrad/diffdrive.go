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
func readDiffDriveParams(e env, path string, def diffdrive.Params) (diffdrive.Params, error) {
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
	warnParams(e, path, p.Warnings())
	return p, nil
}

// checkUniform checks that t advances by h on every row (FORMATS.md: logs
// are sampled uniformly at h) and names the first row that breaks it.
func checkUniform(tab *dataset.Table, h float64) error {
	t := tab.Col("t")
	for k := 1; k < len(t); k++ {
		if dt := t[k] - t[k-1]; math.Abs(dt-h) > 1e-3*h {
			return tab.Errorf(k, "t", "time step %g s from the previous row, but the model's h is %g s (the log must be sampled uniformly at h)", dt, h)
		}
	}
	return nil
}

func simulateDiffDrive(e env, a SimulateArgs) error {
	p, err := readDiffDriveParams(e, a.Params, diffdrive.Params{L: diffdrive.DefaultL, H: diffdrive.DefaultH})
	if err != nil {
		return err
	}
	tab, err := dataset.ReadFile(a.Controls, dataset.Spec{Time: "t", Columns: []dataset.Column{
		{Name: "t"}, {Name: "uf"}, {Name: "ul"},
		{Name: "vr", Optional: true, Sparse: true}, {Name: "vl", Optional: true, Sparse: true}}})
	if err != nil {
		return err
	}
	if err := checkUniform(tab, p.H); err != nil {
		return err
	}
	var s0 diffdrive.State
	if tab.Has("vr") != tab.Has("vl") {
		return tab.Errorf(0, "", "the initial state needs both vr and vl columns")
	}
	if tab.Has("vr") {
		vr, vl := tab.Col("vr")[0], tab.Col("vl")[0]
		if math.IsNaN(vr) != math.IsNaN(vl) {
			return tab.Errorf(0, "vr", "the first row gives one of vr, vl but not the other")
		}
		if !math.IsNaN(vr) {
			s0.SdR, s0.SdL = vr, vl
		}
	}
	tr, err := p.Simulate(s0, tab.Col("uf"), tab.Col("ul"))
	if err != nil {
		return err
	}
	t := tab.Col("t")
	return e.writeOut(a.Out, func(w io.Writer) error {
		return dataset.WriteCSV(w, []string{"t", "vr", "vl", "v", "w"}, [][]float64{t, tr.VR, tr.VL, tr.V, tr.W})
	})
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
		if init, err = readDiffDriveParams(e, a.Init, init); err != nil {
			return err
		}
	}
	tab, err := dataset.ReadFile(a.Data[0], dataset.Spec{Time: "t", Columns: []dataset.Column{
		{Name: "t"}, {Name: "uf"}, {Name: "ul"}, {Name: "vr"}, {Name: "vl"}}})
	if err != nil {
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
