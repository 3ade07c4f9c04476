package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/figure"
	"github.com/wheelgrad/wheelgrad/models/mecanum"
	"github.com/wheelgrad/wheelgrad/opt"
)

func init() {
	simulateHandlers["mecanum"] = simulateMecanum
	identifyHandlers["mecanum"] = identifyMecanum
	identifyExtraFlags = append(identifyExtraFlags,
		extraFlag{"pose", "free", "mecanum: start pose of each run, free (estimated with μ) or fixed (first camera pose, as the paper)", "mecanum"},
		extraFlag{"prior", "0", "mecanum: weight λ of a pull λ·Σ(μ_j − init μ_j)² toward -init (0: none)", "mecanum"},
		extraFlag{"grad", "analytic", "mecanum: L-BFGS-B gradient, analytic (Algorithm 2) or autodiff (gorgonia graph)", "mecanum"},
	)
}

func simulateMecanum(e env, a SimulateArgs) error {
	p, err := readMecanumParams(e, a.Params, true)
	if err != nil {
		return err
	}
	t, err := dataset.ReadFile(a.Controls, mecanum.LogSpec(false))
	if err != nil {
		return err
	}
	runs, err := mecanum.RunsFromTable(t)
	if err != nil {
		return err
	}
	hasTraj := t.Has("traj")
	return e.writeOut(a.Out, func(w io.Writer) error {
		cw := dataset.NewWriter(w)
		head := []string{"t", "x", "y", "theta"}
		if hasTraj {
			head = append(head, "traj")
		}
		if err := cw.WriteHeader(head...); err != nil {
			return err
		}
		for i := range runs {
			r := &runs[i]
			x, y, th := mecanum.Simulate(p, r)
			for k := range x {
				if !mecanumFinite(x[k]) || !mecanumFinite(y[k]) || !mecanumFinite(th[k]) {
					return r.Errorf(k, "", "the simulated pose is not finite (commands too large?)")
				}
				row := []dataset.Cell{dataset.Num(r.T[k]), dataset.Num(x[k]), dataset.Num(y[k]), dataset.Num(th[k])}
				if hasTraj {
					row = append(row, dataset.Text(r.ID))
				}
				if err := cw.WriteRow(row...); err != nil {
					return err
				}
			}
		}
		return cw.Flush()
	})
}

func mecanumFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// readMecanumLogs reads every -data file; with several files, a run's id is
// prefixed by its file name.
func readMecanumLogs(files []string) ([]mecanum.Run, error) {
	var runs []mecanum.Run
	for _, f := range files {
		t, err := dataset.ReadFile(f, mecanum.LogSpec(true))
		if err != nil {
			return nil, err
		}
		rs, err := mecanum.RunsFromTable(t)
		if err != nil {
			return nil, err
		}
		for i := range rs {
			if len(files) > 1 {
				rs[i].ID = filepath.Base(f) + ":" + rs[i].ID
			}
		}
		runs = append(runs, rs...)
	}
	return runs, nil
}

func identifyMecanum(e env, a IdentifyArgs) error {
	cfg := mecanum.DefaultConfig()
	switch a.Extra["pose"] {
	case "", "free":
	case "fixed":
		cfg = mecanum.PaperConfig()
	default:
		return usagef("-pose must be free or fixed, not %q", a.Extra["pose"])
	}
	if s := a.Extra["prior"]; s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || !(v >= 0) || math.IsInf(v, 0) {
			return usagef("-prior must be a number ≥ 0, not %q", s)
		}
		cfg.Prior = v
	}
	autodiff := false
	switch a.Extra["grad"] {
	case "", "analytic":
	case "autodiff":
		autodiff = true
	default:
		return usagef("-grad must be analytic or autodiff, not %q", a.Extra["grad"])
	}
	p := mecanum.DefaultParams()
	if a.Init != "" {
		var err error
		if p, err = readMecanumParams(e, a.Init, false); err != nil {
			return err
		}
		if p.Mu == nil {
			p.Mu = mecanum.DefaultParams().Mu
		}
	}
	init := [4]float64(p.Mu)
	cfg.PriorMu = init
	runs, err := readMecanumLogs(a.Data)
	if err != nil {
		return err
	}
	f, err := mecanum.NewFit(p, runs, cfg)
	if err != nil {
		return err
	}
	method := a.Method
	if method == "" {
		method = mecanum.LBFGSB
	}
	res, err := mecanum.Identify(f, mecanum.IdentifyOptions{
		Method: method, Autodiff: autodiff, Init: init, Seed: 1,
		Settings: opt.Settings{Callback: func(it opt.Iteration) bool {
			a.Prog.printf("identify %s: iteration %d, loss %.6g", method, it.Iter, it.F)
			return true
		}},
	})
	a.Prog.done()
	if err != nil {
		return err
	}
	out := p
	out.Model = "mecanum"
	out.Mu = res.Mu[:]
	out.Friction = nil
	// The report goes to stdout unless the parameters do.
	rep := e.stdout
	if a.Out == "-" {
		rep = e.stderr
	}
	grad := "gradient generated from the step definition"
	if autodiff {
		grad = "autodiff gradient"
	}
	if method != mecanum.LBFGSB {
		grad = "derivative-free"
	}
	fmt.Fprintf(rep, "mecanum identify: %d run(s), %d parameters (μ and %s start poses)\n", f.Runs(), f.Dim(), a.Extra["pose"])
	fmt.Fprintf(rep, "  %s (%s): %d iterations, %d evaluations, %s, %v\n", method, grad, res.Opt.Iterations, res.Opt.FuncEvaluations, res.Wall.Round(10000), res.Opt.Status)
	fmt.Fprintf(rep, "  loss %.6g, μ = %.4f %.4f %.4f %.4f\n", res.Opt.F, res.Mu[0], res.Mu[1], res.Mu[2], res.Mu[3])
	fmt.Fprint(rep, mecanumIndent(res.Ident.String(), "  "))
	if a.Plot != "" {
		if err := plotMecanum(a.Plot, f, runs, res, p); err != nil {
			return err
		}
	}
	if a.Out != "-" {
		return dataset.WriteJSONFile(a.Out, out)
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(e.stdout, "%s\n", b)
	return err
}

func mecanumIndent(s, pre string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i := range lines {
		lines[i] = pre + lines[i]
	}
	return strings.Join(lines, "\n") + "\n"
}

// plotMecanum draws every run: camera poses, the identified model's
// prediction and the friction-free (Uranus, μ = 0) prediction.
func plotMecanum(path string, f *mecanum.Fit, runs []mecanum.Run, res *mecanum.Result, p mecanum.Params) error {
	var ss []figure.Series
	free := p
	free.Mu = []float64{0, 0, 0, 0}
	free.Friction = nil
	for i := range runs {
		r := &runs[i]
		var gx, gy []float64
		for _, k := range r.Camera() {
			gx, gy = append(gx, r.X[k]), append(gy, r.Y[k])
		}
		name := func(s string) string {
			if i == 0 {
				return s
			}
			return ""
		}
		x, y, _ := f.Predict(res.X, i)
		ux, uy, _ := mecanum.Simulate(free, r)
		ss = append(ss,
			figure.Series{Name: name("ground truth (camera)"), X: gx, Y: gy, Points: true, Color: figure.Palette[1]},
			figure.Series{Name: name("identified model"), X: x, Y: y, Color: figure.Palette[0]},
			figure.Series{Name: name("friction-free (Uranus)"), X: ux, Y: uy, Color: figure.Palette[2], Dashed: true})
	}
	return figure.XY(path, "Mecanum identification", "x (m)", "y (m)", true, ss)
}
