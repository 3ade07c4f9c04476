package fleet

import (
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/wheelgrad/wheelgrad/cli"
	"github.com/wheelgrad/wheelgrad/fleet/synth"
	"github.com/wheelgrad/wheelgrad/robots"
)

// The measurements of fleet/README.md, on the same robot-days in one run:
//
//	go test -run '^$' -bench . -benchtime 1x -count 3
//
// IdentifyAlone is `wheelgrad identify -out` on each robot-day (cli.Run in
// process: no process start counted), the work a fleet needs at least;
// Calibrate is the pipeline's per-robot work without Beam (identify,
// validate the previous calibration and the day's own, write); Pipeline is
// the whole pipeline on Prism at a parallelism of 1, 2 and 4 robots at
// once. Each reports robot-days per minute.

var benchFleet struct {
	once sync.Once
	dir  string
	es   []Entry
	err  error
}

// benchEntries is a synthetic fleet of 20 robots × 5 days (seed 1).
func benchEntries(b *testing.B) (string, []Entry) {
	benchFleet.once.Do(func() {
		benchFleet.dir, benchFleet.err = os.MkdirTemp("", "fleet-bench")
		if benchFleet.err != nil {
			return
		}
		var tr *synth.Truth
		if tr, benchFleet.err = synth.Write(benchFleet.dir, synth.Config{Robots: 20, Days: 5, Seed: 1}); benchFleet.err == nil {
			benchFleet.es, benchFleet.err = ReadManifest(tr.Manifest, nil)
		}
	})
	if benchFleet.err != nil {
		b.Fatal(benchFleet.err)
	}
	return benchFleet.dir, benchFleet.es
}

func rate(b *testing.B, days int, el time.Duration) {
	b.ReportMetric(float64(days*b.N)/el.Minutes(), "robot-days/min")
	b.ReportMetric(el.Seconds()/float64(days*b.N)*1e3, "ms/robot-day")
}

// cpuTime is the process's CPU time so far (user + system, every
// goroutine: Prism's job server and worker included).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkOverhead measures, on the same robot-days and interleaved
// within each iteration (the machine is shared: its load moves), the CPU
// time per robot-day of identify alone, of the per-robot work without
// Beam, and of the pipeline on Prism at parallelism 1, and reports the
// ratios: pipeline/identify (all the fleet's extra work: validating two
// calibrations a day, the report, Beam) and pipeline/calibrate (Beam's
// own overhead).
func BenchmarkOverhead(b *testing.B) {
	dir, es := benchEntries(b)
	reg := robots.Default()
	type rd struct{ robot, day string }
	days := map[rd][]Entry{}
	var order []rd
	by := map[string][]Entry{}
	var robotsOrder []string
	for _, e := range es {
		k := rd{e.Robot, e.Day}
		if days[k] == nil {
			order = append(order, k)
		}
		days[k] = append(days[k], e)
		if by[e.Robot] == nil {
			robotsOrder = append(robotsOrder, e.Robot)
		}
		by[e.Robot] = append(by[e.Robot], e)
	}
	out := filepath.Join(dir, "overhead")
	os.MkdirAll(out, 0o755)
	var alone, calib, pipe, first time.Duration
	n := float64(len(order) * b.N)
	for range b.N {
		c0 := cpuTime()
		for _, k := range order {
			cli.Run(identifyArgs(days[k], filepath.Join(out, k.robot+"-"+k.day+".json")), reg, io.Discard, io.Discard)
		}
		c1 := cpuTime()
		for _, r := range robotsOrder {
			CalibrateRobot(reg, by[r], Config{Out: filepath.Join(out, "calibrate")})
		}
		c2 := cpuTime()
		p, s := beam.NewPipelineWithRoot()
		Build(s, es, Config{Out: filepath.Join(out, "pipeline"), Parallelism: 1})
		if err := ptest.Run(p); err != nil {
			b.Fatal(err)
		}
		c3 := cpuTime()
		for _, r := range robotsOrder {
			CalibrateRobot(reg, by[r], Config{Out: filepath.Join(out, "first"), X0: robots.X0First})
		}
		c4 := cpuTime()
		alone, calib, pipe, first = alone+c1-c0, calib+c2-c1, pipe+c3-c2, first+c4-c3
	}
	b.ReportMetric(first.Seconds()*1e3/n, "calibrate-x0-first-cpu-ms/robot-day")
	b.ReportMetric(alone.Seconds()*1e3/n, "identify-cpu-ms/robot-day")
	b.ReportMetric(calib.Seconds()*1e3/n, "calibrate-cpu-ms/robot-day")
	b.ReportMetric(pipe.Seconds()*1e3/n, "pipeline-cpu-ms/robot-day")
	b.ReportMetric(pipe.Seconds()/alone.Seconds(), "pipeline/identify")
	b.ReportMetric(pipe.Seconds()/calib.Seconds(), "pipeline/calibrate")
}

func BenchmarkIdentifyAlone(b *testing.B) {
	dir, es := benchEntries(b)
	reg := robots.Default()
	type rd struct{ robot, day string }
	days := map[rd][]Entry{}
	var order []rd
	for _, e := range es {
		k := rd{e.Robot, e.Day}
		if days[k] == nil {
			order = append(order, k)
		}
		days[k] = append(days[k], e)
	}
	out := filepath.Join(dir, "alone")
	os.MkdirAll(out, 0o755)
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		for _, k := range order {
			cli.Run(identifyArgs(days[k], filepath.Join(out, k.robot+"-"+k.day+".json")), reg, io.Discard, io.Discard)
		}
	}
	rate(b, len(order), time.Since(start))
}

func BenchmarkCalibrate(b *testing.B) {
	dir, es := benchEntries(b)
	reg := robots.Default()
	by := map[string][]Entry{}
	var robotsOrder []string
	for _, e := range es {
		if by[e.Robot] == nil {
			robotsOrder = append(robotsOrder, e.Robot)
		}
		by[e.Robot] = append(by[e.Robot], e)
	}
	cfg := Config{Out: filepath.Join(dir, "calibrate")}
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		for _, r := range robotsOrder {
			CalibrateRobot(reg, by[r], cfg)
		}
	}
	rate(b, RobotDays(es), time.Since(start))
}

func BenchmarkPipeline(b *testing.B) {
	dir, es := benchEntries(b)
	for _, par := range []int{1, 2, 4} {
		b.Run("parallelism="+string(rune('0'+par)), func(b *testing.B) {
			start := time.Now()
			for range b.N {
				p, s := beam.NewPipelineWithRoot()
				Build(s, es, Config{Out: filepath.Join(dir, "pipeline"), Parallelism: par})
				if err := ptest.Run(p); err != nil {
					b.Fatal(err)
				}
			}
			rate(b, RobotDays(es), time.Since(start))
		})
	}
}
