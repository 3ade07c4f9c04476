package skidsteer

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/wheelgrad/wheelgrad/ad"
	"github.com/wheelgrad/wheelgrad/dyn"
)

// runs draws n command sequences of different lengths with non-uniform
// rows (t, vc, wc each), and start poses.
func runs(n int, seed uint64) (t, vc, wc [][]float64, p0 []Pose) {
	rng := rand.New(rand.NewPCG(seed, 3))
	for k := range n {
		m := 40 + 7*k
		tt, v, w := make([]float64, m), make([]float64, m), make([]float64, m)
		for i := range m {
			if i > 0 {
				tt[i] = tt[i-1] + 0.005 + 0.02*rng.Float64()
			}
			v[i] = 0.6 * rng.Float64()
			w[i] = 2 * (rng.Float64() - 0.5)
		}
		t, vc, wc = append(t, tt), append(vc, v), append(wc, w)
		p0 = append(p0, Pose{X: rng.NormFloat64(), Y: rng.NormFloat64(), Psi: 3 * rng.NormFloat64()})
	}
	return
}

// batch lays the runs out as the lanes of one Model rollout, padded with
// dt = 0: x0 [3][B], u [T][3][B].
func batch(t, vc, wc [][]float64, p0 []Pose) (x0, u []float64, T int) {
	B := len(t)
	for _, r := range t {
		T = max(T, len(r))
	}
	x0, u = make([]float64, 3*B), make([]float64, T*3*B)
	for b := range t {
		x0[b], x0[B+b], x0[2*B+b] = p0[b].X, p0[b].Y, p0[b].Psi
		for i := range t[b] {
			u[(i*3)*B+b], u[(i*3+1)*B+b] = vc[b][i], wc[b][i]
			if i+1 < len(t[b]) {
				u[(i*3+2)*B+b] = t[b][i+1] - t[b][i]
			}
		}
	}
	return x0, u, T
}

// The step definition's rollout equals Simulate (and its step Step), several
// runs of different lengths in one batch.
func TestModelEqualsSimulate(t *testing.T) {
	tt, vc, wc, p0 := runs(4, 1)
	x0, u, T := batch(tt, vc, wc, p0)
	B := len(tt)
	for _, surf := range Table2 {
		for _, k := range []struct {
			name string
			k    dyn.Kernel
		}{{"generated", Model.NewKernel()}, {"interpreter", Model.NewInterpreter()}} {
			sim, err := Model.NewSimWith(k.k, B, T)
			if err != nil {
				t.Fatal(err)
			}
			y := make([]float64, 3*T*B)
			if _, err := sim.Forward(surf.A[:], nil, x0, u, y); err != nil {
				t.Fatal(err)
			}
			for b := range tt {
				want, err := Simulate(FromCoeffs(surf.A[:]), p0[b], tt[b], vc[b], wc[b])
				if err != nil {
					t.Fatal(err)
				}
				for i, w := range want {
					m := i*B + b
					if math.Abs(y[m]-w.X) > 1e-12 || math.Abs(y[T*B+m]-w.Y) > 1e-12 || math.Abs(y[2*T*B+m]-w.Psi) > 1e-12 {
						t.Fatalf("%s, %s, run %d row %d: dyn (%v %v %v), Simulate %+v", surf.Name, k.name, b, i, y[m], y[T*B+m], y[2*T*B+m], w)
					}
				}
			}
		}
	}
	// one step
	st := Model.NewStepper()
	xn := make([]float64, 3)
	if _, err := st.Step(asphalt, nil, []float64{0.1, 0.2, 2.9}, []float64{0.4, -0.3, 0.013}, xn, nil); err != nil {
		t.Fatal(err)
	}
	w := Step(asphalt, Pose{0.1, 0.2, 2.9}, 0.4, -0.3, 0.013)
	if math.Abs(xn[0]-w.X) > 1e-15 || math.Abs(xn[1]-w.Y) > 1e-15 || math.Abs(xn[2]-w.Psi) > 1e-15 {
		t.Errorf("Stepper %v, Step %+v", xn, w)
	}
	if !Model.Generated() {
		t.Error("the generated kernel of Model is not in use")
	}
}

// The generated gradient of the rollout equals central differences of
// Simulate, with respect to the coefficients and the start poses.
func TestModelGradientMatchesSimulate(t *testing.T) {
	tt, vc, wc, p0 := runs(3, 2)
	x0, u, T := batch(tt, vc, wc, p0)
	B := len(tt)
	rng := rand.New(rand.NewPCG(5, 5))
	ybar := make([]float64, 3*T*B)
	for b := range tt {
		for i := range tt[b] {
			for c := range 3 {
				ybar[(c*T+i)*B+b] = rng.NormFloat64()
			}
		}
	}
	F := func(z []float64) (float64, error) {
		var f float64
		for b := range tt {
			traj, err := Simulate(FromCoeffs(z[:NumCoeffs]), Pose{z[NumCoeffs+b], z[NumCoeffs+B+b], z[NumCoeffs+2*B+b]}, tt[b], vc[b], wc[b])
			if err != nil {
				return 0, err
			}
			for i, p := range traj {
				f += ybar[i*B+b]*p.X + ybar[(T+i)*B+b]*p.Y + ybar[(2*T+i)*B+b]*p.Psi
			}
		}
		return f, nil
	}
	sim := Model.NewSim(B, T)
	a := Table2[1].A[:]
	if _, err := sim.Forward(a, nil, x0, u, nil); err != nil {
		t.Fatal(err)
	}
	pbar, x0bar := make([]float64, NumCoeffs), make([]float64, 3*B)
	if err := sim.Backward(a, nil, u, ybar, 0, nil, pbar, x0bar, nil); err != nil {
		t.Fatal(err)
	}
	z := append(append([]float64(nil), a...), x0...)
	chk, err := ad.CheckGrad(F, append(pbar, x0bar...), z, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	if chk.MaxRelErr > 1e-6 {
		t.Errorf("generated gradient vs central differences of Simulate: %v", chk)
	}
	c, err := Model.CheckRollout(Model.NewKernel(), a, nil, x0, u, B, T, nil, 0, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	if c.RelErr > 1e-8 {
		t.Errorf("rollout check over a, start poses and inputs: %v", c)
	}
}

// The IPEM Jacobian propagated from the step definition equals the
// forward-mode JacobianNative to 1e-12, and so does the end pose.
func TestWindowJacobianEqualsNative(t *testing.T) {
	ws := randomWindows(5, 14, 3)
	wj := NewWindowJacobian()
	for _, a := range [][]float64{asphalt, make([]float64, 9), Table2[2].A[:]} {
		for w := range ws.W {
			var vc, wc, dt []float64
			for s := range ws.S {
				i := s*ws.W + w
				vc, wc, dt = append(vc, ws.Vc[i]), append(wc, ws.Wc[i]), append(dt, ws.Dt[i])
			}
			var nj, dj [27]float64
			np := JacobianNative(a, vc, wc, dt, &nj)
			dp, err := wj.Jacobian(a, vc, wc, dt, &dj)
			if err != nil {
				t.Fatal(err)
			}
			if e := maxRelDiff(dj[:], nj[:]); e > 1e-12 {
				t.Errorf("window %d: dyn vs native Jacobian: rel err %g", w, e)
			}
			if math.Abs(dp.X-np.X) > 1e-15 || math.Abs(dp.Y-np.Y) > 1e-15 || math.Abs(dp.Psi-np.Psi) > 1e-15 {
				t.Errorf("window %d: end pose %+v, native %+v", w, dp, np)
			}
		}
	}
	var jac [27]float64
	if _, err := wj.Jacobian(asphalt, []float64{1}, nil, nil, &jac); err == nil {
		t.Error("windows of unequal lengths accepted")
	}
}

// The IPEM filter with the default Jacobian (from the step definition) and
// with the hand-written forward-mode one follow the same path.
func TestIPEMDynAndNativeAgree(t *testing.T) {
	l := smallLog(t, 2, 6, 17)
	iv, err := l.Intervals(1, 0)
	if err != nil {
		t.Fatal(err)
	}
	fd, err := NewIPEM(IPEMConfig{})
	if err != nil {
		t.Fatal(err)
	}
	fn, _ := NewIPEM(IPEMConfig{Jacobian: NativeJacobian})
	var vc, wc, dt []float64
	for k := range iv.Z {
		vc, wc, dt = iv.Window(k, vc, wc, dt)
		nd, err := fd.Update(vc, wc, dt, iv.Z[k])
		if err != nil {
			t.Fatal(err)
		}
		nn, _ := fn.Update(vc, wc, dt, iv.Z[k])
		if nd != nn && k == 0 {
			t.Errorf("first innovation %v (dyn), %v (native)", nd, nn)
		}
	}
	if e := maxRelDiff(fd.A[:], fn.A[:]); e > 1e-9 {
		t.Errorf("after %d updates: dyn-Jacobian filter %v, native %v", fn.Updates, fd.A, fn.A)
	}
	if e := maxRelDiff(fd.P[:], fn.P[:]); e > 1e-9 {
		t.Errorf("after %d updates: covariances differ by %g", fn.Updates, e)
	}
}
