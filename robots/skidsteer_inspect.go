package robots

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/fit"
	"github.com/wheelgrad/wheelgrad/models/skidsteer"
)

var _ Inspector = SkidSteer{}

// Inspect checks which logged channels are the skid-steer's body-velocity
// commands vc, wc (its command_map): every signed permutation of the two
// channels (2!·2² = 8 maps) is read as the log's commands and ranked by
// the RMS position error of the nominal model's (a = 0: v = vc, ω = wc)
// open-loop predictions over min(2 s, 0.95 × the longest run) from each
// pose (Ordonez et al. §4.2). Not a calibrated model's: the slip matrix a
// (eq. 10) mixes vc and wc linearly and absorbs any signed permutation
// (every map then fits equally well, measured on DRIVE's Warthog log). The
// scale is the declared map's |scale|, 1 otherwise (vc in m/s, wc in
// rad/s).
func (SkidSteer) Inspect(req InspectRequest) (*Inspection, error) {
	p, err := skidSteerParams(req.Params)
	if err != nil {
		return nil, err
	}
	if req.Top < 1 {
		return nil, Usagef("-top must be at least 1")
	}
	declared := p.CommandMap
	var chans []string
	switch {
	case req.Channels != nil:
		for _, c := range req.Channels {
			chans = append(chans, strings.TrimSpace(c))
		}
		if len(chans) != 2 {
			return nil, Usagef("-channels names %d columns, want 2 (vc, wc)", len(chans))
		}
	case declared != nil:
		chans = append(chans, declared.Columns...)
	default:
		chans = append(chans, skidsteer.Commands...)
	}
	for _, src := range req.Sources {
		if src.AutoOffset {
			return nil, Usagef("-offset auto is available for -model mecanum only (give the offset in seconds for skidsteer)")
		}
		hdr, err := dataset.ReadHeaderMapped(src.Path, src.Columns)
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
	scale := [2]float64{1, 1}
	if declared != nil && declared.Scale != nil {
		for j, name := range declared.Columns {
			for c := range 2 {
				if strings.EqualFold(name, chans[c]) {
					scale[c] = math.Abs(declared.Scale[j])
				}
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
	cmap := func(c *cand) *dataset.CommandMap {
		m := &dataset.CommandMap{}
		for j := range 2 {
			m.Columns = append(m.Columns, chans[c.perm[j]])
			m.Scale = append(m.Scale, c.sign[j]*scale[c.perm[j]])
		}
		return m
	}
	d := NewDiag(req.Sink)
	quiet := NewDiag(nil) // the readers' notes, once per map: kept from the first only
	runs := 0
	for i, c := range cands {
		q := p
		q.CommandMap = cmap(c)
		dd := quiet
		if i == 0 {
			dd = d
		}
		var logs []*skidsteer.Log
		for _, src := range req.Sources {
			rs, err := readSkidSteerLog(dd, src, q, req.ParamsPath)
			if err != nil {
				return nil, err
			}
			for _, r := range rs {
				pieces, err := skidSteerPieces(dd, fit.GapsSplit, r)
				if err != nil {
					return nil, err
				}
				logs = append(logs, pieces...)
			}
		}
		if i == 0 {
			runs = len(logs)
			vmax := 0.0
			for _, l := range logs {
				vmax = max(vmax, fit.MaxAbs(l.Vc), fit.MaxAbs(l.Wc))
			}
			if vmax == 0 {
				return nil, fmt.Errorf("%s: every command is zero: nothing to inspect", req.Sources[0].Path)
			}
		}
		longest := 0.0
		for _, l := range logs {
			if rows := l.PoseRows(); len(rows) > 1 {
				longest = max(longest, l.T[rows[len(rows)-1]]-l.T[rows[0]])
			}
		}
		h := math.Min(2, 0.95*longest)
		var errs []skidsteer.TrackError
		for _, l := range logs {
			errs = append(errs, skidsteer.PredictionErrors(l, make([]float64, skidsteer.NumCoeffs), h, 1)...)
		}
		c.rms, c.n = skidsteer.RMS(errs), len(errs)
		if c.n == 0 || math.IsNaN(c.rms) {
			c.rms = math.Inf(1)
		}
		d.Sink.Progress("inspect: map %d of %d", i+1, len(cands))
	}
	d.Sink.Done()
	order := slices.Clone(cands)
	sort.SliceStable(order, func(i, j int) bool { return order[i].rms < order[j].rms })
	inspected := func(c *cand) InspectedMap {
		return InspectedMap{Map: *cmap(c), RMS: c.rms,
			Fit: fmt.Sprintf("%d predictions", c.n)}
	}
	out := &Inspection{Runs: runs, Channels: chans, Tried: len(cands),
		Method: "the RMS position error of the nominal model's open-loop predictions over min(2 s, the runs' length)"}
	for _, c := range order[:min(req.Top, len(order))] {
		out.Best = append(out.Best, inspected(c))
	}
	if declared == nil {
		return out, nil
	}
	var dm *cand
	for _, c := range cands {
		ok := true
		for j := range 2 {
			sg := 1.0
			if declared.Scale != nil && declared.Scale[j] < 0 {
				sg = -1
			}
			if !strings.EqualFold(declared.Columns[j], chans[c.perm[j]]) || c.sign[j] != sg {
				ok = false
			}
		}
		if ok {
			dm = c
		}
	}
	if dm == nil {
		return nil, fmt.Errorf("%s: the declared command_map is not a signed permutation of the channels %s", req.ParamsPath, strings.Join(chans, ", "))
	}
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
