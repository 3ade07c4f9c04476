package diffdrive

import (
	"fmt"
	"math"
	"os"
	"testing"

	G "gorgonia.org/gorgonia"

	"github.com/wheelgrad/wheelgrad/ad"
	"github.com/wheelgrad/wheelgrad/dyn"
)

var stepModels = []struct {
	m             *dyn.Model
	varName, file string
}{
	{StepModel, "StepModel", "step_gen_sim.go"},
	{PoseModel, "PoseModel", "pose_gen.go"},
	{CalibExact, "CalibExact", "step_gen_calib.go"},
	{CalibSmoothAbs, "CalibSmoothAbs", "step_gen_calib_sabs.go"},
	{CalibSmooth, "CalibSmooth", "step_gen_calib_smooth.go"},
	{CalibSmoothBoth, "CalibSmoothBoth", "step_gen_calib_smooth_sabs.go"},
}

// TestGenerated keeps the generated kernels equal to what dyn.Generate
// writes for the step definitions (DYN_UPDATE=1 rewrites them).
func TestGenerated(t *testing.T) {
	update := os.Getenv("DYN_UPDATE") == "1"
	for _, s := range stepModels {
		typ := "kernel" + s.varName
		if err := dyn.GenerateFile(s.m, "diffdrive", s.varName, typ, s.file, update); err != nil {
			t.Error(err)
		}
		if !update && !s.m.Generated() {
			t.Errorf("%s: generated kernel not in use", s.m.Name())
		}
	}
}

// The step-language model rolled out natively equals SimulateSpeeds (the
// hand-written hot path) to 1e-12, wheel by wheel and step by step.
func TestStepModelMatchesSimulate(t *testing.T) {
	for _, p := range []Params{Paper(), Vulcan()} {
		const n = 3000
		uf, ul := testCommands(n, 5)
		vr, vl := make([]float64, n), make([]float64, n)
		s0 := State{SdR: 0.3, SddR: 0.1, SdL: -0.2}
		p.SimulateSpeeds(s0, uf, ul, vr, vl)
		for name, k := range map[string]dyn.Kernel{"generated": StepModel.NewKernel(), "interpreter": StepModel.NewInterpreter()} {
			sim, err := StepModel.NewSimWith(k, 1, n-1)
			if err != nil {
				t.Fatal(err)
			}
			u := make([]float64, 2*(n-1))
			for i := range n - 1 {
				u[2*i], u[2*i+1] = uf[i], ul[i]
			}
			z := p.Zeta()
			if _, err := sim.Forward(z[:], []float64{p.H, p.L}, []float64{s0.SdR, s0.SddR, s0.SdL, s0.SddL}, u, nil); err != nil {
				t.Fatal(err)
			}
			for i := range n {
				st := sim.State(i)
				if math.Abs(st[0]-vr[i]) > 1e-12 || math.Abs(st[2]-vl[i]) > 1e-12 {
					t.Fatalf("%s step %d: (%v, %v), SimulateSpeeds (%v, %v)", name, i, st[0], st[2], vr[i], vl[i])
				}
			}
		}
	}
}

// The calibration loss and gradient of the step language equal the
// hand-written adjoint's (now a test reference) for every smoothing.
func TestStepLossMatchesAdjoint(t *testing.T) {
	p := Paper()
	b := testBatch(t, 120, 50, 7, p)
	z := perturbed(p)
	for _, sm := range []Smoothing{{}, {Eps: 0.01}, {T: 0.05}, {T: 0.05, Eps: 0.01}} {
		a, err := NewAdjoint(b, p.L, p.H, LossSpec{CW: 0.7})
		if err != nil {
			t.Fatal(err)
		}
		s, err := NewStepLoss(b, p.L, p.H, LossSpec{CW: 0.7})
		if err != nil {
			t.Fatal(err)
		}
		fa, ga := a.LossGrad(z, sm)
		fs, gs, err := s.LossGrad(z, sm)
		if err != nil {
			t.Fatal(err)
		}
		if relDiff(fa, fs) > 1e-12 {
			t.Errorf("%+v: loss %.17g, hand-written adjoint %.17g", sm, fs, fa)
		}
		for i := range 6 {
			if relDiff(ga[i], gs[i]) > 1e-10 {
				t.Errorf("%+v: ∂L/∂ζ%d = %.15g, hand-written adjoint %.15g", sm, i, gs[i], ga[i])
			}
		}
	}
}

// The step language's calibration gradient against central differences of
// the native loss, smoothed model (the exact one has kinks at every stick).
func TestStepLossGradientFiniteDifferences(t *testing.T) {
	p := Paper()
	b := testBatch(t, 60, 30, 9, p)
	z := perturbed(p)
	sm := Smoothing{T: 0.05, Eps: 0.01}
	s, err := NewStepLoss(b, p.L, p.H, LossSpec{CW: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, g, err := s.LossGrad(z, sm)
	if err != nil {
		t.Fatal(err)
	}
	c, err := ad.CheckGrad(func(x []float64) (float64, error) {
		return s.Loss([6]float64(x), sm)
	}, g[:], z[:], 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	if c.MaxRelErr > 1e-6 {
		t.Errorf("%v", c)
	}
}

// The graph form (one dyn.Rollout node) equals the native step loss, value
// and gradient.
func TestStepGraphLossMatchesNative(t *testing.T) {
	p := Paper()
	b := testBatch(t, 60, 20, 9, p)
	z := perturbed(p)
	for _, sm := range []Smoothing{{}, {T: 0.05, Eps: 0.01}} {
		prog, err := ad.Compile(zetaParam, func(g *ad.Graph, x []*G.Node) (*G.Node, error) {
			return StepGraphLoss(g, x[0], b, p.L, p.H, 1, sm)
		})
		if err != nil {
			t.Fatal(err)
		}
		f, g, err := prog.ValueAndGrad(z[:])
		if err != nil {
			t.Fatal(err)
		}
		s, _ := NewStepLoss(b, p.L, p.H, LossSpec{CW: 1})
		fs, gs, err := s.LossGrad(z, sm)
		if err != nil {
			t.Fatal(err)
		}
		if relDiff(f, fs) > 1e-12 {
			t.Errorf("%+v: graph %.17g, native %.17g", sm, f, fs)
		}
		for i := range 6 {
			if relDiff(g[i], gs[i]) > 1e-12 {
				t.Errorf("%+v: graph gradient %v, native %v", sm, g, gs)
				break
			}
		}
	}
}

// BenchmarkSimulateStep is BenchmarkSimulate through the step language's
// generated kernel (one lane, 37,500 steps).
func BenchmarkSimulateStep(b *testing.B) {
	p := Paper()
	uf, ul := testCommands(37500, 1)
	u := make([]float64, 2*len(uf))
	for i := range uf {
		u[2*i], u[2*i+1] = uf[i], ul[i]
	}
	sim := StepModel.NewSim(1, len(uf))
	z := p.Zeta()
	q := []float64{p.H, p.L}
	x0 := make([]float64, 4)
	b.ResetTimer()
	for range b.N {
		if _, err := sim.Forward(z[:], q, x0, u, nil); err != nil {
			b.Fatal(err)
		}
	}
	sec := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(2*float64(len(uf))/sec, "wheel-steps/s")
	b.ReportMetric(float64(len(uf))*p.H/sec, "x-realtime")
}

// BenchmarkGradientStep: the calibration loss and gradient of the step
// language (native rollout + generated reverse pass), beside
// BenchmarkGradientNativeAdjoint (the hand-written one) at the same size.
func BenchmarkGradientStep(b *testing.B) {
	for _, sm := range []Smoothing{{}, {T: 0.05, Eps: 0.005}} {
		b.Run(fmt.Sprintf("T=%v", sm.T), func(b *testing.B) {
			p := Paper()
			bt := benchBatch(b)
			s, _ := NewStepLoss(bt, p.L, p.H, LossSpec{CW: 1})
			z := perturbed(p)
			b.ResetTimer()
			for range b.N {
				if _, _, err := s.LossGrad(z, sm); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(bt.M), "segments")
		})
	}
}

// BenchmarkGradientStepGraph: the same through the gorgonia op in a
// compiled ad.Program.
func BenchmarkGradientStepGraph(b *testing.B) {
	p := Paper()
	bt := benchBatch(b)
	prog, err := ad.Compile(zetaParam, func(g *ad.Graph, x []*G.Node) (*G.Node, error) {
		return StepGraphLoss(g, x[0], bt, p.L, p.H, 1, Smoothing{})
	})
	if err != nil {
		b.Fatal(err)
	}
	z := perturbed(p)
	g := make([]float64, 6)
	b.ResetTimer()
	for range b.N {
		if _, err := prog.ValueAndGradInto(z[:], g); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(prog.Nodes()), "nodes")
}

// BenchmarkSelfCheck is the built-in gradient check that the first
// Backward of a calibration's Sim runs (dyn's Model.CheckRollout with the
// generated kernel, at the calibration's batch and point): one forward and
// backward pass, the switches' signature at the point and the four
// stencil points', beside one LossGrad (the check's floor: the
// calibration's own evaluation). The stencil points' signatures are
// compared step by step and the points share one buffer: the check took
// 0.34 s of a 1.1-s `wheelgrad identify -model diffdrive` on the demo's
// log (CPU profile), 0.12 s after.
func BenchmarkSelfCheck(b *testing.B) {
	p := Paper()
	bt := benchBatch(b)
	s, _ := NewStepLoss(bt, p.L, p.H, LossSpec{CW: 1})
	z := perturbed(p)
	m := CalibModel(Smoothing{})
	_, q := s.sim(Smoothing{})
	b.Run("check", func(b *testing.B) {
		for i := range b.N {
			if _, err := m.CheckRollout(m.NewKernel(), z[:], q, s.x0, s.u, bt.M, bt.N, nil, 1, nil, uint64(i)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("lossgrad", func(b *testing.B) {
		for range b.N {
			if _, _, err := s.LossGrad(z, Smoothing{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
