package baseline

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/wheelgrad/wheelgrad/ad"
	"github.com/wheelgrad/wheelgrad/control"
	"github.com/wheelgrad/wheelgrad/models/mecanum"
	"github.com/wheelgrad/wheelgrad/opt"
)

// paperLogs are like Luo et al.'s identification data: 8 constant commands
// of 7 s, 240-Hz rows, 60-Hz camera with σ = 3 mm.
// testRobot is FORMATS.md's Mecanum robot with the friction.
var testRobot = mecanum.Drive{Params: mecanum.Params{Model: "mecanum", R: 0.03, Lab: 0.2, M: 4, G: 9.8, Ts: 0.6, Mu: []float64{0.6, 0.7, 0.8, 0.9}}}

func paperLogs(truth mecanum.Params) []mecanum.Run {
	cmds := [][4]float64{
		{10, 10, 10, 10}, {-10, -10, -10, -10}, {10, -10, 10, -10}, {-8, 8, -8, 8},
		{12, 6, 12, 6}, {6, 12, 6, 12}, {8, -8, -8, 8}, {15, 5, 5, 15},
	}
	var runs []mecanum.Run
	for i, c := range cmds {
		r, _ := mecanum.Synthesize(truth, mecanum.SynthSpec{Command: c, Duration: 7, Noise: 0.003, HeadNoise: 0.01, Seed: uint64(i)})
		runs = append(runs, r)
	}
	return runs
}

func TestBaselineTrainsAndLosesToSynthesis(t *testing.T) {
	runs := paperLogs(testRobot.Params)
	in, out := Samples(runs, 60, 16)
	b, err := Train(in, out, 30, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("baseline: %d pairs, normalised MSE %.2e", b.N, b.Loss)
	if b.N < 500 || b.Loss > 1e-3 {
		t.Errorf("baseline fit: %d pairs, MSE %g", b.N, b.Loss)
	}
	// It reproduces a training command from its own pose change.
	c := b.Command(in[100][0], in[100][1], in[100][2])
	for j := range c {
		if math.Abs(c[j]-out[100][j]) > 1.5 {
			t.Errorf("training pair 100: command %v, logged %v", c, out[100])
			break
		}
	}
	p, err := control.NewPlan(testRobot, control.Figure8{A: 1, T: 40}, control.Figure8ReverseRight, 2.35619, 4, 1.0/240, 30)
	if err != nil {
		t.Fatal(err)
	}
	poses, vel := control.Execute(testRobot, p.Start, b.Controls(p), p.N, p.Dt)
	base := control.Track(p.Path, 0, p.Dt, poses, vel)
	s, _ := control.NewSynthesizer(p)
	res, err := s.Synthesize(nil, opt.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	poses, vel = control.Execute(testRobot, p.Start, res.Controls, p.N, p.Dt)
	syn := control.Track(p.Path, 0, p.Dt, poses, vel)
	t.Logf("figure 8: baseline RMS %.1f mm (max %.1f), synthesis RMS %.2f mm", 1e3*base.RMS, 1e3*base.Max, 1e3*syn.RMS)
	if !(syn.RMS < base.RMS/5) {
		t.Errorf("synthesis RMS %.4f m is not well below the data-driven baseline's %.4f m", syn.RMS, base.RMS)
	}
}

func TestBaselineTrainingGradient(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	n := 7
	X := make([]float64, 3*n)
	Y := make([]float64, 4*n)
	for i := range X {
		X[i] = r.NormFloat64()
	}
	for i := range Y {
		Y[i] = r.Float64()*2 - 1
	}
	prog, err := program(X, Y, n)
	if err != nil {
		t.Fatal(err)
	}
	native := func(x []float64) (float64, error) {
		var b Net
		b.unpack(x)
		b.Std = [3]float64{1, 1, 1}
		var mse, reg float64
		for i := range n {
			o := b.predictNormalised([3]float64{X[3*i], X[3*i+1], X[3*i+2]})
			for j := range 4 {
				d := o[j] - Y[4*i+j]
				mse += d * d
			}
		}
		for _, v := range x[:3*hidden] {
			reg += v * v
		}
		off := 4 * hidden
		for _, v := range x[off : off+4*hidden] {
			reg += v * v
		}
		return mse/float64(4*n) + decay*reg, nil
	}
	x := make([]float64, prog.Dim())
	for i := range x {
		x[i] = 0.5 * r.NormFloat64()
	}
	f, g, err := prog.ValueAndGrad(x)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := native(x)
	if math.Abs(f-want) > 1e-12*math.Abs(want) {
		t.Errorf("graph loss %.16g, native %.16g", f, want)
	}
	chk, _ := ad.CheckGrad(native, g, x, 1e-6)
	if chk.MaxRelErr > 1e-6 {
		t.Errorf("training gradient: %v", chk)
	}
}
