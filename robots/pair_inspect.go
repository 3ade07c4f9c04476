package robots

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/fit"
)

// pairInspect is the inspection of a model with two command columns and a
// Validator (tire: wl, wr; diffdrive: uf, ul; the Pioneer: v_ref, w_ref):
// every signed order of the two logged channels (2!·2² = 8 maps) is read
// as the model's command columns through a column map (the sources'
// own map with the two targets replaced) and ranked, as the skid-steer's
// search, by the start model's prediction error: the pooled RMS of the
// 2-s k-step position errors (fit.Track.KStep, the horizon clipped to the
// longest run) of the model's own validation from each run's first
// measured state; velocity models' positions are dead-reckoned from their
// speeds. The log's own columns, as named, are the declared map: a log
// whose motion fits another map clearly better (RMS over 1.5× the best's)
// contradicts its wiring.
func pairInspect(model string, v Validator, p Params, targets [2]string, req InspectRequest) (*Inspection, error) {
	chans, err := inspectChannels(req, nil, targets[:], fmt.Sprintf(" (%s, %s)", targets[0], targets[1]))
	if err != nil {
		return nil, err
	}
	if len(req.Sources) == 0 {
		return nil, Usagef("inspect needs a log (-data)")
	}
	// the scales (and, without -channels, the channels): what the column
	// map reads the targets from (a rename or a scale), else the targets
	scale := []float64{1, 1}
	if req.Channels == nil {
		for j, tg := range targets {
			if m := req.Sources[0].Columns; m != nil {
				for _, e := range m.Entries {
					if strings.EqualFold(e.Target, tg) && len(e.Sources) == 1 && e.Unit == "" && e.Offset == 0 {
						chans[j], scale[j] = e.Sources[0], math.Abs(e.Scale)
					}
				}
			}
		}
	}
	for _, src := range req.Sources {
		if src.AutoOffset {
			return nil, Usagef("-offset auto is available for -model mecanum only (give the offset in seconds for %s)", model)
		}
	}
	if err := checkChannels(req.Sources, chans, false); err != nil {
		return nil, err
	}
	cands := signedMaps(2)
	sources := func(c *signedMap) ([]Source, error) {
		cm := c.commandMap(chans, scale)
		var entries []string
		for j, tg := range targets {
			e := tg + "=" + cm.Columns[j]
			if cm.Scale[j] != 1 {
				e += "*" + strconv.FormatFloat(cm.Scale[j], 'g', -1, 64)
			}
			entries = append(entries, e)
		}
		add, err := dataset.ParseColumnMap(strings.Join(entries, ","))
		if err != nil {
			return nil, Usagef("-channels %s: %v", strings.Join(chans, ","), err)
		}
		out := slices.Clone(req.Sources)
		for i, s := range out {
			m := &dataset.ColumnMap{}
			if s.Columns != nil {
				*m = *s.Columns
				m.Entries = slices.DeleteFunc(slices.Clone(m.Entries), func(e dataset.ColumnEntry) bool {
					return strings.EqualFold(e.Target, targets[0]) || strings.EqualFold(e.Target, targets[1])
				})
			}
			m.Entries = append(m.Entries, add.Entries...)
			out[i].Columns = m
		}
		return out, nil
	}
	runs := 0
	horizon := 0.0
	for i, c := range cands {
		srcs, err := sources(c)
		if err != nil {
			return nil, err
		}
		sink := Discard
		if i == 0 && req.Sink != nil {
			sink = req.Sink // the readers' warnings, once
		}
		vr, err := v.Validate(ValidateRequest{Params: p, ParamsPath: req.ParamsPath, Sources: srcs, X0: X0First, Gaps: fit.GapsSplit, Sink: sink})
		if err != nil {
			return nil, err
		}
		val, err := fit.NewValidation(model, X0First, vr, 2)
		c.RMS = math.Inf(1)
		if err == nil { // a map that drives the model out of its range ranks last
			var ss float64
			for _, m := range val.Runs {
				if m.KStepN > 0 {
					ss += m.KStep * m.KStep * float64(m.KStepN)
					c.N += m.KStepN
				}
			}
			if c.N > 0 {
				c.RMS = math.Sqrt(ss / float64(c.N))
			}
			horizon = val.Horizon
		}
		runs = len(vr)
		if req.Sink != nil {
			req.Sink.Progress("inspect: map %d of %d", i+1, len(cands))
		}
	}
	if req.Sink != nil {
		req.Sink.Done()
	}
	if math.IsInf(cands[0].RMS, 1) {
		return nil, fmt.Errorf("%s: no run has two measured states: nothing to rank the maps by", req.Sources[0].Path)
	}
	order := ranked(cands)
	inspected := func(c *signedMap) InspectedMap {
		return InspectedMap{Map: c.commandMap(chans, scale), RMS: c.RMS, Fit: fmt.Sprintf("%d predictions", c.N)}
	}
	out := &Inspection{Runs: runs, Channels: chans, Tried: len(cands), Targets: targets[:],
		Method:       fmt.Sprintf("the RMS of the start model's %.3g-s k-step position errors (validate -x0 first)", horizon),
		DeclaredName: "the log's columns as read"}
	for _, c := range order[:min(req.Top, len(order))] {
		out.Best = append(out.Best, inspected(c))
	}
	// the declared map is the identity: channel j drives target j, unsigned
	rankDeclared(out, cands, cands[0], order[0], inspected)
	return out, nil
}
