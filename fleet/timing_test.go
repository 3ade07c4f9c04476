package fleet

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/wheelgrad/wheelgrad/robots"
)

func BenchmarkWriteOutputs(b *testing.B) {
	dir, es := benchEntries(b)
	reg := robots.Default()
	by := map[string][]Entry{}
	for _, e := range es {
		by[e.Robot] = append(by[e.Robot], e)
	}
	cfg := Config{Out: filepath.Join(dir, "wo")}
	var outs []Outcome
	for _, r := range by {
		outs = append(outs, CalibrateRobot(reg, r, cfg)...)
	}
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		if err := WriteOutputs(cfg, append([]Outcome(nil), outs...)); err != nil {
			b.Fatal(err)
		}
	}
	rate(b, len(outs), time.Since(start))
}

// BenchmarkPipelineFixed is the pipeline on one robot-day: its fixed cost
// (Prism's job server and loopback worker, two groupings, the writer).
func BenchmarkPipelineFixed(b *testing.B) {
	dir, es := benchEntries(b)
	one := es[:1]
	start := time.Now()
	for range b.N {
		p, s := beam.NewPipelineWithRoot()
		Build(s, one, Config{Out: filepath.Join(dir, "fixed")})
		if err := ptest.Run(p); err != nil {
			b.Fatal(err)
		}
	}
	rate(b, 1, time.Since(start))
}
