// Command fleet calibrates, validates and watches a fleet of robots on
// Apache Beam (package fleet): run from fleet/ as
//
//	go run ./cmd/fleet -manifest M.csv -out DIR [-runner prism|flink|spark|dataflow] [-k 3] [-fit-drop 10] [-parallelism N]
//
// or with -layout ROOT -model M [-init P.json] instead of -manifest. The
// runner's own flags (--endpoint, --environment_type,
// --environment_config, Dataflow's --project, --region,
// --staging_location, ...) are Beam's and pass through. Progress goes to
// stderr; the exit status is 0 when the pipeline ran (dead letters
// included), 1 on a failure, 2 on a usage error.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	beamlog "github.com/apache/beam/sdks/v2/go/pkg/beam/log"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/wheelgrad/wheelgrad/fleet"
)

func main() { os.Exit(run()) }

func run() int {
	manifest := flag.String("manifest", "", "fleet manifest CSV: robot,model,day,data[,poses,map,offset,init] (paths relative to its folder)")
	layout := flag.String("layout", "", "instead of -manifest: a folder ROBOT/DAY/*.csv|*.mcap|*.bag (template ROBOT/init.json, else -init)")
	model := flag.String("model", "", "-layout: the model of every robot")
	init := flag.String("init", "", "-layout: parameter template of the robots without ROBOT/init.json")
	out := flag.String("out", "", "output folder (params/, history/, report.jsonl, report.csv, dead_letters.jsonl, params.png)")
	kFlag := flag.String("k", "3", "drift: a parameter moving by more than k σ between two calibrations, or auto (Bonferroni: a steady fleet flagged with probability 5 %)")
	sigma := flag.String("sigma", fleet.SigmaFleet, "σ of the drift test: fleet (the reports' σ scaled up to the fleet's own spread of day-to-day changes) or report (as the fits report it)")
	drop := flag.Float64("fit-drop", 10, "drift: the previous calibration's fit % on a day's logs more than this many points below the day's own")
	x0 := flag.String("x0", "estimate", "start state of each validated run: estimate (least squares, as validate's default and MATLAB compare) or first (the first measured state: cheaper)")
	quiet := flag.Bool("quiet", false, "no progress on stderr")
	verbose := flag.Bool("v", false, "the runner's own log lines (Beam's INFO level) on stderr too")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: fleet -manifest M.csv | -layout ROOT -model M [-init P.json]  -out DIR [-runner prism|flink|spark|dataflow] [-k 3] [-fit-drop 10] [-parallelism N] [Beam runner flags]\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	usage := func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "fleet: "+format+"\n", a...)
		return 2
	}
	switch {
	case flag.NArg() > 0:
		return usage("unexpected argument %q", flag.Arg(0))
	case (*manifest == "") == (*layout == ""):
		return usage("give -manifest or -layout (one of them)")
	case *layout != "" && *model == "":
		return usage("-layout needs -model")
	case *manifest != "" && (*model != "" || *init != ""):
		return usage("-model and -init are for -layout (the manifest names each robot's)")
	case *out == "":
		return usage("-out is required")
	case *x0 != "estimate" && *x0 != "first":
		return usage("-x0 %q: want estimate or first", *x0)
	case *sigma != fleet.SigmaFleet && *sigma != fleet.SigmaReport:
		return usage("-sigma %q: want fleet or report", *sigma)
	case !(*drop > 0) || math.IsInf(*drop, 0):
		return usage("-fit-drop %g: want a positive number of fit %% points", *drop)
	}
	if *layout != "" {
		if rel, err := filepath.Rel(*layout, *out); err == nil && !strings.HasPrefix(rel, "..") {
			return usage("-out %s is inside -layout %s: its files would be read as logs", *out, *layout)
		}
	}
	k, err := strconv.ParseFloat(*kFlag, 64)
	if *kFlag != "auto" && (err != nil || !(k > 0) || math.IsInf(k, 0)) {
		return usage("-k %s: want a positive number of σ or auto", *kFlag)
	}
	runner := strings.ToLower(*runners.Runner)
	if runner == "" {
		runner = "prism"
	}
	cfg := fleet.Config{Out: *out, K: k, KAuto: *kFlag == "auto", Sigma: *sigma, FitDrop: *drop, X0: *x0, Parallelism: 1}
	// -parallelism is Beam's (Flink's degree of parallelism); on Prism,
	// which runs a stage's bundle on one goroutine, it is the number of
	// robots calibrated at once (default: the machine's cores).
	if runner == "prism" {
		cfg.Parallelism = runtime.NumCPU()
		if *jobopts.Parallelism > 0 {
			cfg.Parallelism = *jobopts.Parallelism
		}
	}
	if !*verbose { // Beam's and Prism's job lines at INFO: warnings only
		beamlog.LogLevel = "warn"
	}
	beam.Init()

	var es []fleet.Entry
	if *manifest != "" {
		es, err = fleet.ReadManifest(*manifest, nil)
	} else {
		es, err = fleet.ReadLayout(*layout, *model, *init, nil)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "fleet: %v\n", err)
		return 1
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintf(os.Stderr, "fleet: %v\n", err)
		return 1
	}
	total := fleet.RobotDays(es)
	p, s := beam.NewPipelineWithRoot()
	fleet.Build(s, es, cfg)

	start := time.Now()
	stop := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		if !*quiet {
			progress(os.Stderr, total, start, stop)
		}
	}()
	err = beamx.Run(context.Background(), p)
	close(stop)
	<-finished
	if err != nil {
		fmt.Fprintf(os.Stderr, "fleet: the pipeline failed: %v\n", err)
		return 1
	}
	dead := countLines(filepath.Join(*out, "dead_letters.jsonl"))
	el := time.Since(start)
	fmt.Fprintf(os.Stderr, "fleet: %d robot-day(s) on %s in %.1f s (%.1f per minute), %d dead letter(s); outputs in %s\n",
		total, runner, el.Seconds(), float64(total)/el.Minutes(), dead, *out)
	return 0
}

// progress prints the robot-days done (fleet.Done: the workers of an
// in-process runner) once a second when it changes, and at the end.
func progress(w io.Writer, total int, start time.Time, stop chan struct{}) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	last := int64(-1)
	show := func() {
		if n := fleet.Done(); n != last {
			last = n
			fmt.Fprintf(w, "fleet: %d/%d robot-days, %.1f per minute\n", n, total, float64(n)/time.Since(start).Minutes())
		}
	}
	for {
		select {
		case <-stop:
			show()
			return
		case <-t.C:
			show()
		}
	}
}

func countLines(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return -1
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		n++
	}
	return n
}
