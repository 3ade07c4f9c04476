package mecanum

import (
	"testing"

	"github.com/wheelgrad/wheelgrad/dyn"
)

// One trajectory of the paper's size: 1,680 control steps at 240 Hz (7 s),
// 420 camera samples at 60 Hz.
func benchFit(b *testing.B, cfg Config) *Fit {
	p := testParams()
	r, _ := Synthesize(p, SynthSpec{Command: [4]float64{4, 10, 10, 4}, Duration: 1679.0 / 240, Noise: 0.003, HeadNoise: 0.01, Seed: 1})
	if n := len(r.Camera()); r.Len() != 1680 || n != 420 {
		b.Fatalf("%d rows, %d camera samples", r.Len(), n)
	}
	f, err := NewFit(p, []Run{r}, cfg)
	if err != nil {
		b.Fatal(err)
	}
	return f
}

func BenchmarkLossGrad(b *testing.B) {
	for _, c := range []struct {
		name string
		cfg  Config
	}{{"paper", PaperConfig()}, {"default", DefaultConfig()}} {
		f := benchFit(b, c.cfg)
		x := f.X0([4]float64{0.3, 0.7, 0.5, 0.6})
		g := make([]float64, f.Dim())
		b.Run(c.name+"/analytic", func(b *testing.B) {
			for range b.N {
				f.AnalyticGrad(x, g)
			}
		})
		d := f.newDynFit()
		b.Run(c.name+"/dyn", func(b *testing.B) {
			for range b.N {
				if _, err := d.Eval(x, g); err != nil {
					b.Fatal(err)
				}
			}
		})
		gf, err := f.compile()
		if err != nil {
			b.Fatal(err)
		}
		xt := f.X0(trueMu)
		b.Run(c.name+"/analytic-near-optimum", func(b *testing.B) {
			for range b.N {
				f.AnalyticGrad(xt, g)
			}
		})
		b.Run(c.name+"/autodiff", func(b *testing.B) {
			for range b.N {
				if _, err := gf.Eval(x, g); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(gf.Prog.Nodes()), "nodes")
		})
		gp, err := f.compilePrimitive()
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name+"/autodiff-primitive", func(b *testing.B) {
			for range b.N {
				if _, err := gp.Eval(x, g); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(gp.Prog.Nodes()), "nodes")
		})
		// the graph alone, closest points as of the last Eval: what the
		// evaluation costs beyond the native closest-point search
		b.Run(c.name+"/autodiff-graph-only", func(b *testing.B) {
			for range b.N {
				if _, err := gf.Prog.ValueAndGradInto(x, g); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The whole identification of one paper-size trajectory (fit preparation,
// L-BFGS-B, identifiability analysis), with the default engine (dyn: the
// gradient generated from the step definition) and with Algorithm 2
// (analytic, the default before).
func BenchmarkIdentify(b *testing.B) {
	p := testParams()
	r, _ := Synthesize(p, SynthSpec{Command: [4]float64{4, 10, 10, 4}, Duration: 1679.0 / 240, Noise: 0.003, HeadNoise: 0.005, Seed: 1})
	for _, c := range []struct {
		name   string
		engine Engine
	}{{"dyn", EngineGenerated}, {"analytic", EngineAnalytic}} {
		b.Run(c.name, func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.Engine = c.engine
			for range b.N {
				f, err := NewFit(p, []Run{r}, cfg)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := Identify(f, IdentifyOptions{Init: [4]float64{0.5, 0.5, 0.5, 0.5}}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The step definition's rollout of one paper-size run (1,680 rows), forward
// alone and forward plus the generated reverse pass, with the generated
// kernel and with the interpreter.
func BenchmarkModelRollout(b *testing.B) {
	p := testParams()
	r, _ := Synthesize(p, SynthSpec{Command: [4]float64{4, 10, 10, 4}, Duration: 1679.0 / 240, Seed: 1})
	T := r.Len()
	u := ModelInputs(&r)
	x0 := []float64{r.X[0], r.Y[0], r.Theta[0]}
	q := SettingsOf(p)
	y, ybar := make([]float64, 3*T), make([]float64, 3*T)
	for i := range ybar {
		ybar[i] = 1
	}
	pbar, x0bar := make([]float64, 4), make([]float64, 3)
	for _, k := range []struct {
		name string
		k    dyn.Kernel
	}{{"generated", Model.NewKernel()}, {"interpreter", Model.NewInterpreter()}} {
		sim, err := Model.NewSimWith(k.k, 1, T)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(k.name+"/forward", func(b *testing.B) {
			for range b.N {
				if _, err := sim.Forward(p.Mu, q, x0, u, y); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(k.name+"/forward+reverse", func(b *testing.B) {
			for range b.N {
				if _, err := sim.Forward(p.Mu, q, x0, u, y); err != nil {
					b.Fatal(err)
				}
				if err := sim.Backward(p.Mu, q, u, ybar, 0, nil, pbar, x0bar, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
