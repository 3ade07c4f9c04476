// Command pioneer-dynamics reproduces §4 of Ivanjko, Petrinić, Petrović
// ("Modelling of mobile robot dynamics") with models/pioneer: the physical
// and the experimental model of the Pioneer 3DX drive, identified by
// gradient (where the paper set them by hand in Simulink) on a first data
// set of clearly separated cases (steps, ramps, constant speeds, direction
// reversals; at most 0.3 m/s and 50 °/s) and evaluated on it and on a
// second, navigation-like one (at most 0.6 m/s and 63 °/s, frequent
// reference changes), beside "no model" (the reference itself): Tables 3–7
// (maximal and average errors, mm/s and °/s) and Figs. 9–12 (responses and
// errors).
//
// The data come from an independent simulator (models/pioneer/p3dx) with
// effects neither model has: stiction and Coulomb friction in the wheels, a
// gearbox, a 12-V supply, the controller on a 5-ms loop with quantised
// encoders, command delay jitter, time-stamp jitter and sensor noise. Its
// command delay is 170 ms; with its wheel-speed loop and the 100-ms encoder
// averaging, a reference shows in the reports after about 250–270 ms, the
// delays the paper measured.
//
// PNGs go to -out: fig9-v-set1.png, fig10-verr-set1-physical.png,
// fig11-w-set2.png, fig12-werr-set2-experimental.png.
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/wheelgrad/wheelgrad/figure"
	"github.com/wheelgrad/wheelgrad/models/pioneer"
	"github.com/wheelgrad/wheelgrad/models/pioneer/p3dx"
)

func main() {
	out := flag.String("out", filepath.Join("out", "pioneer-dynamics"), "output directory")
	quick := flag.Bool("quick", false, "short data sets (smoke test)")
	flag.Parse()
	if err := run(os.Stdout, *out, *quick); err != nil {
		fmt.Fprintln(os.Stderr, "pioneer-dynamics:", err)
		os.Exit(1)
	}
}

// errs are the paper's error figures of one model on one data set.
type errs struct{ maxV, avgV, maxW, avgW float64 } // mm/s, °/s

const deg = 180 / math.Pi

func errorsOf(r *pioneer.Run, v, w []float64) (e errs, ev, ew []float64) {
	n := 0
	ev, ew = make([]float64, len(r.T)), make([]float64, len(r.T))
	for k := 1; k < len(r.T); k++ {
		dv, dw := 1e3*(r.V[k]-v[k]), deg*(r.W[k]-w[k])
		ev[k], ew[k] = dv, dw
		e.maxV, e.maxW = math.Max(e.maxV, math.Abs(dv)), math.Max(e.maxW, math.Abs(dw))
		e.avgV += math.Abs(dv)
		e.avgW += math.Abs(dw)
		n++
	}
	e.avgV /= float64(n)
	e.avgW /= float64(n)
	return e, ev, ew
}

func toRun(l p3dx.Log) *pioneer.Run {
	return &pioneer.Run{T: l.T, Vref: l.Vref, Wref: l.Wref, V: l.V, W: l.W}
}

// progress reports the identification's stages on stderr when it is a
// terminal (the physical form takes tens of seconds).
func progress(msg string) {
	if fi, err := os.Stderr.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		fmt.Fprintf(os.Stderr, "\r\033[K%s", msg)
	}
}

func run(w io.Writer, out string, quick bool) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	rb := p3dx.Default()
	repeat, navSeconds := 3, 300.0
	if quick {
		repeat, navSeconds = 1, 60
	}
	v1, w1 := p3dx.Cases(repeat, 1)
	v2, w2 := p3dx.Navigation(navSeconds, 2)
	sets := []*pioneer.Run{toRun(rb.Drive(v1, w1, 1)), toRun(rb.Drive(v2, w2, 2))}
	fmt.Fprintf(w, "pioneer-dynamics: true robot = independent simulator (stiction %.2f N·m, Coulomb %.2f N·m per wheel, 5-ms loop, 12 V, command delay %.0f ms ± %.0f ms, noise σ %.0f mm/s, %.1f °/s)\n",
		rb.Stiction, rb.Coulomb, 1e3*rb.Delay, 1e3*rb.DelayJitter, 1e3*rb.NoiseV, deg*rb.NoiseW)
	fmt.Fprintf(w, "data set 1 (separated cases, ≤ 0.3 m/s, ≤ 50 °/s): %d rows (%.0f s); data set 2 (navigation-like, ≤ 0.6 m/s, ≤ 63 °/s): %d rows (%.0f s)\n\n",
		len(sets[0].T), 0.1*float64(len(sets[0].T)), len(sets[1].T), 0.1*float64(len(sets[1].T)))

	forms := []string{pioneer.FormPhysical, pioneer.FormExperimental}
	fitted := map[string]pioneer.Params{}
	for _, f := range forms {
		o := pioneer.IdentifyOptions{Progress: progress}
		if quick {
			o.Delays, o.Temps, o.MaxIter = []int{1, 2, 3}, []float64{0.02, 0.002}, 60
		}
		res, err := pioneer.Identify(pioneer.Default(f), []*pioneer.Run{sets[0]}, o)
		if err != nil {
			return fmt.Errorf("identify %s: %w", f, err)
		}
		progress("")
		fitted[f] = res.Params
		p := res.Params
		dv, dw := p.DelaySeconds()
		iv, iw := p.Delays()
		fmt.Fprintf(w, "identified %s on data set 1: %d least-squares iterations, %d evaluations, %v; loss %.4g (defaults %.4g)\n",
			f, res.Iterations, res.Evaluations, res.Runtime.Round(time.Millisecond), res.Loss, res.Start)
		fmt.Fprintf(w, "  delay v: %d samples, %.0f ms in all (true command delay %.0f ms: %+.0f ms); ω: %d samples, %.0f ms (%+.0f ms)\n",
			iv, 1e3*dv, 1e3*rb.Delay, 1e3*(dv-rb.Delay), iw, 1e3*dw, 1e3*(dw-rb.Delay))
		fmt.Fprintf(w, "  slope limits: acc_v %.3f (true %.3f) dec_v %.3f (%.3f) m/s²; acc_ω %.1f (%.1f) dec_ω %.1f (%.1f) °/s²\n",
			p.AccV, rb.AccV, p.DecV, rb.DecV, deg*p.AccW, deg*rb.AccW, deg*p.DecW, deg*rb.DecW)
		if f == pioneer.FormPhysical {
			fmt.Fprintf(w, "  φ %.0f ms, K_R %.0f, T_I %.3g s\n", 1e3**p.Phi, *p.KR, *p.TI)
		} else {
			fmt.Fprintf(w, "  lags τ_v %.0f ms, τ_ω %.0f ms; threshold v %.1f mm/s + %.3f s·|slope|, ω %.2f °/s + %.3f s·|slope|\n",
				1e3**p.TauV, 1e3**p.TauW, 1e3**p.Thr0V, *p.Thr1V, deg**p.Thr0W, *p.Thr1W)
		}
		if len(res.OnBound) > 0 {
			fmt.Fprintf(w, "  on a bound of their range: %v\n", res.OnBound)
		}
		if len(res.Undetermined) > 0 {
			fmt.Fprintf(w, "  not informed by data set 1 (kept at the defaults): %v\n", res.Undetermined)
		}
	}
	fmt.Fprintln(w)

	type pred struct{ v, w, ev, ew []float64 }
	E := map[string][2]errs{}
	P := map[string][2]pred{}
	for i, r := range sets {
		e, _, _ := errorsOf(r, r.Vref, r.Wref)
		a := E["none"]
		a[i] = e
		E["none"] = a
		for _, f := range forms {
			v, wv, err := pioneer.Simulate(fitted[f], r)
			if err != nil {
				return err
			}
			e, ev, ew := errorsOf(r, v, wv)
			a, b := E[f], P[f]
			a[i], b[i] = e, pred{v, wv, ev, ew}
			E[f], P[f] = a, b
		}
	}
	table := func(title, unit string, set int, rot bool, paper [4]float64) {
		fmt.Fprintf(w, "%s (%s)\n", title, unit)
		fmt.Fprintf(w, "  %-8s %16s %16s   paper: %8s %8s\n", "error", "physical model", "experimental", "phys.", "exp.")
		pe, ee := E[pioneer.FormPhysical][set], E[pioneer.FormExperimental][set]
		mx := func(e errs) (float64, float64) {
			if rot {
				return e.maxW, e.avgW
			}
			return e.maxV, e.avgV
		}
		pm, pa := mx(pe)
		em, ea := mx(ee)
		fmt.Fprintf(w, "  %-8s %16.2f %16.2f   %15.2f %8.2f\n", "maximal", pm, em, paper[0], paper[1])
		fmt.Fprintf(w, "  %-8s %16.2f %16.2f   %15.2f %8.2f\n\n", "average", pa, ea, paper[2], paper[3])
	}
	table("Tab. 3  rotational velocity, first data set", "°/s", 0, true, [4]float64{4.31, 4.59, 0.81, 0.48})
	table("Tab. 4  translational velocity, first data set", "mm/s", 0, false, [4]float64{18.8, 12.4, 3.36, 1.62})
	table("Tab. 5  rotational velocity, second data set", "°/s", 1, true, [4]float64{6.25, 8.94, 1.19, 0.92})
	table("Tab. 6  translational velocity, second data set", "mm/s", 1, false, [4]float64{53.96, 32, 6.77, 4.66})
	n := E["none"][1]
	fmt.Fprintf(w, "Tab. 7  no model (the reference itself), second data set (°/s, mm/s)\n")
	fmt.Fprintf(w, "  %-8s %12s %12s   paper: %8s %8s\n", "error", "rotation", "translation", "rot.", "transl.")
	fmt.Fprintf(w, "  %-8s %12.2f %12.2f   %15.2f %8.2f\n", "maximal", n.maxW, n.maxV, 12.87, 48.83)
	fmt.Fprintf(w, "  %-8s %12.2f %12.2f   %15.2f %8.2f\n\n", "average", n.avgW, n.avgV, 2.13, 14.76)
	n1 := E["none"][0]
	fmt.Fprintf(w, "  (no model on the first data set: maximal %.2f °/s, %.2f mm/s; average %.2f °/s, %.2f mm/s)\n\n", n1.maxW, n1.maxV, n1.avgW, n1.avgV)
	fmt.Fprintf(w, "average error reduction vs no model, second data set (targets: ≥ 2× translational, ≥ 1.8× rotational; paper: exp. 3.2×, 2.3×; phys. 2.2×, 1.8×)\n")
	for _, f := range forms {
		e := E[f][1]
		fmt.Fprintf(w, "  %-13s translational %5.1f×   rotational %5.1f×\n", f, n.avgV/e.avgV, n.avgW/e.avgW)
	}
	fmt.Fprintln(w)

	// Figures 9–12: details of the responses and the errors.
	s1, s2 := sets[0], sets[1]
	window := func(r *pioneer.Run, from, to float64, ys ...[]float64) (x []float64, out [][]float64) {
		out = make([][]float64, len(ys))
		for k := range r.T {
			if r.T[k] >= from && r.T[k] <= to {
				x = append(x, r.T[k])
				for i, y := range ys {
					out[i] = append(out[i], y[k])
				}
			}
		}
		return x, out
	}
	ph, ex := P[pioneer.FormPhysical], P[pioneer.FormExperimental]
	to1 := math.Min(30, s1.T[len(s1.T)-1])
	x, y := window(s1, 0, to1, s1.Vref, s1.V, ph[0].v, ex[0].v)
	if err := figure.XY(filepath.Join(out, "fig9-v-set1.png"), "Fig. 9: translational velocity, first data set (detail)", "time (s)", "v (m/s)", false,
		[]figure.Series{{Name: "reference", X: x, Y: y[0], Dashed: true}, {Name: "measured", X: x, Y: y[1], Points: true},
			{Name: "physical model", X: x, Y: y[2]}, {Name: "experimental model", X: x, Y: y[3]}}); err != nil {
		return err
	}
	if err := figure.XY(filepath.Join(out, "fig10-verr-set1-physical.png"), "Fig. 10: translational velocity error, first data set, physical model", "time (s)", "error (mm/s)", false,
		[]figure.Series{{Name: "measured − physical model", X: s1.T[1:], Y: ph[0].ev[1:]}}); err != nil {
		return err
	}
	to2 := math.Min(40, s2.T[len(s2.T)-1])
	dv2 := make([][]float64, 4)
	for i, src := range [][]float64{s2.Wref, s2.W, ph[1].w, ex[1].w} {
		dv2[i] = make([]float64, len(src))
		for k := range src {
			dv2[i][k] = deg * src[k]
		}
	}
	x, y = window(s2, 0, to2, dv2...)
	if err := figure.XY(filepath.Join(out, "fig11-w-set2.png"), "Fig. 11: rotational velocity, second data set (detail)", "time (s)", "ω (°/s)", false,
		[]figure.Series{{Name: "reference", X: x, Y: y[0], Dashed: true}, {Name: "measured", X: x, Y: y[1], Points: true},
			{Name: "physical model", X: x, Y: y[2]}, {Name: "experimental model", X: x, Y: y[3]}}); err != nil {
		return err
	}
	if err := figure.XY(filepath.Join(out, "fig12-werr-set2-experimental.png"), "Fig. 12: rotational velocity error, second data set, experimental model", "time (s)", "error (°/s)", false,
		[]figure.Series{{Name: "measured − experimental model", X: s2.T[1:], Y: ex[1].ew[1:]}}); err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote %s/fig9-v-set1.png, fig10-verr-set1-physical.png, fig11-w-set2.png, fig12-werr-set2-experimental.png\n", out)
	return nil
}
