package diffdrive

import (
	"testing"

	G "gorgonia.org/gorgonia"

	"github.com/wheelgrad/wheelgrad/ad"
)

// BenchmarkSimulate: forward simulation of the exact model, 2 wheels per
// step; wheel-steps/s and × real time (h = 0.06 s per step) are reported.
func BenchmarkSimulate(b *testing.B) {
	p := Paper()
	uf, ul := testCommands(37500, 1)
	vr, vl := make([]float64, len(uf)), make([]float64, len(uf))
	b.ResetTimer()
	for range b.N {
		p.SimulateSpeeds(State{}, uf, ul, vr, vl)
	}
	sec := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(2*float64(len(uf))/sec, "wheel-steps/s")
	b.ReportMetric(float64(len(uf))*p.H/sec, "x-realtime")
}

// The calibration gradient at the paper's size, M = 3,800 segments of N = 50.
func benchBatch(b *testing.B) *Batch {
	p := Paper()
	bt := testBatch(b, 2250, 50, 10, p)
	return bt.Slice(0, min(bt.M, 3800))
}

func BenchmarkGradientNativeAdjoint(b *testing.B) {
	p := Paper()
	bt := benchBatch(b)
	a, _ := NewAdjoint(bt, p.L, p.H, LossSpec{CW: 1})
	z := perturbed(p)
	b.ResetTimer()
	for range b.N {
		a.LossGrad(z, Smoothing{})
	}
	b.ReportMetric(float64(bt.M), "segments")
}

func BenchmarkGradientFusedGraph(b *testing.B) {
	p := Paper()
	bt := benchBatch(b)
	prog := compileFused(b, bt, p, 1, Smoothing{})
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

func BenchmarkGradientFusedSharded(b *testing.B) {
	p := Paper()
	bt := benchBatch(b)
	sh, err := ad.CompileSharded(zetaParam, bt.M, 2, func(g *ad.Graph, x []*G.Node, lo, hi int) (*G.Node, error) {
		s, err := g.Input("smooth", []float64{0, 0})
		if err != nil {
			return nil, err
		}
		return FusedLoss(g, x[0], s, bt.Slice(lo, hi), p.L, p.H, 1)
	})
	if err != nil {
		b.Fatal(err)
	}
	z := perturbed(p)
	g := make([]float64, 6)
	b.ResetTimer()
	for range b.N {
		if _, err := sh.ValueAndGradInto(z[:], g); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGradientPrimitiveGraph(b *testing.B) {
	p := Paper()
	bt := benchBatch(b)
	prog := compilePrimitive(b, bt, p, 1, Smoothing{}, false)
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
