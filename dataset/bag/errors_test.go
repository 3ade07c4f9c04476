package bag

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/foxglove/go-rosbag"
	"github.com/foxglove/mcap/go/mcap"
)

func importErr(t *testing.T, b []byte, mapJSON, model string) error {
	t.Helper()
	c, err := Read(bytes.NewReader(b), int64(len(b)), func(string) bool { return true })
	if err != nil {
		return err
	}
	var m Map
	if err := decodeMap(mapJSON, &m); err != nil {
		return err
	}
	_, err = Import(c, &m, model, "run.mcap")
	return err
}

func decodeMap(js string, m *Map) error {
	return decodeJSONStrict(js, m)
}

func wantErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one with %q", parts)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") {
		t.Errorf("error is not one line: %q", msg)
	}
	for _, p := range parts {
		if !strings.Contains(msg, p) {
			t.Errorf("error %q does not say %q", msg, p)
		}
	}
}

func TestImportErrors(t *testing.T) {
	sc := newScenario(false, 1)
	b := writeMCAP(t, sc.streams, mcapOpts{chunked: true, compression: mcap.CompressionZSTD})
	ss := `{"topics": [{"topic": "/cmd_vel", "columns": {"vc": "linear.x", "wc": "angular.z"}}`
	cases := []struct {
		name, model, js string
		want            []string
	}{
		{"unknown topic", "skidsteer", ss + `, {"topic": "/vicon", "columns": {"x": "pose.position.x", "y": "pose.position.y", "psi": "pose.orientation.yaw"}}]}`,
			[]string{"topics[1] (/vicon)", "topic /vicon is not in run.mcap", "/cmd_vel (geometry_msgs/msg/Twist)"}},
		{"unsupported type", "skidsteer", ss + `, {"topic": "/scan", "columns": {"x": "ranges[0]", "y": "ranges[1]", "psi": "angle_min"}}]}`,
			[]string{"/scan has type sensor_msgs/LaserScan, which import does not decode", "nav_msgs/Odometry"}},
		{"type disagrees", "skidsteer", `{"topics": [{"topic": "/cmd_vel", "type": "geometry_msgs/TwistStamped", "columns": {"vc": "twist.linear.x", "wc": "twist.angular.z"}}]}`,
			[]string{"the map says type geometry_msgs/TwistStamped", "geometry_msgs/msg/Twist"}},
		{"bad field", "skidsteer", `{"topics": [{"topic": "/cmd_vel", "columns": {"vc": "linear.x", "wc": "angular.q"}}]}`,
			[]string{`column "wc"`, `no field "angular.q"`, "angular.z"}},
		{"missing joint", "tire", `{"topics": [{"topic": "/joint_states", "columns": {"wl": "velocity[left_wheel]", "wr": "velocity[right_wheel_joint]"}}]}`,
			[]string{"no message on /joint_states has field velocity[right_wheel_joint]"}},
		{"tf without frames", "tire", `{"topics": [{"topic": "/joint_states", "columns": {"wl": "velocity[left_wheel]", "wr": "velocity[right_wheel]"}},
			{"topic": "/tf", "columns": {"x": "transform.translation.x", "y": "transform.translation.y", "psi": "transform.rotation.yaw"}}]}`,
			[]string{"topics[1] (/tf)", `give "frame_id" and "child_frame_id"`}},
		{"tf frames absent", "tire", `{"topics": [{"topic": "/joint_states", "columns": {"wl": "velocity[left_wheel]", "wr": "velocity[right_wheel]"}},
			{"topic": "/tf", "frame_id": "map", "child_frame_id": "robot", "columns": {"x": "transform.translation.x", "y": "transform.translation.y", "psi": "transform.rotation.yaw"}}]}`,
			[]string{`no message on /tf is from frame "map" to "robot"`, "world → robot", "odom → base_link"}},
		{"frame on headerless", "skidsteer", `{"topics": [{"topic": "/cmd_vel", "frame_id": "base", "columns": {"vc": "linear.x", "wc": "angular.z"}}]}`,
			[]string{"frame_id given, but geometry_msgs/Twist has no header"}},
		{"array index beyond", "mecanum", `{"topics": [{"topic": "/wheel_cmd", "columns": {"w1": "data[0]", "w2": "data[1]", "w3": "data[2]", "w4": "data[4]"}}]}`,
			[]string{"no message on /wheel_cmd has field data[4]"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantErr(t, importErr(t, b, c.js, c.model), c.want...)
		})
	}
}

func TestMapErrors(t *testing.T) {
	cmd := `{"topic": "/cmd_vel", "columns": {"vc": "linear.x", "wc": "angular.z"}}`
	cases := []struct {
		name, model, js string
		want            []string
	}{
		{"unknown column", "skidsteer", `{"topics": [` + cmd + `, {"topic": "/p", "columns": {"heading": "pose.orientation.yaw"}}]}`,
			[]string{`topics[1] (/p): "heading" is not a skidsteer log column`, "vc, wc, wl, wr, x, y, psi"}},
		{"column twice", "skidsteer", `{"topics": [` + cmd + `, {"topic": "/c2", "columns": {"vc": "linear.x", "wc": "angular.z"}}]}`,
			[]string{`column "vc" is also filled by topics[0] (/cmd_vel)`}},
		{"incomplete group", "skidsteer", `{"topics": [` + cmd + `, {"topic": "/p", "columns": {"x": "pose.position.x", "y": "pose.position.y"}}]}`,
			[]string{"fills x, y but not psi"}},
		{"split group", "mecanum", `{"topics": [{"topic": "/a", "columns": {"w1": "data[0]", "w2": "data[1]"}}, {"topic": "/b", "columns": {"w3": "data[0]", "w4": "data[1]"}}]}`,
			[]string{"columns w1, w2, w3, w4 come from different topics (/a and /b)"}},
		{"no commands", "tire", `{"topics": [{"topic": "/p", "columns": {"x": "pose.position.x", "y": "pose.position.y", "psi": "pose.orientation.yaw"}}]}`,
			[]string{"fills no command columns of a tire log (wl,wr)"}},
		{"bad time", "skidsteer", `{"time": "publish", "topics": [` + cmd + `]}`, []string{`time is "publish", not "header" or "log"`}},
		{"scale of other column", "skidsteer", `{"topics": [{"topic": "/cmd_vel", "columns": {"vc": "linear.x", "wc": "angular.z"}, "scale": {"psi": 2}}]}`,
			[]string{`scale of "psi", which this topic does not fill`}},
		{"zero scale", "skidsteer", `{"topics": [{"topic": "/cmd_vel", "columns": {"vc": "linear.x", "wc": "angular.z"}, "scale": {"vc": 0}}]}`,
			[]string{`scale of "vc" is 0`}},
		{"raw column clash", "mecanum", `{"raw_columns": ["x"], "topics": [` + cmd + `]}`, []string{`raw_columns: "x" is already a mecanum column`}},
		{"no topics", "diffdrive", `{"topics": []}`, []string{"names no topics"}},
		{"unknown model", "tank", `{"topics": [` + cmd + `]}`, []string{`unknown model "tank"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var m Map
			if err := decodeMap(c.js, &m); err != nil {
				t.Fatal(err)
			}
			wantErr(t, m.Check(c.model), c.want...)
		})
	}
}

// TestBadMessages: values and stamps that cannot go into a log.
func TestBadMessages(t *testing.T) {
	twist := func(v float64) []byte {
		e := newEnc(false)
		e.twist([3]float64{v, 0, 0}, [3]float64{0, 0, 0.1})
		return e.b
	}
	pose := func(stamp int64) []byte {
		e := newEnc(false)
		e.header(stamp, "world")
		e.pose([3]float64{1, 2, 0}, quat(0.5, 0, 0))
		return e.b
	}
	ssMap := `{"topics": [{"topic": "/cmd_vel", "columns": {"vc": "linear.x", "wc": "angular.z"}},
		{"topic": "/pose", "columns": {"x": "pose.position.x", "y": "pose.position.y", "psi": "pose.orientation.yaw"}}]}`
	mk := func(cmd []tmsg, poses []tmsg) []byte {
		return writeMCAP(t, []stream{{topic: "/cmd_vel", typ: "geometry_msgs/Twist", msgs: cmd}, {topic: "/pose", typ: "geometry_msgs/PoseStamped", msgs: poses}}, mcapOpts{})
	}
	good := []tmsg{{t0, twist(0.5)}, {t0 + 1e8, twist(0.6)}}
	wantErr(t, importErr(t, mk([]tmsg{{t0, twist(0.5)}, {t0 + 1e8, twist(math.NaN())}}, []tmsg{{t0, pose(t0)}}), ssMap, "skidsteer"),
		"topics[0] (/cmd_vel): message 2 (log time 1700000000.223456789)", "linear.x is NaN")
	wantErr(t, importErr(t, mk(good, []tmsg{{t0, pose(0)}}), ssMap, "skidsteer"),
		"topics[1] (/pose): message 1", `header stamp is zero; use "time": "log"`)
	wantErr(t, importErr(t, mk(good, []tmsg{{t0, pose(t0 + 5)}, {t0 + 9, pose(t0 + 5)}}), ssMap, "skidsteer"),
		"two messages on /pose at the same time 1700000000.123456794 (header time)")
	wantErr(t, importErr(t, mk(good, []tmsg{{t0, []byte{0, 1, 0, 0, 1, 2}}}), ssMap, "skidsteer"),
		"topics[1] (/pose): message 1", "cannot decode geometry_msgs/PoseStamped: message ends early")
	wantErr(t, importErr(t, mk(good, nil), ssMap, "skidsteer"), "topic /pose has no messages in run.mcap")
	// a topic with messages of another topic's time: both share a row
	c, err := Read(bytes.NewReader(mk(good, []tmsg{{t0 + 1e8, pose(t0 + 1e8)}})), 1<<20, func(string) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	var m Map
	must(t, decodeMap(ssMap, &m))
	lg, err := Import(c, &m, "skidsteer", "run")
	if err != nil {
		t.Fatal(err)
	}
	if len(lg.Rows) != 2 || lg.T[1] != 0.1 || lg.Rows[1][0] != 0.6 || lg.Rows[1][2] != 1 {
		t.Fatalf("rows at one time not merged: %v %v", lg.T, lg.Rows)
	}
}

// TestMissingSchema: a channel without a schema cannot be decoded unless
// the map names its type.
func TestMissingSchema(t *testing.T) {
	e := newEnc(false)
	e.twist([3]float64{0.5, 0, 0}, [3]float64{0, 0, 0.1})
	b := writeMCAP(t, []stream{{topic: "/cmd_vel", typ: "geometry_msgs/Twist", noSchema: true, msgs: []tmsg{{t0, e.b}}}}, mcapOpts{chunked: true})
	js := `{"topics": [{"topic": "/cmd_vel", "columns": {"vc": "linear.x", "wc": "angular.z"}}]}`
	wantErr(t, importErr(t, b, js, "skidsteer"), "topic /cmd_vel has no schema in run.mcap", `give its "type" in the map`)
	js = `{"topics": [{"topic": "/cmd_vel", "type": "geometry_msgs/msg/Twist", "columns": {"vc": "linear.x", "wc": "angular.z"}}]}`
	if err := importErr(t, b, js, "skidsteer"); err != nil {
		t.Fatal(err)
	}
}

func TestUnsupportedEncoding(t *testing.T) {
	var buf bytes.Buffer
	w, err := mcap.NewWriter(&buf, &mcap.WriterOptions{})
	must(t, err)
	must(t, w.WriteHeader(&mcap.Header{}))
	must(t, w.WriteSchema(&mcap.Schema{ID: 1, Name: "geometry_msgs/msg/Twist", Encoding: "jsonschema"}))
	must(t, w.WriteChannel(&mcap.Channel{ID: 1, SchemaID: 1, Topic: "/cmd_vel", MessageEncoding: "json"}))
	must(t, w.WriteMessage(&mcap.Message{ChannelID: 1, LogTime: uint64(t0), Data: []byte(`{"linear":{"x":1}}`)}))
	must(t, w.Close())
	js := `{"topics": [{"topic": "/cmd_vel", "columns": {"vc": "linear.x", "wc": "angular.z"}}]}`
	wantErr(t, importErr(t, buf.Bytes(), js, "skidsteer"), `message encoding "json"`)
}

// TestNamedTopicsAbsent: a bag that has none of the map's topics.
func TestNamedTopicsAbsent(t *testing.T) {
	e := newEnc(true)
	e.header(t0, "laser")
	b := writeROS1(t, []stream{{topic: "/scan", typ: "sensor_msgs/LaserScan", msgs: []tmsg{{t0, e.b}}}}, "none")
	js := `{"topics": [{"topic": "/cmd_vel", "columns": {"vc": "linear.x", "wc": "angular.z"}}]}`
	wantErr(t, importErr(t, b, js, "skidsteer"), "topic /cmd_vel is not in run.mcap (its topics: /scan (sensor_msgs/LaserScan))")
}

// TestTruncated: every prefix of a bag is refused as truncated (never read
// as a shorter recording), and so is a ROS 1 bag whose index was never
// written.
func TestTruncated(t *testing.T) {
	sc := newScenario(false, 2)
	sc.streams = sc.streams[:2]
	sc1 := newScenario(true, 2)
	sc1.streams = sc1.streams[:2]
	bags := map[string][]byte{
		"mcap-zstd":  writeMCAP(t, sc.streams, mcapOpts{chunked: true, compression: mcap.CompressionZSTD}),
		"mcap-plain": writeMCAP(t, sc.streams, mcapOpts{}),
		"ros1-lz4":   writeROS1(t, sc1.streams, "lz4"),
		"ros1-none":  writeROS1(t, sc1.streams, "none"),
	}
	for name, b := range bags {
		step := max(1, len(b)/400)
		for n := 0; n < len(b); n += step {
			_, err := Read(bytes.NewReader(b[:n]), int64(n), func(string) bool { return true })
			if err == nil {
				t.Fatalf("%s cut at %d of %d bytes: no error", name, n, len(b))
			}
			if n > 0 && !errors.Is(err, ErrTruncated) {
				t.Fatalf("%s cut at %d of %d bytes: %v, want ErrTruncated", name, n, len(b), err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("%s cut at %d: error not one line: %q", name, n, err)
			}
		}
	}
	// an interrupted ROS 1 recording: index position 0
	b := bytes.Clone(bags["ros1-none"])
	i := bytes.Index(b, []byte("index_pos="))
	copy(b[i+len("index_pos="):], make([]byte, 8))
	_, err := Read(bytes.NewReader(b), int64(len(b)), func(string) bool { return true })
	if !errors.Is(err, ErrTruncated) || !strings.Contains(err.Error(), "rosbag reindex") {
		t.Fatalf("unindexed bag: %v", err)
	}
	_, err = Read(bytes.NewReader([]byte("hello, world, not a bag")), 23, func(string) bool { return true })
	if !errors.Is(err, ErrFormat) {
		t.Fatalf("not a bag: %v", err)
	}
}

// TestCorruptChunkNoPanic: a chunk whose compression name claims more
// bytes than the lexer's fixed buffer makes mcap v1.9.0 panic; ReadMCAP
// turns it into an error.
func TestCorruptChunkNoPanic(t *testing.T) {
	le := binary.LittleEndian
	b := append([]byte(nil), mcapMagic...)
	hdr := le.AppendUint32(nil, 4)
	hdr = append(hdr, "ros2"...)
	hdr = le.AppendUint32(hdr, 0)
	b = append(b, byte(mcap.OpHeader))
	b = le.AppendUint64(b, uint64(len(hdr)))
	b = append(b, hdr...)
	chunk := make([]byte, 8+8+8+4)
	chunk = le.AppendUint32(chunk, 100) // compression name length
	chunk = append(chunk, make([]byte, 120)...)
	b = append(b, byte(mcap.OpChunk))
	b = le.AppendUint64(b, uint64(len(chunk)))
	b = append(b, chunk...)
	b = append(b, mcapMagic...)
	_, err := Read(bytes.NewReader(b), int64(len(b)), func(string) bool { return true })
	wantErr(t, err, "corrupt MCAP file (runtime error: slice bounds out of range")
}

// TestOwnROS1ReaderReason pins why ReadROS1 is our own: go-rosbag's reader
// panics on a record header of 2 bytes, where ours returns an error. If a
// new go-rosbag stops panicking, reconsider.
func TestOwnROS1ReaderReason(t *testing.T) {
	b := append([]byte("#ROSBAG V2.0\n"), 2, 0, 0, 0, 'x', 'y')
	panicked := func() (p bool) {
		defer func() { p = recover() != nil }()
		r, err := rosbag.NewReader(bytes.NewReader(b))
		if err != nil {
			return false
		}
		it, err := r.Messages(rosbag.ScanLinear(true))
		if err != nil {
			return false
		}
		it.Next()
		return false
	}()
	if !panicked {
		t.Error("go-rosbag no longer panics on a 2-byte record header")
	}
	_, err := Read(bytes.NewReader(b), int64(len(b)), func(string) bool { return true })
	wantErr(t, err, "corrupt ROS 1 record header")
}

func TestHeaderTimeOnHeaderless(t *testing.T) {
	e := newEnc(false)
	e.twist([3]float64{0.5, 0, 0}, [3]float64{0, 0, 0.1})
	b := writeMCAP(t, []stream{{topic: "/cmd_vel", typ: "geometry_msgs/Twist", msgs: []tmsg{{t0, e.b}}}}, mcapOpts{})
	wantErr(t, importErr(t, b, `{"topics": [{"topic": "/cmd_vel", "time": "header", "columns": {"vc": "linear.x", "wc": "angular.z"}}]}`, "skidsteer"),
		`"time": "header", but geometry_msgs/Twist has no header`)
}

// TestJointStateLengths: an array of another length than name is an error
// only when the map reads it.
func TestJointStateLengths(t *testing.T) {
	js := func(vel, eff []float64) []byte {
		e := newEnc(true)
		e.jointState(t0, []string{"left", "right", "caster"}, nil, vel, eff)
		return e.b
	}
	mk := func(data []byte) []byte {
		return writeROS1(t, []stream{{topic: "/joint_states", typ: "sensor_msgs/JointState", msgs: []tmsg{{t0 + 1000, data}}}}, "none")
	}
	m := `{"topics": [{"topic": "/joint_states", "columns": {"wl": "velocity[left]", "wr": "velocity[right]"}}]}`
	if err := importErr(t, mk(js([]float64{1, 2, 3}, []float64{0.5})), m, "tire"); err != nil {
		t.Fatalf("effort of another length, not read: %v", err)
	}
	wantErr(t, importErr(t, mk(js([]float64{1}, nil)), m, "tire"), "message 1", "velocity has 1 values for 3 names")
}

// One flipped bit in a message of an unchunked MCAP file (no chunk CRC to
// catch it) is an error from the data section's CRC, not a pose moved
// silently (issue 26.4); the intact file reads, and a file whose writer
// recorded no CRC (0) is read as it is.
func TestMCAPDataSectionCRC(t *testing.T) {
	sc := newScenario(false, 3)
	b := writeMCAP(t, sc.streams, mcapOpts{})
	all := func(string) bool { return true }
	if _, err := Read(bytes.NewReader(b), int64(len(b)), all); err != nil {
		t.Fatalf("intact file: %v", err)
	}
	c := bytes.Clone(b)
	// a byte in the middle of the data section (inside the messages)
	c[len(c)/3] ^= 0x10
	_, err := Read(bytes.NewReader(c), int64(len(c)), all)
	if err == nil || !strings.Contains(err.Error(), "CRC") {
		t.Fatalf("flipped bit: %v, want a CRC error", err)
	}
	var buf bytes.Buffer
	w, err := mcap.NewWriter(&buf, &mcap.WriterOptions{IncludeCRC: false})
	if err != nil {
		t.Fatal(err)
	}
	must(t, w.WriteHeader(&mcap.Header{Profile: "ros2"}))
	must(t, w.Close())
	if _, err := Read(bytes.NewReader(buf.Bytes()), int64(buf.Len()), all); err != nil {
		t.Errorf("a file without a recorded CRC: %v", err)
	}
}
