package mecanum

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/wheelgrad/wheelgrad/opt"
	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"
)

// demoLikeRuns are three 7-s logs like the demo's (240-Hz commands, 60-Hz
// camera with 3-mm noise, three different constant commands).
func demoLikeRuns() []Run { return demoLikeSeeded(0) }

// netX is NetFit's vector for one constant μ (b2 = logit(μ/MuMax), W2 = 0)
// and the start poses of xs (SquaredLS's layout).
func netX(f *NetFit, xs []float64) []float64 {
	x := f.X0([4]float64{0.5, 0.5, 0.5, 0.5}, 1)
	for i := 5 * f.H; i < 9*f.H; i++ {
		x[i] = 0
	}
	for j := range 4 {
		m := xs[j] / f.MuMax
		x[9*f.H+j] = math.Log(m / (1 - m))
	}
	copy(x[f.NetWeights():], xs[4:])
	return x
}

// TestSquaredLSResidualsAndJacobian: SquaredLS's residuals, from Model's
// rollout, give ½‖r‖² equal to NetFit's native loss, with and without the
// Jacobian; the Jacobian (forward mode) equals central differences of the
// residuals of NetFit's own native rollout, on runs of different lengths
// (padded lanes); Normal's residuals are Residuals' and its JᵀJ and Jᵀr
// those of that Jacobian (to 1e-12 of the largest entry).
func TestSquaredLSResidualsAndJacobian(t *testing.T) {
	runs := testRuns(3, 0.003, 5)
	f, err := NewNetFit(testParams(), runs, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	s, err := f.SquaredLS()
	if err != nil {
		t.Fatal(err)
	}
	nw := f.NetWeights()
	// NetFit's residuals, in SquaredLS's order, from its own rollout
	native := func(xs []float64) []float64 {
		if _, err := f.evalAdjoint(netX(f, xs), nil); err != nil {
			t.Fatal(err)
		}
		var r []float64
		for ri := range f.runs {
			run := &f.runs[ri]
			for k, i := range run.cam {
				ex, ey, qx, qy, _, _ := run.residual(k, i, 0, f.ell)
				r = append(r, s.w*ex, s.w*ey, s.w*qx, s.w*qy)
			}
		}
		return r
	}
	x0 := f.X0([4]float64{}, 1)
	for _, mu := range [][4]float64{{0.5, 0.5, 0.5, 0.5}, {0.3, 0.9, 0.2, 1.4}} {
		xs := s.X0(mu, x0[nw:])
		xs[4] += 0.01
		xs[4+2*s.B+1] -= 0.05
		n := s.Dim()
		r, rv := make([]float64, s.M), make([]float64, s.M)
		jac := mat.NewDense(s.M, n, nil)
		if err := s.Residuals(xs, r, jac); err != nil {
			t.Fatal(err)
		}
		if err := s.Residuals(xs, rv, nil); err != nil {
			t.Fatal(err)
		}
		ref := native(xs)
		var half float64
		for i := range r {
			if r[i] != rv[i] || math.Abs(r[i]-ref[i]) > 1e-9*(1+math.Abs(ref[i])) {
				t.Fatalf("μ %v: residual %d: %v (value-only %v), NetFit %v", mu, i, r[i], rv[i], ref[i])
			}
			half += r[i] * r[i] / 2
		}
		jtj, jtr, rn := make([]float64, n*n), make([]float64, n), make([]float64, s.M)
		if err := s.Normal(xs, rn, jtj, jtr); err != nil {
			t.Fatal(err)
		}
		var want mat.Dense
		want.Mul(jac.T(), jac)
		wantG := make([]float64, n)
		var big, bigG float64
		for a := range n {
			for i := range s.M {
				wantG[a] += jac.At(i, a) * r[i]
			}
			bigG = math.Max(bigG, math.Abs(wantG[a]))
			for b := range n {
				big = math.Max(big, math.Abs(want.At(a, b)))
			}
		}
		for i := range rn {
			if rn[i] != r[i] {
				t.Fatalf("μ %v: Normal's residual %d %v, Residuals' %v", mu, i, rn[i], r[i])
			}
		}
		for a := range n {
			if math.Abs(jtr[a]-wantG[a]) > 1e-12*bigG {
				t.Errorf("μ %v: Jᵀr[%d] = %v, from J %v", mu, a, jtr[a], wantG[a])
			}
			for b := range n {
				if math.Abs(jtj[a*n+b]-want.At(a, b)) > 1e-12*big {
					t.Errorf("μ %v: JᵀJ[%d,%d] = %v, from J %v", mu, a, b, jtj[a*n+b], want.At(a, b))
				}
			}
		}
		L, _ := f.Eval(netX(f, xs), nil)
		if relErr(half, L) > 1e-12 {
			t.Errorf("μ %v: ½‖r‖² = %.15g, NetFit loss %.15g", mu, half, L)
		}
		m, _ := jac.Dims()
		num := mat.NewDense(m, n, nil)
		fd.Jacobian(num, func(r, x []float64) { copy(r, native(x)) }, xs, &fd.JacobianSettings{Formula: fd.Central, Step: 1e-6})
		for c := range n {
			var worst, scale float64
			for i := range m {
				scale = math.Max(scale, math.Abs(jac.At(i, c)))
			}
			for i := range m {
				worst = math.Max(worst, math.Abs(num.At(i, c)-jac.At(i, c)))
			}
			if scale == 0 || worst > 1e-6*scale {
				t.Errorf("μ %v: column %d: off central differences by %.3g (largest entry %.3g)", mu, c, worst, scale)
			}
		}
	}
}

// TestIdentifySquaredLeastSquares: on three 7-s logs like the demo's,
// IdentifySquared (bounded least squares with the forward-mode Jacobian)
// converges in at most 8 iterations to the loss L-BFGS-B on NetFit's
// gradient reaches with tight tolerances, to 1e-9 relative, and to the
// same μ.
func TestIdentifySquaredLeastSquares(t *testing.T) {
	p := DefaultParams()
	runs := demoLikeRuns()
	init := [4]float64{0.5, 0.5, 0.5, 0.5}
	mu, res, f, err := IdentifySquared(p, runs, init, false, opt.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	// the reference: L-BFGS-B on the output biases, as IdentifySquared did
	x0 := f.X0(init, 1)
	free := make([]bool, f.Dim())
	for i := 9; i < len(free); i++ {
		free[i] = true
	}
	for i := 5; i < 9; i++ {
		x0[i] = 0
	}
	ref, err := f.Train(x0, free, opt.Settings{FunctionTol: 1e-15, GradientTol: 1e-12})
	if err != nil {
		t.Fatal(err)
	}
	L, _ := f.Eval(res.X, nil)
	t.Logf("least squares: %d iterations, %d evaluations, %s, loss %.15g (NetFit at its answer %.15g), μ %v; L-BFGS-B: %d iterations, %s, loss %.15g, μ %v",
		res.Opt.Iterations, res.Opt.FuncEvaluations, res.Opt.Status, res.Opt.F, L, mu, ref.Opt.Iterations, ref.Opt.Status, ref.Opt.F, ref.Net.Predict([4]float64{}))
	if !res.Opt.Status.Converged() || res.Opt.Iterations > 8 {
		t.Errorf("least squares: %s after %d iterations, want converged in ≤ 8", res.Opt.Status, res.Opt.Iterations)
	}
	if relErr(L, res.Opt.F) > 1e-12 {
		t.Errorf("the solver's cost %.15g, NetFit's loss at its answer %.15g", res.Opt.F, L)
	}
	if L > ref.Opt.F*(1+1e-9) {
		t.Errorf("loss %.15g above L-BFGS-B's %.15g by %.2g relative", L, ref.Opt.F, (L-ref.Opt.F)/ref.Opt.F)
	}
	refMu := ref.Net.Predict([4]float64{})
	for j := range 4 {
		if math.Abs(mu[j]-refMu[j]) > 1e-4 {
			t.Errorf("μ %v, L-BFGS-B %v", mu, refMu)
			break
		}
	}
}

// BenchmarkIdentifySquared: the -loss squared identification of three 7-s
// logs like the demo's (μ and 9 free start poses), in-process, from the
// runs to μ: IdentifySquared (bounded least squares with the forward-mode
// Jacobian) and, for comparison, L-BFGS-B on NetFit's gradient with
// IdentifySquared's tolerances (what it ran before), and least squares
// with opt's QR path instead of the normal equations; -cold: each fit
// without the buffers a previous fit left (squaredPool emptied), as the
// first fit of a process. Reported: iterations,
// residual/loss evaluations, and the final loss relative to the lower of
// the two, and min-ns, the fastest identification (on a shared machine the
// time of the code; ns/op includes the neighbours' load).
func BenchmarkIdentifySquared(b *testing.B) {
	p := DefaultParams()
	runs := demoLikeRuns()
	init := [4]float64{0.5, 0.5, 0.5, 0.5}
	lbfgsb := func() (*NetResult, error) {
		f, err := NewNetFit(p, runs, 1, 0)
		if err != nil {
			return nil, err
		}
		x0 := f.X0(init, 1)
		free := make([]bool, f.Dim())
		for i := 9; i < len(free); i++ {
			free[i] = true
		}
		for i := 5; i < 9; i++ {
			x0[i] = 0
		}
		return f.Train(x0, free, opt.Settings{FunctionTol: DefaultFunctionTol, GradientTol: DefaultGradientTol})
	}
	lsq := func() (*NetResult, error) {
		_, r, _, err := IdentifySquared(p, runs, init, false, opt.Settings{})
		return r, err
	}
	r1, err := lsq()
	if err != nil {
		b.Fatal(err)
	}
	r2, err := lbfgsb()
	if err != nil {
		b.Fatal(err)
	}
	best := math.Min(r1.Opt.F, r2.Opt.F)
	lsqQR := func() (*NetResult, error) {
		squaredSolver = opt.QRSolver
		defer func() { squaredSolver = opt.AutoSolver }()
		return lsq()
	}
	// normal equations and QR alternated, so that both see the same load:
	// min-ns of each, and their ratio
	b.Run("normal-vs-qr", func(b *testing.B) {
		fast := [2]time.Duration{1 << 62, 1 << 62}
		for range b.N {
			for k, f := range []func() (*NetResult, error){lsq, lsqQR} {
				t0 := time.Now()
				if _, err := f(); err != nil {
					b.Fatal(err)
				}
				fast[k] = min(fast[k], time.Since(t0))
			}
		}
		b.ReportMetric(float64(fast[0].Nanoseconds()), "min-ns-normal")
		b.ReportMetric(float64(fast[1].Nanoseconds()), "min-ns-qr")
		b.ReportMetric(float64(fast[0])/float64(fast[1]), "normal/qr")
	})
	lsqCold := func() (*NetResult, error) {
		squaredPool = sync.Pool{} // no buffers kept from an earlier fit
		return lsq()
	}
	for _, c := range []struct {
		name string
		f    func() (*NetResult, error)
	}{{"least-squares", lsq}, {"least-squares-cold", lsqCold}, {"least-squares-qr", lsqQR}, {"lbfgsb", lbfgsb}} {
		b.Run(c.name, func(b *testing.B) {
			var r *NetResult
			fastest := time.Duration(1 << 62)
			for range b.N {
				t0 := time.Now()
				if r, err = c.f(); err != nil {
					b.Fatal(err)
				}
				fastest = min(fastest, time.Since(t0))
			}
			b.ReportMetric(float64(fastest.Nanoseconds()), "min-ns")
			b.ReportMetric(float64(r.Opt.Iterations), "iterations")
			b.ReportMetric(float64(r.Opt.FuncEvaluations), "evaluations")
			b.ReportMetric((r.Opt.F-best)/best, "rel-loss-above-best")
		})
	}
}

// TestSquaredLSIdent: the Gauss–Newton σ of the squared-loss fit is finite
// for logs that determine μ, and the errors against the truth over noise
// seeds are about one σ: measured 1.10 σ RMS over 24 estimates (six noise
// seeds of three 7-s runs with white camera noise; free start poses).
func TestSquaredLSIdent(t *testing.T) {
	truth := []float64{0.6, 0.7, 0.8, 0.9}
	var z2 float64
	n := 0
	for seed := range 6 {
		p := DefaultParams()
		p.Mu = truth
		var runs []Run
		for i, c := range [][4]float64{{10, 12, 8, 14}, {-12, 10, -9, 13}, {9, -11, -13, 10}} {
			r, _ := Synthesize(p, SynthSpec{ID: string(rune('1' + i)), Command: c, Duration: 7,
				Pose0: [3]float64{0.1 * float64(i), 0, 0.3 * float64(i)}, Noise: 0.003, HeadNoise: 0.01, Seed: uint64(10*seed + i + 1)})
			runs = append(runs, r)
		}
		mu, res, f, err := IdentifySquared(DefaultParams(), runs, [4]float64{0.5, 0.5, 0.5, 0.5}, false, opt.Settings{})
		if err != nil {
			t.Fatal(err)
		}
		s, err := f.SquaredLS()
		if err != nil {
			t.Fatal(err)
		}
		id, err := s.Ident(res.Opt.X)
		if err != nil {
			t.Fatal(err)
		}
		if len(id.Null) != 0 || len(id.Std) != s.Dim() {
			t.Fatalf("null directions %v, %d σ", id.Null, len(id.Std))
		}
		for j := range 4 {
			if !(id.Std[j] > 0) || math.IsInf(id.Std[j], 0) {
				t.Fatalf("σ(mu%d) = %g", j+1, id.Std[j])
			}
			z := (mu[j] - truth[j]) / id.Std[j]
			z2 += z * z
			n++
		}
		t.Logf("seed %d: μ %.4f, σ %.4f", seed, mu, id.Std[:4])
	}
	zr := math.Sqrt(z2 / float64(n))
	t.Logf("errors / plain σ: RMS %.2f over %d estimates", zr, n)
	if !(zr > 0.5 && zr < 2) {
		t.Errorf("errors are %.2f plain σ RMS: σ is not of the errors' scale", zr)
	}
}

// TestSquaredLSNormalSameFit: the fit through Normal (JᵀJ and Jᵀr formed
// during the rollout) takes the steps of the fit through Residuals' M×n
// Jacobian on opt's normal path: the same iterations and evaluations, the
// loss to 1e-9 relative and x to 1e-6.
func TestSquaredLSNormalSameFit(t *testing.T) {
	f, s := newSquaredLS(t, demoLikeRuns())
	start := squaredStart(f, s, [4]float64{0.5, 0.5, 0.5, 0.5})
	set := opt.Settings{FunctionTol: DefaultFunctionTol, GradientTol: DefaultGradientTol}
	var res [2]*opt.Result
	for i := range 2 {
		p := s.Problem()
		if i == 1 {
			p.Normal = nil
		}
		var err error
		if res[i], err = (opt.LeastSquares{TrialJacobian: true}).Solve(p, start, set); err != nil {
			t.Fatal(err)
		}
	}
	a, b := res[0], res[1]
	t.Logf("Normal: %v %d iterations %d evaluations F %.15g; Jacobian: %v %d, %d, F %.15g", a.Status, a.Iterations, a.FuncEvaluations, a.F, b.Status, b.Iterations, b.FuncEvaluations, b.F)
	if a.Status != b.Status || a.Iterations != b.Iterations || a.FuncEvaluations != b.FuncEvaluations || relErr(a.F, b.F) > 1e-9 {
		t.Errorf("Normal: %v after %d iterations, %d evaluations, F %.15g; through the Jacobian %v, %d, %d, %.15g", a.Status, a.Iterations, a.FuncEvaluations, a.F, b.Status, b.Iterations, b.FuncEvaluations, b.F)
	}
	for i := range a.X {
		if math.Abs(a.X[i]-b.X[i]) > 1e-6 {
			t.Errorf("x[%d] %v through Normal, %v through the Jacobian", i, a.X[i], b.X[i])
		}
	}
}

// TestSquaredLSNormalPoseColumns: every camera sample's rows have the
// start-pose columns of eq. 5 (poseColumns), and Normal's sums through
// addPose equal those through addGeneral (every product taken), on three
// logs like the demo's and on runs with time-varying commands, at two
// points each.
func TestSquaredLSNormalPoseColumns(t *testing.T) {
	for _, runs := range [][]Run{demoLikeRuns(), testRuns(3, 0.003, 5)} {
		f, s := newSquaredLS(t, runs)
		n := s.Dim()
		for _, mu := range [][4]float64{{0.5, 0.5, 0.5, 0.5}, {0.3, 0.9, 0.2, 1.4}} {
			xs := squaredStart(f, s, mu)
			xs[4+2*s.B] += 0.3
			var jtj, jtr [2][]float64
			for i, general := range []bool{false, true} {
				normalGeneral = general
				jtj[i], jtr[i] = make([]float64, n*n), make([]float64, n)
				err := s.Normal(xs, make([]float64, s.M), jtj[i], jtr[i])
				normalGeneral = false
				if err != nil {
					t.Fatal(err)
				}
			}
			K := len(s.j.Rows)
			for i := range K {
				if !poseColumns((*[nd]float64)(s.j.JY[i*nd:]), (*[nd]float64)(s.j.JY[(K+i)*nd:]), (*[nd]float64)(s.j.JY[(2*K+i)*nd:])) {
					t.Fatalf("μ %v: row %d: start-pose columns %v %v %v", mu, i, s.j.JY[i*nd:(i+1)*nd], s.j.JY[(K+i)*nd:(K+i+1)*nd], s.j.JY[(2*K+i)*nd:(2*K+i+1)*nd])
				}
			}
			if !slices.Equal(jtj[0], jtj[1]) || !slices.Equal(jtr[0], jtr[1]) {
				t.Errorf("μ %v: JᵀJ, Jᵀr through addPose\n%v\n%v\nthrough addGeneral\n%v\n%v", mu, jtj[0], jtr[0], jtj[1], jtr[1])
			}
		}
	}
}

// TestSquaredLSReusedBuffers: a SquaredLS built over the buffers of an
// earlier one of the same shape (runs, steps), for other runs — one
// shorter, with other camera rows, other commands — gives the residuals and
// normal equations of one built afresh, bit for bit, from the same inputs.
func TestSquaredLSReusedBuffers(t *testing.T) {
	a := demoLikeRuns()
	b := demoLikeRuns()
	r := &b[1]
	n := len(r.T) * 4 / 5
	r.T, r.W = r.T[:n], slices.Clone(r.W[:n])
	r.X, r.Y, r.Theta = slices.Clone(r.X[:n]), r.Y[:n], r.Theta[:n]
	for i := range n {
		r.W[i][2] *= 0.9
		if i%7 == 3 {
			r.X[i] = math.NaN()
		}
	}
	fa, err := NewNetFit(DefaultParams(), a, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	fb, err := NewNetFit(DefaultParams(), b, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	old, err := fa.squaredLS(nil)
	if err != nil {
		t.Fatal(err)
	}
	reused, err := fb.squaredLS(old)
	if err != nil {
		t.Fatal(err)
	}
	if &reused.u[0] != &old.u[0] {
		t.Fatal("the buffers were not reused")
	}
	fresh, err := fb.squaredLS(nil)
	if err != nil {
		t.Fatal(err)
	}
	x := fresh.X0([4]float64{0.6, 0.7, 0.8, 0.9}, fb.X0([4]float64{}, 1)[fb.NetWeights():])
	var out [2][3][]float64
	for i, s := range []*SquaredLS{reused, fresh} {
		if s.M != fresh.M || s.Dim() != fresh.Dim() {
			t.Fatalf("%d residuals, %d variables; fresh %d, %d", s.M, s.Dim(), fresh.M, fresh.Dim())
		}
		nv := s.Dim()
		out[i] = [3][]float64{make([]float64, s.M), make([]float64, nv*nv), make([]float64, nv)}
		if err := s.Normal(x, out[i][0], out[i][1], out[i][2]); err != nil {
			t.Fatal(err)
		}
	}
	for k, name := range []string{"r", "JᵀJ", "Jᵀr"} {
		if !slices.Equal(out[0][k], out[1][k]) {
			t.Errorf("%s over reused buffers differs from a fresh SquaredLS's", name)
		}
	}
	// the rollout's inputs too: the shorter run's lane still past its end
	if !slices.Equal(reused.u, fresh.u) {
		t.Error("the inputs over reused buffers differ from a fresh SquaredLS's")
	}
}

// TestSquaredLSSincos: SquaredLS.sincos is math.Sincos within 2 ulps (of
// the larger of |sin|, |cos|; math.Sincos's own anchor values err by up to
// one) over 200,000 headings θm in [−10, 10] and θ up to sincosNear from
// them (summing angles), and equal to it beyond (no series); a NaN heading
// gives NaN.
func TestSquaredLSSincos(t *testing.T) {
	s := &SquaredLS{th: make([]float64, 1), sth: make([]float64, 1), cth: make([]float64, 1)}
	rng := rand.New(rand.NewPCG(3, 4))
	var worst float64
	for range 200000 {
		tm := 20 * (rng.Float64() - 0.5)
		s.th[0] = tm
		s.sth[0], s.cth[0] = math.Sincos(tm)
		d := sincosNear * (2*rng.Float64() - 1)
		if rng.IntN(10) == 0 {
			d = sincosNear * (1 + rng.Float64())
			if rng.IntN(2) == 0 {
				d = -d
			}
		}
		th := tm + d
		sn, cs := s.sincos(0, th)
		ws, wc := math.Sincos(th)
		if math.Abs(th-tm) > sincosNear {
			if sn != ws || cs != wc {
				t.Fatalf("θ %v, %v from θm: %v %v, math.Sincos %v %v", th, th-tm, sn, cs, ws, wc)
			}
			continue
		}
		ulp := math.Nextafter(math.Max(math.Abs(ws), math.Abs(wc)), 2) - math.Max(math.Abs(ws), math.Abs(wc))
		e := math.Max(math.Abs(sn-ws), math.Abs(cs-wc)) / ulp
		worst = math.Max(worst, e)
		if e > 2 {
			t.Fatalf("θ %v, %v from θm: %v %v, math.Sincos %v %v: %.2g ulps", th, th-tm, sn, cs, ws, wc, e)
		}
	}
	t.Logf("largest error %.3g ulps", worst)
	if sn, cs := s.sincos(0, math.NaN()); !math.IsNaN(sn) || !math.IsNaN(cs) {
		t.Errorf("NaN heading: %v %v", sn, cs)
	}
}
