package mecanum

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	G "gorgonia.org/gorgonia"

	"github.com/wheelgrad/wheelgrad/ad"
	"github.com/wheelgrad/wheelgrad/dataset"
)

// a friction that depends on the command, as the paper observed
func muOfCommand(w [4]float64) [4]float64 {
	var m [4]float64
	for j := range 4 {
		m[j] = 0.3 + 0.02*math.Abs(w[j]) + 0.05*float64(j)
	}
	return m
}

func netData(n int, seed uint64) (cmds, mus [][4]float64) {
	rng := rand.New(rand.NewPCG(seed, 2))
	for range n {
		var w [4]float64
		for j := range w {
			w[j] = -12 + 24*rng.Float64()
		}
		cmds, mus = append(cmds, w), append(mus, muOfCommand(w))
	}
	return
}

// The graph of the network equals its native Predict, and its gradient
// equals central differences of the native loss.
func TestFrictionNetGraphMatchesNative(t *testing.T) {
	cmds, mus := netData(6, 1)
	net := newNet(NetHidden, 12, 2, 3)
	var in, tg []float64
	for i := range cmds {
		in, tg = append(in, cmds[i][:]...), append(tg, mus[i][:]...)
	}
	prog, err := ad.Compile(netParams(NetHidden), func(g *ad.Graph, p []*G.Node) (*G.Node, error) {
		return netLoss(g, p, in, tg, len(cmds), NetHidden, 12, 2, 0.01)
	})
	if err != nil {
		t.Fatal(err)
	}
	x := net.flatten()
	native := func(x []float64) (float64, error) {
		m := newNet(NetHidden, 12, 2, 3)
		m.unflatten(x)
		var l, reg float64
		for i := range cmds {
			p := m.Predict(cmds[i])
			for j := range 4 {
				l += (p[j] - mus[i][j]) * (p[j] - mus[i][j])
			}
		}
		for _, r := range append(append([][]float64{}, m.W1...), m.W2...) {
			for _, v := range r {
				reg += v * v
			}
		}
		return l/float64(len(cmds)) + 0.01/2*reg, nil
	}
	f, grad, err := prog.ValueAndGrad(x)
	if err != nil {
		t.Fatal(err)
	}
	if nf, _ := native(x); relErr(f, nf) > 1e-12 {
		t.Errorf("graph loss %v, native %v", f, nf)
	}
	out := prog.Output("mu")
	for i := range cmds {
		p := net.Predict(cmds[i])
		for j := range 4 {
			if math.Abs(out[4*i+j]-p[j]) > 1e-12 {
				t.Fatalf("sample %d: graph μ %v, native %v", i, out[4*i:4*i+4], p)
			}
		}
	}
	chk, err := ad.CheckGrad(native, grad, x, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	if chk.MaxRelErr > 1e-6 {
		t.Errorf("%v", chk)
	}
}

// Trained on per-trajectory μ of 8 commands, the network reproduces them and
// predicts μ for nearby commands (within 1 rad/s of a training command)
// better than the mean μ does. Far from them 8 samples of a 4-D input say
// little (a held-out check on random commands does not beat the mean).
func TestTrainFrictionNet(t *testing.T) {
	cmds, mus := netData(8, 4)
	net, res, err := TrainFrictionNet(cmds, mus, 1e-3, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := net.Validate(); err != nil {
		t.Fatal(err)
	}
	var mean [4]float64
	for _, m := range mus {
		for j := range 4 {
			mean[j] += m[j] / float64(len(mus))
		}
	}
	rng := rand.New(rand.NewPCG(6, 6))
	var test, want [][4]float64
	for range 50 {
		w := cmds[rng.IntN(len(cmds))]
		for j := range w {
			w[j] += -1 + 2*rng.Float64()
		}
		test, want = append(test, w), append(want, muOfCommand(w))
	}
	var eNet, eMean float64
	for i := range test {
		p := net.Predict(test[i])
		for j := range 4 {
			eNet += (p[j] - want[i][j]) * (p[j] - want[i][j])
			eMean += (mean[j] - want[i][j]) * (mean[j] - want[i][j])
		}
	}
	t.Logf("trained in %d iterations; held-out RMS: network %.4f, mean μ %.4f", res.Iterations, math.Sqrt(eNet/200), math.Sqrt(eMean/200))
	if !(eNet < eMean) {
		t.Errorf("network RMS %v not below the mean's %v", math.Sqrt(eNet/200), math.Sqrt(eMean/200))
	}
}

// A parameter file may carry the network instead of μ; Simulate uses it.
func TestParamsWithFrictionNet(t *testing.T) {
	net := newNet(NetHidden, 12, 2, 3)
	p := DefaultParams()
	p.Mu = nil
	p.Friction = net
	path := t.TempDir() + "/p.json"
	var jb bytes.Buffer
	if err := dataset.WriteJSON(&jb, p); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, jb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	q, _, err := ReadParams(path, true)
	if err != nil {
		t.Fatal(err)
	}
	cmd := [4]float64{3, 8, -2, 5}
	r, _ := Synthesize(q, SynthSpec{Command: cmd, Duration: 1, Pose0: [3]float64{0, 0, 0.2}})
	x, y, _ := Simulate(q, &r)
	c := DefaultParams()
	m := net.Predict(cmd)
	c.Mu = m[:]
	cx, cy, _ := Simulate(c, &r)
	for i := range x {
		if x[i] != cx[i] || y[i] != cy[i] {
			t.Fatalf("row %d: network (%v, %v), μ = net(command) (%v, %v)", i, x[i], y[i], cx[i], cy[i])
		}
	}
}
