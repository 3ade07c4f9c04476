package bag

import (
	"bytes"
	"encoding/csv"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/foxglove/mcap/go/mcap"
	"github.com/wheelgrad/wheelgrad/dataset"
)

// maps for each model, over the scenario's topics.
var testMaps = map[string]string{
	"skidsteer": `{"topics": [
		{"topic": "/cmd_vel", "columns": {"vc": "linear.x", "wc": "angular.z"}},
		{"topic": "/mocap/pose", "columns": {"x": "pose.position.x", "y": "pose.position.y", "psi": "pose.orientation.yaw"}}]}`,
	"tire": `{"time": "header", "topics": [
		{"topic": "/joint_states", "columns": {"wl": "velocity[left_wheel]", "wr": "velocity[right_wheel]"}, "scale": {"wr": -1}},
		{"topic": "/tf", "frame_id": "world", "child_frame_id": "robot",
		 "columns": {"x": "transform.translation.x", "y": "transform.translation.y", "psi": "transform.rotation.yaw"}},
		{"topic": "/odom", "time": "log", "child_frame_id": "base_link",
		 "columns": {"u": "twist.twist.linear.x", "v": "twist.twist.linear.y", "r": "twist.twist.angular.z"}}]}`,
	"mecanum": `{"raw_columns": ["p1", "p2", "p3", "p4"], "topics": [
		{"topic": "/wheel_cmd", "columns": {"w1": "data[0]", "w2": "data[1]", "w3": "data[2]", "w4": "data[3]"}, "scale": {"w2": -1}},
		{"topic": "/pwm", "columns": {"p1": "data[3]", "p2": "data[2]", "p3": "data[1]", "p4": "data[0]"}},
		{"topic": "/mocap/pose", "time": "log",
		 "columns": {"x": "pose.position.x", "y": "pose.position.y", "theta": "pose.orientation.yaw"},
		 "offset": {"theta": -1.5707963267948966}}]}`,
	"diffdrive": `{"time": "log", "topics": [
		{"topic": "/joy", "columns": {"uf": "twist.linear.x", "ul": "twist.angular.z"}},
		{"topic": "/joint_states", "time": "header", "columns": {"vr": "velocity[right_wheel]", "vl": "velocity[left_wheel]"}, "scale": {"vr": -0.3, "vl": 0.3}},
		{"topic": "/odom", "columns": {"v": "twist.twist.linear.x", "w": "twist.twist.angular.z"}}]}`,
}

func parseMap(t testing.TB, js, model string) *Map {
	t.Helper()
	var m Map
	if err := dataset.DecodeJSON([]byte(js), "map.json", &m, true); err != nil {
		t.Fatal(err)
	}
	if err := m.Check(model); err != nil {
		t.Fatal(err)
	}
	return &m
}

type wantRow struct {
	t    int64
	vals map[string]float64
}

// expect computes the log the map asks for from the scenario's truth.
func expect(sc *scenario, m *Map) (rows []wantRow, yawCols map[string]bool) {
	yawCols = map[string]bool{}
	type item struct {
		t     int64
		entry int
		vals  map[string]float64
	}
	var items []item
	for i, e := range m.Topics {
		timeSrc := "header"
		if e.Time != "" {
			timeSrc = e.Time
		} else if m.Time != "" {
			timeSrc = m.Time
		}
		for col, p := range e.Columns {
			if strings.HasSuffix(p, ".yaw") {
				yawCols[col] = true
			}
		}
	next:
		for _, tr := range sc.truths[e.Topic] {
			if e.FrameID != "" && strings.TrimPrefix(tr.frame, "/") != e.FrameID || e.ChildFrameID != "" && tr.child != e.ChildFrameID {
				continue
			}
			vals := map[string]float64{}
			for col, p := range e.Columns {
				v, ok := tr.fields[p]
				if !ok {
					continue next
				}
				s, o := 1.0, 0.0
				if x, ok := e.Scale[col]; ok {
					s = x
				}
				if x, ok := e.Offset[col]; ok {
					o = x
				}
				vals[col] = v*s + o
			}
			tm := tr.log
			if timeSrc == "header" && sc.header[e.Topic] {
				tm = tr.stamp
			}
			items = append(items, item{tm, i, vals})
		}
	}
	sort.SliceStable(items, func(a, b int) bool {
		if items[a].t != items[b].t {
			return items[a].t < items[b].t
		}
		return items[a].entry < items[b].entry
	})
	for _, it := range items {
		if n := len(rows); n > 0 && rows[n-1].t == it.t {
			for k, v := range it.vals {
				rows[n-1].vals[k] = v
			}
			continue
		}
		rows = append(rows, wantRow{it.t, it.vals})
	}
	return rows, yawCols
}

func TestImportEveryModel(t *testing.T) {
	for _, format := range []string{"mcap-zstd", "mcap-lz4", "mcap-plain", "mcap-ros1", "ros1-lz4", "ros1-none"} {
		ros1 := strings.Contains(format, "ros1")
		sc := newScenario(ros1, 3)
		var b []byte
		switch format {
		case "mcap-zstd":
			b = writeMCAP(t, sc.streams, mcapOpts{chunked: true, compression: mcap.CompressionZSTD})
		case "mcap-lz4":
			b = writeMCAP(t, sc.streams, mcapOpts{chunked: true, compression: mcap.CompressionLZ4})
		case "mcap-plain":
			b = writeMCAP(t, sc.streams, mcapOpts{})
		case "mcap-ros1":
			b = writeMCAP(t, sc.streams, mcapOpts{chunked: true, compression: mcap.CompressionLZ4, ros1: true})
		default:
			b = writeROS1(t, sc.streams, strings.TrimPrefix(format, "ros1-"))
		}
		for _, model := range Models() {
			t.Run(format+"/"+model, func(t *testing.T) {
				m := parseMap(t, testMaps[model], model)
				c, err := Read(bytes.NewReader(b), int64(len(b)), func(string) bool { return true })
				if err != nil {
					t.Fatal(err)
				}
				wantFormat := "mcap"
				if strings.HasPrefix(format, "ros1") {
					wantFormat = "ros1"
				}
				if c.Format != wantFormat || len(c.Topics) != len(sc.streams) {
					t.Fatalf("format %s with %d topics, want %s with %d", c.Format, len(c.Topics), wantFormat, len(sc.streams))
				}
				lg, err := Import(c, m, model, "run")
				if err != nil {
					t.Fatal(err)
				}
				var out bytes.Buffer
				if err := lg.WriteCSV(&out, "run"); err != nil {
					t.Fatal(err)
				}
				checkCSV(t, out.String(), sc, m)
			})
		}
	}
}

// checkCSV compares the written CSV with the expectation: the header, every
// time exactly, every value exactly (headings to 1e-12: they pass through
// the quaternion), and every empty cell.
func checkCSV(t *testing.T, text string, sc *scenario, m *Map) {
	t.Helper()
	want, yawCols := expect(sc, m)
	first, _, _ := strings.Cut(text, "\n")
	if wantC := "# t = 0 at " + formatNs(want[0].t) + " s"; !strings.HasPrefix(first, wantC) {
		t.Fatalf("first line %q, want it to start with %q", first, wantC)
	}
	r := csv.NewReader(strings.NewReader(text))
	r.Comment = '#'
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	header := recs[0]
	if header[0] != "t" {
		t.Fatalf("header %v", header)
	}
	var cols []string
	for _, e := range m.Topics {
		for c := range e.Columns {
			cols = append(cols, c)
		}
	}
	if got := slices.Sorted(slices.Values(header[1:])); !slices.Equal(got, slices.Sorted(slices.Values(cols))) {
		t.Fatalf("columns %v, want %v", header[1:], cols)
	}
	if len(recs)-1 != len(want) {
		t.Fatalf("%d rows, want %d", len(recs)-1, len(want))
	}
	for k, w := range want {
		rec := recs[k+1]
		tm, err := strconv.ParseFloat(rec[0], 64)
		if err != nil || tm != float64(w.t-want[0].t)/1e9 {
			t.Fatalf("row %d: t = %q, want %v", k+1, rec[0], float64(w.t-want[0].t)/1e9)
		}
		for j, col := range header[1:] {
			wv, filled := w.vals[col]
			cell := rec[j+1]
			if !filled {
				if cell != "" {
					t.Fatalf("row %d (t %s): %s = %q, want empty", k+1, rec[0], col, cell)
				}
				continue
			}
			v, err := strconv.ParseFloat(cell, 64)
			if err != nil {
				t.Fatalf("row %d: %s = %q, want %v", k+1, col, cell, wv)
			}
			if yawCols[col] {
				if math.Abs(v-wv) > 1e-12 {
					t.Fatalf("row %d: heading %s = %v, want %v", k+1, col, v, wv)
				}
			} else if v != wv {
				t.Fatalf("row %d: %s = %v, want %v exactly", k+1, col, v, wv)
			}
		}
	}
}

// TestImportReadsBack: the written log is a valid CSV of the dataset reader
// (strictly increasing t, empty cells where sparse), and the headings cross
// ±π without a jump.
func TestImportReadsBack(t *testing.T) {
	sc := newScenario(false, 5)
	b := writeMCAP(t, sc.streams, mcapOpts{chunked: true, compression: mcap.CompressionZSTD})
	c, err := Read(bytes.NewReader(b), int64(len(b)), func(string) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	lg, err := Import(c, parseMap(t, testMaps["tire"], "tire"), "tire", "run")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	must(t, lg.WriteCSV(&out, "run"))
	spec := dataset.Spec{Time: "t", Columns: []dataset.Column{{Name: "t"}}}
	for _, col := range lg.Columns {
		spec.Columns = append(spec.Columns, dataset.Column{Name: col, Sparse: true})
	}
	tab, err := dataset.Read(&out, "log.csv", spec)
	if err != nil {
		t.Fatal(err)
	}
	psi := tab.Col("psi")
	last, n := math.NaN(), 0
	for _, v := range psi {
		if math.IsNaN(v) {
			continue
		}
		if !math.IsNaN(last) && math.Abs(v-last) > 0.2 {
			t.Fatalf("heading jumps from %v to %v", last, v)
		}
		last = v
		n++
	}
	if n != 90 || last > -math.Pi-1 {
		t.Fatalf("%d headings, last %v: want 90 reaching below -π-1", n, last)
	}
}

func TestYaw(t *testing.T) {
	for _, c := range []struct{ yaw, roll, pitch float64 }{{0.3, 0, 0}, {-3, 0.1, -0.05}, {math.Pi - 1e-9, 0.02, 0.02}, {2, 0.3, 0.2}} {
		q := quat(c.yaw, c.roll, c.pitch)
		if got := Yaw(q[0], q[1], q[2], q[3]); math.Abs(got-c.yaw) > 1e-12 {
			t.Errorf("yaw of %v = %v", c, got)
		}
		// a quaternion scaled by a tracker that does not normalise
		if got := Yaw(3*q[0], 3*q[1], 3*q[2], 3*q[3]); math.Abs(got-c.yaw) > 1e-12 {
			t.Errorf("yaw of 3·%v = %v", c, got)
		}
	}
}

// TestCDRBigEndianAndCDR2: the other encapsulations decode too.
func TestCDRBigEndianAndCDR2(t *testing.T) {
	// geometry_msgs/PoseStamped, stamp 5.25 s, frame "w", big-endian XCDR1:
	// the float64s align to 8 counted after the 4-byte encapsulation.
	be := []byte{0, 0, 0, 0, 0, 0, 0, 5, 0x0e, 0xe6, 0xb2, 0x80, 0, 0, 0, 2, 'w', 0, 0, 0}
	vals := []float64{1, 2, 3, 0, 0, 0, 1}
	for _, v := range vals {
		var b [8]byte
		u := math.Float64bits(v)
		for i := range 8 {
			b[i] = byte(u >> (56 - 8*i))
		}
		be = append(be, b[:]...)
	}
	d, err := newCDR(be)
	if err != nil {
		t.Fatal(err)
	}
	s := msgTypes["geometry_msgs/PoseStamped"].decode(d)
	if d.err != nil || s[0].stamp != 5_250_000_000 || s[0].frame != "w" || s[0].fields["pose.position.z"] != 3 || s[0].fields["pose.orientation.w"] != 1 {
		t.Fatalf("big-endian CDR: %+v, %v", s, d.err)
	}
	// CDR2 little-endian aligns float64 to 4: no padding after the frame id.
	le := []byte{0, 7, 0, 0, 5, 0, 0, 0, 0x80, 0xb2, 0xe6, 0x0e, 2, 0, 0, 0, 'w', 0, 0, 0}
	for _, v := range vals {
		u := math.Float64bits(v)
		for i := range 8 {
			le = append(le, byte(u>>(8*i)))
		}
	}
	d, err = newCDR(le)
	if err != nil {
		t.Fatal(err)
	}
	s = msgTypes["geometry_msgs/PoseStamped"].decode(d)
	if d.err != nil || s[0].stamp != 5_250_000_000 || s[0].fields["pose.position.y"] != 2 {
		t.Fatalf("CDR2: %+v, %v", s, d.err)
	}
	if _, err := newCDR([]byte{0, 2, 0, 0}); err == nil || !strings.Contains(err.Error(), "encapsulation 0x0002") {
		t.Fatalf("PL_CDR: %v", err)
	}
}

func decodeJSONStrict(js string, v any) error {
	return dataset.DecodeJSON([]byte(js), "map.json", v, true)
}
