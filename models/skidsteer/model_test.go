package skidsteer

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"

	"github.com/wheelgrad/wheelgrad/ad"

	"github.com/wheelgrad/wheelgrad/dataset"
)

var asphalt = Table2[0].A[:]

// randomWindows draws w windows of up to s steps with commands in the
// diagnostic range; some windows are shorter (padding).
func randomWindows(w, s int, seed uint64) *Windows {
	rng := rand.New(rand.NewPCG(seed, 1))
	ws := NewWindows(w, s)
	for k := range w {
		n := s - rng.IntN(3)
		vc, wc, dt := make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range n {
			vc[i] = 0.2 + 0.4*rng.Float64()
			wc[i] = 2 * (rng.Float64() - 0.5)
			dt[i] = 0.01 + 0.02*rng.Float64()
		}
		ws.Set(k, vc, wc, dt)
	}
	return ws
}

func TestSimulateRelativeEqualsWindow(t *testing.T) {
	tt, vc, wc := RandomCommands(3, 0.01, 1, 3)
	p0 := Pose{1, -2, 2.5}
	traj, err := Simulate(FromCoeffs(asphalt), p0, tt, vc, wc)
	if err != nil {
		t.Fatal(err)
	}
	n := len(tt) - 1
	dt := make([]float64, n)
	for i := range n {
		dt[i] = tt[i+1] - tt[i]
	}
	ws := NewWindows(1, n)
	ws.Set(0, vc[:n], wc[:n], dt)
	got := ws.Predict(asphalt)[0]
	want := Relative(p0, traj[n])
	if d := math.Hypot(got.X-want.X, got.Y-want.Y) + math.Abs(Wrap(got.Psi-want.Psi)); d > 1e-12 {
		t.Errorf("window end %+v, simulated relative pose %+v (diff %g)", got, want, d)
	}
	// The nominal model is a differential drive: a straight command moves
	// the robot by vc·t along its heading.
	traj, _ = Simulate(Params{}, Pose{0, 0, math.Pi / 2}, []float64{0, 1, 2}, []float64{0.5, 0.5, 0}, []float64{0, 0, 0})
	if math.Abs(traj[2].X) > 1e-15 || math.Abs(traj[2].Y-1) > 1e-15 {
		t.Errorf("nominal straight drive ended at %+v", traj[2])
	}
}

func TestGraphJacobianForwardEqualsNative(t *testing.T) {
	ws := randomWindows(4, 12, 5)
	gj, err := NewGraphJacobian(4, 12)
	if err != nil {
		t.Fatal(err)
	}
	jac := make([]float64, 27*4)
	poses, err := gj.Jacobian(asphalt, ws, jac)
	if err != nil {
		t.Fatal(err)
	}
	want := ws.Predict(asphalt)
	for w := range want {
		for _, d := range []float64{poses[w].X - want[w].X, poses[w].Y - want[w].Y, poses[w].Psi - want[w].Psi} {
			if math.Abs(d) > 1e-12 {
				t.Fatalf("window %d: graph %+v, native %+v", w, poses[w], want[w])
			}
		}
	}
	t.Logf("Jacobian graph 4 windows × 12 steps: %d nodes", gj.Nodes())
}

// fdJacobian is the central-difference Jacobian (gonum's diff/fd) of the
// native model's pose change over window w, rows x, y, ψ.
func fdJacobian(ws *Windows, w int, a []float64) [27]float64 {
	var j [27]float64
	J := mat.NewDense(3, NumCoeffs, j[:])
	fd.Jacobian(J, func(y, a []float64) {
		p := ws.Predict(a)[w]
		y[0], y[1], y[2] = p.X, p.Y, p.Psi
	}, a, &fd.JacobianSettings{Formula: fd.Central})
	return j
}

func maxRelDiff(a, b []float64) float64 {
	scale := 0.0
	for _, v := range b {
		scale = math.Max(scale, math.Abs(v))
	}
	m := 0.0
	for i := range a {
		m = math.Max(m, math.Abs(a[i]-b[i])/math.Max(scale*1e-3, math.Max(math.Abs(a[i]), math.Abs(b[i]))))
	}
	return m
}

func TestJacobiansAgainstFiniteDifferences(t *testing.T) {
	ws := randomWindows(3, 15, 7)
	gj, err := NewGraphJacobian(3, 15)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range [][]float64{asphalt, make([]float64, 9), Table2[1].A[:]} {
		gjac := make([]float64, 81)
		if _, err := gj.Jacobian(a, ws, gjac); err != nil {
			t.Fatal(err)
		}
		for w := range 3 {
			fd := fdJacobian(ws, w, a)
			var nj [27]float64
			var vc, wc, dt []float64
			for s := range ws.S {
				i := s*ws.W + w
				vc, wc, dt = append(vc, ws.Vc[i]), append(wc, ws.Wc[i]), append(dt, ws.Dt[i])
			}
			JacobianNative(a, vc, wc, dt, &nj)
			if e := maxRelDiff(nj[:], fd[:]); e > 1e-6 {
				t.Errorf("window %d: native Jacobian vs central differences: rel err %g", w, e)
			}
			if e := maxRelDiff(gjac[27*w:27*w+27], fd[:]); e > 1e-6 {
				t.Errorf("window %d: graph Jacobian vs central differences: rel err %g", w, e)
			}
			if e := maxRelDiff(gjac[27*w:27*w+27], nj[:]); e > 1e-12 {
				t.Errorf("window %d: graph vs native Jacobian: rel err %g", w, e)
			}
		}
	}
}

func smallLog(t *testing.T, surface int, n int, seed uint64) *Log {
	t.Helper()
	tt, vc, wc := RandomCommands(n, 0.01, 5, seed)
	l, _ := Generate(Table2[surface].A[:], tt, vc, wc, 10, SurfaceNoise(Table2[surface].Name), seed)
	return l
}

func TestBatchGraphEqualsNativeAndGradient(t *testing.T) {
	l := smallLog(t, 0, 6, 11)
	b, err := NewBatch(l, IPEMConfig{}, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range [][]float64{make([]float64, 9), asphalt} {
		g := make([]float64, 9)
		f, err := b.Eval(a, g)
		if err != nil {
			t.Fatal(err)
		}
		fn := b.Native(a)
		if math.Abs(f-fn) > 1e-12*math.Max(1, math.Abs(fn)) {
			t.Errorf("batch graph loss %.17g, native %.17g", f, fn)
		}
		chk, err := ad.CheckGrad(func(x []float64) (float64, error) { return b.Native(x), nil }, g, a, 1e-6)
		if err != nil {
			t.Fatal(err)
		}
		if chk.MaxRelErr > 1e-6 {
			t.Errorf("batch gradient vs central differences of the native model: %v", chk)
		}
	}
	t.Logf("batch graph: %d windows × %d steps, %d nodes per shard", b.Intervals().Windows.W, b.Intervals().Windows.S, b.Nodes())
}

func TestIPEMGraphAndNativeAgree(t *testing.T) {
	l := smallLog(t, 1, 4, 13)
	iv, err := l.Intervals(1, 0)
	if err != nil {
		t.Fatal(err)
	}
	fn, _ := NewIPEM(IPEMConfig{Jacobian: NativeJacobian})
	fg, err := NewIPEM(IPEMConfig{Jacobian: GraphJacobianSource, MaxSteps: 10})
	if err != nil {
		t.Fatal(err)
	}
	var vc, wc, dt []float64
	for k := range iv.Z {
		vc, wc, dt = iv.Window(k, vc, wc, dt)
		if _, err := fn.Update(vc, wc, dt, iv.Z[k]); err != nil {
			t.Fatal(err)
		}
		if _, err := fg.Update(vc, wc, dt, iv.Z[k]); err != nil {
			t.Fatal(err)
		}
	}
	if e := maxRelDiff(fg.A[:], fn.A[:]); e > 1e-9 {
		t.Errorf("after %d updates: graph-Jacobian filter %v, native %v", fn.Updates, fg.A, fn.A)
	}
}

func TestIPEMCalibratesEachSurface(t *testing.T) {
	tt, vc, wc := DiagnosticCommands(0.01, 5)
	for si, s := range Table2 {
		l, _ := Generate(s.A[:], tt, vc, wc, 10, SurfaceNoise(s.Name), uint64(20+si))
		cal, f, err := Calibrate(l, IPEMConfig{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		a32, a33 := cal.A[7], cal.A[8]
		if math.Abs(a32-s.A[7]) > 0.1*math.Abs(s.A[7]) || math.Abs(a33-s.A[8]) > 0.3*math.Abs(s.A[8]) {
			t.Errorf("%s: a32 = %.4f (true %.4f), a33 = %.4f (true %.4f)", s.Name, a32, s.A[7], a33, s.A[8])
		}
		nom := RMS(PredictionErrors(l, make([]float64, 9), 2, 1))
		calib := RMS(PredictionErrors(l, cal.A, 2, 1))
		if nom < 5*calib {
			t.Errorf("%s: 2-s prediction RMS nominal %.4f m, calibrated %.4f m: less than 5×", s.Name, nom, calib)
		}
		sd := cal.Std()
		// The truth should lie within 4σ of the estimate for the well-excited
		// yaw-rate row: the reported covariance must not be wildly optimistic.
		for _, k := range []int{7, 8} {
			if math.Abs(cal.A[k]-s.A[k]) > 4*sd[k] {
				t.Errorf("%s: %s = %.4f ± %.4f, true %.4f", s.Name, CoeffNames[k], cal.A[k], sd[k], s.A[k])
			}
		}
		t.Logf("%s: a32 %.4f±%.4f (%.4f) a33 %.4f±%.4f (%.4f); 2-s RMS nominal %.3f m calibrated %.4f m; NIS/update %.2f, scale %.2f",
			s.Name, a32, sd[7], s.A[7], a33, sd[8], s.A[8], nom, calib, f.NIS/float64(f.Updates), cal.Scale)
	}
}

func TestNewLogErrors(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name      string
		t, vc, wc []float64
		x, y, psi []float64
		row       int
		col       string
	}{
		{"not increasing", []float64{0, 1, 1}, []float64{0, 0, 0}, []float64{0, 0, 0}, nil, nil, nil, 2, "t"},
		{"incomplete pose", []float64{0, 1}, []float64{0, 0}, []float64{0, 0}, []float64{0, 1}, []float64{0, nan}, []float64{0, 0}, 1, "y"},
		{"huge command", []float64{0, 1}, []float64{0, 1e3}, []float64{0, 0}, nil, nil, nil, 1, "vc"},
		{"NaN command", []float64{0, 1}, []float64{0, 0}, []float64{nan, 0}, nil, nil, nil, 0, "wc"},
	}
	for _, c := range cases {
		_, err := NewLog(c.t, c.vc, c.wc, c.x, c.y, c.psi)
		re, ok := err.(*dataset.RowError)
		if !ok || re.Row != c.row || re.Column != c.col {
			t.Errorf("%s: error %v, want row %d column %s", c.name, err, c.row, c.col)
		}
	}
	l, err := NewLog([]float64{0, 1}, []float64{0, 0}, []float64{0, 0}, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Intervals(1, 0); err == nil {
		t.Error("a log without poses gave intervals")
	}
}

func TestParamsValidate(t *testing.T) {
	p := FromCoeffs(asphalt)
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	p.A[2][1] = math.Inf(1)
	if err := p.Validate(); err == nil {
		t.Error("infinite a32 accepted")
	}
	p = Params{Model: "mecanum"}
	if err := p.Validate(); err == nil {
		t.Error("wrong model name accepted")
	}
}

func BenchmarkIPEMUpdateDyn(b *testing.B)    { benchIPEM(b, DynJacobian) }
func BenchmarkIPEMUpdateNative(b *testing.B) { benchIPEM(b, NativeJacobian) }
func BenchmarkIPEMUpdateGraph(b *testing.B)  { benchIPEM(b, GraphJacobianSource) }

func benchIPEM(b *testing.B, src JacobianSource) {
	tt, vc, wc := RandomCommands(20, 0.01, 5, 1)
	l, _ := Generate(asphalt, tt, vc, wc, 10, SurfaceNoise("asphalt"), 1)
	iv, _ := l.Intervals(1, 0)
	f, err := NewIPEM(IPEMConfig{Jacobian: src, MaxSteps: iv.Windows.S})
	if err != nil {
		b.Fatal(err)
	}
	var cvc, cwc, cdt []float64
	b.ResetTimer()
	for i := range b.N {
		k := i % len(iv.Z)
		cvc, cwc, cdt = iv.Window(k, cvc, cwc, cdt)
		if _, err := f.Update(cvc, cwc, cdt, iv.Z[k]); err != nil {
			b.Fatal(err)
		}
	}
}

// The batch objective's value and gradient over the diagnostic log (3,600
// intervals), from the step definition (dyn, the default) and from the
// unrolled window graph (window-graph, the reference and the default before).
func BenchmarkBatchEval(b *testing.B) {
	tt, vc, wc := DiagnosticCommands(0.01, 5)
	l, _ := Generate(asphalt, tt, vc, wc, 10, SurfaceNoise("asphalt"), 1)
	for _, c := range []struct {
		name string
		src  JacobianSource
	}{{"dyn", DynJacobian}, {"window-graph", GraphJacobianSource}} {
		bt, err := NewBatch(l, IPEMConfig{Jacobian: c.src}, 0)
		if err != nil {
			b.Fatal(err)
		}
		g := make([]float64, 9)
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				if _, err := bt.Eval(asphalt, g); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(bt.Nodes()), "nodes")
		})
	}
}
