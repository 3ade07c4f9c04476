package cli

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/figure"
	"github.com/wheelgrad/wheelgrad/fit"
	"github.com/wheelgrad/wheelgrad/robots"
)

// The commands reach a model through the registry (package robots): a model
// that implements a command's interface (robots.Identifier,
// robots.Simulator, robots.Validator) runs through the functions here,
// which read its parameter file, build the request from the flags, print
// its report and write its outputs.

// sink is the command's robots.Sink and robots.Noter: warnings printed on
// stderr as they are found (and kept by the command's diag), notes on
// stderr, progress on the progress line.
type sink struct {
	d *diag
	p *progress
}

func (s sink) Warn(w fit.Warning)               { s.d.add(w) }
func (s sink) Progress(format string, a ...any) { s.p.printf(format, a...) }
func (s sink) Done()                            { s.p.done() }
func (s sink) Note(line string)                 { fmt.Fprintln(s.d.w, line) }
func newSink(e env, d *diag, p *progress) robots.Sink {
	return sink{d: orDiag(e, d), p: p}
}

func orDiag(e env, d *diag) *diag {
	if d == nil {
		return newDiag(e.stderr)
	}
	return d
}

// modelErr turns a model's robots.UsageError into the command's usage
// error (exit status 2).
func modelErr(err error) error {
	var ue robots.UsageError
	if errors.As(err, &ue) {
		return usagef("%s", ue.Msg)
	}
	return err
}

// readParams reads a parameter file through the model's ParamReader and
// prints its warnings ("wheelgrad: warning: ...").
func readParams(e env, m robots.Model, path string, use robots.ParamUse) (robots.Params, error) {
	pr, ok := m.(robots.ParamReader)
	if !ok {
		return nil, fmt.Errorf("model %q reads no parameter file", m.Name())
	}
	p, ws, err := pr.ReadParams(path, use)
	if err != nil {
		return nil, modelErr(err)
	}
	for _, w := range ws {
		fmt.Fprintf(e.stderr, "wheelgrad: warning: %s\n", w)
	}
	return p, nil
}

// source is a log source as the registry names it.
func (s logSource) robots() robots.Source {
	return robots.Source{Path: s.Path, Poses: s.Poses, Offset: s.Offset, Columns: s.Columns, HoldLast: s.HoldLast}
}

func robotSources(srcs []logSource) []robots.Source {
	out := make([]robots.Source, len(srcs))
	c := dataset.NewReadCache() // each file parsed once per command
	for i, s := range srcs {
		out[i] = s.robots()
		out[i].Cache = c
	}
	return out
}

// identifyWith is the identify handler of a model's Identifier.
func identifyWith(m robots.Model) func(env, IdentifyArgs) error {
	return func(e env, a IdentifyArgs) error {
		id := m.(robots.Identifier)
		req := robots.IdentifyRequest{
			InitPath: a.Init, Method: a.Method, Options: a.Extra, Fit: a.Fit,
			Gaps: fit.GapPolicy(a.Gaps), Fix: fit.SplitList(a.Fix), Free: fit.SplitList(a.Free),
			AllowUndetermined: a.AllowUndetermined, Plot: a.Plot != "",
			Sink: newSink(e, a.Diag, a.Prog),
		}
		if a.Init != "" {
			p, err := readParams(e, m, a.Init, robots.ForStart)
			if err != nil {
				return err
			}
			req.Init = p
		}
		if a.Offset == "auto" {
			req.Sources = robotSources(a.sources(0))
			for i := range req.Sources {
				req.Sources[i].AutoOffset = true
			}
		} else {
			off, err := parseOffset(a.Offset)
			if err != nil {
				return err
			}
			req.Sources = robotSources(a.sources(off))
		}
		cols, err := robots.ParamColumns(a.Init, req.Sources)
		if err != nil {
			return modelErr(err)
		}
		out, err := id.Identify(req)
		if err != nil {
			return modelErr(err)
		}
		if err := emitReport(e, a, out.Report); err != nil {
			return err
		}
		if err := out.Failure(); err != nil {
			return err
		}
		if err := e.writeParams(a.Out, robots.WithColumns(out.Params, cols), out.Report.Status); err != nil {
			return err
		}
		if a.Plot != "" {
			if out.Figure == nil {
				return fmt.Errorf("-plot %s: model %s draws no figure of this fit; nothing written", a.Plot, m.Name())
			}
			if err := e.drawFigure(a.Plot, out.Figure); err != nil {
				return err
			}
		}
		return out.Outcome
	}
}

// simulateWith is the simulate handler of a model's Simulator.
func simulateWith(m robots.Model) func(env, SimulateArgs) error {
	return func(e env, a SimulateArgs) error {
		p, err := readParams(e, m, a.Params, robots.ForPrediction)
		if err != nil {
			return err
		}
		srcs := []robots.Source{a.source().robots()}
		if _, err := robots.ParamColumns(a.Params, srcs); err != nil {
			return modelErr(err)
		}
		src := srcs[0]
		src.AutoOffset = a.Auto
		sim, err := m.(robots.Simulator).Simulate(robots.SimulateRequest{
			Params: p, ParamsPath: a.Params, Source: src, Plot: a.Plot != "",
			Sink: newSink(e, nil, nil),
		})
		if err != nil {
			return modelErr(err)
		}
		if err := e.writeOut(a.Out, func(w io.Writer) error { return sim.Write(w) }); err != nil {
			return err
		}
		if a.Plot != "" {
			if sim.Figure == nil {
				return usagef("-plot %s: model %s draws no figure of a simulation; nothing written", a.Plot, m.Name())
			}
			return e.drawFigure(a.Plot, sim.Figure)
		}
		return nil
	}
}

// validateWith is the validate handler of a model's Validator.
func validateWith(m robots.Model) func(env, ValidateArgs) ([]fit.ValidationRun, error) {
	return func(e env, a ValidateArgs) ([]fit.ValidationRun, error) {
		p, err := readParams(e, m, a.Params, robots.ForPrediction)
		if err != nil {
			return nil, err
		}
		srcs := robotSources(a.sources())
		for i := range srcs {
			srcs[i].AutoOffset = a.Offset == "auto"
		}
		if _, err := robots.ParamColumns(a.Params, srcs); err != nil {
			return nil, modelErr(err)
		}
		runs, err := m.(robots.Validator).Validate(robots.ValidateRequest{
			Params: p, ParamsPath: a.Params, Sources: srcs, X0: a.X0,
			Gaps: fit.GapPolicy(a.Gaps), Sink: newSink(e, a.Diag, nil),
		})
		if err != nil {
			return nil, modelErr(err)
		}
		return runs, nil
	}
}

// The handlers of model (nil, false where it has none): its adapter's when
// it implements the command's interface.

func identifyHandler(reg *robots.Registry, model string) (func(env, IdentifyArgs) error, bool) {
	if m, ok := reg.Get(model); ok {
		if _, ok := m.(robots.Identifier); ok {
			return identifyWith(m), true
		}
	}
	return nil, false
}

func simulateHandler(reg *robots.Registry, model string) (func(env, SimulateArgs) error, bool) {
	if m, ok := reg.Get(model); ok {
		if _, ok := m.(robots.Simulator); ok {
			return simulateWith(m), true
		}
	}
	return nil, false
}

func validateHandler(reg *robots.Registry, model string) (func(env, ValidateArgs) ([]fit.ValidationRun, error), bool) {
	if m, ok := reg.Get(model); ok {
		if _, ok := m.(robots.Validator); ok {
			return validateWith(m), true
		}
	}
	return nil, false
}

// drawFigure draws an adapter's figure (robots.Figure) into the staged
// output path: panels of its Channels (as validate -plot) when it has them,
// else its Series; PNG, SVG or PDF by the path's extension.
func (e env) drawFigure(path string, f *robots.Figure) error {
	return e.drawFigureRuns(path, f, nil)
}

// drawFigureRuns is drawFigure with validate's per-run metrics, which label
// the worst runs when they are many (channelPanels).
func (e env) drawFigureRuns(path string, f *robots.Figure, runs []fit.RunMetrics) error {
	if path == "-" {
		return fmt.Errorf("a figure cannot be written to stdout")
	}
	if runs == nil && f.RunIDs != nil { // the runs named by their traj
		for _, id := range f.RunIDs {
			runs = append(runs, fit.RunMetrics{ID: id, Endpoint: math.NaN()})
		}
	}
	return e.writeOut(path, func(w io.Writer) error {
		if len(f.Channels) > 0 {
			return plotChannels(w, figure.Format(path), f.Title, f.Channels, runs)
		}
		ss := make([]figure.Series, len(f.Series))
		for i, x := range f.Series {
			ss[i] = figure.Series{Name: x.Name, X: x.X, Y: x.Y, Points: x.Points, Dashed: x.Dashed,
				Segments: x.Segments, Width: x.Width, Shape: x.Shape, Size: x.Size, Color: x.RGB}
			if x.RGB == nil && x.Color > 0 {
				ss[i].Color = figure.Palette[(x.Color-1)%len(figure.Palette)]
			}
		}
		return plotFailed(f.Title, figure.WriteXY(w, figure.Format(path), f.Title, f.XLabel, f.YLabel, f.Equal, ss))
	})
}

// plotFailed is a figure's failure as the all-or-nothing rule says it: the
// figure named, nothing written, the results there without -plot (nil
// stays nil).
func plotFailed(title string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("-plot: the figure %q could not be drawn (%v); nothing written: run without -plot for the results", title, err)
}
