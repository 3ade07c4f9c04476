package bag

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/foxglove/go-rosbag"
	"github.com/foxglove/mcap/go/mcap"
)

// enc serializes messages for the tests, independently of dec: ROS 2 CDR
// (little-endian, XCDR1 alignment counted after the encapsulation header) or
// ROS 1.
type enc struct {
	b    []byte
	ros1 bool
}

func newEnc(ros1 bool) *enc {
	if ros1 {
		return &enc{ros1: true}
	}
	return &enc{b: []byte{0x00, 0x01, 0x00, 0x00}}
}

func (e *enc) align(n int) {
	if e.ros1 {
		return
	}
	for (len(e.b)-4)%n != 0 {
		e.b = append(e.b, 0)
	}
}
func (e *enc) u32(v uint32) { e.align(4); e.b = binary.LittleEndian.AppendUint32(e.b, v) }
func (e *enc) i16(v int16)  { e.align(2); e.b = binary.LittleEndian.AppendUint16(e.b, uint16(v)) }
func (e *enc) f64(v float64) {
	e.align(8)
	e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(v))
}
func (e *enc) str(s string) {
	if e.ros1 {
		e.u32(uint32(len(s)))
		e.b = append(e.b, s...)
		return
	}
	e.u32(uint32(len(s) + 1))
	e.b = append(e.b, s...)
	e.b = append(e.b, 0)
}
func (e *enc) header(ns int64, frame string) {
	if e.ros1 {
		e.u32(7) // seq
	}
	e.u32(uint32(ns / 1e9))
	e.u32(uint32(ns % 1e9))
	e.str(frame)
}
func (e *enc) vec(v ...float64) {
	for _, x := range v {
		e.f64(x)
	}
}

// quat is the rotation by yaw about z, tilted slightly (roll, pitch) as a
// real tracker's pose is.
func quat(yaw, roll, pitch float64) [4]float64 {
	cy, sy := math.Cos(yaw/2), math.Sin(yaw/2)
	cp, sp := math.Cos(pitch/2), math.Sin(pitch/2)
	cr, sr := math.Cos(roll/2), math.Sin(roll/2)
	return [4]float64{sr*cp*cy - cr*sp*sy, cr*sp*cy + sr*cp*sy, cr*cp*sy - sr*sp*cy, cr*cp*cy + sr*sp*sy}
}

func (e *enc) twist(lin, ang [3]float64) { e.vec(lin[:]...); e.vec(ang[:]...) }
func (e *enc) pose(p [3]float64, q [4]float64) {
	e.vec(p[:]...)
	e.vec(q[:]...)
}
func (e *enc) cov(seed float64) {
	for i := range 36 {
		e.f64(seed + float64(i))
	}
}
func (e *enc) f64s(v []float64) {
	e.u32(uint32(len(v)))
	for _, x := range v {
		e.f64(x)
	}
}
func (e *enc) transform(ns int64, frame, child string, p [3]float64, q [4]float64) {
	e.header(ns, frame)
	e.str(child)
	e.pose(p, q)
}
func (e *enc) jointState(ns int64, names []string, pos, vel, eff []float64) {
	e.header(ns, "")
	e.u32(uint32(len(names)))
	for _, n := range names {
		e.str(n)
	}
	e.f64s(pos)
	e.f64s(vel)
	e.f64s(eff)
}

// multiArray writes std_msgs/*MultiArray with one labelled dimension.
func (e *enc) multiArray(n int, elem func(i int)) {
	e.u32(1)
	e.str("wheels")
	e.u32(uint32(n))
	e.u32(uint32(n))
	e.u32(0) // data_offset
	e.u32(uint32(n))
	for i := range n {
		elem(i)
	}
}

// tmsg is one test message: its log time, its bytes in one encoding.
type tmsg struct {
	log  int64
	data []byte
}

// stream is one topic of a test bag.
type stream struct {
	topic    string
	typ      string // ROS 1 name; ROS 2's is made by inserting /msg/
	msgs     []tmsg
	noSchema bool
}

func ros2Type(t string) string {
	p := strings.SplitN(t, "/", 2)
	return p[0] + "/msg/" + p[1]
}

type mcapOpts struct {
	chunked     bool
	compression mcap.CompressionFormat
	ros1        bool // ROS 1 messages in MCAP (as converted from a .bag)
}

// writeMCAP writes the streams with the foxglove writer, messages
// interleaved by log time as a recorder writes them.
func writeMCAP(t testing.TB, streams []stream, o mcapOpts) []byte {
	var buf bytes.Buffer
	w, err := mcap.NewWriter(&buf, &mcap.WriterOptions{Chunked: o.chunked, ChunkSize: 2048, Compression: o.compression, IncludeCRC: true})
	if err != nil {
		t.Fatal(err)
	}
	must(t, w.WriteHeader(&mcap.Header{Profile: "ros2"}))
	for i, s := range streams {
		id := uint16(i + 1)
		schema := id
		if s.noSchema {
			schema = 0
		} else {
			name, enc := ros2Type(s.typ), "ros2msg"
			if o.ros1 {
				name, enc = s.typ, "ros1msg"
			}
			must(t, w.WriteSchema(&mcap.Schema{ID: id, Name: name, Encoding: enc, Data: []byte("# definition of " + s.typ)}))
		}
		menc := "cdr"
		if o.ros1 {
			menc = "ros1"
		}
		must(t, w.WriteChannel(&mcap.Channel{ID: id, SchemaID: schema, Topic: s.topic, MessageEncoding: menc}))
	}
	for _, m := range interleave(streams) {
		must(t, w.WriteMessage(&mcap.Message{ChannelID: uint16(m.stream + 1), Sequence: uint32(m.seq), LogTime: uint64(m.log), PublishTime: uint64(m.log), Data: m.data}))
	}
	must(t, w.Close())
	return buf.Bytes()
}

type placed struct {
	tmsg
	stream, seq int
}

func interleave(streams []stream) []placed {
	var all []placed
	for i, s := range streams {
		for k, m := range s.msgs {
			all = append(all, placed{m, i, k})
		}
	}
	// by log time: the recorder's order
	sort.SliceStable(all, func(i, j int) bool { return all[i].log < all[j].log })
	return all
}

// writeROS1 writes the streams with go-rosbag's writer (to a file: it seeks
// back to set the index position).
func writeROS1(t testing.TB, streams []stream, compression string) []byte {
	path := t.TempDir() + "/run.bag"
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := rosbag.NewWriter(f, rosbag.WithCompression(compression), rosbag.WithChunksize(4096))
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range streams {
		must(t, w.WriteConnection(&rosbag.Connection{Conn: uint32(i), Topic: s.topic,
			Data: rosbag.ConnectionHeader{Topic: s.topic, Type: s.typ, MD5Sum: "0123456789abcdef0123456789abcdef", MessageDefinition: []byte("# " + s.typ)}}))
	}
	for _, m := range interleave(streams) {
		must(t, w.WriteMessage(&rosbag.Message{Conn: uint32(m.stream), Time: uint64(m.log), Data: m.data}))
	}
	must(t, w.Close())
	must(t, f.Close())
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
