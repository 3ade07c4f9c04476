package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/figure"
	"github.com/wheelgrad/wheelgrad/models/tire"
)

// Model tire (FORMATS.md): the Jackal rigid body with Dugoff or Pacejka
// tyres of Westerhout et al. identify fits μ, Kx, Ky (dugoff) or px, py
// (pacejka) to the logs' motion-capture poses by L-BFGS-B; -online -batch S
// re-estimates μ alone over S-second batches (§III-C).
func init() {
	modelNames = append(modelNames, "tire")
	simulateHandlers["tire"] = simulateTire
	identifyHandlers["tire"] = identifyTire
	identifyExtraFlags = append(identifyExtraFlags,
		extraFlag{"online", "false", "tire: re-estimate μ alone over successive batches of each log (the others from -init)", "tire"},
		extraFlag{"batch", "2", "tire: batch length in seconds for -online", "tire"})
}

func tireSpec() dataset.Spec {
	cols := []dataset.Column{{Name: "t"}, {Name: "wl"}, {Name: "wr"}}
	for _, c := range []string{"x", "y", "psi", "u", "v", "r"} {
		cols = append(cols, dataset.Column{Name: c, Optional: true, Sparse: true})
	}
	cols = append(cols, dataset.Column{Name: "traj", Optional: true, Text: true})
	return dataset.Spec{Columns: cols, Time: "t", Group: "traj"}
}

// tireRun is a run with where it came from, for positioned errors.
type tireRun struct {
	*tire.Run
	tab *dataset.Table
	row int // first row in tab
	id  string
}

func readTireLog(path string) ([]tireRun, *dataset.Table, error) {
	tab, err := dataset.ReadFile(path, tireSpec())
	if err != nil {
		return nil, nil, err
	}
	for _, group := range [][]string{{"x", "y", "psi"}, {"u", "v", "r"}} {
		n := 0
		for _, c := range group {
			if tab.Has(c) {
				n++
			}
		}
		if n > 0 && n < 3 {
			for _, c := range group {
				if !tab.Has(c) {
					return nil, nil, tab.Errorf(0, c, "missing column %q (%s go together)", c, strings.Join(group, ", "))
				}
			}
		}
	}
	ids := tab.TextCol("traj")
	var runs []tireRun
	for i := 0; i < tab.Len(); {
		j := i + 1
		for ids != nil && j < tab.Len() && ids[j] == ids[i] {
			j++
		}
		if ids == nil {
			j = tab.Len()
		}
		cut := func(c string) []float64 {
			if !tab.Has(c) {
				return nil
			}
			return tab.Col(c)[i:j]
		}
		r := &tire.Run{T: cut("t"), WL: cut("wl"), WR: cut("wr"), X: cut("x"), Y: cut("y"), Psi: cut("psi"), U: cut("u"), V: cut("v"), R: cut("r")}
		for k := i; k < j; k++ {
			for _, group := range [][]string{{"x", "y", "psi"}, {"u", "v", "r"}} {
				if !tab.Has(group[0]) {
					continue
				}
				nan := 0
				for _, c := range group {
					if math.IsNaN(tab.Col(c)[k]) {
						nan++
					}
				}
				if nan > 0 && nan < 3 {
					for _, c := range group {
						if math.IsNaN(tab.Col(c)[k]) {
							return nil, nil, tab.Errorf(k, c, "empty cell: %s go together on a row", strings.Join(group, ", "))
						}
					}
				}
			}
		}
		tr := tireRun{Run: r, tab: tab, row: i}
		if ids != nil {
			tr.id = ids[i]
		}
		runs = append(runs, tr)
		i = j
	}
	return runs, tab, nil
}

// tireRowError names the file, line and column of a run's row error.
func tireRowError(r tireRun, err error) error {
	var re *tire.RowError
	if errors.As(err, &re) {
		return r.tab.Errorf(r.row+re.Row, re.Column, "%s", re.Msg)
	}
	return fmt.Errorf("%s: %w", r.tab.File, err)
}

func readTireParams(e env, path string) (tire.Params, error) {
	p := tire.Jackal()
	if path == "" {
		return p, nil
	}
	if err := dataset.ReadJSONFile(path, &p, true); err != nil {
		return p, err
	}
	if err := p.Validate(); err != nil {
		return p, fmt.Errorf("%s: %w", path, err)
	}
	warnParams(e, path, p.Warnings())
	return p, nil
}

func simulateTire(e env, a SimulateArgs) error {
	p, err := readTireParams(e, a.Params)
	if err != nil {
		return err
	}
	runs, tab, err := readTireLog(a.Controls)
	if err != nil {
		return err
	}
	hasTraj := tab.Has("traj")
	var states [][][6]float64
	for _, r := range runs {
		s, err := tire.Simulate(p, r.Run)
		if err != nil {
			return tireRowError(r, err)
		}
		states = append(states, s)
	}
	return e.writeOut(a.Out, func(w io.Writer) error {
		cw := dataset.NewWriter(w)
		head := []string{"t", "x", "y", "psi", "u", "v", "r"}
		if hasTraj {
			head = append(head, "traj")
		}
		if err := cw.WriteHeader(head...); err != nil {
			return err
		}
		for i, r := range runs {
			for k, s := range states[i] {
				row := []dataset.Cell{dataset.Num(r.T[k])}
				for _, v := range s {
					row = append(row, dataset.Num(v))
				}
				if hasTraj {
					row = append(row, dataset.Text(r.id))
				}
				if err := cw.WriteRow(row...); err != nil {
					return err
				}
			}
		}
		return cw.Flush()
	})
}

func identifyTire(e env, a IdentifyArgs) error {
	if a.Method != "" && a.Method != "lbfgsb" {
		return usagef("-model tire identifies with lbfgsb only (got -method %s)", a.Method)
	}
	p, err := readTireParams(e, a.Init)
	if err != nil {
		return err
	}
	online, err := strconv.ParseBool(a.Extra["online"])
	if err != nil {
		return usagef("-online %q: want true or false", a.Extra["online"])
	}
	batch, err := strconv.ParseFloat(a.Extra["batch"], 64)
	if err != nil || !(batch > 0) || math.IsInf(batch, 0) {
		return usagef("-batch %q: want a finite number of seconds > 0", a.Extra["batch"])
	}
	var runs []tireRun
	for _, path := range a.Data {
		rs, _, err := readTireLog(path)
		if err != nil {
			return err
		}
		runs = append(runs, rs...)
	}
	if online {
		return onlineTire(e, a, p, runs, batch)
	}
	var plain []*tire.Run
	for _, r := range runs {
		plain = append(plain, r.Run)
	}
	res, err := tire.Identify(p, plain, tire.IdentifyOptions{})
	if err != nil {
		var re *tire.RowError
		if errors.As(err, &re) {
			for _, r := range runs { // name the first run whose plan fails
				if _, perr := tire.Simulate(p, r.Run); perr != nil {
					return tireRowError(r, perr)
				}
			}
		}
		if errors.Is(err, tire.ErrTooLarge) {
			return fmt.Errorf("%s: %w", strings.Join(a.Data, ","), err)
		}
		return err
	}
	if err := dataset.WriteJSONFile(a.Out, res.Params); err != nil {
		return err
	}
	if !a.Quiet {
		w := e.stdout
		if a.Out == "-" {
			w = e.stderr
		}
		fmt.Fprintf(w, "tire (%s): %d runs, %d pose samples, L-BFGS-B %d iterations (%s), %v\n", p.Tyre, len(runs), res.Samples,
			res.Opt.Iterations, res.Opt.Status, res.Runtime.Round(time.Millisecond))
		for k, n := range res.Free {
			det := "determined"
			if math.IsNaN(res.Std[k]) || res.Std[k] > 0.5*math.Abs(res.Value[k]) {
				det = "NOT determined by these logs"
			}
			fmt.Fprintf(w, "  %-4s = %10.5g ± %.3g  (%s)\n", n, res.Value[k], res.Std[k], det)
		}
		fmt.Fprintf(w, "  position RMS over the pose samples: %.2f mm (± are Gauss-Newton σ: they ignore noise in the wheel speeds)\n", 1e3*res.PoseRMS)
		for _, warn := range res.Warnings {
			fmt.Fprintf(e.stderr, "warning: %s\n", warn)
		}
	}
	if a.Plot != "" {
		return plotTirePaths(a.Plot, res.Params, runs)
	}
	return nil
}

func onlineTire(e env, a IdentifyArgs, p tire.Params, runs []tireRun, batch float64) error {
	var xs, mus []float64
	var last tire.Params = p
	w := e.stdout
	if a.Out == "-" {
		w = e.stderr
	}
	var worst time.Duration
	var total time.Duration
	n := 0
	for ri, r := range runs {
		bs, err := tire.Online(p, r.Run, batch, func(b tire.Batch) {
			a.Prog.printf("run %d: batch at %.1f s: μ = %.4f", ri+1, b.Start, b.Mu)
		})
		a.Prog.done()
		if err != nil {
			return tireRowError(r, err)
		}
		for _, b := range bs {
			if !a.Quiet {
				fmt.Fprintf(w, "run %d  t = %7.2f–%7.2f s  μ = %.4f  position RMS %.2f mm  (%d samples, %v)\n", ri+1, b.Start, b.End, b.Mu, 1e3*b.PoseRMS, b.Samples, b.Elapsed.Round(time.Microsecond))
			}
			xs, mus = append(xs, b.End), append(mus, b.Mu)
			worst = max(worst, b.Elapsed)
			total += b.Elapsed
			n++
			last.Mu = b.Mu
		}
	}
	if !a.Quiet && n > 0 {
		fmt.Fprintf(w, "%d batches of %g s: %.1f ms per batch on average, %.1f ms at most\n", n, batch, float64(total.Microseconds())/float64(n)/1e3, float64(worst.Microseconds())/1e3)
	}
	if err := dataset.WriteJSONFile(a.Out, last); err != nil {
		return err
	}
	if a.Plot != "" {
		return figure.XY(a.Plot, fmt.Sprintf("tire: μ online over %g-s batches", batch), "time (s)", "μ", false,
			[]figure.Series{{Name: "μ per batch", X: xs, Y: mus, Points: true}, {X: xs, Y: mus}})
	}
	return nil
}

// plotTirePaths draws the measured poses and the identified model's paths.
func plotTirePaths(path string, p tire.Params, runs []tireRun) error {
	var ss []figure.Series
	for i, r := range runs {
		st, err := tire.Simulate(p, r.Run)
		if err != nil {
			return tireRowError(r, err)
		}
		var mx, my, px, py []float64
		for k := range r.T {
			if r.X != nil && !math.IsNaN(r.X[k]) {
				mx, my = append(mx, r.X[k]), append(my, r.Y[k])
			}
			px, py = append(px, st[k][0]), append(py, st[k][1])
		}
		name, pname := "", ""
		if i == 0 {
			name, pname = "measured", "identified model"
		}
		ss = append(ss, figure.Series{Name: name, X: mx, Y: my, Points: true}, figure.Series{Name: pname, X: px, Y: py})
	}
	return figure.XY(path, "tire: measured and predicted paths", "x (m)", "y (m)", true, ss)
}
