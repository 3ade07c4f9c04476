package bag

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foxglove/mcap/go/mcap"
)

// fuzzSeeds are small bags of every format and compression, with every
// message type import decodes.
func fuzzSeeds(t testing.TB) map[string][]byte {
	sc := newScenarioFor(false, 11, 0.1)
	sc1 := newScenarioFor(true, 11, 0.1)
	return map[string][]byte{
		"mcap-plain": writeMCAP(t, sc.streams, mcapOpts{}),
		"mcap-zstd":  writeMCAP(t, sc.streams, mcapOpts{chunked: true, compression: mcap.CompressionZSTD}),
		"mcap-lz4":   writeMCAP(t, sc.streams, mcapOpts{chunked: true, compression: mcap.CompressionLZ4}),
		"ros1-none":  writeROS1(t, sc1.streams, "none"),
		"ros1-lz4":   writeROS1(t, sc1.streams, "lz4"),
	}
}

// FuzzRead feeds arbitrary bytes to the bag readers and then to Import with
// the test maps of every model, and checks the contract: no panic; errors
// are one line; a log has strictly increasing times from 0 and finite values
// (NaN only for cells its row's topic does not fill), and it writes.
//
// The committed corpus (testdata/fuzz/FuzzRead) holds the seeds; regenerate
// it with BAG_CORPUS=1 go test -run TestWriteCorpus ./dataset/bag/.
func FuzzRead(f *testing.F) {
	for _, b := range fuzzSeeds(f) {
		f.Add(b)
	}
	f.Add([]byte("#ROSBAG V2.0\n\x02\x00\x00\x00xy"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Read(bytes.NewReader(data), int64(len(data)), func(string) bool { return true })
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error not one line: %q", err)
			}
			return
		}
		for _, model := range Models() {
			var m Map
			if err := decodeJSONStrict(testMaps[model], &m); err != nil {
				t.Fatal(err)
			}
			lg, err := Import(c, &m, model, "fuzz")
			if err != nil {
				if strings.Contains(err.Error(), "\n") {
					t.Fatalf("error not one line: %q", err)
				}
				continue
			}
			for k, tm := range lg.T {
				if k == 0 && tm != 0 || k > 0 && !(tm > lg.T[k-1]) || math.IsInf(tm, 0) {
					t.Fatalf("%s: times %v", model, lg.T)
				}
				for _, v := range lg.Rows[k] {
					if math.IsInf(v, 0) {
						t.Fatalf("%s: row %d: %v", model, k, lg.Rows[k])
					}
				}
			}
			var out bytes.Buffer
			if err := lg.WriteCSV(&out, "fuzz"); err != nil {
				t.Fatalf("%s: %v", model, err)
			}
		}
	})
}

// TestWriteCorpus writes the seeds as the committed fuzz corpus when
// BAG_CORPUS=1.
func TestWriteCorpus(t *testing.T) {
	if os.Getenv("BAG_CORPUS") != "1" {
		t.Skip("BAG_CORPUS=1 writes testdata/fuzz/FuzzRead")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzRead")
	must(t, os.MkdirAll(dir, 0o755))
	for name, b := range fuzzSeeds(t) {
		must(t, os.WriteFile(filepath.Join(dir, name), fmt.Appendf(nil, "go test fuzz v1\n[]byte(%q)\n", b), 0o644))
	}
}

// TestFuzzSeedsImport: the seeds are logs for every model, so that the
// fuzzer starts from inputs that reach the decoders and the log.
func TestFuzzSeedsImport(t *testing.T) {
	for name, b := range fuzzSeeds(t) {
		c, err := Read(bytes.NewReader(b), int64(len(b)), func(string) bool { return true })
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, model := range Models() {
			if _, err := Import(c, parseMap(t, testMaps[model], model), model, name); err != nil {
				t.Errorf("%s, %s: %v", name, model, err)
			}
		}
	}
}
