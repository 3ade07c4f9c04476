package cli

import (
	"flag"
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/figure"
	"github.com/wheelgrad/wheelgrad/fit"
	"github.com/wheelgrad/wheelgrad/robots"
)

// `wheelgrad validate`: how well identified parameters predict a held-out
// log, as MATLAB's compare reports it. Each output channel (pose
// coordinates, or wheel speeds) is simulated with the model's own rollout
// (as `simulate` does) from an initial state estimated per run, as compare
// does by default (fit.EstimateStart; -x0 first: from the run's first
// measured state), and compared with what was measured on the rows that
// carry a measurement (fit.Channel: NRMSE, fit % = 100·(1 − NRMSE), RMS;
// heading residuals wrapped to (−π, π]). Per run: the endpoint position
// error and the k-step position error at -horizon (fit.Track; the velocity
// models' poses dead-reckoned from v, w). The model's robots.Validator
// predicts, fit.NewValidation computes the metrics, its JSON and per-run
// table; this file parses the flags and prints the text report.

// ValidateArgs are the parsed flags of `wheelgrad validate`.
type ValidateArgs struct {
	Params string
	Data   []string
	Poses  []string // separate sensor file per log, "" where none
	Offset string   // s added to the sensor streams' times, or auto (mecanum)
	X0     string   // estimate (default) or first
	// Horizon (s) of the k-step errors.
	Horizon float64
	JSON    bool
	PerRun  string // per-run CSV path or ""
	Plot    string
	Gaps    string
	Diag    *diag
	// Columns maps the log's columns (-columns, -where, -from, -to).
	Columns  *dataset.ColumnMap
	HoldLast bool // -hold-last
}

func init() {
	register(command{
		name:    "validate",
		usage:   "validate -model M -params P.json -data LOG.csv[,LOG2.csv...] [-poses CAM.csv,...] [-offset S|auto] [-x0 estimate|first] [-horizon S] [-json] [-per-run F.csv] [-plot F.png|F.svg] [-gaps error|split|bridge] [-columns MAP] [-where C=V] [-from S] [-to S]",
		summary: "Predict held-out logs with identified parameters and report MATLAB compare's fit % (100·(1 − NRMSE)), the NRMSE and the RMS error per output, from an initial state estimated per run as compare does, and per run the endpoint and k-step position errors; -plot draws measured and predicted outputs against time with their residuals.",
		flags: func(fs *flag.FlagSet, reg *robots.Registry) func(env) error {
			model := fs.String("model", "", "robot model: "+strings.Join(reg.Names(), ", "))
			data := fs.String("data", "", "held-out log CSV file(s), comma-separated")
			var a ValidateArgs
			var poses string
			fs.StringVar(&a.Params, "params", "", "parameter JSON file (e.g. written by identify)")
			addPosesFlag(fs, &poses)
			addHoldLastFlag(fs, &a.HoldLast)
			fs.StringVar(&a.Offset, "offset", "", "seconds added to the sensor streams' times before merging, or auto (mecanum: estimated from the motion onset)")
			fs.StringVar(&a.X0, "x0", robots.X0Estimate, "initial state of each run's rollout: estimate (least squares over the run, as MATLAB compare) or first (the first measured state)")
			fs.Float64Var(&a.Horizon, "horizon", 2, "horizon (s) of the per-run k-step position errors; clipped to the longest run")
			fs.BoolVar(&a.JSON, "json", false, "print one JSON object on stdout instead of the text report")
			fs.StringVar(&a.PerRun, "per-run", "", "CSV file of the per-run metrics (run, samples, duration, endpoint and k-step errors, start state)")
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
				if a.Poses, err = splitPoses(poses, len(a.Data)); err != nil {
					return err
				}
				if a.Offset != "auto" {
					if _, err := parseOffset(a.Offset); err != nil {
						return err
					}
				}
				if !slices.Contains([]string{gapsError, gapsSplit, gapsBridge}, a.Gaps) {
					return usagef("-gaps must be error, split or bridge, not %q", a.Gaps)
				}
				if a.X0 != robots.X0Estimate && a.X0 != robots.X0First {
					return usagef("-x0 must be estimate or first, not %q", a.X0)
				}
				if !(a.Horizon > 0) || math.IsInf(a.Horizon, 0) {
					return usagef("-horizon must be a positive number of seconds, not %g", a.Horizon)
				}
				ins := []flagPath{{"params", a.Params}}
				for _, d := range a.Data {
					ins = append(ins, flagPath{"data", d})
				}
				for _, p := range a.Poses {
					if p != "" {
						ins = append(ins, flagPath{"poses", p})
					}
				}
				if err := e.declareFiles(ins, []flagPath{{"plot", a.Plot}, {"per-run", a.PerRun}}); err != nil {
					return err
				}
				*model = strings.ToLower(strings.TrimSpace(*model))
				h, ok := validateHandler(reg, *model)
				if err := checkModel(reg, "validate", *model, ok); err != nil {
					return err
				}
				a.Diag = newDiag(e.stderr)
				// the readers' warning lines (e.g. dropped command spans)
				// join the diagnostics, for -json's "warnings"
				he := e
				he.stderr = &warnTee{d: a.Diag, w: e.stderr}
				runs, err := h(he, a)
				if err != nil {
					return err
				}
				v, err := fit.NewValidation(*model, a.X0, runs, a.Horizon)
				if err != nil {
					return err
				}
				a.Diag.add(v.OutlierWarnings(strings.Join(a.Data, ","))...)
				if a.PerRun != "" {
					if err := e.writeOut(a.PerRun, v.WriteRuns); err != nil {
						return err
					}
				}
				if a.Plot != "" {
					if err := e.drawFigureRuns(a.Plot, &robots.Figure{Title: fmt.Sprintf("%s: %s predicted from %s", *model, strings.Join(a.Data, ","), a.Params), Channels: v.Channels}, v.Runs); err != nil {
						return err
					}
				}
				if a.JSON {
					b, err := v.JSON(a.Diag.warns)
					if err != nil {
						return err
					}
					_, err = e.stdout.Write(append(b, '\n'))
					return err
				}
				v.WriteText(e.stdout, a.Params, strings.Join(a.Data, ","), len(a.Diag.warns))
				return nil
			}
		},
	})
}

// validateSources are the -data logs with their -poses files and a fixed
// offset (-offset auto is mecanum's, resolved there).
func (a ValidateArgs) sources() []logSource {
	off, _ := parseOffset(a.Offset) // checked with the flags; auto: 0
	return IdentifyArgs{Data: a.Data, Poses: a.Poses, Columns: a.Columns, HoldLast: a.HoldLast}.sources(off)
}

// plotChannels draws each output against time (measured samples as points
// above the model line, one colour per run) beside its residual, into w in
// format (figure.WritePanels).
func plotChannels(w io.Writer, format, title string, chs []fit.Channel, runs []fit.RunMetrics) error {
	return plotFailed(title, figure.WritePanels(w, format, title, 2, channelPanels(chs, runs)))
}

// legendRuns is how many runs get a legend entry each; past it the runs
// are drawn in two groups (measured, model) with the worst few by endpoint
// error labelled by their traj (issue 28: 180 runs drew a 360-entry
// legend over the data).
const legendRuns = 6

// channelPanels are validate's panels: each channel against time, and its
// residual.
func channelPanels(chs []fit.Channel, runs []fit.RunMetrics) []figure.Panel {
	n := 0
	for i := range chs {
		for _, r := range chs[i].Run {
			n = max(n, r+1)
		}
	}
	id := func(r int) string {
		if r < len(runs) && runs[r].ID != "" {
			return runs[r].ID
		}
		return fmt.Sprint(r + 1)
	}
	// the worst runs by endpoint error, labelled when the runs are many
	worst := map[int]int{} // run -> rank
	if n > legendRuns {
		var order []int
		for r := range min(n, len(runs)) {
			if !math.IsNaN(runs[r].Endpoint) {
				order = append(order, r)
			}
		}
		sort.SliceStable(order, func(i, j int) bool { return runs[order[i]].Endpoint > runs[order[j]].Endpoint })
		for k, r := range order[:min(3, len(order))] {
			worst[r] = k
		}
	}
	grey := color.RGBA{R: 150, G: 150, B: 150, A: 255}
	var ps []figure.Panel
	for i := range chs {
		c := &chs[i]
		var sig, res []figure.Series
		top := make([][]figure.Series, len(worst)) // the labelled worst runs, worst first, drawn last
		named := false
		for r := range n {
			var t, m, p, e []float64
			for k := range c.T {
				if c.Run[k] == r {
					t, m, p, e = append(t, c.T[k]), append(m, c.Meas[k]), append(p, c.Pred[k]), append(e, c.Residual(k))
				}
			}
			col := figure.Palette[r%len(figure.Palette)]
			mn, pn := "measured", "model"
			switch rank, bad := worst[r]; {
			case n <= 1:
			case n <= legendRuns:
				mn, pn = fmt.Sprintf("run %s measured", id(r)), fmt.Sprintf("run %s model", id(r))
			case bad:
				col = figure.Palette[(1+rank)%len(figure.Palette)]
				mn, pn = fmt.Sprintf("run %s (endpoint %.3g m)", id(r), runs[r].Endpoint), ""
			default:
				col = grey
				if named {
					mn, pn = "", ""
				} else {
					mn, pn = fmt.Sprintf("measured (%d runs)", n), "model"
				}
				named = true
			}
			// samples first, the model line over them in black: both visible
			ser := []figure.Series{{Name: mn, X: t, Y: m, Points: true, Color: col, Size: 1.6},
				{Name: pn, X: t, Y: p, Color: color.Black, Width: 1}}
			if rank, bad := worst[r]; bad {
				top[rank] = ser
			} else {
				sig = append(sig, ser...)
			}
			res = append(res, figure.Series{X: t, Y: e, Points: true, Color: col, Size: 1.2})
		}
		f, _, _ := c.Fit()
		ps = append(ps,
			figure.Panel{Title: fmt.Sprintf("%s: fit %.1f %%", c.Name, f), XLabel: "t (s)", YLabel: fmt.Sprintf("%s (%s)", c.Name, c.Unit), Series: append(sig, slices.Concat(top...)...)},
			figure.Panel{Title: c.Name + " residual (measured − model)", XLabel: "t (s)", YLabel: c.Unit, Series: res})
	}
	return ps
}

// warnTee passes the lines written to it on to w, except those that start
// with "warning: ", which it adds to d (which prints them the same way).
type warnTee struct {
	d    *diag
	w    io.Writer
	part []byte
}

func (t *warnTee) Write(b []byte) (int, error) {
	t.part = append(t.part, b...)
	for {
		i := strings.IndexByte(string(t.part), '\n')
		if i < 0 {
			return len(b), nil
		}
		line := string(t.part[:i+1])
		t.part = t.part[i+1:]
		if msg, ok := strings.CutPrefix(line, "warning: "); ok {
			t.d.add(fit.Warning{Msg: strings.TrimSuffix(msg, "\n")})
			continue
		}
		if _, err := io.WriteString(t.w, line); err != nil {
			return len(b), err
		}
	}
}
