package pioneer

import (
	"testing"

	"github.com/wheelgrad/wheelgrad/models/pioneer/p3dx"
)

// benchRun is a 300-s navigation-like log (3,000 samples) of the true robot.
func benchRun() *Run {
	v, w := p3dx.Navigation(300, 11)
	return toRun(p3dx.Default().Drive(v, w, 11))
}

// BenchmarkSimulate is the native exact rollout of a 300-s log (3,000
// samples; the physical form's 60,000 internal 5-ms steps).
func BenchmarkSimulate(b *testing.B) {
	r := benchRun()
	for _, form := range []string{FormPhysical, FormExperimental} {
		p := Default(form)
		dv, dw := p.Delays()
		bt := newBatch(p, []*Run{r}, dv, dw, 1, 1)
		x := p.vector()
		b.Run(form, func(b *testing.B) {
			for b.Loop() {
				if _, err := bt.run(x, 0, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkValueGrad is the identification objective on the same log: the
// smoothed rollout and its generated reverse pass to every parameter.
func BenchmarkValueGrad(b *testing.B) {
	r := benchRun()
	for _, form := range []string{FormPhysical, FormExperimental} {
		p := Default(form)
		dv, dw := p.Delays()
		bt := newBatch(p, []*Run{r}, dv, dw, 1, 1)
		x := p.vector()
		g := make([]float64, len(x))
		b.Run(form, func(b *testing.B) {
			for b.Loop() {
				if _, err := bt.run(x, 0.005, g); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
