package robots

import (
	"fmt"
	"math"
	"slices"
	"sort"
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
	if req.Top < 1 {
		return nil, Usagef("-top must be at least 1")
	}
	if len(req.Sources) == 0 {
		return nil, Usagef("inspect needs a log (-data)")
	}
	// the channels and their scales: -channels, else what the column map
	// reads the targets from (a rename or a scale), else the targets
	var chans [2]string
	scale := [2]float64{1, 1}
	if req.Channels != nil {
		if len(req.Channels) != 2 {
			return nil, Usagef("-channels names %d columns, want 2 (%s, %s)", len(req.Channels), targets[0], targets[1])
		}
		for j, c := range req.Channels {
			chans[j] = strings.TrimSpace(c)
		}
	} else {
		for j, tg := range targets {
			chans[j] = tg
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
		hdr, err := dataset.ReadHeader(src.Path)
		if err != nil {
			return nil, err
		}
		for _, c := range chans {
			if !slices.Contains(hdr, strings.ToLower(c)) {
				shown := hdr[:min(len(hdr), 20)]
				return nil, &dataset.ParseError{File: src.Path, Line: 1, Column: c,
					Err: fmt.Errorf("%w: no channel %q to inspect (header has %s)", dataset.ErrMissingColumn, c, strings.Join(shown, ", "))}
			}
		}
	}
	type cand struct {
		perm [2]int
		sign [2]float64
		rms  float64
		n    int
	}
	var cands []*cand
	for _, perm := range [][2]int{{0, 1}, {1, 0}} {
		for s := range 4 {
			c := &cand{perm: perm, sign: [2]float64{1, 1}}
			for j := range 2 {
				if s>>j&1 == 1 {
					c.sign[j] = -1
				}
			}
			cands = append(cands, c)
		}
	}
	cmap := func(c *cand) dataset.CommandMap {
		var m dataset.CommandMap
		for j := range 2 {
			m.Columns = append(m.Columns, chans[c.perm[j]])
			m.Scale = append(m.Scale, c.sign[j]*scale[c.perm[j]])
		}
		return m
	}
	sources := func(c *cand) ([]Source, error) {
		cm := cmap(c)
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
			return nil, Usagef("-channels %s: %v", strings.Join(chans[:], ","), err)
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
		c.rms = math.Inf(1)
		if err == nil { // a map that drives the model out of its range ranks last
			var ss float64
			for _, m := range val.Runs {
				if m.KStepN > 0 {
					ss += m.KStep * m.KStep * float64(m.KStepN)
					c.n += m.KStepN
				}
			}
			if c.n > 0 {
				c.rms = math.Sqrt(ss / float64(c.n))
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
	if math.IsInf(cands[0].rms, 1) {
		return nil, fmt.Errorf("%s: no run has two measured states: nothing to rank the maps by", req.Sources[0].Path)
	}
	order := slices.Clone(cands)
	sort.SliceStable(order, func(i, j int) bool { return order[i].rms < order[j].rms })
	inspected := func(c *cand) InspectedMap {
		return InspectedMap{Map: cmap(c), RMS: c.rms, Fit: fmt.Sprintf("%d predictions", c.n)}
	}
	out := &Inspection{Runs: runs, Channels: chans[:], Tried: len(cands), Targets: targets[:],
		Method:       fmt.Sprintf("the RMS of the start model's %.3g-s k-step position errors (validate -x0 first)", horizon),
		DeclaredName: "the log's columns as read"}
	for _, c := range order[:min(req.Top, len(order))] {
		out.Best = append(out.Best, inspected(c))
	}
	dm := cands[0] // the identity: channel j drives target j, unsigned
	rank := 1
	for _, c := range cands {
		if c != dm && c.rms < dm.rms {
			rank++
		}
	}
	dec := inspected(dm)
	out.Declared, out.DeclaredRank = &dec, rank
	out.Contradicts = order[0] != dm && dm.rms > 1.5*order[0].rms
	return out, nil
}
