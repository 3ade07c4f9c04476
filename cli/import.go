package cli

import (
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/wheelgrad/wheelgrad/robots"
)

// wheelgrad import: a ROS 2 MCAP file or a ROS 1 bag to a model's log CSV
// (robots.ImportBag; the map JSON is in docs/formats.md).
func init() {
	register(command{
		name:    "import",
		usage:   "import -bag RUN.mcap|RUN.bag -map MAP.json -model M [-out LOG.csv]",
		summary: "Write a model's log CSV from a ROS 2 MCAP file or a ROS 1 bag: one row per message of the topics MAP.json names, sorted by time, only that topic's columns filled.",
		flags: func(fs *flag.FlagSet, reg *robots.Registry) func(env) error {
			var bagPath, mapPath, model, out string
			fs.StringVar(&bagPath, "bag", "", "ROS 2 MCAP file (.mcap) or ROS 1 bag (.bag)")
			fs.StringVar(&mapPath, "map", "", "map JSON: which topic and field feed which log column")
			fs.StringVar(&model, "model", "", "robot model: "+strings.Join(robots.BagModels(), ", "))
			fs.StringVar(&out, "out", "-", "log CSV file (- for stdout)")
			quiet, verbose := addVerbosity(fs)
			return func(e env) error {
				for _, r := range [][2]string{{"bag", bagPath}, {"map", mapPath}, {"model", model}} {
					if err := required(r[0], r[1]); err != nil {
						return err
					}
				}
				if !slices.Contains(robots.BagModels(), model) {
					return usagef("unknown -model %q (one of %s)", model, strings.Join(robots.BagModels(), ", "))
				}
				if err := e.declareFiles([]flagPath{{"bag", bagPath}, {"map", mapPath}}, []flagPath{{"out", out}}); err != nil {
					return err
				}
				return runImport(e, bagPath, mapPath, model, out, progressOn(e, *quiet, *verbose))
			}
		},
	})
}

func runImport(e env, bagPath, mapPath, model, out string, prog *progress) error {
	lg, err := robots.ImportBag(robots.BagImport{Bag: bagPath, Map: mapPath, Model: model, Sink: newSink(e, nil, prog)})
	if err != nil {
		return err
	}
	if err := e.writeOut(out, lg.WriteCSV); err != nil {
		return err
	}
	for _, line := range lg.Summary {
		fmt.Fprintln(e.stderr, line)
	}
	return nil
}
