package tire

import "testing"

// BenchmarkStep: the native rollout (generated kernel), 1 lane, 10 s at
// 1 ms; steps/s reported.
func BenchmarkStep(b *testing.B) {
	p := Jackal()
	const T = 10000
	wl, wr := testRun(T)
	u := make([]float64, 2*T)
	for k := range T {
		u[2*k], u[2*k+1] = wl[k], wr[k]
	}
	sim := p.Body().NewSim(1, T)
	x0 := make([]float64, 6)
	b.ResetTimer()
	for range b.N {
		if _, err := sim.Forward(p.free(), p.settings(), x0, u, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(T)*float64(b.N)/b.Elapsed().Seconds(), "steps/s")
}

// BenchmarkValueAndGrad: the identification loss and its gradient over 8
// runs × 10 s at 1 ms (80,000 lane-steps), sharded over the cores.
func BenchmarkValueAndGrad(b *testing.B) {
	truth, _ := surfaces()
	var runs []*Run
	for i := range 8 {
		mv := Maneuvers()[i]
		mv.Duration = 10
		r, err := Synthesize(truth, mv, SynthConfig{Seed: uint64(i)})
		if err != nil {
			b.Fatal(err)
		}
		runs = append(runs, r)
	}
	p := Jackal()
	f, err := newFit(p, runs, []int{0, 1, 2}, 2)
	if err != nil {
		b.Fatal(err)
	}
	x, g := f.x0(), make([]float64, 3)
	b.ResetTimer()
	for range b.N {
		if _, err := f.eval(x, g); err != nil {
			b.Fatal(err)
		}
	}
}
