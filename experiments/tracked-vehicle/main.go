// Command tracked-vehicle is issue 21's worked example of a user's own
// non-smooth model: a tracked vehicle written in the step language
// (model.go) with stiction, Coulomb and viscous friction on each track (the
// Stribeck curve applied as an exact clamp: a track sticks, breaks away and
// slides) and a motor table (dyn.Interp1 over the command), driven by
// per-side track commands.
//
// A separately written true robot (truth.go: plain Go, a smooth motor
// curve, tracks 2 % apart in Coulomb friction, 1-ms integration, a
// jittering 10-ms control loop, encoder and tracker noise) produces
// rest-to-motion logs: every run starts at rest and breaks away by a step
// or a slow ramp through the stiction level, stops, and sits below the
// breakaway command. The experiment then
//
//  1. identifies the model's nine parameters (fs, fc, b, the Stribeck speed
//     vs and the table values F0…F4 at |u| = 0.2 … 1) from the encoders by
//     bounded least squares (opt.LeastSquares) with the Jacobian of the
//     forward-mode rollout (Sim.Jacobian), from a start 25–100 % off, and
//     counts the non-finite numbers met on the way;
//  2. runs dyn's gradient check: the built-in check of the first Backward
//     (at the start values, where a user's first gradient is taken), the
//     check at the identified values along random directions, and at the
//     stiction kink (every track at rest with its drive equal to the
//     breakaway level to rounding);
//  3. follows a circle (1 m, 20 s) with control: planned through the
//     identified model (control.FollowRobot), executed open loop on the true
//     robot, and closed loop (re-planned every second from measured poses
//     and encoder speeds); and plans once more with the commands bounded
//     below the breakaway drive, a plan from rest that cannot move the
//     robot: it is reported as a failure (control.ErrNotFollowed), never as
//     a distance of 0 mm.
//
// It prints a table (parameters, checks, following: distance to the curve,
// on-time error, coverage) and draws circle.png; with -json the last line
// is the result as JSON (see result).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/wheelgrad/wheelgrad/figure"
)

func main() {
	out := flag.String("out", filepath.Join("out", "tracked-vehicle"), "output directory for circle.png")
	asJSON := flag.Bool("json", false, "print the result as JSON on the last line")
	flag.Parse()
	if err := run(os.Stdout, *out, *asJSON); err != nil {
		fmt.Fprintln(os.Stderr, "tracked-vehicle:", err)
		os.Exit(1)
	}
}

// startFactors put the identification's start values off the truth.
var startFactors = []float64{1.3, 0.7, 1.4, 2, 0.75, 1.25, 0.8, 1.25, 0.7}

// weakCommand bounds the commands of the failing plan: the drive at
// |u| = 0.2 (1.0 m/s² on the true robot) is below the stiction level (1.2).
const weakCommand = 0.2

// Param is one identified parameter.
type Param struct {
	Name      string  `json:"name"`
	Truth     float64 `json:"truth"`
	Start     float64 `json:"start"`
	Value     float64 `json:"value"`
	Sigma     float64 `json:"sigma"`
	ErrorPct  float64 `json:"error_pct"` // (value − truth)/truth in %
	Tolerance float64 `json:"-"`
}

// Follow is one way of following the circle.
type Follow struct {
	Name string `json:"name"`
	// Followed: control's Tracking.Followed, a lenient test (the robot
	// travels half the path's length, or keeps within a quarter of its
	// extent of where it should be) that tells a robot that never moved
	// from one that follows; the distances say how well.
	Followed   bool    `json:"followed"`
	Error      string  `json:"error,omitempty"`
	RMSm       float64 `json:"distance_rms_m"` // distance to the curve
	MaxM       float64 `json:"distance_max_m"`
	OnTimeRMSm float64 `json:"on_time_rms_m"` // distance to where the robot should be at that time
	Coverage   float64 `json:"coverage"`      // share of the circle within 5 cm of the path driven
	Travelled  float64 `json:"travelled_m"`
	PathLength float64 `json:"path_length_m"`
}

// result is the -json line.
type result struct {
	Runs           int     `json:"runs"`
	Seconds        int     `json:"seconds"` // of each run
	Params         []Param `json:"params"`
	MaxAbsErrorPct float64 `json:"max_abs_error_pct"`
	Status         string  `json:"status"`
	Iterations     int     `json:"iterations"`
	NonFinite      int     `json:"non_finite"` // non-finite residuals, Jacobian entries, gradients or estimates met
	// SelfCheck: the built-in check of the first Backward (at the start
	// values) passed, and its relative error; AtFit: the same check of a
	// fresh instance at the identified values;
	// Kink: the built-in check of a fresh instance at the stiction kink.
	SelfCheck    bool     `json:"self_check"`
	SelfCheckRel float64  `json:"self_check_rel_err"`
	AtFitOK      bool     `json:"check_at_fit"`
	AtFitRel     float64  `json:"check_at_fit_rel_err"`
	KinkOK       bool     `json:"kink_check"`
	KinkRel      float64  `json:"kink_rel_err"`
	KinkStencil  string   `json:"kink_stencil"`
	Follow       []Follow `json:"follow"`
}

// The log: 8 runs of 15 s.
const nRuns, secs = 8, 15

func run(w io.Writer, out string, asJSON bool) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	var runs []*logRun
	for i := range nRuns {
		runs = append(runs, simulateLog(truth, float64(secs), uint64(i+1)))
	}
	d, err := newDataset(runs)
	if err != nil {
		return err
	}
	tp := truth.Params()
	start := make([]float64, len(tp))
	for i := range tp {
		start[i] = tp[i] * startFactors[i]
	}
	// The built-in check runs on the model's first Backward: here at the
	// start values, as the first gradient of a fit or a plan would.
	sc := &selfChecks{}
	if err := builtinCheck(d, start, sc); err != nil {
		return err
	}
	id, err := identify(d, start)
	if err != nil {
		return err
	}
	if err := checkAtFit(d, id.X, sc); err != nil {
		return err
	}
	if err := checkKink(id.X, sc); err != nil {
		return err
	}
	res := result{Runs: nRuns, Seconds: secs, Status: id.Status, Iterations: id.Iterations, NonFinite: id.NonFinite + sc.NonFinite,
		SelfCheck: sc.Builtin, SelfCheckRel: sc.BuiltinRel, AtFitOK: sc.AtFitOK, AtFitRel: sc.AtFit.RelErr, KinkOK: sc.KinkOK, KinkRel: sc.Kink.RelErr, KinkStencil: sc.Kink.Stencil}
	for i, name := range Robot.Spec().Params {
		p := Param{Name: name, Truth: tp[i], Start: start[i], Value: id.X[i], ErrorPct: 100 * (id.X[i] - tp[i]) / tp[i]}
		if i < len(id.Sigma) {
			p.Sigma = id.Sigma[i]
		}
		res.Params = append(res.Params, p)
		res.MaxAbsErrorPct = math.Max(res.MaxAbsErrorPct, math.Abs(p.ErrorPct))
	}

	fmt.Fprintf(w, "tracked-vehicle: model %q, %d instructions per step; %d rest-to-motion logs × %d s at 100 Hz (±%.1f ms jitter) from the true robot\n",
		Robot.Name(), Robot.Ops(), nRuns, secs, 1e3*jitter)
	fmt.Fprintf(w, "identification: least squares on the encoders (σ %.0f mm/s), forward-mode Jacobian: %s after %d iterations; %d non-finite numbers met\n\n",
		1e3*encNoise, id.Status, id.Iterations, res.NonFinite)
	fmt.Fprintf(w, "%-6s %10s %10s %10s %10s %9s\n", "param", "truth", "start", "identified", "σ", "error")
	for _, p := range res.Params {
		fmt.Fprintf(w, "%-6s %10.4f %10.4f %10.4f %10.2g %+8.2f%%\n", p.Name, p.Truth, p.Start, p.Value, p.Sigma, p.ErrorPct)
	}
	fmt.Fprintf(w, "largest error %.2f %% (target 5 %%)\n\n", res.MaxAbsErrorPct)
	fmt.Fprintf(w, "dyn self-check (tolerance %.0e):\n", 1e-5)
	fmt.Fprintf(w, "  built-in, first Backward (start values): passed %v, relative error %.2g (%s)\n", sc.Builtin, sc.BuiltinRel, sc.BuiltinStencil)
	fmt.Fprintf(w, "  built-in, at the identified values: passed %v: %v\n", sc.AtFitOK, sc.AtFit)
	fmt.Fprintf(w, "  built-in, at the stiction kink (tracks at rest, drive = fs): passed %v: %v\n\n", sc.KinkOK, sc.Kink)

	fr, err := followAll(id.X, weakCommand, 7)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "following the circle (R %g m, %g s, %d control segments/s of %g-ms steps):\n", circle.R, circle.T, rate, 1e3*period)
	fmt.Fprintf(w, "%-46s %10s %10s %10s %9s %10s  %s\n", "", "dist RMS", "dist max", "on-time", "coverage", "travelled", "control's verdict")
	for _, f := range fr {
		tr := f.Tracking
		fo := Follow{Name: f.Name, Followed: f.Err == nil, RMSm: tr.RMS, MaxM: tr.Max, OnTimeRMSm: tr.OnTimeRMS, Coverage: tr.Coverage, Travelled: tr.Travelled, PathLength: tr.PathLength}
		verdict := "moves along it"
		if f.Err != nil {
			fo.Error = f.Err.Error()
			verdict = "FAILED: does not follow the circle"
		}
		res.Follow = append(res.Follow, fo)
		dist := func(v float64) string { return fmt.Sprintf("%.1f mm", 1e3*v) }
		rms, mx := dist(tr.RMS), dist(tr.Max)
		if f.Err != nil {
			rms, mx = "—", "—" // a robot that never left its start is not 0 mm from the circle
		}
		fmt.Fprintf(w, "%-46s %10s %10s %10s %8.1f%% %8.2f m  %s\n", f.Name, rms, mx, dist(tr.OnTimeRMS), 100*tr.Coverage, tr.Travelled, verdict)
	}
	png := filepath.Join(out, "circle.png")
	if err := plotCircle(png, fr); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nfigure: %s\n", png)
	if asJSON {
		b, err := json.Marshal(res)
		if err != nil {
			return err
		}
		fmt.Fprintln(w, string(b))
	}
	return nil
}

// plotCircle draws the circle and the paths driven.
func plotCircle(path string, fr []followRun) error {
	var cx, cy []float64
	for i := 0; i <= 400; i++ {
		x, y, _, _ := circle.At(circle.T * float64(i) / 400)
		cx, cy = append(cx, x), append(cy, y)
	}
	ss := []figure.Series{{Name: "circle", X: cx, Y: cy, Dashed: true}}
	for _, f := range fr {
		var x, y []float64
		for _, p := range f.Poses {
			x, y = append(x, p.X), append(y, p.Y)
		}
		if f.Err != nil && f.Tracking.Travelled < 0.01 {
			// A robot that never moved: one marker where it stayed.
			ss = append(ss, figure.Series{Name: strings.TrimLeft(f.Name, " …") + ": did not move", X: x[len(x)-1:], Y: y[len(y)-1:], Points: true, Shape: "square", Size: 4})
			continue
		}
		name := f.Name
		if f.Err != nil {
			name += " (failed)"
		}
		ss = append(ss, figure.Series{Name: strings.TrimLeft(name, " …"), X: x, Y: y, Dashed: f.Err != nil})
	}
	return figure.XY(path, "tracked vehicle: identified model follows a circle", "x (m)", "y (m)", true, ss)
}

func fmtG(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
