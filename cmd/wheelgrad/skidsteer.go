package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/figure"
	"github.com/wheelgrad/wheelgrad/models/skidsteer"
	"github.com/wheelgrad/wheelgrad/opt"
)

// Model skidsteer (FORMATS.md): slip-enhanced kinematics of Ordonez et al.,
// calibrated online by IPEM (the default, -method ekf) or in batch by
// L-BFGS over all intervals (-method batch, alias lbfgsb; neldermead and
// cmaes minimise the same batch objective).
func init() {
	simulateHandlers["skidsteer"] = simulateSkidsteer
	identifyHandlers["skidsteer"] = identifySkidsteer
	identifyMethods["skidsteer"] = []string{"ekf", "batch"}
}

var skidsteerSpec = dataset.Spec{
	Columns: []dataset.Column{
		{Name: "t"}, {Name: "vc"}, {Name: "wc"},
		{Name: "x", Optional: true, Sparse: true},
		{Name: "y", Optional: true, Sparse: true},
		{Name: "psi", Optional: true, Sparse: true},
	},
	Time: "t",
}

// readSkidsteerLog reads and checks a log or controls CSV.
func readSkidsteerLog(path string) (*skidsteer.Log, *dataset.Table, error) {
	tab, err := dataset.ReadFile(path, skidsteerSpec)
	if err != nil {
		return nil, nil, err
	}
	has := []bool{tab.Has("x"), tab.Has("y"), tab.Has("psi")}
	if has[0] || has[1] || has[2] {
		for i, c := range []string{"x", "y", "psi"} {
			if !has[i] {
				return nil, nil, &dataset.ParseError{File: path, Line: tab.Line[0] - 1, Column: c,
					Err: fmt.Errorf("%w (x, y and psi go together)", dataset.ErrMissingColumn)}
			}
		}
	}
	l, err := skidsteer.NewLog(tab.Col("t"), tab.Col("vc"), tab.Col("wc"), tab.Col("x"), tab.Col("y"), tab.Col("psi"))
	if err != nil {
		return nil, nil, rowError(tab, err)
	}
	return l, tab, nil
}

// rowError names the file, line and column of a model's row error.
func rowError(tab *dataset.Table, err error) error {
	var re *skidsteer.RowError
	if errors.As(err, &re) {
		return tab.Errorf(re.Row, re.Column, "%s", re.Msg)
	}
	return fmt.Errorf("%s: %w", tab.File, err)
}

func readSkidsteerParams(e env, path string) (skidsteer.Params, error) {
	var p skidsteer.Params
	if err := dataset.ReadJSONFile(path, &p, true); err != nil {
		return p, err
	}
	if err := p.Validate(); err != nil {
		return p, fmt.Errorf("%s: %w", path, err)
	}
	warnParams(e, path, p.Warnings())
	return p, nil
}

func simulateSkidsteer(e env, a SimulateArgs) error {
	p, err := readSkidsteerParams(e, a.Params)
	if err != nil {
		return err
	}
	l, _, err := readSkidsteerLog(a.Controls)
	if err != nil {
		return err
	}
	var pose0 skidsteer.Pose
	if rows := l.PoseRows(); len(rows) > 0 {
		pose0 = l.Pose[rows[0]]
	}
	traj, err := skidsteer.Simulate(p, pose0, l.T, l.Vc, l.Wc)
	if err != nil {
		return err
	}
	write := func(w io.Writer) error {
		cw := dataset.NewWriter(w)
		cw.WriteHeader("t", "x", "y", "psi")
		for i, q := range traj {
			cw.WriteFloats(l.T[i], q.X, q.Y, q.Psi)
		}
		return cw.Flush()
	}
	return e.writeOut(a.Out, write)
}

func identifySkidsteer(e env, a IdentifyArgs) error {
	cfg := skidsteer.IPEMConfig{}
	if a.Init != "" {
		p, err := readSkidsteerParams(e, a.Init)
		if err != nil {
			return err
		}
		cfg.A0 = p.Coeffs()
	}
	var logs []*skidsteer.Log
	var ivs []*skidsteer.Intervals
	for _, path := range a.Data {
		l, tab, err := readSkidsteerLog(path)
		if err != nil {
			return err
		}
		iv, err := l.Intervals(1, 400)
		if err != nil {
			return rowError(tab, err)
		}
		logs, ivs = append(logs, l), append(ivs, iv)
	}
	iv := skidsteer.MergeIntervals(ivs...)
	method := a.Method
	if method == "" {
		method = "ekf"
	}
	start := time.Now()
	var cal *skidsteer.Calibration
	var note string
	switch method {
	case "ekf":
		var err error
		cal, _, err = skidsteer.CalibrateIntervals(iv, cfg, func(k int, f *skidsteer.IPEM) {
			if k%200 == 0 {
				a.Prog.printf("IPEM update %d/%d: a32 = %.4f", k+1, len(iv.Z), f.A[7])
			}
		})
		a.Prog.done()
		if err != nil {
			return err
		}
		note = fmt.Sprintf("online EKF (IPEM), %d updates", len(iv.Z))
	default:
		b, err := skidsteer.NewBatchIntervals(iv, cfg, 0)
		if err != nil {
			return err
		}
		var m opt.Method = opt.LBFGSB{}
		switch method {
		case "neldermead":
			m = opt.NelderMead{}
		case "cmaes":
			m = opt.CMAES{Seed: 1}
		}
		x0 := cfg.A0
		if x0 == nil {
			x0 = make([]float64, skidsteer.NumCoeffs)
		}
		res, err := m.Minimize(opt.Problem{Objective: b.Eval}, x0, opt.Settings{Callback: func(it opt.Iteration) bool {
			a.Prog.printf("%s iteration %d: loss %.6g", method, it.Iter, it.F)
			return true
		}})
		a.Prog.done()
		if err != nil {
			return err
		}
		if cal, err = b.Covariance(res.X); err != nil {
			return err
		}
		note = fmt.Sprintf("batch %s over %d intervals: %d iterations, %s", method, len(iv.Z), res.Iterations, res.Status)
	}
	elapsed := time.Since(start)
	out := cal.Params()
	if err := dataset.WriteJSONFile(a.Out, out); err != nil {
		return err
	}
	if a.Out != "-" && !a.Quiet {
		fmt.Fprintf(e.stdout, "skidsteer: %s, %s\n", note, elapsed.Round(time.Millisecond))
		sd := cal.Std()
		for k, name := range skidsteer.CoeffNames {
			fmt.Fprintf(e.stdout, "  %s = %9.5f ± %.5f\n", name, cal.A[k], sd[k])
		}
		var nom, calib []skidsteer.TrackError
		for _, l := range logs {
			nom = append(nom, skidsteer.PredictionErrors(l, make([]float64, 9), 2, 1)...)
			calib = append(calib, skidsteer.PredictionErrors(l, cal.A, 2, 1)...)
		}
		fmt.Fprintf(e.stdout, "  2-s prediction error (RMS): nominal %.4f m, calibrated %.4f m\n", skidsteer.RMS(nom), skidsteer.RMS(calib))
	}
	if a.Plot != "" {
		var nom, calib []skidsteer.TrackError
		for _, l := range logs {
			nom = append(nom, skidsteer.PredictionErrors(l, make([]float64, 9), 2, 1)...)
			calib = append(calib, skidsteer.PredictionErrors(l, cal.A, 2, 1)...)
		}
		if err := plotTrackErrors(a.Plot, "skidsteer: 2-s prediction errors", nom, calib); err != nil {
			return err
		}
	}
	return nil
}

// plotTrackErrors draws along-track vs cross-track errors of nominal and
// calibrated predictions with their 3σ ellipses (Ordonez et al. Figs. 12–14).
func plotTrackErrors(path, title string, nom, calib []skidsteer.TrackError) error {
	cloud := func(name string, e []skidsteer.TrackError, dashed bool) figure.Cloud {
		x, y, ex, ey := skidsteer.ErrorCloud(e, 3)
		return figure.Cloud{Name: name, X: x, Y: y, CurveX: ex, CurveY: ey, Dashed: dashed}
	}
	return figure.Clouds(path, title, "along-track error (m)", "cross-track error (m)",
		[]figure.Cloud{cloud("nominal", nom, true), cloud("calibrated", calib, false)})
}
