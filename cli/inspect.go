package cli

import (
	"flag"
	"fmt"
	"strings"

	"github.com/wheelgrad/wheelgrad/robots"
)

// `wheelgrad inspect` checks the wiring of a recording before it is
// identified: which logged channel drives which input, with which sign. The
// model's robots.Inspector does the search (mecanum: every signed
// permutation of the four channels, ranked by the position RMS of a
// constant-μ fit); this file parses the flags and prints the ranking.

func init() {
	register(command{
		name:    "inspect",
		usage:   "inspect -model M -data LOG.csv[,LOG2.csv...] [-poses CAM.csv,...] [-params P.json] [-channels c1,...] [-offset S|auto] [-top N] [-columns MAP] [-where F] [-from S] [-to S]",
		summary: "Check the wiring of a recording: try every signed permutation of the command channels (mecanum: 384 of four wheel channels, ranked by a constant-μ fit; skidsteer, tire, diffdrive, pioneer: 8 of their two command columns, ranked by the start model's 2-s predictions), report the best few maps with their fit, and warn when the motion contradicts the parameter file's command_map.",
		flags: func(fs *flag.FlagSet, reg *robots.Registry) func(env) error {
			names := inspectors(reg)
			model := fs.String("model", "", "robot model: "+strings.Join(names, ", "))
			data := fs.String("data", "", "log CSV file(s), comma-separated")
			poses := fs.String("poses", "", "separate camera CSV(s), one per log")
			params := fs.String("params", "", "parameter JSON: the robot's constants and the declared command_map")
			channels := fs.String("channels", "", "the logged command columns, as many as the model has commands (default: the command_map's; for tire, diffdrive, pioneer the columns that -columns maps to their commands; else the model's own: mecanum w1,w2,w3,w4, skidsteer vc,wc, tire wl,wr, diffdrive uf,ul, pioneer v_ref,w_ref)")
			offset := fs.String("offset", "", "seconds added to the pose times, or auto (from the motion onset)")
			top := fs.Int("top", 5, "how many maps to report")
			quiet, verbose := addVerbosity(fs)
			columns := addColumnsFlags(fs)
			return func(e env) error {
				m, _ := reg.Get(*model)
				in, ok := m.(robots.Inspector)
				if !ok {
					if *model == "" {
						return usagef("-model is required (inspect knows %s)", strings.Join(names, ", "))
					}
					return usagef("inspect knows -model %s only, not %q", strings.Join(names, ", "), *model)
				}
				if err := required("data", *data); err != nil {
					return err
				}
				if *top < 1 {
					return usagef("-top must be at least 1")
				}
				a := IdentifyArgs{Offset: *offset}
				var err error
				if a.Columns, err = columns(); err != nil {
					return err
				}
				for _, p := range strings.Split(*data, ",") {
					if p = strings.TrimSpace(p); p != "" {
						a.Data = append(a.Data, p)
					}
				}
				if a.Poses, err = splitPoses(*poses, len(a.Data)); err != nil {
					return err
				}
				off := 0.0
				if *offset != "auto" {
					if off, err = parseOffset(*offset); err != nil {
						return err
					}
				}
				req := robots.InspectRequest{ParamsPath: *params, Top: *top,
					Sink: newSink(e, nil, progressOn(e, *quiet, *verbose))}
				if *channels != "" {
					req.Channels = strings.Split(*channels, ",")
				}
				req.Sources = robotSources(a.sources(off))
				for i := range req.Sources {
					req.Sources[i].AutoOffset = *offset == "auto"
				}
				if *params != "" {
					if req.Params, err = readParams(e, m, *params, robots.ForStart); err != nil {
						return err
					}
					if _, err := robots.ParamColumns(*params, req.Sources); err != nil {
						return modelErr(err)
					}
				}
				r, err := in.Inspect(req)
				if err != nil {
					return modelErr(err)
				}
				printInspection(e, r, *params)
				return nil
			}
		},
	})
}

// inspectors lists the registry's models that implement robots.Inspector.
func inspectors(reg *robots.Registry) []string {
	var out []string
	for _, n := range reg.Names() {
		m, _ := reg.Get(n)
		if _, ok := m.(robots.Inspector); ok {
			out = append(out, n)
		}
	}
	return out
}

// printInspection prints the ranking on stdout and, when the motion
// contradicts the declared map, a warning on stderr.
func printInspection(e env, r *robots.Inspection, params string) {
	for _, l := range r.Offsets {
		fmt.Fprintln(e.stdout, l)
	}
	label := func(m robots.InspectedMap) string {
		var cols, sc []string
		for j, c := range m.Map.Columns {
			cols = append(cols, fmt.Sprintf("%q", c))
			sc = append(sc, fmt.Sprintf("%.4g", m.Map.Scale[j]))
		}
		return fmt.Sprintf(`{"columns": [%s], "scale": [%s]}`, strings.Join(cols, ", "), strings.Join(sc, ", "))
	}
	if len(r.Targets) > 0 { // maps of a column map, not a command_map
		label = func(m robots.InspectedMap) string {
			var es []string
			for j, c := range m.Map.Columns {
				e := r.Targets[j] + "=" + c
				if m.Map.Scale[j] != 1 {
					e += fmt.Sprintf("*%.4g", m.Map.Scale[j])
				}
				es = append(es, e)
			}
			return "-columns " + strings.Join(es, ",")
		}
	}
	fmt.Fprintf(e.stdout, "inspect: %d run(s), %d signed channel maps tried (channels %s); the best, by %s:\n", r.Runs, r.Tried, strings.Join(r.Channels, ", "), r.Method)
	for i, m := range r.Best {
		key := `"command_map": `
		if len(r.Targets) > 0 {
			key = ""
		}
		fmt.Fprintf(e.stdout, "  %d. RMS %.4f m  %s  %s%s\n", i+1, m.RMS, m.Fit, key, label(m))
	}
	if r.Declared == nil {
		return
	}
	if r.DeclaredName != "" {
		fmt.Fprintf(e.stdout, "%s: RMS %.4f m, rank %d of %d\n", r.DeclaredName, r.Declared.RMS, r.DeclaredRank, r.Tried)
		if r.Contradicts {
			fmt.Fprintf(e.stderr, "wheelgrad inspect: WARNING: the motion contradicts %s: it fits with RMS %.4f m, map 1 above with %.4f m (swapped or reversed channels?)\n", r.DeclaredName, r.Declared.RMS, r.Best[0].RMS)
		}
		return
	}
	fmt.Fprintf(e.stdout, "declared map (%s): RMS %.4f m, rank %d of %d\n", params, r.Declared.RMS, r.DeclaredRank, r.Tried)
	if r.Contradicts {
		fmt.Fprintf(e.stderr, "wheelgrad inspect: WARNING: the motion contradicts the declared command_map of %s: it fits with RMS %.4f m, map 1 above with %.4f m\n", params, r.Declared.RMS, r.Best[0].RMS)
	}
}
