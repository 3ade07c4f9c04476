package main

import (
	"flag"
	"fmt"
	"github.com/wheelgrad/wheelgrad/fit"
	"image/color"
	"io"
	"slices"
	"strings"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/figure"
	"github.com/wheelgrad/wheelgrad/models/diffdrive"
	"github.com/wheelgrad/wheelgrad/models/mecanum"
	"github.com/wheelgrad/wheelgrad/models/tire"
)

// `wheelgrad validate`: how well identified parameters predict a held-out
// log, as MATLAB's compare reports it. Each output channel (pose
// coordinates, or wheel speeds) is simulated from the log's first state with
// the model's own rollout (as `simulate` does), and compared with what was
// measured on the rows that carry a measurement (fit.Channel: NRMSE, fit %
// = 100·(1 − NRMSE), RMS; heading residuals wrapped to (−π, π]).

// ValidateArgs are the parsed flags of `wheelgrad validate`.
type ValidateArgs struct {
	Params string
	Data   []string
	Plot   string
	Gaps   string
	Diag   *diag
	// Columns maps the log's columns (-columns, -where, -from, -to).
	Columns *dataset.ColumnMap
}

var validateHandlers = map[string]func(env, ValidateArgs) ([]fit.Channel, error){}

func init() {
	validateHandlers["mecanum"] = validateMecanum
	validateHandlers["skidsteer"] = validateSkidsteer
	validateHandlers["diffdrive"] = validateDiffDrive
	validateHandlers["tire"] = validateTire
	validateHandlers["pioneer"] = validatePioneer
	register(command{
		name:    "validate",
		usage:   "validate -model M -params P.json -data LOG.csv[,LOG2.csv...] [-plot F.png|F.svg] [-gaps error|split|bridge] [-columns MAP] [-where C=V] [-from S] [-to S]",
		summary: "Predict held-out logs with identified parameters and report MATLAB compare's fit % (100·(1 − NRMSE)), the NRMSE and the RMS error per output; -plot draws measured and predicted outputs against time with their residuals.",
		flags: func(fs *flag.FlagSet) func(env) error {
			model := fs.String("model", "", "robot model: "+strings.Join(modelNames, ", "))
			data := fs.String("data", "", "held-out log CSV file(s), comma-separated")
			var a ValidateArgs
			fs.StringVar(&a.Params, "params", "", "parameter JSON file (e.g. written by identify)")
			fs.StringVar(&a.Plot, "plot", "", "PNG, SVG or PDF file (by extension): outputs against time and residuals")
			fs.StringVar(&a.Gaps, "gaps", gapsError, "time gaps in a log: error, split or bridge (as identify)")
			columns := addColumnsFlags(fs)
			return func(e env) error {
				var err error
				if a.Columns, err = columns(); err != nil {
					return err
				}
				for _, r := range [][2]string{{"params", a.Params}, {"data", *data}} {
					if err := required(r[0], r[1]); err != nil {
						return err
					}
				}
				if a.Data, err = dataFiles(*data); err != nil {
					return err
				}
				if !slices.Contains([]string{gapsError, gapsSplit, gapsBridge}, a.Gaps) {
					return usagef("-gaps must be error, split or bridge, not %q", a.Gaps)
				}
				ins := []flagPath{{"params", a.Params}}
				for _, d := range a.Data {
					ins = append(ins, flagPath{"data", d})
				}
				if err := e.declareFiles(ins, []flagPath{{"plot", a.Plot}}); err != nil {
					return err
				}
				*model = strings.ToLower(strings.TrimSpace(*model))
				h, ok := validateHandlers[*model]
				if err := checkModel("validate", *model, ok); err != nil {
					return err
				}
				a.Diag = newDiag(e.stderr)
				chs, err := h(e, a)
				if err != nil {
					return err
				}
				report(e.stdout, *model, a, chs)
				if a.Plot != "" {
					stage, err := e.stagePath(a.Plot)
					if err != nil {
						return err
					}
					return plotChannels(stage, fmt.Sprintf("%s: %s predicted from %s", *model, strings.Join(a.Data, ","), a.Params), chs)
				}
				return nil
			}
		},
	})
}

func report(w io.Writer, model string, a ValidateArgs, chs []fit.Channel) {
	fmt.Fprintf(w, "%s validate: %s on %s (simulated from each run's first state)\n", model, a.Params, strings.Join(a.Data, ","))
	fmt.Fprintf(w, "  %-8s %9s %9s %12s %8s\n", "output", "fit %", "NRMSE", "RMS error", "samples")
	for i := range chs {
		c := &chs[i]
		f, n, r := c.Fit()
		fmt.Fprintf(w, "  %-8s %9.2f %9.4f %9.4g %-3s %7d\n", c.Name, f, n, r, c.Unit, len(c.Meas))
	}
	if n := len(a.Diag.warns); n > 0 {
		fmt.Fprintf(w, "  %d warning(s) (on stderr)\n", n)
	}
}

// plotChannels draws each output against time (measured samples as points
// above the model line, one colour per run) beside its residual.
func plotChannels(path, title string, chs []fit.Channel) error {
	var ps []figure.Panel
	for i := range chs {
		c := &chs[i]
		runs := 0
		for _, r := range c.Run {
			runs = max(runs, r+1)
		}
		var sig, res []figure.Series
		for r := range runs {
			var t, m, p, e []float64
			for k := range c.T {
				if c.Run[k] == r {
					t, m, p, e = append(t, c.T[k]), append(m, c.Meas[k]), append(p, c.Pred[k]), append(e, c.Residual(k))
				}
			}
			col := figure.Palette[r%len(figure.Palette)]
			mn, pn := "measured", "model"
			if runs > 1 {
				mn, pn = fmt.Sprintf("run %d measured", r+1), fmt.Sprintf("run %d model", r+1)
			}
			// samples first, the model line over them in black: both visible
			sig = append(sig, figure.Series{Name: mn, X: t, Y: m, Points: true, Color: col, Size: 1.6},
				figure.Series{Name: pn, X: t, Y: p, Color: color.Black, Width: 1})
			res = append(res, figure.Series{X: t, Y: e, Points: true, Color: col, Size: 1.2})
		}
		f, _, _ := c.Fit()
		ps = append(ps,
			figure.Panel{Title: fmt.Sprintf("%s: fit %.1f %%", c.Name, f), XLabel: "t (s)", YLabel: fmt.Sprintf("%s (%s)", c.Name, c.Unit), Series: sig},
			figure.Panel{Title: c.Name + " residual (measured − model)", XLabel: "t (s)", YLabel: c.Unit, Series: res})
	}
	return figure.Panels(path, title, 2, ps)
}

func validateMecanum(e env, a ValidateArgs) ([]fit.Channel, error) {
	p, _, err := mecanum.ReadParams(a.Params, true)
	if err != nil {
		return nil, err
	}
	runs, err := readMecanumLogs(e, plainSources(a.Data, a.Columns), p.CommandMap, a.Diag, a.Gaps)
	if err != nil {
		return nil, err
	}
	chs := []fit.Channel{{Name: "x", Unit: "m"}, {Name: "y", Unit: "m"}, {Name: "theta", Unit: "rad", Angle: true}}
	for i := range runs {
		r := &runs[i]
		if r.X == nil {
			return nil, r.Errorf(0, "x", "validate needs measured poses x, y, theta")
		}
		x, y, th := mecanum.Simulate(p, r)
		for k := range r.T {
			chs[0].Add(i, r.T[k], r.X[k], x[k])
			chs[1].Add(i, r.T[k], r.Y[k], y[k])
			chs[2].Add(i, r.T[k], r.Theta[k], th[k])
		}
	}
	return chs, nil
}

func validateSkidsteer(e env, a ValidateArgs) ([]fit.Channel, error) {
	p, err := readSkidsteerParams(e, a.Params, true)
	if err != nil {
		return nil, err
	}
	chs := []fit.Channel{{Name: "x", Unit: "m"}, {Name: "y", Unit: "m"}, {Name: "psi", Unit: "rad", Angle: true}}
	run := 0
	for _, src := range plainSources(a.Data, a.Columns) {
		runs, err := readSkidsteerLog(e, src, p, a.Params)
		if err != nil {
			return nil, err
		}
		for _, r := range runs {
			if len(r.PoseRows()) == 0 {
				return nil, r.Errorf(0, "x", "validate needs measured poses x, y, psi")
			}
			pieces, err := skidsteerPieces(a.Diag, a.Gaps, r)
			if err != nil {
				return nil, err
			}
			for _, q := range pieces {
				tr, err := simulateSkidsteerLog(p, q)
				if err != nil {
					return nil, r.Err(err)
				}
				for _, k := range q.PoseRows() {
					chs[0].Add(run, q.T[k], q.Pose[k].X, tr[k].X)
					chs[1].Add(run, q.T[k], q.Pose[k].Y, tr[k].Y)
					chs[2].Add(run, q.T[k], q.Pose[k].Psi, tr[k].Psi)
				}
				run++
			}
		}
	}
	return chs, nil
}

func validateDiffDrive(e env, a ValidateArgs) ([]fit.Channel, error) {
	p, err := readDiffDriveParams(e, a.Params, true)
	if err != nil {
		return nil, err
	}
	chs := []fit.Channel{{Name: "v", Unit: "m/s"}, {Name: "w", Unit: "rad/s"}}
	for run, path := range a.Data {
		tab, err := dataset.ReadMapped(path, dataset.Spec{Time: "t", Columns: []dataset.Column{
			{Name: "t"}, {Name: "uf"}, {Name: "ul"}, {Name: "vr"}, {Name: "vl"}}}, a.Columns)
		if err != nil {
			return nil, err
		}
		lg, err := diffdriveUniform(e, a.Diag, tab, p, a.Params, a.Gaps)
		if err != nil {
			return nil, err
		}
		tr, err := p.Simulate(diffdrive.State{SdR: lg.VR[0], SdL: lg.VL[0]}, lg.UF, lg.UL)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		t0 := tab.Col("t")[0]
		for k := range lg.VR {
			t := t0 + float64(k)*p.H
			chs[0].Add(run, t, (lg.VR[k]+lg.VL[k])/2, tr.V[k])
			chs[1].Add(run, t, (lg.VR[k]-lg.VL[k])/p.L, tr.W[k])
		}
	}
	return chs, nil
}

func validateTire(e env, a ValidateArgs) ([]fit.Channel, error) {
	p, err := readTireParams(e, a.Params)
	if err != nil {
		return nil, err
	}
	chs := []fit.Channel{{Name: "x", Unit: "m"}, {Name: "y", Unit: "m"}, {Name: "psi", Unit: "rad", Angle: true}}
	run := 0
	for _, src := range plainSources(a.Data, a.Columns) {
		rs, tab, err := readTireLog(e, src)
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			if r.X == nil {
				return nil, r.Errorf(0, "x", "validate needs measured poses x, y, psi")
			}
			if _, err := checkGaps(a.Diag, a.Gaps, r.T, r.CommandRows(), false, tableRowErr(tab, r.Row)); err != nil {
				return nil, err
			}
			st, err := tire.Simulate(p, r)
			if err != nil {
				return nil, r.Err(err)
			}
			for k := range r.T {
				chs[0].Add(run, r.T[k], r.X[k], st[k][0])
				chs[1].Add(run, r.T[k], r.Y[k], st[k][1])
				chs[2].Add(run, r.T[k], r.Psi[k], st[k][2])
			}
			run++
		}
	}
	return chs, nil
}
