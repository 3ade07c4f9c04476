package cli

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/wheelgrad/wheelgrad/dataset/bag"
	"github.com/wheelgrad/wheelgrad/robots"
)

// wheelgrad import: a ROS 2 MCAP file or a ROS 1 bag to a model's log CSV
// (package dataset/bag; the map JSON is in the README's contract additions).
func init() {
	register(command{
		name:    "import",
		usage:   "import -bag RUN.mcap|RUN.bag -map MAP.json -model M [-out LOG.csv]",
		summary: "Write a model's log CSV from a ROS 2 MCAP file or a ROS 1 bag: one row per message of the topics MAP.json names, sorted by time, only that topic's columns filled.",
		flags: func(fs *flag.FlagSet, reg *robots.Registry) func(env) error {
			var bagPath, mapPath, model, out string
			fs.StringVar(&bagPath, "bag", "", "ROS 2 MCAP file (.mcap) or ROS 1 bag (.bag)")
			fs.StringVar(&mapPath, "map", "", "map JSON: which topic and field feed which log column")
			fs.StringVar(&model, "model", "", "robot model: "+strings.Join(bag.Models(), ", "))
			fs.StringVar(&out, "out", "-", "log CSV file (- for stdout)")
			quiet, verbose := addVerbosity(fs)
			return func(e env) error {
				for _, r := range [][2]string{{"bag", bagPath}, {"map", mapPath}, {"model", model}} {
					if err := required(r[0], r[1]); err != nil {
						return err
					}
				}
				if !slices.Contains(bag.Models(), model) {
					return usagef("unknown -model %q (one of %s)", model, strings.Join(bag.Models(), ", "))
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
	m, err := bag.ReadMap(mapPath, model)
	if err != nil {
		return err
	}
	want := map[string]bool{}
	for _, t := range m.Topics {
		want[t.Topic] = true
	}
	c, err := readBag(bagPath, func(topic string) bool { return want[topic] }, prog)
	if err != nil {
		return err
	}
	lg, err := bag.Import(c, m, model, bagPath)
	if err != nil {
		return fmt.Errorf("%s: %w", mapPath, err)
	}
	src := fmt.Sprintf("%s (%s) with %s for model %s", bagPath, c.Format, mapPath, model)
	if err := e.writeOut(out, func(w io.Writer) error { return lg.WriteCSV(w, src) }); err != nil {
		return err
	}
	for _, s := range lg.Topics {
		fmt.Fprintf(e.stderr, "import: %s (%s): %d messages, %d rows, %s time\n", s.Topic, s.Type, s.Messages, s.Rows, s.Time)
	}
	dur := 0.0
	if n := len(lg.T); n > 0 {
		dur = lg.T[n-1]
	}
	fmt.Fprintf(e.stderr, "import: %d rows over %.3f s, t = 0 at Unix time %s\n", len(lg.T), dur, bag.FormatTime(lg.Start))
	return nil
}

// readBag is bag.ReadFile with the share of the file read as progress.
func readBag(path string, keep func(string) bool, prog *progress) (*bag.Contents, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	r := &progressReader{r: f, size: st.Size(), prog: prog, name: path}
	c, err := bag.Read(r, st.Size(), keep)
	prog.done()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

type progressReader struct {
	r       io.Reader
	n, size int64
	last    int64
	prog    *progress
	name    string
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.n += int64(n)
	if p.size > 0 && (p.n-p.last)*100 >= p.size {
		p.last = p.n
		p.prog.printf("import: reading %s, %d %%", p.name, p.n*100/p.size)
	}
	return n, err
}
