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
		extraFlag{"friction", "constant", "mecanum: constant (one μ per wheel) or net (the 4-16-4 command→μ network of §VI, trained jointly over all runs)", "mecanum"},
		extraFlag{"loss", "eq8", "mecanum: eq8 (the paper's distances, spline + ground truth + marker) or squared (squared position and marker errors: far fewer iterations on many runs)", "mecanum"},
	)
}

func simulateMecanum(e env, a SimulateArgs) error {
	p, err := mecanum.ReadParams(a.Params, true)
	if err != nil {
		return err
	}
	src := a.source()
	if a.Auto {
		on, err := mecanumOnset(src, p, true)
		if err != nil {
			return err
		}
		src.Offset = on.Offset
		fmt.Fprintf(e.stderr, "%s: offset %+.4f s added to the pose times (motion onset)\n", a.Controls, on.Offset)
	}
	t, err := readLog(e, src, mecanum.LogSpec(false), mecanum.Commands, []string{"theta"}, p.CommandMap)
	if err != nil {
		return err
	}
	runs, err := mecanum.RunsFromTable(t)
	if err != nil {
		return err
	}
	hasTraj := t.Has("traj")
	if a.Plot != "" {
		if err := plotMecanumPrediction(a.Plot, p, runs); err != nil {
			return err
		}
	}
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
func readMecanumLogs(e env, srcs []logSource, m *dataset.CommandMap) ([]mecanum.Run, error) {
	var runs []mecanum.Run
	for _, src := range srcs {
		f := src.Path
		t, err := readLog(e, src, mecanum.LogSpec(true), mecanum.Commands, []string{"theta"}, m)
		if err != nil {
			return nil, err
		}
		rs, err := mecanum.RunsFromTable(t)
		if err != nil {
			return nil, err
		}
		for i := range rs {
			switch {
			case len(srcs) > 1 && rs[i].ID == "":
				rs[i].ID = filepath.Base(f)
			case len(srcs) > 1:
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
		if p, err = mecanum.ReadParams(a.Init, false); err != nil {
			return err
		}
		if p.Mu == nil {
			p.Mu = mecanum.DefaultParams().Mu
		}
	}
	init := [4]float64(p.Mu)
	cfg.PriorMu = init
	fric, loss := a.Extra["friction"], a.Extra["loss"]
	if fric != "constant" && fric != "net" {
		return usagef("-friction must be constant or net, not %q", fric)
	}
	if loss != "eq8" && loss != "squared" {
		return usagef("-loss must be eq8 or squared, not %q", loss)
	}
	if fric == "net" || loss == "squared" {
		if a.Method != "" && a.Method != mecanum.LBFGSB {
			return usagef("-friction net and -loss squared use lbfgsb")
		}
		if (a.Extra["pose"] != "" && a.Extra["pose"] != "free") || cfg.Prior != 0 || autodiff {
			return usagef("-pose fixed, -prior and -grad autodiff go with the eq8 loss and a constant μ, not with -friction net or -loss squared")
		}
	}
	// The report goes to stdout unless the parameters do.
	rep := e.stdout
	if a.Out == "-" {
		rep = e.stderr
	}
	srcs, err := mecanumSources(e, a, p, rep)
	if err != nil {
		return err
	}
	runs, err := readMecanumLogs(e, srcs, p.CommandMap)
	if err != nil {
		return err
	}
	if fric == "net" || loss == "squared" {
		return identifyMecanumSquared(e, a, p, runs, rep, fric == "net")
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
