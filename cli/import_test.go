package cli

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foxglove/mcap/go/mcap"
)

// cdrLE encodes float64s after a header (stamp, frame) as ROS 2 CDR.
type cdrLE struct{ b []byte }

func newCDRLE() *cdrLE { return &cdrLE{b: []byte{0, 1, 0, 0}} }
func (c *cdrLE) pad(n int) {
	for (len(c.b)-4)%n != 0 {
		c.b = append(c.b, 0)
	}
}
func (c *cdrLE) u32(v uint32) { c.pad(4); c.b = binary.LittleEndian.AppendUint32(c.b, v) }
func (c *cdrLE) f64(vs ...float64) {
	for _, v := range vs {
		c.pad(8)
		c.b = binary.LittleEndian.AppendUint64(c.b, math.Float64bits(v))
	}
}

// writeTestMCAP writes /cmd_vel (Twist, 10 Hz) and /pose (PoseStamped,
// 20 Hz, header stamps 4 ms before the log time) over 1 s.
func writeTestMCAP(t *testing.T, path string) {
	var buf bytes.Buffer
	w, err := mcap.NewWriter(&buf, &mcap.WriterOptions{Chunked: true, ChunkSize: 1024, Compression: mcap.CompressionZSTD})
	if err != nil {
		t.Fatal(err)
	}
	check := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	const t0 = 1_700_000_000_000_000_000
	check(w.WriteHeader(&mcap.Header{Profile: "ros2"}))
	check(w.WriteSchema(&mcap.Schema{ID: 1, Name: "geometry_msgs/msg/Twist", Encoding: "ros2msg"}))
	check(w.WriteSchema(&mcap.Schema{ID: 2, Name: "geometry_msgs/msg/PoseStamped", Encoding: "ros2msg"}))
	check(w.WriteChannel(&mcap.Channel{ID: 1, SchemaID: 1, Topic: "/cmd_vel", MessageEncoding: "cdr"}))
	check(w.WriteChannel(&mcap.Channel{ID: 2, SchemaID: 2, Topic: "/pose", MessageEncoding: "cdr"}))
	// a type import does not decode, and a channel without a schema
	check(w.WriteSchema(&mcap.Schema{ID: 3, Name: "sensor_msgs/msg/LaserScan", Encoding: "ros2msg"}))
	check(w.WriteChannel(&mcap.Channel{ID: 3, SchemaID: 3, Topic: "/scan", MessageEncoding: "cdr"}))
	check(w.WriteChannel(&mcap.Channel{ID: 4, SchemaID: 0, Topic: "/raw", MessageEncoding: "cdr"}))
	check(w.WriteMessage(&mcap.Message{ChannelID: 3, LogTime: t0, Data: []byte{0, 1, 0, 0}}))
	check(w.WriteMessage(&mcap.Message{ChannelID: 4, LogTime: t0, Data: []byte{0, 1, 0, 0}}))
	for k := range 20 {
		log := uint64(t0 + 50_000_000*k + 2_000_000)
		if k%2 == 0 {
			c := newCDRLE()
			c.f64(0.5, 0, 0, 0, 0, 0.25*float64(k))
			check(w.WriteMessage(&mcap.Message{ChannelID: 1, LogTime: log - 1_000_000, Data: c.b}))
		}
		c := newCDRLE()
		stamp := log - 4_000_000
		c.u32(uint32(stamp / 1e9))
		c.u32(uint32(stamp % 1e9))
		c.u32(6)
		c.b = append(c.b, "world\x00"...)
		yaw := 3.0 + 0.1*float64(k) // crosses π
		c.f64(0.01*float64(k), 0.02, 0, 0, 0, math.Sin(yaw/2), math.Cos(yaw/2))
		check(w.WriteMessage(&mcap.Message{ChannelID: 2, LogTime: log, Data: c.b}))
	}
	check(w.Close())
	check(os.WriteFile(path, buf.Bytes(), 0o644))
}

func TestImportCommand(t *testing.T) {
	dir := t.TempDir()
	bagPath := filepath.Join(dir, "run.mcap")
	writeTestMCAP(t, bagPath)
	mapPath := filepath.Join(dir, "map.json")
	os.WriteFile(mapPath, []byte(`{"topics": [
		{"topic": "/cmd_vel", "columns": {"vc": "linear.x", "wc": "angular.z"}},
		{"topic": "/pose", "columns": {"x": "pose.position.x", "y": "pose.position.y", "psi": "pose.orientation.yaw"}}]}`), 0o644)
	out := filepath.Join(dir, "log.csv")
	st, _, errOut := runCLI("import", "-bag", bagPath, "-map", mapPath, "-model", "skidsteer", "-out", out)
	if st != 0 {
		t.Fatalf("status %d: %s", st, errOut)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	// first row: the pose at stamp t0 - 2 ms (before the first command at t0 + 1 ms)
	if !strings.HasPrefix(lines[0], "# t = 0 at 1699999999.998000000 s") || lines[1] != "t,vc,wc,x,y,psi" ||
		lines[2] != "0,,,0,0.02,3" || lines[3] != "0.003,0.5,0,,," || len(lines) != 2+30 {
		t.Fatalf("log:\n%s", strings.Join(lines[:min(6, len(lines))], "\n"))
	}
	if !strings.Contains(errOut, "/pose (geometry_msgs/PoseStamped): 20 messages, 20 rows, header time") {
		t.Errorf("stderr: %s", errOut)
	}
	// the heading is unwrapped past π: the last pose row has psi = 4.9
	last := strings.Split(lines[len(lines)-1], ",")
	if psi := last[5]; !strings.HasPrefix(psi, "4.9") && !strings.HasPrefix(psi, "4.8999") {
		t.Errorf("last row %v: psi not unwrapped", last)
	}

	// bad input: one line, exit 1, no output file
	trunc := filepath.Join(dir, "cut.mcap")
	full, _ := os.ReadFile(bagPath)
	os.WriteFile(trunc, full[:len(full)*2/3], 0o644)
	badMap := filepath.Join(dir, "bad.json")
	os.WriteFile(badMap, []byte(`{"topics": [{"topic": "/odom", "columns": {"vc": "twist.twist.linear.x", "wc": "twist.twist.angular.z"}}]}`), 0o644)
	scanMap := filepath.Join(dir, "scan.json")
	os.WriteFile(scanMap, []byte(`{"topics": [{"topic": "/cmd_vel", "columns": {"vc": "linear.x", "wc": "angular.z"}},
		{"topic": "/scan", "columns": {"x": "ranges[0]", "y": "ranges[1]", "psi": "angle_min"}}]}`), 0o644)
	rawMap := filepath.Join(dir, "raw.json")
	os.WriteFile(rawMap, []byte(`{"topics": [{"topic": "/cmd_vel", "columns": {"vc": "linear.x", "wc": "angular.z"}},
		{"topic": "/raw", "columns": {"x": "pose.position.x", "y": "pose.position.y", "psi": "pose.orientation.yaw"}}]}`), 0o644)
	typoMap := filepath.Join(dir, "typo.json")
	os.WriteFile(typoMap, []byte(`{"topics": [{"topic": "/cmd_vel", "colums": {}}]}`), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-bag", trunc, "-map", mapPath}, "cut.mcap: truncated"},
		{[]string{"-bag", bagPath, "-map", badMap}, "topic /odom is not in " + bagPath + " (its topics: /cmd_vel (geometry_msgs/msg/Twist), /pose (geometry_msgs/msg/PoseStamped), /raw (no schema), /scan (sensor_msgs/msg/LaserScan))"},
		{[]string{"-bag", bagPath, "-map", typoMap}, `key "colums"`},
		{[]string{"-bag", bagPath, "-map", scanMap}, "topics[1] (/scan): topic /scan has type sensor_msgs/LaserScan, which import does not decode"},
		{[]string{"-bag", bagPath, "-map", rawMap}, `topics[1] (/raw): topic /raw has no schema in ` + bagPath + `, so its message type is unknown; give its "type" in the map`},
		{[]string{"-bag", mapPath, "-map", mapPath}, "not an MCAP file or a ROS 1 bag"},
		{[]string{"-bag", filepath.Join(dir, "none.mcap"), "-map", mapPath}, "no such file"},
	} {
		o := filepath.Join(dir, "bad-out.csv")
		st, _, errOut := runCLI(append([]string{"import", "-model", "skidsteer", "-out", o}, c.args...)...)
		if st != 1 || !strings.Contains(errOut, c.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: status %d, stderr %q; want 1 and %q", c.args, st, errOut, c.want)
		}
		if _, err := os.Stat(o); err == nil {
			t.Errorf("%v: wrote %s", c.args, o)
		}
	}
	// -v shows progress even when stderr is not a terminal (plain lines, at most one a second)
	if st, _, errOut := runCLI("import", "-v", "-bag", bagPath, "-map", mapPath, "-model", "skidsteer", "-out", out); st != 0 || !strings.Contains(errOut, "import: reading "+bagPath+", ") || !strings.Contains(errOut, "t = 0 at Unix time 1699999999.998000000\n") {
		t.Errorf("-v: status %d, stderr %q", st, errOut)
	}
	for _, args := range [][]string{
		{"import", "-map", mapPath, "-model", "skidsteer"},
		{"import", "-bag", bagPath, "-model", "skidsteer"},
		{"import", "-bag", bagPath, "-map", mapPath},
		{"import", "-bag", bagPath, "-map", mapPath, "-model", "tank"},
	} {
		if st, _, errOut := runCLI(args...); st != 2 {
			t.Errorf("%v: status %d (%s), want 2", args, st, errOut)
		}
	}
}
