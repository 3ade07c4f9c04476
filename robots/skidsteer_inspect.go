package robots

import (
	"fmt"
	"math"

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
	declared := p.CommandMap
	chans, err := inspectChannels(req, declared, skidsteer.Commands, " (vc, wc)")
	if err != nil {
		return nil, err
	}
	for _, src := range req.Sources {
		if src.AutoOffset {
			return nil, Usagef("-offset auto is available for -model mecanum only (give the offset in seconds for skidsteer)")
		}
	}
	if err := checkChannels(req.Sources, chans, true); err != nil {
		return nil, err
	}
	scale := declaredScales(declared, chans, 1)
	cands := signedMaps(2)
	cmap := func(c *signedMap) *dataset.CommandMap {
		m := c.commandMap(chans, scale)
		return &m
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
		c.RMS, c.N = skidsteer.RMS(errs), len(errs)
		if c.N == 0 || math.IsNaN(c.RMS) {
			c.RMS = math.Inf(1)
		}
		d.Sink.Progress("inspect: map %d of %d", i+1, len(cands))
	}
	d.Sink.Done()
	order := ranked(cands)
	inspected := func(c *signedMap) InspectedMap {
		return InspectedMap{Map: *cmap(c), RMS: c.RMS,
			Fit: fmt.Sprintf("%d predictions", c.N)}
	}
	out := &Inspection{Runs: runs, Channels: chans, Tried: len(cands),
		Method: "the RMS position error of the nominal model's open-loop predictions over min(2 s, the runs' length)"}
	for _, c := range order[:min(req.Top, len(order))] {
		out.Best = append(out.Best, inspected(c))
	}
	if declared == nil {
		return out, nil
	}
	dm, err := declaredAmong(cands, declared, chans, req.ParamsPath)
	if err != nil {
		return nil, err
	}
	rankDeclared(out, cands, dm, order[0], inspected)
	return out, nil
}
