package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	G "gorgonia.org/gorgonia"

	"github.com/wheelgrad/wheelgrad/ad"
	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/figure"
	"github.com/wheelgrad/wheelgrad/opt"
)

func init() {
	register(command{
		name:  "demo",
		usage: "demo [-out DIR]",
		summary: "The main job on embedded data. The Mecanum identification, figure-8 synthesis and\n" +
			"differential-drive calibration join it as their models land; until then it runs\n" +
			"the differentiable core end to end on a small differential-drive example.",
		flags: func(fs *flag.FlagSet) func(env) error {
			out := fs.String("out", "wheelgrad-demo", "directory for the demo's output files")
			quiet, verbose := addVerbosity(fs)
			return func(e env) error {
				return runDemo(e, *out, progressOn(e, *quiet, *verbose))
			}
		},
	})
}

// Core demo: a differential-drive robot whose wheels are miscalibrated (the
// effective radii differ from nominal by kR, kL). Three 40-s runs at 240 Hz
// with a 60-Hz camera (σ = 3 mm) are generated; the loss is the squared
// position error at the camera samples, rolled out by ad.Scan; L-BFGS-B
// recovers kR and kL. This is the Luo et al. pipeline (simulate, compare with
// the camera, gradient, L-BFGS-B) on the simplest robot.
const (
	demoR     = 0.1 // wheel radius (m)
	demoL     = 0.5 // axle length (m)
	demoDt    = 1.0 / 240
	demoSteps = 8 * 240
	demoRuns  = 3
	demoChunk = 240
)

var demoTrue = []float64{0.93, 1.04}

type demoData struct {
	wr, wl, xm, ym, mask []float64 // step-major, demoRuns per step
}

// demoRollout is the native float64 model: x, y, θ per run at every step.
func demoRollout(k []float64, d demoData, visit func(step, run int, x, y float64)) {
	x := make([]float64, demoRuns)
	y := make([]float64, demoRuns)
	th := make([]float64, demoRuns)
	for s := range demoSteps {
		for r := range demoRuns {
			i := s*demoRuns + r
			v := demoR / 2 * (k[0]*d.wr[i] + k[1]*d.wl[i])
			w := demoR / demoL * (k[0]*d.wr[i] - k[1]*d.wl[i])
			x[r] += demoDt * v * math.Cos(th[r])
			y[r] += demoDt * v * math.Sin(th[r])
			th[r] += demoDt * w
			visit(s, r, x[r], y[r])
		}
	}
}

func demoMakeData(seed uint64) demoData {
	n := demoSteps * demoRuns
	d := demoData{wr: make([]float64, n), wl: make([]float64, n), xm: make([]float64, n), ym: make([]float64, n), mask: make([]float64, n)}
	for s := range demoSteps {
		t := float64(s) * demoDt
		for r := range demoRuns {
			fr := float64(r + 1)
			d.wr[s*demoRuns+r] = 4 + 2*math.Sin(0.3*fr*t)
			d.wl[s*demoRuns+r] = 4 + 2*math.Cos(0.2*fr*t+fr)
		}
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	demoRollout(demoTrue, d, func(s, r int, x, y float64) {
		if (s+1)%4 == 0 { // 60 Hz camera after the step
			i := s*demoRuns + r
			d.xm[i] = x + 0.003*rng.NormFloat64()
			d.ym[i] = y + 0.003*rng.NormFloat64()
			d.mask[i] = 1
		}
	})
	return d
}

func demoLossNative(k []float64, d demoData) float64 {
	var l float64
	demoRollout(k, d, func(s, r int, x, y float64) {
		i := s*demoRuns + r
		l += d.mask[i] * ((x-d.xm[i])*(x-d.xm[i]) + (y-d.ym[i])*(y-d.ym[i]))
	})
	return l
}

func demoStep(g *ad.Graph, p, s, in []*G.Node) ([]*G.Node, *G.Node, error) {
	x, y, th := s[0], s[1], s[2]
	wr := G.Must(G.Mul(p[0], in[0]))
	wl := G.Must(G.Mul(p[1], in[1]))
	v := G.Must(G.Mul(g.Scalar(demoR/2*demoDt), G.Must(G.Add(wr, wl))))
	w := G.Must(G.Mul(g.Scalar(demoR/demoL*demoDt), G.Must(G.Sub(wr, wl))))
	x2 := G.Must(G.Add(x, G.Must(G.HadamardProd(v, G.Must(G.Cos(th))))))
	y2 := G.Must(G.Add(y, G.Must(G.HadamardProd(v, G.Must(G.Sin(th))))))
	th2 := G.Must(G.Add(th, w))
	ex := G.Must(G.Sub(x2, in[2]))
	ey := G.Must(G.Sub(y2, in[3]))
	e2 := G.Must(G.Add(G.Must(G.Square(ex)), G.Must(G.Square(ey))))
	loss, err := G.Sum(G.Must(G.HadamardProd(in[4], e2)))
	return []*G.Node{x2, y2, th2}, loss, err
}

func runDemo(e env, dir string, prog *progress) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	fmt.Fprintln(e.stdout, "wheelgrad demo")
	fmt.Fprintln(e.stdout, "Not in this version yet: Mecanum identification (issue 3), figure-8 control synthesis")
	fmt.Fprintln(e.stdout, "(issue 4), differential-drive calibration (issue 5). Meanwhile, the differentiable core")
	fmt.Fprintln(e.stdout, "end to end: a differential-drive robot with miscalibrated wheel radii, 3 runs of 8 s at")
	fmt.Fprintln(e.stdout, "240 Hz with a 60-Hz camera (σ = 3 mm), identified by L-BFGS-B through a chunked scan.")
	fmt.Fprintln(e.stdout)

	d := demoMakeData(1)
	zero := make([]float64, demoRuns)
	scan, err := ad.NewScan(ad.ScanSpec{
		Params: []ad.Param{{Name: "kR"}, {Name: "kL"}},
		State:  []int{demoRuns, demoRuns, demoRuns},
		Inputs: []int{demoRuns, demoRuns, demoRuns, demoRuns, demoRuns},
		Chunk:  demoChunk,
		Step:   demoStep,
	})
	if err != nil {
		return err
	}
	roll := ad.Rollout{State0: [][]float64{zero, zero, zero}, Inputs: [][]float64{d.wr, d.wl, d.xm, d.ym, d.mask}, Steps: demoSteps}
	obj := func(x, grad []float64) (float64, error) {
		f, g, _, err := scan.ValueAndGrad(x, roll)
		if err == nil && grad != nil {
			copy(grad, g)
		}
		return f, err
	}

	// Gradient check at the start against the native float64 model.
	x0 := []float64{1, 1}
	g0 := make([]float64, 2)
	if _, err := obj(x0, g0); err != nil {
		return err
	}
	chk, err := ad.CheckGrad(func(k []float64) (float64, error) { return demoLossNative(k, d), nil }, g0, x0, 1e-6)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "  rollout         %d steps × %d runs, chunk graph of %d steps (%d nodes)\n", demoSteps, demoRuns, demoChunk, scan.Nodes())
	fmt.Fprintf(e.stdout, "  gradient check  %.1e relative error against central differences of the native model\n", chk.MaxRelErr)

	start := time.Now()
	res, err := opt.LBFGSB{}.Minimize(opt.Problem{
		Objective: obj,
		Lower:     []float64{0.5, 0.5},
		Upper:     []float64{1.5, 1.5},
	}, x0, opt.Settings{GradientTol: 1e-9, Callback: func(it opt.Iteration) bool {
		prog.printf("  L-BFGS-B iteration %d: loss %.6g", it.Iter, it.F)
		return true
	}})
	prog.done()
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "  identified      kR = %.4f (true %.2f), kL = %.4f (true %.2f)\n", res.X[0], demoTrue[0], res.X[1], demoTrue[1])
	fmt.Fprintf(e.stdout, "  L-BFGS-B        %d iterations, %d evaluations, %s, %s\n", res.Iterations, res.FuncEvaluations, time.Since(start).Round(time.Millisecond), res.Status)
	rms := math.Sqrt(res.F / float64(demoSteps/4*demoRuns))
	fmt.Fprintf(e.stdout, "  fit             RMS position residual %.2f mm (camera noise 3 mm per axis: %.2f mm in 2-D)\n", 1000*rms, 3*math.Sqrt2)
	return writeDemoOutputs(e, dir, d, res.X)
}

// writeDemoOutputs writes the camera samples with the nominal and identified
// predictions as CSV and as a figure.
func writeDemoOutputs(e env, dir string, d demoData, k []float64) error {
	type traj struct{ x, y [demoRuns][]float64 }
	predict := func(k []float64) traj {
		var t traj
		demoRollout(k, d, func(s, r int, x, y float64) {
			t.x[r] = append(t.x[r], x)
			t.y[r] = append(t.y[r], y)
		})
		return t
	}
	nominal, fitted := predict([]float64{1, 1}), predict(k)
	csvPath := filepath.Join(dir, "core-demo.csv")
	err := dataset.WriteFileAtomic(csvPath, func(w io.Writer) error {
		cw := dataset.NewWriter(w)
		cw.WriteHeader("t", "run", "x_camera", "y_camera", "x_identified", "y_identified", "x_nominal", "y_nominal")
		for s := range demoSteps {
			for r := range demoRuns {
				i := s*demoRuns + r
				xm, ym := math.NaN(), math.NaN()
				if d.mask[i] == 1 {
					xm, ym = d.xm[i], d.ym[i]
				}
				cw.WriteFloats(float64(s+1)*demoDt, float64(r+1), xm, ym, fitted.x[r][s], fitted.y[r][s], nominal.x[r][s], nominal.y[r][s])
			}
		}
		return cw.Flush()
	})
	if err != nil {
		return err
	}
	var ss []figure.Series
	for r := range demoRuns {
		var cx, cy []float64
		n := 0
		for s := range demoSteps {
			if i := s*demoRuns + r; d.mask[i] == 1 {
				if n%8 == 0 {
					cx, cy = append(cx, d.xm[i]), append(cy, d.ym[i])
				}
				n++
			}
		}
		c := figure.Palette[r]
		name := func(what string) string {
			if r > 0 {
				return ""
			}
			return what
		}
		ss = append(ss,
			figure.Series{Name: name("camera (every 8th sample)"), X: cx, Y: cy, Points: true, Color: c},
			figure.Series{Name: name("identified model"), X: fitted.x[r], Y: fitted.y[r], Color: c},
			figure.Series{Name: name("nominal wheel radii"), X: nominal.x[r], Y: nominal.y[r], Color: c, Dashed: true})
	}
	pngPath := filepath.Join(dir, "core-demo.png")
	if err := figure.XY(pngPath, "Differential drive: wheel radii identified by L-BFGS-B", "x (m)", "y (m)", true, ss); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "\n  wrote %s and %s\n", csvPath, pngPath)
	return nil
}
