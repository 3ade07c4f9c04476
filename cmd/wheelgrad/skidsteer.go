package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
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

// skidsteerSpec is the log of FORMATS.md with the additions of the README:
// a traj column splitting runs, and the wheel-speed form wl, wr (rad/s)
// instead of vc, wc.
func skidsteerSpec(wheels bool) (dataset.Spec, []string) {
	cmds := []string{"vc", "wc"}
	if wheels {
		cmds = []string{"wl", "wr"}
	}
	return dataset.Spec{
		Columns: []dataset.Column{
			{Name: "t"}, {Name: cmds[0]}, {Name: cmds[1]},
			{Name: "x", Optional: true, Sparse: true},
			{Name: "y", Optional: true, Sparse: true},
			{Name: "psi", Optional: true, Sparse: true},
			{Name: "traj", Optional: true, Text: true},
		},
		Time:  "t",
		Group: "traj",
	}, cmds
}

// skidRun is one run of a skid-steer log with where it came from.
type skidRun struct {
	*skidsteer.Log
	tab *dataset.Table
	row int    // first row in tab
	id  string // traj value, "" without
}

// wheelForm reports whether a log gives wheel speeds wl, wr rather than vc, wc.
func wheelForm(path string) (bool, error) {
	h, err := dataset.ReadHeader(path)
	if err != nil {
		return false, err
	}
	return !slices.Contains(h, "vc") && slices.Contains(h, "wl"), nil
}

// readSkidsteerLog reads and checks a log or controls CSV, split into runs
// by traj. p gives the command map and, for a wheel-speed log, r and track.
func readSkidsteerLog(e env, src logSource, p skidsteer.Params, params string) ([]skidRun, error) {
	wheels, err := wheelForm(src.Path)
	if err != nil {
		return nil, err
	}
	if p.CommandMap != nil {
		wheels = false // the map gives vc, wc
	}
	if wheels && !(p.R > 0 && p.Track > 0) {
		if params == "" {
			return nil, fmt.Errorf("%s: the log gives wheel speeds wl, wr: give the wheel radius r and track width track in a parameter file", src.Path)
		}
		return nil, fmt.Errorf("%s: the log %s gives wheel speeds wl, wr: the parameters need r (wheel radius) and track (track width)", params, src.Path)
	}
	spec, cmds := skidsteerSpec(wheels)
	tab, err := readLog(e, src, spec, cmds, []string{"psi"}, p.CommandMap)
	if err != nil {
		return nil, err
	}
	has := []bool{tab.Has("x"), tab.Has("y"), tab.Has("psi")}
	if has[0] || has[1] || has[2] {
		for i, c := range []string{"x", "y", "psi"} {
			if !has[i] {
				return nil, &dataset.ParseError{File: src.Path, Line: tab.Line[0] - 1, Column: c,
					Err: fmt.Errorf("%w (x, y and psi go together)", dataset.ErrMissingColumn)}
			}
		}
	}
	vc, wc := tab.Col(cmds[0]), tab.Col(cmds[1])
	if wheels {
		wl, wr := vc, wc
		vc, wc = make([]float64, len(wl)), make([]float64, len(wl))
		for i := range wl {
			vc[i] = p.R * (wl[i] + wr[i]) / 2
			wc[i] = p.R * (wr[i] - wl[i]) / p.Track
		}
	}
	ids := tab.TextCol("traj")
	var runs []skidRun
	n := tab.Len()
	for i := 0; i < n; {
		j := i + 1
		for ids != nil && j < n && ids[j] == ids[i] {
			j++
		}
		if ids == nil {
			j = n
		}
		cut := func(c []float64) []float64 {
			if c == nil {
				return nil
			}
			return c[i:j]
		}
		l, err := skidsteer.NewLog(tab.Col("t")[i:j], vc[i:j], wc[i:j], cut(tab.Col("x")), cut(tab.Col("y")), cut(tab.Col("psi")))
		r := skidRun{Log: l, tab: tab, row: i}
		if ids != nil {
			r.id = ids[i]
		}
		if err != nil {
			return nil, r.rowError(err)
		}
		runs = append(runs, r)
		i = j
	}
	return runs, nil
}

// rowError names the file, line and column of a run's row error.
func (r skidRun) rowError(err error) error {
	var re *skidsteer.RowError
	if errors.As(err, &re) {
		col := re.Column
		return r.tab.Errorf(r.row+re.Row, col, "%s", re.Msg)
	}
	return fmt.Errorf("%s: %w", r.tab.File, err)
}

func readSkidsteerParams(path string) (skidsteer.Params, error) {
	var p skidsteer.Params
	if err := dataset.ReadJSONFile(path, &p, true); err != nil {
		return p, err
	}
	if err := p.Validate(); err != nil {
		return p, fmt.Errorf("%s: %w", path, err)
	}
	if p.CommandMap != nil {
		if err := p.CommandMap.Check([]string{"vc", "wc"}); err != nil {
			return p, mapError(path, err)
		}
	}
	return p, nil
}

func simulateSkidsteer(e env, a SimulateArgs) error {
	p, err := readSkidsteerParams(a.Params)
	if err != nil {
		return err
	}
	runs, err := readSkidsteerLog(e, a.source(), p, a.Params)
	if err != nil {
		return err
	}
	// each run starts from its own first pose (or zero)
	trajs := make([][]skidsteer.Pose, len(runs))
	for i, r := range runs {
		// anchored at the run's first pose, at that pose's row: later rows
		// by the Euler steps, earlier ones by the same steps undone
		var pose0 skidsteer.Pose
		k0 := 0
		if rows := r.PoseRows(); len(rows) > 0 {
			k0 = rows[0]
			pose0 = r.Pose[k0]
		}
		tail, err := skidsteer.Simulate(p, pose0, r.T[k0:], r.Vc[k0:], r.Wc[k0:])
		if err != nil {
			return r.rowError(err)
		}
		tr := make([]skidsteer.Pose, len(r.T))
		copy(tr[k0:], tail)
		a := p.Coeffs()
		for k := k0 - 1; k >= 0; k-- {
			fwd, lat, yaw := skidsteer.Velocity(a, r.Vc[k], r.Wc[k])
			dt := r.T[k+1] - r.T[k]
			psi := tr[k+1].Psi - dt*yaw
			sn, cs := math.Sincos(psi)
			tr[k] = skidsteer.Pose{X: tr[k+1].X - dt*(cs*fwd-sn*lat), Y: tr[k+1].Y - dt*(sn*fwd+cs*lat), Psi: psi}
		}
		trajs[i] = tr
	}
	hasTraj := runs[0].tab.Has("traj")
	write := func(w io.Writer) error {
		cw := dataset.NewWriter(w)
		head := []string{"t", "x", "y", "psi"}
		if hasTraj {
			head = append(head, "traj")
		}
		cw.WriteHeader(head...)
		for i, r := range runs {
			for k, q := range trajs[i] {
				row := []dataset.Cell{dataset.Num(r.T[k]), dataset.Num(q.X), dataset.Num(q.Y), dataset.Num(q.Psi)}
				if hasTraj {
					row = append(row, dataset.Text(r.id))
				}
				cw.WriteRow(row...)
			}
		}
		return cw.Flush()
	}
	return e.writeOut(a.Out, write)
}

func identifySkidsteer(e env, a IdentifyArgs) error {
	cfg := skidsteer.IPEMConfig{}
	var init skidsteer.Params
	if a.Init != "" {
		var err error
		if init, err = readSkidsteerParams(a.Init); err != nil {
			return err
		}
		cfg.A0 = init.Coeffs()
	}
	offset, err := a.fixedOffset("skidsteer")
	if err != nil {
		return err
	}
	var logs []*skidsteer.Log
	var ivs []*skidsteer.Intervals
	for _, src := range a.sources(offset) {
		runs, err := readSkidsteerLog(e, src, init, a.Init)
		if err != nil {
			return err
		}
		for _, r := range runs {
			iv, err := r.Intervals(1, 400)
			if err != nil {
				return r.rowError(err)
			}
			logs, ivs = append(logs, r.Log), append(ivs, iv)
		}
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
	out.R, out.Track, out.CommandMap = init.R, init.Track, init.CommandMap
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
