package rbf

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/wheelgrad/wheelgrad/ad"
)

func randomNetwork(in, out, h int, seed uint64) *Network {
	rng := rand.New(rand.NewPCG(seed, 2))
	n := New(in, out)
	for k := range out {
		n.W[k] = rng.NormFloat64()
	}
	for range h {
		a, c := make([]float64, out), make([]float64, in)
		for k := range a {
			a[k] = rng.NormFloat64()
		}
		for i := range c {
			c[i] = 2 * rng.NormFloat64()
		}
		n.AddUnit(a, c, 0.5+rng.Float64())
	}
	return n
}

func TestGradientAgainstFiniteDifferences(t *testing.T) {
	n := randomNetwork(2, 2, 4, 1)
	x := []float64{0.3, -0.7}
	y := make([]float64, 2)
	g := make([]float64, len(n.W)*2)
	n.Gradient(x, y, g)
	for k := range 2 {
		gk := make([]float64, len(n.W))
		for i := range gk {
			gk[i] = g[i*2+k]
		}
		w0 := append([]float64(nil), n.W...)
		chk, err := ad.CheckGrad(func(w []float64) (float64, error) {
			m := &Network{In: 2, Out: 2, W: w}
			out := make([]float64, 2)
			m.Eval(x, out)
			return out[k], nil
		}, gk, w0, 1e-6)
		if err != nil {
			t.Fatal(err)
		}
		if chk.MaxRelErr > 1e-7 {
			t.Errorf("output %d: %v", k, chk)
		}
	}
	ye := make([]float64, 2)
	n.Eval(x, ye)
	if ye[0] != y[0] || ye[1] != y[1] {
		t.Errorf("Gradient's value %v, Eval %v", y, ye)
	}
}

func TestGraphEqualsNativeAndGradient(t *testing.T) {
	const in, out, h, N = 2, 1, 5, 30
	net := randomNetwork(in, out, h, 3)
	rng := rand.New(rand.NewPCG(4, 4))
	X, T := make([]float64, N*in), make([]float64, N*out)
	for i := range X {
		X[i] = 2 * rng.NormFloat64()
	}
	for i := range T {
		T[i] = rng.NormFloat64()
	}
	prog, err := NewBatchLoss(in, out, h, X, T)
	if err != nil {
		t.Fatal(err)
	}
	x := net.ToBlocks()
	if back := FromBlocks(in, out, h, x); !equal(back.W, net.W) {
		t.Fatal("ToBlocks/FromBlocks do not round-trip")
	}
	native := func(x []float64) (float64, error) {
		m := FromBlocks(in, out, h, x)
		l := 0.0
		y := make([]float64, out)
		for i := range N {
			m.Eval(X[i*in:(i+1)*in], y)
			for k := range out {
				r := y[k] - T[i*out+k]
				l += 0.5 * r * r
			}
		}
		return l, nil
	}
	f, g, err := prog.ValueAndGrad(x)
	if err != nil {
		t.Fatal(err)
	}
	fn, _ := native(x)
	if math.Abs(f-fn) > 1e-12*math.Max(1, fn) {
		t.Errorf("graph loss %.17g, native %.17g", f, fn)
	}
	ys := prog.Output("y")
	yy := make([]float64, out)
	for i := range N {
		net.Eval(X[i*in:(i+1)*in], yy)
		if math.Abs(ys[i]-yy[0]) > 1e-12 {
			t.Fatalf("row %d: graph %.17g, native %.17g", i, ys[i], yy[0])
		}
	}
	chk, err := ad.CheckGrad(native, g, x, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	if chk.MaxRelErr > 1e-6 {
		t.Errorf("batch gradient vs central differences of the native network: %v", chk)
	}
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
