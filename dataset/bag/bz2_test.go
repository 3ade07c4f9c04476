package bag

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// bz2Fixture is a ROS 1 bag with bz2 chunks (rosbag record --bz2), made from
// newScenarioFor(true, 21, 0.5) by TestWriteBZ2Fixture: Go has no bzip2
// compressor, so it is committed.
var bz2Fixture = filepath.Join("testdata", "scenario-bz2.bag")

func TestImportBZ2(t *testing.T) {
	b, err := os.ReadFile(bz2Fixture)
	if err != nil {
		t.Fatal(err)
	}
	sc := newScenarioFor(true, 21, 0.5)
	c, err := Read(bytes.NewReader(b), int64(len(b)), func(string) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	for _, model := range Models() {
		t.Run(model, func(t *testing.T) {
			m := parseMap(t, testMaps[model], model)
			lg, err := Import(c, m, model, "bz2")
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			must(t, lg.WriteCSV(&out, "bz2"))
			checkCSV(t, out.String(), sc, m)
		})
	}
	// and it is truncated when cut
	if _, err := Read(bytes.NewReader(b[:len(b)-100]), int64(len(b)-100), func(string) bool { return true }); err == nil {
		t.Fatal("cut bz2 bag read")
	}
}

// TestWriteBZ2Fixture rewrites an uncompressed bag of the scenario with its
// chunks compressed by the bzip2 command, index position and chunk
// positions updated, when BAG_CORPUS=1.
func TestWriteBZ2Fixture(t *testing.T) {
	if os.Getenv("BAG_CORPUS") != "1" {
		t.Skip("BAG_CORPUS=1 writes " + bz2Fixture)
	}
	src := writeROS1(t, newScenarioFor(true, 21, 0.5).streams, "none")
	le := binary.LittleEndian
	type rec struct {
		hdr  map[string][]byte
		data []byte
		off  int
	}
	var recs []rec
	for off := len(ros1Magic); off < len(src); {
		h, rest, _ := cut32(src[off:])
		d, _, _ := cut32(rest)
		f, err := parseFields(h)
		must(t, err)
		recs = append(recs, rec{f, d, off})
		off += 8 + len(h) + len(d)
	}
	bzip := func(p []byte) []byte {
		cmd := exec.Command("bzip2", "-c")
		cmd.Stdin = bytes.NewReader(p)
		out, err := cmd.Output()
		must(t, err)
		return out
	}
	encode := func(f map[string][]byte) []byte {
		var h []byte
		for _, k := range slices.Sorted(func(yield func(string) bool) {
			for k := range f {
				if !yield(k) {
					return
				}
			}
		}) {
			h = le.AppendUint32(h, uint32(len(k)+1+len(f[k])))
			h = append(h, k+"="...)
			h = append(h, f[k]...)
		}
		return h
	}
	oldIndex := le.Uint64(recs[0].hdr["index_pos"])
	newPos := map[uint64]uint64{}
	out := append([]byte(nil), ros1Magic...)
	for i, r := range recs {
		if i == 0 {
			continue // the bag header: written last, same length
		}
		newPos[uint64(r.off)] = uint64(len(out)) + uint64(len(src[:recs[1].off])-len(ros1Magic)) - 0
		if r.hdr["op"][0] == opChunk {
			r.hdr["compression"] = []byte("bz2")
			r.data = bzip(r.data)
		}
		if r.hdr["op"][0] == opChunkInfo {
			r.hdr["chunk_pos"] = le.AppendUint64(nil, newPos[le.Uint64(r.hdr["chunk_pos"])])
		}
		h := encode(r.hdr)
		out = le.AppendUint32(out, uint32(len(h)))
		out = append(out, h...)
		out = le.AppendUint32(out, uint32(len(r.data)))
		out = append(out, r.data...)
	}
	// the bag header goes back in front, with the new index position
	headerRec := src[recs[0].off:recs[1].off]
	body := out[len(ros1Magic):]
	hdr := recs[0].hdr
	hdr["index_pos"] = le.AppendUint64(nil, newPos[oldIndex])
	h := encode(hdr)
	var bh []byte
	bh = le.AppendUint32(bh, uint32(len(h)))
	bh = append(bh, h...)
	bh = le.AppendUint32(bh, uint32(len(recs[0].data)))
	bh = append(bh, recs[0].data...)
	if len(bh) != len(headerRec) {
		t.Fatalf("bag header %d bytes, was %d", len(bh), len(headerRec))
	}
	final := append(append(append([]byte(nil), ros1Magic...), bh...), body...)
	must(t, os.MkdirAll("testdata", 0o755))
	must(t, os.WriteFile(bz2Fixture, final, 0o644))
}
