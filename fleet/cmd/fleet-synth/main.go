// Command fleet-synth writes a synthetic fleet (package synth) to try the
// fleet pipeline on:
//
//	go run ./cmd/fleet-synth -robots 40 -days 5 -seed 1 -out DIR
//
// It writes DIR/manifest.csv, per robot DIR/ROBOT/init.json and per
// robot-day DIR/ROBOT/DAY/log.csv, and DIR/truth.json (the true parameters
// per robot-day, the drifts and the broken logs with their expected
// errors).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/wheelgrad/wheelgrad/fleet/synth"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fs := flag.NewFlagSet("fleet-synth", flag.ContinueOnError)
	robots := fs.Int("robots", 40, "number of robots")
	days := fs.Int("days", 5, "days of logs per robot")
	seed := fs.Uint64("seed", 1, "seed of every random draw")
	models := fs.String("models", strings.Join(synth.DefaultModels, ","), "comma-separated models, assigned to the robots in turn")
	drift := fs.Float64("drift", 0.2, "fraction of the robots that drift by design (0: none)")
	broken := fs.Float64("broken", 0.03, "fraction of the steady robots' robot-days with a broken log (0: none)")
	noise := fs.Float64("noise", 1, "scale of the sensor noise (0: none)")
	out := fs.String("out", "", "directory to write the fleet into (required)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *out == "" || fs.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: fleet-synth -out DIR [-robots N] [-days N] [-seed S] [-models m1,m2] [-drift F] [-broken F] [-noise F]")
		return 2
	}
	cfg := synth.Config{Robots: *robots, Days: *days, Seed: *seed, Models: strings.Split(*models, ","),
		DriftFraction: orNone(*drift), BrokenFraction: orNone(*broken), Noise: synth.Noise{Sensor: orNone(*noise)}}
	if *robots <= 0 || *days <= 0 {
		fmt.Fprintln(os.Stderr, "fleet-synth: -robots and -days must be positive")
		return 2
	}
	t0 := time.Now()
	tr, err := synth.Write(*out, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fleet-synth:", err)
		return 1
	}
	b, err := json.MarshalIndent(tr, "", "  ")
	if err == nil {
		err = os.WriteFile(filepath.Join(*out, "truth.json"), append(b, '\n'), 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fleet-synth:", err)
		return 1
	}
	nd := 0
	for _, r := range tr.Robots {
		if !r.Steady() {
			nd++
		}
	}
	fmt.Fprintf(os.Stderr, "fleet-synth: %d robots × %d days (%d drifting, %d broken logs) in %s, %.2fs\n",
		len(tr.Robots), *days, nd, len(tr.Broken), *out, time.Since(t0).Seconds())
	return 0
}

// orNone turns the flags' 0 ("none") into the Config's negative.
func orNone(f float64) float64 {
	if f == 0 {
		return -1
	}
	return f
}
