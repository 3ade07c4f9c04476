package cli

import (
	"flag"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/models/mecanum"
	"github.com/wheelgrad/wheelgrad/opt"
	"github.com/wheelgrad/wheelgrad/robots"
)

// `wheelgrad inspect` checks the wiring of a recording before it is
// identified: which logged channel drives which wheel, with which sign. For
// every signed permutation of the four channels (4!·2⁴ = 384 maps) it fits one
// constant μ and the start poses (squared-error loss, mecanum.IdentifySquared)
// and ranks the maps by the position RMS of the fit. The scale is absorbed by
// μ as long as it is large enough, so one common scale is used unless the
// parameter file's map gives one.

func init() {
	register(command{
		name:    "inspect",
		usage:   "inspect -model mecanum -data LOG.csv[,LOG2.csv...] [-poses CAM.csv,...] [-params P.json] [-channels c1,c2,c3,c4] [-offset S|auto] [-top N]",
		summary: "Check the wiring of a recording: try the 384 signed channel permutations, report the best few maps with their fit, and warn when the motion contradicts the parameter file's command_map.",
		flags: func(fs *flag.FlagSet, reg *robots.Registry) func(env) error {
			model := fs.String("model", "", "robot model: mecanum")
			data := fs.String("data", "", "log CSV file(s), comma-separated")
			poses := fs.String("poses", "", "separate camera CSV(s), one per log")
			params := fs.String("params", "", "parameter JSON: the robot's constants and the declared command_map")
			channels := fs.String("channels", "", "the four logged command columns (default: the command_map's, else w1,w2,w3,w4)")
			offset := fs.String("offset", "", "seconds added to the pose times, or auto (from the motion onset)")
			top := fs.Int("top", 5, "how many maps to report")
			quiet, verbose := addVerbosity(fs)
			return func(e env) error {
				if *model != "mecanum" {
					if *model == "" {
						return usagef("-model is required (inspect knows mecanum)")
					}
					return usagef("inspect knows -model mecanum only, not %q", *model)
				}
				if err := required("data", *data); err != nil {
					return err
				}
				if *top < 1 {
					return usagef("-top must be at least 1")
				}
				a := IdentifyArgs{Offset: *offset}
				for _, p := range strings.Split(*data, ",") {
					if p = strings.TrimSpace(p); p != "" {
						a.Data = append(a.Data, p)
					}
				}
				var err error
				if a.Poses, err = splitPoses(*poses, len(a.Data)); err != nil {
					return err
				}
				if *offset != "auto" {
					if _, err := parseOffset(*offset); err != nil {
						return err
					}
				}
				a.Prog = progressOn(e, *quiet, *verbose)
				return inspectMecanum(e, a, *params, *channels, *top)
			}
		},
	})
}

// signedMap is a candidate wiring: wheel j gets Sign[j]·Scale[j]·channel Perm[j].
type signedMap struct {
	Perm  [4]int
	Sign  [4]float64
	RMS   float64
	Mu    [4]float64
	Iter  int
	Label string
}

func permutations() [][4]int {
	var out [][4]int
	for a := range 4 {
		for b := range 4 {
			for c := range 4 {
				for d := range 4 {
					if a != b && a != c && a != d && b != c && b != d && c != d {
						out = append(out, [4]int{a, b, c, d})
					}
				}
			}
		}
	}
	return out
}

func inspectMecanum(e env, a IdentifyArgs, params, channels string, top int) error {
	p := mecanum.DefaultParams()
	if params != "" {
		var err error
		if p, _, err = mecanum.ReadParams(params, false); err != nil {
			return err
		}
	}
	declared := p.CommandMap
	var chans []string
	switch {
	case channels != "":
		for _, c := range strings.Split(channels, ",") {
			chans = append(chans, strings.TrimSpace(c))
		}
		if len(chans) != 4 {
			return usagef("-channels names %d columns, want 4", len(chans))
		}
	case declared != nil:
		chans = append(chans, declared.Columns...)
	default:
		chans = append(chans, mecanum.Commands...)
	}
	// the raw channels, in chans order, as w1..w4
	raw := &dataset.CommandMap{Columns: chans}
	p.CommandMap = raw
	srcs, err := mecanumSourcesLag(e, a, withMap(p, raw), e.stdout, false)
	if err != nil {
		return err
	}
	runs, err := readMecanumLogs(e, srcs, raw, newDiag(e.stderr), gapsError)
	if err != nil {
		return err
	}
	// scale per channel: the declared map's, else one that makes the largest
	// command 30 rad/s (large enough: μ takes up the rest)
	var scale [4]float64
	maxRaw := 0.0
	for _, r := range runs {
		for _, w := range r.W {
			for _, v := range w {
				maxRaw = math.Max(maxRaw, math.Abs(v))
			}
		}
	}
	if maxRaw == 0 {
		return fmt.Errorf("%s: every command is zero: nothing to inspect", a.Data[0])
	}
	for c := range 4 {
		scale[c] = 30 / maxRaw
		if declared != nil && declared.Scale != nil {
			for j, name := range declared.Columns {
				if strings.EqualFold(name, chans[c]) {
					scale[c] = math.Abs(declared.Scale[j])
				}
			}
		}
	}
	fit := func(m *signedMap, maxIt int) error {
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
		mu, res, f, err := mecanum.IdentifySquared(p, rs, init, false, opt.Settings{MaxIterations: maxIt})
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
		m.RMS, m.Mu, m.Iter = math.Sqrt(ss/float64(n)), mu, res.Opt.Iterations
		return nil
	}
	var cands []*signedMap
	for _, perm := range permutations() {
		for s := range 16 {
			m := &signedMap{Perm: perm}
			for j := range 4 {
				m.Sign[j] = 1
				if s>>j&1 == 1 {
					m.Sign[j] = -1
				}
			}
			cands = append(cands, m)
		}
	}
	// a short fit of every map, then full fits of the best
	for i, m := range cands {
		if err := fit(m, 15); err != nil {
			return err
		}
		if i%32 == 0 {
			a.Prog.printf("inspect: map %d of %d", i+1, len(cands))
		}
	}
	a.Prog.done()
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].RMS < cands[j].RMS })
	best := cands[:min(len(cands), max(top, 8))]
	for _, m := range best {
		if err := fit(m, 0); err != nil {
			return err
		}
	}
	sort.SliceStable(best, func(i, j int) bool { return best[i].RMS < best[j].RMS })
	label := func(m *signedMap) string {
		var cols, sc []string
		for j := range 4 {
			c := m.Perm[j]
			cols = append(cols, fmt.Sprintf("%q", chans[c]))
			sc = append(sc, fmt.Sprintf("%.4g", m.Sign[j]*scale[c]))
		}
		return fmt.Sprintf(`{"columns": [%s], "scale": [%s]}`, strings.Join(cols, ", "), strings.Join(sc, ", "))
	}
	fmt.Fprintf(e.stdout, "inspect: %d run(s), %d signed channel maps tried (channels %s); the best, by the position RMS of a constant-μ fit with free start poses:\n", len(runs), len(cands), strings.Join(chans, ", "))
	for i, m := range best[:min(top, len(best))] {
		fmt.Fprintf(e.stdout, "  %d. RMS %.4f m  μ = %.3f %.3f %.3f %.3f  \"command_map\": %s\n", i+1, m.RMS, m.Mu[0], m.Mu[1], m.Mu[2], m.Mu[3], label(m))
	}
	if declared == nil {
		return nil
	}
	// the declared map among the candidates
	var dm *signedMap
	for _, m := range cands {
		ok := true
		for j := range 4 {
			c := m.Perm[j]
			if !strings.EqualFold(declared.Columns[j], chans[c]) {
				ok = false
				break
			}
			sg := 1.0
			if declared.Scale != nil && declared.Scale[j] < 0 {
				sg = -1
			}
			if m.Sign[j] != sg {
				ok = false
				break
			}
		}
		if ok {
			dm = m
			break
		}
	}
	if dm == nil {
		return fmt.Errorf("%s: the declared command_map is not a signed permutation of the channels %s", params, strings.Join(chans, ", "))
	}
	if dm.Iter < 16 {
		if err := fit(dm, 0); err != nil {
			return err
		}
	}
	rank := 1
	for _, m := range cands {
		if m != dm && m.RMS < dm.RMS {
			rank++
		}
	}
	fmt.Fprintf(e.stdout, "declared map (%s): RMS %.4f m, rank %d of %d\n", params, dm.RMS, rank, len(cands))
	if best[0] != dm && dm.RMS > 1.5*best[0].RMS {
		fmt.Fprintf(e.stderr, "wheelgrad inspect: WARNING: the motion contradicts the declared command_map of %s: it fits with RMS %.4f m, map 1 above with %.4f m\n", params, dm.RMS, best[0].RMS)
	}
	return nil
}

// withMap returns p with the command map m (for the onset estimate).
func withMap(p mecanum.Params, m *dataset.CommandMap) mecanum.Params {
	p.CommandMap = m
	return p
}
