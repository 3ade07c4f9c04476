package bag

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/wheelgrad/wheelgrad/dataset"
)

// Log is an imported log: asynchronous streams, one row per message.
type Log struct {
	Columns []string    // after t, in the model's order
	T       []float64   // s, relative to Start
	Rows    [][]float64 // values per row and column; NaN where the row's topic does not fill the column
	Start   int64       // absolute time of t = 0, ns since the Unix epoch
	Topics  []TopicStat // per map entry
}

// TopicStat says what one map entry gave.
type TopicStat struct {
	Topic, Type, Time string // Time: "header" or "log"
	Messages, Rows    int
}

type stamped struct {
	t     int64
	entry int
	vals  []float64 // the entry's columns, in its order
}

// Import decodes the messages of the map's topics and builds the model's
// log. bagName names the bag in errors.
func Import(c *Contents, m *Map, model, bagName string) (*Log, error) {
	if err := m.Check(model); err != nil {
		return nil, err
	}
	cols := []string{}
	for _, g := range m.groups(model) {
		for _, col := range g.cols {
			if entryOf(m, col) >= 0 {
				cols = append(cols, col)
			}
		}
	}
	var all []stamped
	stats := make([]TopicStat, len(m.Topics))
	entryCols := make([][]int, len(m.Topics)) // index into cols per entry column
	for i := range m.Topics {
		rows, st, ecols, err := importTopic(c, m, i, cols, bagName)
		if err != nil {
			return nil, err
		}
		stats[i], entryCols[i] = st, ecols
		all = append(all, rows...)
	}
	sort.SliceStable(all, func(a, b int) bool {
		if all[a].t != all[b].t {
			return all[a].t < all[b].t
		}
		return all[a].entry < all[b].entry
	})
	lg := &Log{Columns: cols, Topics: stats}
	if len(all) > 0 {
		lg.Start = all[0].t
	}
	for k, s := range all {
		if k > 0 && s.t == all[k-1].t {
			// messages of different topics at the same time share a row, so
			// that t increases strictly (a topic's own duplicates were refused)
		} else {
			row := make([]float64, len(cols))
			for j := range row {
				row[j] = math.NaN()
			}
			lg.Rows = append(lg.Rows, row)
			lg.T = append(lg.T, float64(s.t-lg.Start)/1e9)
		}
		row := lg.Rows[len(lg.Rows)-1]
		for j, ci := range entryCols[s.entry] {
			row[ci] = s.vals[j]
		}
	}
	return lg, nil
}

func entryOf(m *Map, col string) int {
	for i, e := range m.Topics {
		for c := range e.Columns {
			if strings.EqualFold(c, col) {
				return i
			}
		}
	}
	return -1
}

func trimSlash(s string) string { return strings.TrimPrefix(s, "/") }

// importTopic decodes one map entry's topic into time-stamped rows.
func importTopic(c *Contents, m *Map, i int, cols []string, bagName string) ([]stamped, TopicStat, []int, error) {
	e := m.Topics[i]
	w := e.where(i)
	fail := func(format string, a ...any) ([]stamped, TopicStat, []int, error) {
		return nil, TopicStat{}, nil, fmt.Errorf("%s: %s", w, fmt.Sprintf(format, a...))
	}
	t := c.Topics[e.Topic]
	if t == nil {
		names := c.Names()
		if len(names) > 12 {
			names = append(names[:12], fmt.Sprintf("… %d topics", len(c.Topics)))
		}
		if len(names) == 0 {
			names = []string{"none"}
		}
		return fail("topic %s is not in %s (its topics: %s)", e.Topic, bagName, strings.Join(names, ", "))
	}
	typ := normType(t.Type)
	switch {
	case typ == "" && e.Type == "":
		return fail("topic %s has no schema in %s, so its message type is unknown; give its \"type\" in the map", e.Topic, bagName)
	case typ == "":
		typ = normType(e.Type)
	case e.Type != "" && normType(e.Type) != typ:
		return fail("the map says type %s, but %s carries %s on %s", e.Type, bagName, t.Type, e.Topic)
	}
	mt := msgTypes[typ]
	if mt == nil {
		return fail("topic %s has type %s, which import does not decode (it decodes %s)", e.Topic, typ, strings.Join(SupportedTypes(), ", "))
	}
	if t.Encoding != "cdr" && t.Encoding != "ros1" {
		return fail("topic %s has message encoding %q; import decodes cdr (ROS 2) and ros1", e.Topic, t.Encoding)
	}
	keys := slices.Sorted(maps.Keys(e.Columns))
	paths := make([]string, len(keys))
	ecols := make([]int, len(keys))
	for k, col := range keys {
		paths[k] = strings.TrimSpace(e.Columns[col])
		if err := mt.checkPath(paths[k]); err != nil {
			return fail("column %q: %v", col, err)
		}
		ecols[k] = slices.IndexFunc(cols, func(s string) bool { return strings.EqualFold(s, col) })
	}
	if mt.tf && (e.FrameID == "" || e.ChildFrameID == "") {
		return fail("%s on %s holds transforms between many frames: give \"frame_id\" and \"child_frame_id\" of the one to use", typ, e.Topic)
	}
	if e.ChildFrameID != "" && !mt.tf && typ != "nav_msgs/Odometry" {
		return fail("child_frame_id applies to transforms and nav_msgs/Odometry, not %s", typ)
	}
	if e.FrameID != "" && !mt.header {
		return fail("frame_id given, but %s has no header", typ)
	}
	timeSrc := cmp(e.Time, cmp(m.Time, "header"))
	if !mt.header {
		if e.Time == "header" {
			return fail("\"time\": \"header\", but %s has no header (its rows take the log time)", typ)
		}
		timeSrc = "log"
	}
	if t.Count == 0 {
		return fail("topic %s has no messages in %s", e.Topic, bagName)
	}
	st := TopicStat{Topic: e.Topic, Type: typ, Time: timeSrc, Messages: len(t.Messages)}
	var rows []stamped
	found := make([]bool, len(paths))
	matched := false // a sample passed the frame filter
	frames := map[string]bool{}
	for n, msg := range t.Messages {
		at := func() string {
			return fmt.Sprintf("message %d (log time %s)", n+1, formatNs(msg.LogTime))
		}
		var d *dec
		if t.Encoding == "cdr" {
			var err error
			if d, err = newCDR(msg.Data); err != nil {
				return fail("%s: %v", at(), err)
			}
		} else {
			d = newROS1(msg.Data)
		}
		samples := mt.decode(d)
		if d.err != nil {
			return fail("%s: cannot decode %s: %v", at(), typ, d.err)
		}
		for _, s := range samples {
			if mt.tf || e.FrameID != "" || e.ChildFrameID != "" {
				frames[trimSlash(s.frame)+" → "+trimSlash(s.child)] = true
			}
			if (e.FrameID != "" && trimSlash(s.frame) != trimSlash(e.FrameID)) ||
				(e.ChildFrameID != "" && trimSlash(s.child) != trimSlash(e.ChildFrameID)) {
				continue
			}
			matched = true
			for _, p := range paths {
				if arr, _, ok := strings.Cut(p, "["); ok && s.bad[arr] != "" {
					return fail("%s: %s", at(), s.bad[arr])
				}
			}
			vals := make([]float64, len(paths))
			all := true
			for k, p := range paths {
				_, ok := s.fields[p]
				found[k] = found[k] || ok
				all = all && ok
			}
			if !all {
				continue // e.g. a JointState from another driver, without these joints
			}
			for k, p := range paths {
				v := s.fields[p]
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return fail("%s: %s is %v", at(), p, v)
				}
				vals[k] = v
			}
			tm := msg.LogTime
			if timeSrc == "header" {
				if s.stamp == 0 {
					return fail("%s: the header stamp is zero; use \"time\": \"log\" for this topic", at())
				}
				tm = s.stamp
			}
			rows = append(rows, stamped{t: tm, entry: i, vals: vals})
		}
	}
	if len(rows) == 0 {
		if !matched {
			return fail("no message on %s is from frame %q to %q (frames seen: %s)", e.Topic, e.FrameID, e.ChildFrameID, strings.Join(slices.Sorted(maps.Keys(frames)), ", "))
		}
		for k, p := range paths {
			if !found[k] {
				return fail("no message on %s has field %s", e.Topic, p)
			}
		}
		return fail("no message on %s has all of %s", e.Topic, strings.Join(paths, ", "))
	}
	sort.SliceStable(rows, func(a, b int) bool { return rows[a].t < rows[b].t })
	for k := 1; k < len(rows); k++ {
		if rows[k].t == rows[k-1].t {
			return fail("two messages on %s at the same time %s (%s time)", e.Topic, formatNs(rows[k].t), timeSrc)
		}
	}
	for k, p := range paths {
		if strings.HasSuffix(p, ".yaw") {
			prev := rows[0].vals[k]
			for _, r := range rows[1:] {
				d := r.vals[k] - prev
				d -= 2 * math.Pi * math.Round(d/(2*math.Pi))
				r.vals[k] = prev + d
				prev = r.vals[k]
			}
		}
		scale, offset := 1.0, 0.0
		if v, ok := e.Scale[keys[k]]; ok {
			scale = v
		}
		if v, ok := e.Offset[keys[k]]; ok {
			offset = v
		}
		for _, r := range rows {
			r.vals[k] = r.vals[k]*scale + offset
			if math.IsInf(r.vals[k], 0) {
				return fail("column %q overflows at time %s", keys[k], formatNs(r.t))
			}
		}
	}
	st.Rows = len(rows)
	return rows, st, ecols, nil
}

func cmp(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// FormatTime writes a time in ns as seconds with all nine decimals.
func FormatTime(ns int64) string { return formatNs(ns) }

func formatNs(ns int64) string {
	sign := ""
	u := uint64(ns)
	if ns < 0 {
		sign, u = "-", uint64(-ns)
	}
	return fmt.Sprintf("%s%d.%09d", sign, u/1e9, u%1e9)
}

// WriteCSV writes the log: a '#' comment with the absolute start time and
// the source, the header t,COLUMNS…, and one row per message (empty cells
// where its topic fills nothing).
func (lg *Log) WriteCSV(w io.Writer, source string) error {
	if _, err := fmt.Fprintf(w, "# t = 0 at %s s (Unix time, ns precision); imported from %s\n", formatNs(lg.Start), strings.ReplaceAll(source, "\n", " ")); err != nil {
		return err
	}
	cw := dataset.NewWriter(w)
	if err := cw.WriteHeader(append([]string{"t"}, lg.Columns...)...); err != nil {
		return err
	}
	row := make([]float64, 1+len(lg.Columns))
	for k, r := range lg.Rows {
		row[0] = lg.T[k]
		copy(row[1:], r)
		if err := cw.WriteFloats(row...); err != nil {
			return err
		}
	}
	return cw.Flush()
}
