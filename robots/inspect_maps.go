package robots

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/wheelgrad/wheelgrad/dataset"
)

// The candidate wirings every model's Inspect ranks, written once: the
// signed permutations of n logged channels onto a model's n command inputs
// (n!·2ⁿ maps), the check that each channel is in every log, the declared
// map among the candidates, and the ranking (Inspection.Best, Declared,
// DeclaredRank, Contradicts).

// signedMap is a candidate wiring: input j gets Sign[j]·scale[Perm[j]]·
// channel Perm[j]. RMS ranks it (+Inf when it cannot be scored); N, Iter
// and Fit say what it was scored on.
type signedMap struct {
	Perm []int
	Sign []float64
	RMS  float64
	N    int    // predictions scored
	Iter int    // optimiser iterations (a fitted score)
	Fit  string // the fitted values, for InspectedMap.Fit
}

// signedMaps lists the n!·2ⁿ signed permutations of n channels: the
// permutations in lexicographic order, for each the signs by the bits of
// 0 … 2ⁿ−1 (bit j set: input j negated). The first is the identity.
func signedMaps(n int) []*signedMap {
	var perms [][]int
	var walk func(p []int)
	walk = func(p []int) {
		if len(p) == n {
			perms = append(perms, slices.Clone(p))
			return
		}
		for c := range n {
			if !slices.Contains(p, c) {
				walk(append(p, c))
			}
		}
	}
	walk(make([]int, 0, n))
	var out []*signedMap
	for _, p := range perms {
		for s := range 1 << n {
			m := &signedMap{Perm: p, Sign: make([]float64, n)}
			for j := range n {
				m.Sign[j] = 1
				if s>>j&1 == 1 {
					m.Sign[j] = -1
				}
			}
			out = append(out, m)
		}
	}
	return out
}

// commandMap is m as a command map over chans with the channels' scales.
func (m *signedMap) commandMap(chans []string, scale []float64) dataset.CommandMap {
	var cm dataset.CommandMap
	for j, c := range m.Perm {
		cm.Columns = append(cm.Columns, chans[c])
		cm.Scale = append(cm.Scale, m.Sign[j]*scale[c])
	}
	return cm
}

// inspectChannels are the channels an inspection permutes: -channels
// (want of them, named by what in the message), else the declared map's,
// else the model's own inputs.
func inspectChannels(req InspectRequest, declared *dataset.CommandMap, own []string, what string) ([]string, error) {
	if req.Top < 1 {
		return nil, Usagef("-top must be at least 1")
	}
	var chans []string
	switch {
	case req.Channels != nil:
		for _, c := range req.Channels {
			chans = append(chans, strings.TrimSpace(c))
		}
		if len(chans) != len(own) {
			return nil, Usagef("-channels names %d columns, want %d%s", len(chans), len(own), what)
		}
	case declared != nil:
		chans = append(chans, declared.Columns...)
	default:
		chans = append(chans, own...)
	}
	return chans, nil
}

// declaredScales are the channels' scales: the declared map's |scale| for
// a channel it names, else def.
func declaredScales(declared *dataset.CommandMap, chans []string, def float64) []float64 {
	scale := make([]float64, len(chans))
	for c := range chans {
		scale[c] = def
		if declared != nil && declared.Scale != nil {
			for j, name := range declared.Columns {
				if strings.EqualFold(name, chans[c]) {
					scale[c] = math.Abs(declared.Scale[j])
				}
			}
		}
	}
	return scale
}

// checkChannels says, positioned, which channel a log lacks (a channel
// absent from a log would be ranked as all-zero commands). mapped reads
// the header through the source's column map.
func checkChannels(sources []Source, chans []string, mapped bool) error {
	for _, src := range sources {
		var hdr []string
		var err error
		if mapped {
			hdr, err = dataset.ReadHeaderMapped(src.Path, src.Columns)
		} else {
			hdr, err = dataset.ReadHeader(src.Path)
		}
		if err != nil {
			return err
		}
		for _, c := range chans {
			if !slices.Contains(hdr, strings.ToLower(c)) {
				shown := hdr[:min(len(hdr), 20)]
				return &dataset.ParseError{File: src.Path, Line: 1, Column: c,
					Err: fmt.Errorf("%w: no channel %q to inspect (header has %s)", dataset.ErrMissingColumn, c, strings.Join(shown, ", "))}
			}
		}
	}
	return nil
}

// declaredAmong is the declared command map among the candidates.
func declaredAmong(cands []*signedMap, declared *dataset.CommandMap, chans []string, paramsPath string) (*signedMap, error) {
	for _, m := range cands {
		ok := true
		for j, c := range m.Perm {
			sg := 1.0
			if declared.Scale != nil && declared.Scale[j] < 0 {
				sg = -1
			}
			if !strings.EqualFold(declared.Columns[j], chans[c]) || m.Sign[j] != sg {
				ok = false
				break
			}
		}
		if ok {
			return m, nil
		}
	}
	return nil, fmt.Errorf("%s: the declared command_map is not a signed permutation of the channels %s", paramsPath, strings.Join(chans, ", "))
}

// ranked sorts cands by RMS (stable: ties keep the candidates' order).
func ranked(cands []*signedMap) []*signedMap {
	order := slices.Clone(cands)
	sort.SliceStable(order, func(i, j int) bool { return order[i].RMS < order[j].RMS })
	return order
}

// rankDeclared sets out's Declared, DeclaredRank (1 + the candidates with a
// smaller RMS) and Contradicts (another map fits clearly better: the
// declared RMS over 1.5× the best's).
func rankDeclared(out *Inspection, cands []*signedMap, dm, best *signedMap, inspected func(*signedMap) InspectedMap) {
	rank := 1
	for _, m := range cands {
		if m != dm && m.RMS < dm.RMS {
			rank++
		}
	}
	dec := inspected(dm)
	out.Declared, out.DeclaredRank = &dec, rank
	out.Contradicts = best != dm && dm.RMS > 1.5*best.RMS
}
