package robots

import (
	"fmt"
	"io"

	"github.com/wheelgrad/wheelgrad/dataset/bag"
)

// A ROS 2 MCAP file or a ROS 1 bag to a model's log CSV (`wheelgrad
// import`; package dataset/bag, the map JSON in docs/formats.md).

// BagModels are the models a bag can be imported for (bag.Models).
func BagModels() []string { return bag.Models() }

// BagImport is one import: the bag, the map JSON of which topic and field
// feed which log column, the model whose log is written.
type BagImport struct {
	Bag, Map, Model string
	Sink            Sink // progress: the share of the bag read
}

// ImportedBag is an imported log: WriteCSV writes it (a comment line names
// the source), Summary are the report's lines (per topic its messages,
// rows and time, then the log's rows, duration and time origin).
type ImportedBag struct {
	WriteCSV func(io.Writer) error
	Summary  []string
}

// ImportBag reads req.Map, then the topics it names from req.Bag, into the
// model's log. Errors name the file they are about.
func ImportBag(req BagImport) (*ImportedBag, error) {
	sink := req.Sink
	if sink == nil {
		sink = Discard
	}
	m, err := bag.ReadMap(req.Map, req.Model)
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, t := range m.Topics {
		want[t.Topic] = true
	}
	c, err := readBag(req.Bag, func(topic string) bool { return want[topic] }, sink)
	if err != nil {
		return nil, err
	}
	lg, err := bag.Import(c, m, req.Model, req.Bag)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", req.Map, err)
	}
	src := fmt.Sprintf("%s (%s) with %s for model %s", req.Bag, c.Format, req.Map, req.Model)
	out := &ImportedBag{WriteCSV: func(w io.Writer) error { return lg.WriteCSV(w, src) }}
	for _, s := range lg.Topics {
		out.Summary = append(out.Summary, fmt.Sprintf("import: %s (%s): %d messages, %d rows, %s time", s.Topic, s.Type, s.Messages, s.Rows, s.Time))
	}
	dur := 0.0
	if n := len(lg.T); n > 0 {
		dur = lg.T[n-1]
	}
	out.Summary = append(out.Summary, fmt.Sprintf("import: %d rows over %.3f s, t = 0 at Unix time %s", len(lg.T), dur, bag.FormatTime(lg.Start)))
	return out, nil
}

// readBag is bag.ReadFile with the share of the file read as progress.
func readBag(path string, keep func(string) bool, sink Sink) (*bag.Contents, error) {
	c, err := bag.ReadFileThrough(path, keep, func(r io.Reader, size int64) io.Reader {
		return &progressReader{r: r, size: size, sink: sink, name: path}
	})
	sink.Done()
	return c, err
}

type progressReader struct {
	r       io.Reader
	n, size int64
	last    int64
	sink    Sink
	name    string
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.n += int64(n)
	if p.size > 0 && (p.n-p.last)*100 >= p.size {
		p.last = p.n
		p.sink.Progress("import: reading %s, %d %%", p.name, p.n*100/p.size)
	}
	return n, err
}
