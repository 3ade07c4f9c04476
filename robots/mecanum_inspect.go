package robots

import (
	"fmt"
	"math"
	"sort"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/fit"
	"github.com/wheelgrad/wheelgrad/models/mecanum"
)

// Inspector is a model that can check the wiring of a recording before it
// is identified (the command line's inspect): which logged channel drives
// which input, with which sign and scale.
type Inspector interface {
	Inspect(req InspectRequest) (*Inspection, error)
}

// InspectRequest is one inspection of logs.
type InspectRequest struct {
	Sources []Source
	// Params are the robot's constants and its declared command map
	// (ParamReader with ForStart), nil for the model's defaults;
	// ParamsPath names their file in messages.
	Params     Params
	ParamsPath string
	// Channels are the logged command columns to permute (nil: the
	// declared map's, else the model's own input columns).
	Channels []string
	// Top is how many maps to report (at least 1).
	Top  int
	Sink Sink
}

// Inspection ranks candidate command maps by how well the model, fitted
// with each, explains the logged motion.
type Inspection struct {
	Runs     int
	Channels []string // the channels permuted
	Tried    int      // candidate maps
	// Method says what RMS ranks the maps ("the position RMS of a
	// constant-μ fit with free start poses").
	Method string
	// Offsets are lines saying the sensor offsets estimated (AutoOffset).
	Offsets []string
	// Best are the Top best maps, best first.
	Best []InspectedMap
	// Declared is the parameters' own map among the candidates (nil: none
	// declared), DeclaredRank its rank (1: best) among Tried; Contradicts
	// says the motion fits another map clearly better (RMS over 1.5× the
	// best's).
	Declared     *InspectedMap
	DeclaredRank int
	Contradicts  bool
	// Targets, when not empty, are the model's command columns that the
	// maps feed through a column map (-columns TARGET=CHANNEL*SCALE)
	// rather than a parameter file's command_map; DeclaredName then says
	// what Declared is (e.g. "the log's columns as read").
	Targets      []string
	DeclaredName string
}

// InspectedMap is one candidate map with its fit.
type InspectedMap struct {
	Map dataset.CommandMap
	// RMS is the fit's position residual (m); Fit names the fitted values
	// (e.g. "μ = 0.512 0.498 0.530 0.467").
	RMS float64
	Fit string
}

var _ Inspector = Mecanum{}

// Inspect tries every signed permutation of the four channels (4!·2⁴ = 384
// maps): for each it fits one constant μ and the start poses (squared-error
// loss, mecanum.IdentifySquared), first briefly, then fully for the best,
// and ranks the maps by the position RMS of the fit. The scale is absorbed
// by μ as long as it is large enough, so one common scale (the largest
// command becomes 30 rad/s) is used unless the declared map gives one. With
// AutoOffset the onset offset is taken without the model's lag (the wiring
// is not known yet).
func (Mecanum) Inspect(req InspectRequest) (*Inspection, error) {
	p := mecanum.DefaultParams()
	if req.Params != nil {
		var err error
		if p, err = mecanumParams(req.Params); err != nil {
			return nil, err
		}
	}
	declared := p.CommandMap
	chans, err := inspectChannels(req, declared, mecanum.Commands, "")
	if err != nil {
		return nil, err
	}
	d := NewDiag(req.Sink)
	if err := checkChannels(req.Sources, chans, true); err != nil {
		return nil, err
	}
	// the raw channels, in chans order, as w1..w4
	raw := &dataset.CommandMap{Columns: chans}
	p.CommandMap = raw
	srcs, offsets, err := mecanumOffsets(req.Sources, p, false)
	if err != nil {
		return nil, err
	}
	runs, err := mecanumRuns(d, srcs, raw, fit.GapsError)
	if err != nil {
		return nil, err
	}
	// scale per channel: the declared map's, else one that makes the largest
	// command 30 rad/s (large enough: μ takes up the rest)
	maxRaw := 0.0
	for _, r := range runs {
		for _, w := range r.W {
			for _, v := range w {
				maxRaw = math.Max(maxRaw, math.Abs(v))
			}
		}
	}
	poses := 0
	for _, r := range runs {
		poses += len(r.Camera())
	}
	if poses < 3 {
		return nil, fmt.Errorf("%s: %d camera pose(s) fall within the commands' time span (the -offset, or poses recorded on another clock?): nothing to rank the maps by", req.Sources[0].Path, poses)
	}
	if maxRaw == 0 {
		return nil, fmt.Errorf("%s: every command is zero: nothing to inspect", req.Sources[0].Path)
	}
	scale := declaredScales(declared, chans, 30/maxRaw)
	fitMap := func(m *signedMap, maxIt int) error {
		rs := make([]mecanum.Run, len(runs))
		for i, r := range runs {
			rs[i] = r
			rs[i].W = make([][4]float64, len(r.W))
			for k, w := range r.W {
				for j := range 4 {
					c := m.Perm[j]
					rs[i].W[k][j] = m.Sign[j] * scale[c] * w[c]
				}
			}
		}
		init := [4]float64{0.5, 0.5, 0.5, 0.5}
		mu, res, f, err := mecanum.IdentifySquared(p, rs, init, false, fit.Settings{MaxIter: maxIt}.WithProgress(nil))
		if err != nil {
			return err
		}
		var ss float64
		var n int
		for i := range rs {
			e := f.RMS(res.X, i)
			k := len(rs[i].Camera())
			ss += e * e * float64(k)
			n += k
		}
		m.RMS, m.Iter = math.Sqrt(ss/float64(n)), res.Opt.Iterations
		m.Fit = fmt.Sprintf("μ = %.3f %.3f %.3f %.3f", mu[0], mu[1], mu[2], mu[3])
		return nil
	}
	cands := signedMaps(4)
	// a short fit of every map, then full fits of the best
	for i, m := range cands {
		if err := fitMap(m, 15); err != nil {
			return nil, err
		}
		if i%32 == 0 {
			d.Sink.Progress("inspect: map %d of %d", i+1, len(cands))
		}
	}
	d.Sink.Done()
	best := ranked(cands)[:min(len(cands), max(req.Top, 8))]
	for _, m := range best {
		if err := fitMap(m, 0); err != nil {
			return nil, err
		}
	}
	sort.SliceStable(best, func(i, j int) bool { return best[i].RMS < best[j].RMS })
	inspected := func(m *signedMap) InspectedMap {
		return InspectedMap{Map: m.commandMap(chans, scale), RMS: m.RMS, Fit: m.Fit}
	}
	out := &Inspection{Runs: len(runs), Channels: chans, Tried: len(cands), Offsets: offsets,
		Method: "the position RMS of a constant-μ fit with free start poses"}
	for _, m := range best[:min(req.Top, len(best))] {
		out.Best = append(out.Best, inspected(m))
	}
	if declared == nil {
		return out, nil
	}
	dm, err := declaredAmong(cands, declared, chans, req.ParamsPath)
	if err != nil {
		return nil, err
	}
	if dm.Iter < 16 {
		if err := fitMap(dm, 0); err != nil {
			return nil, err
		}
	}
	rankDeclared(out, cands, dm, best[0], inspected)
	return out, nil
}
