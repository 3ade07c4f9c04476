package ad

import (
	"math"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"testing"
	"time"

	G "gorgonia.org/gorgonia"
)

// A batch of damped, forced pendulums: θ' = θ + hω, ω' = ω + h(−a·sin θ − b·ω + u),
// step loss h·Σ(θ' − target)². Nonlinear, and over 40,000 steps long enough
// that a wrong adjoint hand-off between chunks would show.
const pendH = 0.01

func pendulumStep(g *Graph, p, s, in []*G.Node) ([]*G.Node, *G.Node, error) {
	th, om := s[0], s[1]
	h := g.Scalar(pendH)
	acc := G.Must(G.Sub(G.Must(G.Neg(G.Must(G.Mul(p[0], G.Must(G.Sin(th)))))), G.Must(G.Mul(p[1], om))))
	acc = G.Must(G.Add(acc, in[0]))
	th2 := G.Must(G.Add(th, G.Must(G.Mul(h, om))))
	om2 := G.Must(G.Add(om, G.Must(G.Mul(h, acc))))
	e := G.Must(G.Sub(th2, in[1]))
	loss := G.Must(G.Mul(h, G.Must(G.Sum(G.Must(G.Square(e))))))
	return []*G.Node{th2, om2}, loss, nil
}

func pendulumNative(x []float64, th0, om0 []float64, u, tgt []float64, steps int, terminal bool) float64 {
	b := len(th0)
	th := append([]float64(nil), th0...)
	om := append([]float64(nil), om0...)
	var loss float64
	for k := range steps {
		for i := range b {
			acc := -x[0]*math.Sin(th[i]) - x[1]*om[i] + u[k*b+i]
			th[i], om[i] = th[i]+pendH*om[i], om[i]+pendH*acc
			e := th[i] - tgt[k*b+i]
			loss += pendH * e * e
		}
	}
	if terminal {
		for i := range b {
			loss += 0.5 * (om[i]*om[i] + x[0]*th[i]*th[i])
		}
	}
	return loss
}

func pendulumTerminal(g *Graph, p, s []*G.Node) (*G.Node, error) {
	ke := G.Must(G.Sum(G.Must(G.Square(s[1]))))
	pe := G.Must(G.Mul(p[0], G.Must(G.Sum(G.Must(G.Square(s[0]))))))
	return G.Mul(g.Scalar(0.5), G.Must(G.Add(ke, pe)))
}

func pendulumData(b, steps int) Rollout {
	u := make([]float64, steps*b)
	tgt := make([]float64, steps*b)
	for k := range steps {
		for i := range b {
			t := float64(k) * pendH
			u[k*b+i] = 0.8 * math.Sin(0.7*t+float64(i))
			tgt[k*b+i] = 0.3 * math.Sin(0.5*t)
		}
	}
	th0 := []float64{0.3, -0.5, 1.0}[:b]
	om0 := []float64{0, 0.2, -0.1}[:b]
	return Rollout{State0: [][]float64{th0, om0}, Inputs: [][]float64{u, tgt}, Steps: steps}
}

func newPendulumScan(t testing.TB, b, chunk int, terminal bool) *Scan {
	spec := ScanSpec{
		Params: []Param{{Name: "a"}, {Name: "b"}},
		State:  []int{b, b},
		Inputs: []int{b, b},
		Chunk:  chunk,
		Step:   pendulumStep,
	}
	if terminal {
		spec.Terminal = pendulumTerminal
	}
	s, err := NewScan(spec)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func checkScanAgainstNative(t *testing.T, s *Scan, r Rollout, terminal bool, tol float64) {
	t.Helper()
	x := []float64{2.0, 0.3}
	b := len(r.State0[0])
	f, grad, ds0, err := s.ValueAndGrad(x, r)
	if err != nil {
		t.Fatal(err)
	}
	want := pendulumNative(x, r.State0[0], r.State0[1], r.Inputs[0], r.Inputs[1], r.Steps, terminal)
	if math.Abs(f-want) > 1e-11*math.Abs(want) {
		t.Errorf("loss %.16g, native %.16g", f, want)
	}
	c, err := CheckGrad(func(x []float64) (float64, error) {
		return pendulumNative(x, r.State0[0], r.State0[1], r.Inputs[0], r.Inputs[1], r.Steps, terminal), nil
	}, grad, x, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	if c.MaxRelErr > tol {
		t.Errorf("parameter gradient: %v", c)
	}
	// Gradient with respect to the initial state: θ0 and ω0 stacked.
	s0 := append(append([]float64(nil), r.State0[0]...), r.State0[1]...)
	c, err = CheckGrad(func(s0 []float64) (float64, error) {
		return pendulumNative(x, s0[:b], s0[b:], r.Inputs[0], r.Inputs[1], r.Steps, terminal), nil
	}, append(append([]float64(nil), ds0[0]...), ds0[1]...), s0, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	if c.MaxRelErr > tol {
		t.Errorf("initial-state gradient: %v", c)
	}
}

func TestScanShortWithRemainderAndTerminal(t *testing.T) {
	// 250 steps in chunks of 60: four full chunks and a remainder of 10.
	for _, terminal := range []bool{false, true} {
		s := newPendulumScan(t, 3, 60, terminal)
		checkScanAgainstNative(t, s, pendulumData(3, 250), terminal, 1e-6)
	}
}

func TestScanLongHorizon(t *testing.T) {
	if testing.Short() {
		t.Skip("40,000 steps")
	}
	s := newPendulumScan(t, 2, 250, false)
	checkScanAgainstNative(t, s, pendulumData(2, 40000), false, 1e-6)
	t.Logf("chunk graph: %d nodes", s.Nodes())
}

// The chunk graph is the same whatever the horizon, so the peak heap of a
// 40,000-step gradient stays within a small margin of a 4,000-step one
// (beyond the inputs, which the caller owns and allocates beforehand).
func TestScanPeakMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("40,000 steps")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(20))
	s := newPendulumScan(t, 2, 250, false)
	x := []float64{2.0, 0.3}
	peak := func(r Rollout) uint64 {
		runtime.GC()
		var stop atomic.Bool
		var maxHeap atomic.Uint64
		done := make(chan struct{})
		go func() {
			defer close(done)
			var m runtime.MemStats
			for !stop.Load() {
				runtime.ReadMemStats(&m)
				if m.HeapAlloc > maxHeap.Load() {
					maxHeap.Store(m.HeapAlloc)
				}
				time.Sleep(2 * time.Millisecond)
			}
		}()
		if _, _, _, err := s.ValueAndGrad(x, r); err != nil {
			t.Fatal(err)
		}
		stop.Store(true)
		<-done
		return maxHeap.Load()
	}
	short, long := pendulumData(2, 4000), pendulumData(2, 40000)
	peak(short) // warm up: the remainder-free chunk graphs exist already
	ps, pl := peak(short), peak(long)
	t.Logf("peak heap: 4,000 steps %.1f MB, 40,000 steps %.1f MB", float64(ps)/1e6, float64(pl)/1e6)
	// inputs of the long run: 2 series × 2 × 40,000 floats = 1.3 MB, allocated before.
	if pl > ps+ps/2+4<<20 {
		t.Errorf("peak heap grows with the horizon: %d B for 4,000 steps, %d B for 40,000", ps, pl)
	}
	runtime.KeepAlive(long)
}

func TestScanErrors(t *testing.T) {
	s := newPendulumScan(t, 2, 10, false)
	r := pendulumData(2, 20)
	x := []float64{1, 1}
	bad := []Rollout{
		{State0: r.State0, Inputs: r.Inputs, Steps: 0},
		{State0: r.State0[:1], Inputs: r.Inputs, Steps: 20},
		{State0: [][]float64{{1}, {1, 2}}, Inputs: r.Inputs, Steps: 20},
		{State0: r.State0, Inputs: r.Inputs[:1], Steps: 20},
		{State0: r.State0, Inputs: r.Inputs, Steps: 21},
	}
	for i, rr := range bad {
		if _, _, _, err := s.ValueAndGrad(x, rr); err == nil {
			t.Errorf("bad rollout %d accepted", i)
		}
	}
	if _, _, _, err := s.ValueAndGrad([]float64{1}, r); err == nil {
		t.Error("wrong x length accepted")
	}
	if _, err := NewScan(ScanSpec{State: []int{1}}); err == nil {
		t.Error("nil step accepted")
	}
}
