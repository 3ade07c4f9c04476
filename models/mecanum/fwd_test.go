package mecanum

import (
	"testing"

	"github.com/wheelgrad/wheelgrad/dyn"
	"github.com/wheelgrad/wheelgrad/internal/benchpair"
)

// BenchmarkModelSensitivities: the Mecanum step over 3 runs of 7 s (the
// demo's logs: 1,680 rows at 240 Hz, three lanes), each paired with the
// native rollout (Sim.Forward, x-native = 1): the value-only rollout, value
// and gradient of a squared pose loss by the reverse pass, and the forward
// mode's Jacobian of every pose with respect to the 4 friction
// coefficients, and with the runs' initial poses too (4 + 3 columns), stored
// at every row or only at every fourth (a 60-Hz camera's rows, Wrt.Rows).
func BenchmarkModelSensitivities(b *testing.B) {
	p := testParams()
	const B = 3
	x0, u, T := threeRuns(p)
	q := SettingsOf(p)
	mu := []float64{0.3, 0.7, 0.5, 0.6}
	sim, ref := Model.NewSim(B, T), Model.NewSim(B, T)
	native := func() error { _, err := ref.Forward(mu, q, x0, u, nil); return err }
	y, ybar := make([]float64, 3*T*B), make([]float64, 3*T*B)
	g := make([]float64, 4)
	b.Run("native", func(b *testing.B) {
		benchpair.Run(b, native, func() error { _, err := sim.Forward(mu, q, x0, u, nil); return err })
	})
	b.Run("value", func(b *testing.B) {
		benchpair.Run(b, native, func() error { _, err := sim.Value(mu, q, x0, u, y); return err })
	})
	b.Run("value+grad-reverse", func(b *testing.B) {
		benchpair.Run(b, native, func() error {
			if _, err := sim.Forward(mu, q, x0, u, y); err != nil {
				return err
			}
			for i := range y {
				ybar[i] = y[i] - 0.5 // a residual
			}
			sim.Backward(mu, q, u, ybar, 0, nil, g, nil, nil)
			return nil
		})
	})
	var cam []int // every fourth row of each lane: the camera rows of a 60-Hz camera
	for t := 0; t < T; t += 4 {
		for j := range B {
			cam = append(cam, t*B+j)
		}
	}
	for _, w := range []struct {
		name string
		wrt  dyn.Wrt
	}{{"jacobian-forward-mu", dyn.Wrt{}}, {"jacobian-forward-mu+x0", dyn.Wrt{X0: true}},
		{"jacobian-forward-mu+x0-camera-rows", dyn.Wrt{X0: true, Rows: cam}}} {
		j, err := sim.NewJac(w.wrt)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(w.name, func(b *testing.B) {
			benchpair.Run(b, native, func() error { return sim.Jacobian(mu, q, x0, u, j) })
		})
	}
}

// threeRuns lays out three 7-s runs of distinct commands as three lanes
// of Model: initial poses [3][3] and inputs [T][5][3].
func threeRuns(p Params) (x0, u []float64, T int) {
	const B = 3
	var runs [B]Run
	cmds := [B][4]float64{{4, 10, 10, 4}, {10, 4, 4, 10}, {8, -8, 8, -8}}
	for i := range runs {
		runs[i], _ = Synthesize(p, SynthSpec{Command: cmds[i], Duration: 1679.0 / 240, Seed: uint64(i + 1)})
	}
	T = runs[0].Len()
	u = make([]float64, T*5*B)
	x0 = make([]float64, 3*B)
	for j := range B {
		uj := ModelInputs(&runs[j])
		for t := range T {
			for k := range 5 {
				u[(t*5+k)*B+j] = uj[t*5+k]
			}
		}
		x0[j], x0[B+j], x0[2*B+j] = runs[j].X[0], runs[j].Y[0], runs[j].Theta[0]
	}
	return x0, u, T
}

// TestGeneratedForward: the generated value-only and forward-mode kernels
// of Model equal the interpreter on three demo-size runs.
func TestGeneratedForward(t *testing.T) {
	p := testParams()
	x0, u, T := threeRuns(p)
	d, err := Model.CheckGeneratedForward([]float64{0.3, 0.7, 0.5, 0.6}, SettingsOf(p), x0, u, 3, T, 1e-10)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("largest relative difference %.3g", d)
}
