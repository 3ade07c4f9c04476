package opt

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"
)

// linear is the process x' = F·x + G·u and the measurement y = H·x.
type linear struct {
	n, m    int
	F, G, H []float64
}

func (l *linear) Predict(x, u, _, xn, fx, _ []float64) error {
	for i := range l.n {
		s := 0.0
		for k := range l.n {
			s += l.F[i*l.n+k] * x[k]
		}
		for k := range u {
			s += l.G[i*len(u)+k] * u[k]
		}
		xn[i] = s
	}
	if fx != nil {
		copy(fx, l.F)
	}
	return nil
}

func (l *linear) Observe(x, _, _, y, hx, _ []float64) error {
	for c := range l.m {
		s := 0.0
		for k := range l.n {
			s += l.H[c*l.n+k] * x[k]
		}
		y[c] = s
	}
	if hx != nil {
		copy(hx, l.H)
	}
	return nil
}

func randSlice(rng *rand.Rand, n int, scale float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = scale * rng.NormFloat64()
	}
	return v
}

// randSPD is A·Aᵀ + d·I for a random n×n A.
func randSPD(rng *rand.Rand, n int, d float64) []float64 {
	a := mat.NewDense(n, n, randSlice(rng, n*n, 1))
	var s mat.Dense
	s.Mul(a, a.T())
	out := make([]float64, n*n)
	for i := range n {
		for j := range n {
			out[i*n+j] = s.At(i, j)
		}
		out[i*n+i] += d
	}
	return out
}

func maxRel(a, b []float64) float64 {
	scale, d := 0.0, 0.0
	for i := range b {
		scale = math.Max(scale, math.Abs(b[i]))
		d = math.Max(d, math.Abs(a[i]-b[i]))
	}
	if scale > 0 {
		d /= scale
	}
	return d
}

// TestEKFLinearMatchesKalmanFormulas runs the filter on a linear model and,
// beside it, the Kalman filter's textbook formulas in gonum's mat (inverse
// of S, dense products), and compares x, P and NIS after every step.
func TestEKFLinearMatchesKalmanFormulas(t *testing.T) {
	const n, m, steps = 4, 2, 30
	rng := rand.New(rand.NewPCG(3, 4))
	l := &linear{n: n, m: m, F: randSlice(rng, n*n, 0.4), G: randSlice(rng, n, 1), H: randSlice(rng, m*n, 1)}
	Q, R := randSPD(rng, n, 0.01), randSPD(rng, m, 0.1)
	x0, p0 := randSlice(rng, n, 1), randSPD(rng, n, 1)
	f, err := NewEKF(x0, p0)
	if err != nil {
		t.Fatal(err)
	}
	x := mat.NewVecDense(n, append([]float64(nil), x0...))
	P := mat.NewDense(n, n, append([]float64(nil), p0...))
	F, G, H := mat.NewDense(n, n, l.F), mat.NewVecDense(n, l.G), mat.NewDense(m, n, l.H)
	Qm, Rm := mat.NewDense(n, n, Q), mat.NewDense(m, m, R)
	nis := 0.0
	for k := range steps {
		u := []float64{rng.NormFloat64()}
		z := randSlice(rng, m, 1)
		if err := f.Predict(l, u, Q); err != nil {
			t.Fatal(err)
		}
		nu, err := f.Update(l, u, z, R)
		if err != nil {
			t.Fatal(err)
		}
		// Reference: x = F x + G u, P = F P Fᵀ + Q; S = H P Hᵀ + R,
		// K = P Hᵀ S⁻¹, x += K ν, P = (I − K H) P.
		var xp mat.VecDense
		xp.MulVec(F, x)
		xp.AddScaledVec(&xp, u[0], G)
		var fp, pp mat.Dense
		fp.Mul(F, P)
		pp.Mul(&fp, F.T())
		pp.Add(&pp, Qm)
		var zp, nuRef mat.VecDense
		zp.MulVec(H, &xp)
		nuRef.SubVec(mat.NewVecDense(m, z), &zp)
		var pht, S, Si, K mat.Dense
		pht.Mul(&pp, H.T())
		S.Mul(H, &pht)
		S.Add(&S, Rm)
		if err := Si.Inverse(&S); err != nil {
			t.Fatal(err)
		}
		K.Mul(&pht, &Si)
		var dx mat.VecDense
		dx.MulVec(&K, &nuRef)
		x.AddVec(&xp, &dx)
		var kh, up mat.Dense
		kh.Mul(&K, H)
		up.Mul(&kh, &pp)
		P.Sub(&pp, &up)
		var sn mat.VecDense
		sn.MulVec(&Si, &nuRef)
		nis += mat.Dot(&nuRef, &sn)

		if d := maxRel(nu, nuRef.RawVector().Data); d > 1e-12 {
			t.Fatalf("step %d: innovation %v, reference %v", k, nu, nuRef.RawVector().Data)
		}
		if d := maxRel(f.X, x.RawVector().Data); d > 1e-12 {
			t.Fatalf("step %d: x %v, reference %v (%.3g)", k, f.X, x.RawVector().Data, d)
		}
		if d := maxRel(f.P, P.RawMatrix().Data); d > 1e-11 {
			t.Fatalf("step %d: P differs from the reference by %.3g relative", k, d)
		}
	}
	if math.Abs(f.NIS-nis) > 1e-10*nis || f.Updates != steps {
		t.Errorf("NIS %.15g over %d updates, reference %.15g over %d", f.NIS, f.Updates, nis, steps)
	}
}

// TestEKFUpperMatchesDense: Upper mode (one measurement: the symmetric
// fast path; two: the general one) keeps the upper triangle of P and x
// equal to the dense filter's.
func TestEKFUpperMatchesDense(t *testing.T) {
	for _, m := range []int{1, 2} {
		const n = 11
		rng := rand.New(rand.NewPCG(5, uint64(m)))
		x0, p0 := randSlice(rng, n, 1), randSPD(rng, n, 1)
		d, _ := NewEKF(x0, p0)
		u, _ := NewEKF(x0, p0)
		u.Upper = true
		for i := range n { // stale lower triangle: must not be read
			for j := range i {
				u.P[i*n+j] = math.NaN()
			}
		}
		R := randSPD(rng, m, 0.5)
		for k := range 200 {
			H, nu := randSlice(rng, m*n, 1), randSlice(rng, m, 1)
			if err := d.Correct(nu, H, R); err != nil {
				t.Fatal(err)
			}
			if err := u.Correct(nu, H, R); err != nil {
				t.Fatal(err)
			}
			if k%50 == 0 {
				if err := d.Predict(nil, nil, []float64{0.1}); err == nil {
					t.Fatal("a 1-entry Q accepted for 11 states")
				}
				q := randSlice(rng, n, 0.01)
				for i := range q {
					q[i] *= q[i]
				}
				if err := d.Predict(nil, nil, q); err != nil {
					t.Fatal(err)
				}
				if err := u.Predict(nil, nil, q); err != nil {
					t.Fatal(err)
				}
			}
		}
		var pu, pd []float64
		for i := range n {
			pu, pd = append(pu, u.P[i*n+i:i*n+n]...), append(pd, d.P[i*n+i:i*n+n]...)
		}
		if e := maxRel(u.X, d.X); e > 1e-12 {
			t.Errorf("m = %d: x differs by %.3g relative", m, e)
		}
		if e := maxRel(pu, pd); e > 1e-12 {
			t.Errorf("m = %d: upper triangle of P differs by %.3g relative", m, e)
		}
		if math.Abs(u.NIS-d.NIS) > 1e-12*d.NIS {
			t.Errorf("m = %d: NIS %g, dense %g", m, u.NIS, d.NIS)
		}
	}
}

// pendulum is a nonlinear process over x = (θ, ω) with parameters p =
// (g/l, damping) and the measurement y = (sin θ, ω·p1).
type pendulum struct{ dt float64 }

func (q pendulum) Predict(x, u, p, xn, fx, fp []float64) error {
	th, om := x[0], x[1]
	xn[0] = th + q.dt*om
	xn[1] = om + q.dt*(-p[0]*math.Sin(th)-p[1]*om+u[0])
	if fx != nil {
		copy(fx, []float64{1, q.dt, -q.dt * p[0] * math.Cos(th), 1 - q.dt*p[1]})
	}
	if fp != nil {
		copy(fp, []float64{0, 0, -q.dt * math.Sin(th), -q.dt * om})
	}
	return nil
}

func (q pendulum) Observe(x, _, p, y, hx, hp []float64) error {
	y[0], y[1] = math.Sin(x[0]), x[1]*p[1]
	if hx != nil {
		copy(hx, []float64{math.Cos(x[0]), 0, 0, p[1]})
	}
	if hp != nil {
		copy(hp, []float64{0, 0, 0, x[1]})
	}
	return nil
}

// TestJointJacobians checks Joint's augmented F and H against central
// differences (gonum's diff/fd) of its own Predict and Observe.
func TestJointJacobians(t *testing.T) {
	j := &Joint{NX: 2, Process: pendulum{dt: 0.05}, Observer: pendulum{}}
	z, u := []float64{0.7, -0.3, 9.8, 0.4}, []float64{0.2}
	F, H := make([]float64, 16), make([]float64, 8)
	zn, y := make([]float64, 4), make([]float64, 2)
	if err := j.Predict(z, u, nil, zn, F, nil); err != nil {
		t.Fatal(err)
	}
	if err := j.Observe(z, u, nil, y, H, nil); err != nil {
		t.Fatal(err)
	}
	check := func(what string, got []float64, m int, fn func(out, in []float64) error) {
		t.Helper()
		want := mat.NewDense(m, len(z), nil)
		fd.Jacobian(want, func(out, in []float64) {
			if err := fn(out, in); err != nil {
				t.Fatal(err)
			}
		}, z, &fd.JacobianSettings{Formula: fd.Central})
		if e := maxRel(got, want.RawMatrix().Data); e > 1e-8 {
			t.Errorf("%s = %v, central differences %v (%.3g)", what, got, want.RawMatrix().Data, e)
		}
	}
	check("F", F, 4, func(out, in []float64) error { return j.Predict(in, u, nil, out, nil, nil) })
	check("H", H, 2, func(out, in []float64) error { return j.Observe(in, u, nil, out, nil, nil) })
	if zn[2] != z[2] || zn[3] != z[3] {
		t.Errorf("parameters moved in the prediction: %v → %v", z[2:], zn[2:])
	}
}

type badProcess struct{}

func (badProcess) Predict(x, _, _, xn, _, _ []float64) error {
	copy(xn, x)
	xn[1] = math.Inf(1)
	return nil
}

// TestEKFErrors: misuse and a breakdown are errors naming what is wrong,
// never a panic or a silent NaN.
func TestEKFErrors(t *testing.T) {
	if _, err := NewEKF(nil, nil); err == nil {
		t.Error("an empty state accepted")
	}
	if _, err := NewEKF([]float64{0, 0}, []float64{1, 2, 3}); err == nil || !strings.Contains(err.Error(), "P0") {
		t.Errorf("a 3-entry P0 for 2 states: %v", err)
	}
	f, _ := NewEKF([]float64{0, 0}, []float64{1, 1})
	if err := f.Correct([]float64{1}, []float64{1, 0, 0}, []float64{1}); err == nil {
		t.Error("a 3-entry H for 1 × 2 accepted")
	}
	if err := f.Correct([]float64{1, 2}, []float64{1, 0, 0, 1}, []float64{1, 2, 3}); err == nil || !strings.Contains(err.Error(), "R") {
		t.Errorf("a 3-entry R for 2 measurements: %v", err)
	}
	if err := f.Correct([]float64{1}, []float64{0, 0}, nil); !errors.Is(err, ErrSingularInnovation) {
		t.Errorf("S = 0: %v, want ErrSingularInnovation", err)
	}
	if err := f.Correct([]float64{1}, []float64{math.NaN(), 0}, []float64{1}); !errors.Is(err, ErrSingularInnovation) {
		t.Errorf("NaN in H: %v, want ErrSingularInnovation", err)
	}
	f.Upper = true
	if err := f.Correct([]float64{1}, []float64{0, 0}, nil); !errors.Is(err, ErrSingularInnovation) {
		t.Errorf("Upper, S = 0: %v, want ErrSingularInnovation", err)
	}
	f.Upper = false
	if f.Updates != 0 || f.X[0] != 0 || f.X[1] != 0 {
		t.Errorf("failed updates changed the filter: %v, %d updates", f.X, f.Updates)
	}
	if err := f.Predict(badProcess{}, nil, nil); err == nil || !strings.Contains(err.Error(), "state 1") {
		t.Errorf("an infinite prediction: %v", err)
	}
	f.P = f.P[:3]
	if err := f.Predict(nil, nil, nil); err == nil {
		t.Error("a 3-entry P for 2 states accepted")
	}
	j := &Joint{NX: 3, Process: pendulum{}}
	if err := j.Predict([]float64{1, 2}, nil, nil, make([]float64, 2), nil, nil); err == nil {
		t.Error("a Joint of 3 states over 2 accepted")
	}
	j = &Joint{NX: 2, Process: pendulum{}}
	if err := j.Observe([]float64{1, 2, 3, 4}, nil, nil, make([]float64, 2), nil, nil); err == nil {
		t.Error("a Joint without an Observer observed")
	}
}

func TestEKFDoesNotAllocate(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n = 6
	l := &linear{n: n, m: 2, F: randSlice(rng, n*n, 0.3), G: randSlice(rng, n, 1), H: randSlice(rng, 2*n, 1)}
	f, _ := NewEKF(randSlice(rng, n, 1), randSPD(rng, n, 1))
	f.Reserve(n, 2)
	u, z, Q, R := []float64{1}, []float64{0.1, 0.2}, randSPD(rng, n, 0.1), []float64{0.1, 0.1}
	allocs := testing.AllocsPerRun(50, func() {
		if err := f.Predict(l, u, Q); err != nil {
			t.Fatal(err)
		}
		if _, err := f.Update(l, u, z, R); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%.0f allocations per predict and update", allocs)
	}
}
