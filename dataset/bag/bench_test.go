package bag

import (
	"bytes"
	"io"
	"testing"

	"github.com/foxglove/mcap/go/mcap"
)

// BenchmarkImport: a 60-s recording (9 topics, 14,000 messages, 11,500 of
// them named by the map) from bytes to the written tire log.
func BenchmarkImport(b *testing.B) {
	for _, format := range []string{"mcap-zstd", "ros1-lz4"} {
		b.Run(format, func(b *testing.B) {
			var bag []byte
			if format == "mcap-zstd" {
				bag = writeMCAP(b, newScenarioFor(false, 1, 60).streams, mcapOpts{chunked: true, compression: mcap.CompressionZSTD})
			} else {
				bag = writeROS1(b, newScenarioFor(true, 1, 60).streams, "lz4")
			}
			m := parseMap(b, testMaps["tire"], "tire")
			want := map[string]bool{}
			for _, e := range m.Topics {
				want[e.Topic] = true
			}
			var msgs int
			b.SetBytes(int64(len(bag)))
			b.ResetTimer()
			for range b.N {
				c, err := Read(bytes.NewReader(bag), int64(len(bag)), func(t string) bool { return want[t] })
				if err != nil {
					b.Fatal(err)
				}
				lg, err := Import(c, m, "tire", "bench")
				if err != nil {
					b.Fatal(err)
				}
				if err := lg.WriteCSV(io.Discard, "bench"); err != nil {
					b.Fatal(err)
				}
				msgs = 0
				for _, t := range c.Topics {
					msgs += t.Count
				}
			}
			b.ReportMetric(float64(msgs)*float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}
