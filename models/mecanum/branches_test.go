package mecanum

import (
	"fmt"
	"math"
	"testing"

	"github.com/wheelgrad/wheelgrad/losses"
)

// loopSets are sets with a run that passes its own path again: the
// demo-like logs (a run that spins nearly in place) with two more noise
// seeds, and four spinning 7-s runs.
func loopSets() map[string][]Run {
	sets := map[string][]Run{"demo-like": demoLikeRuns()}
	for s := uint64(1); s < 3; s++ {
		sets[fmt.Sprintf("demo-like, seed %d", s)] = demoLikeSeeded(100 * s)
	}
	var runs []Run
	for k, c := range [][4]float64{{8, -8, 8, -8}, {-6, -6, 6, 6}, {10, 4, 10, 4}, {3, 9, -9, -3}} {
		r, _ := paperRun(c, 70+uint64(k), [3]float64{0, 0, 0.5 * float64(k)})
		runs = append(runs, r)
	}
	sets["four spins"] = runs
	return sets
}

// demoLikeSeeded is demoLikeRuns with the noise seeds base+1, base+2,
// base+3 (demoLikeRuns is base 0).
func demoLikeSeeded(base uint64) []Run {
	truth := DefaultParams()
	truth.Mu = []float64{0.6, 0.7, 0.8, 0.9}
	var runs []Run
	for i, c := range [][4]float64{{10, 12, 8, 14}, {-12, 10, -9, 13}, {9, -11, -13, 10}} {
		r, _ := Synthesize(truth, SynthSpec{ID: string(rune('1' + i)), Command: c, Duration: 7,
			Pose0: [3]float64{0.1 * float64(i), 0, 0.3 * float64(i)}, Noise: 0.003, HeadNoise: 0.01, Seed: base + uint64(i+1)})
		runs = append(runs, r)
	}
	return runs
}

// identifyBranches is the default identification with and without the
// second stage's branches (sqpBranches).
func identifyBranches(t *testing.T, runs []Run) (with, without *Result) {
	t.Helper()
	defer func() { sqpBranches = true }()
	var out [2]*Result
	for k, on := range []bool{true, false} {
		sqpBranches = on
		f, err := NewFit(DefaultParams(), runs, DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		if out[k], err = Identify(f, IdentifyOptions{Init: [4]float64{0.5, 0.5, 0.5, 0.5}}); err != nil {
			t.Fatal(err)
		}
	}
	return out[0], out[1]
}

// Where a run passes its own path again, the second stage with the
// branches takes fewer evaluations and ends at the same minimum or a lower
// one: over the loop sets and twelve more noise seeds of the demo-like
// logs, at least 15 % fewer evaluations in all, at least as many sets
// lower as higher (by more than twice the stopping tolerance,
// DefaultFunctionTol, relative: closer is the same minimum), none higher
// by more than 1e-5 (the loss has many local minima where a run spins in
// place: which one a search ends in can turn on the last bits of a
// closest point; measured, four 5e-7 to 1.8e-4 lower, none higher, and
// 7.7e-6 higher in one with 20 passes over the branches).
// Where no run passes its own path, the branches change nothing.
func TestSqpBranches(t *testing.T) {
	sets := loopSets()
	for s := uint64(1); s <= 12; s++ {
		sets[fmt.Sprintf("demo-like, seed %d", 1000*s)] = demoLikeSeeded(1000 * s)
	}
	var sum [2]int
	lower, higher := 0, 0
	for name, runs := range sets {
		with, without := identifyBranches(t, runs)
		d := 0.0
		for j := range 4 {
			d = math.Max(d, math.Abs(with.Mu[j]-without.Mu[j])/without.Ident.MuStd[j])
		}
		rel := with.Opt.F/without.Opt.F - 1
		t.Logf("%s: %d evaluations with the branches, %d without; loss %+.2e relative, μ %.3f σ apart", name, with.Opt.FuncEvaluations, without.Opt.FuncEvaluations, rel, d)
		sum[0] += with.Opt.FuncEvaluations
		sum[1] += without.Opt.FuncEvaluations
		switch {
		case rel < -2*DefaultFunctionTol:
			lower++
		case rel > 2*DefaultFunctionTol:
			higher++
		}
		if !with.Linearised || !with.Opt.Status.Converged() || rel > 1e-5 {
			t.Errorf("%s: %v %v, loss %.12g against %.12g", name, with.Linearised, with.Opt.Status, with.Opt.F, without.Opt.F)
		}
	}
	t.Logf("%d sets: %d evaluations with the branches, %d without; %d lower, %d higher", len(sets), sum[0], sum[1], lower, higher)
	if float64(sum[0]) > 0.85*float64(sum[1]) || lower < higher {
		t.Errorf("%d evaluations with the branches, %d without; %d sets lower, %d higher", sum[0], sum[1], lower, higher)
	}
	with, without := identifyBranches(t, stageSets()["four short"])
	if with.Opt.F != without.Opt.F || with.Opt.FuncEvaluations != without.Opt.FuncEvaluations {
		t.Errorf("no run passes its own path: %d evaluations, loss %.15g with the branches, %d, %.15g without", with.Opt.FuncEvaluations, with.Opt.F, without.Opt.FuncEvaluations, without.Opt.F)
	}
}

// onBranches' answer is the model's: its value is φ computed directly
// with each term on the nearest of its branches at Δ (the least of its
// branches' |s + aᵀΔ|), less the loss at δ_k, and no higher than the
// nearest branches' own minimum (solve's answer, where it started).
func TestOnBranchesModel(t *testing.T) {
	f, err := NewFit(DefaultParams(), loopSets()["four spins"], DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	m, err := f.linearize(f.X0([4]float64{0.55, 0.65, 0.6, 0.7}), nil)
	if err != nil {
		t.Fatal(err)
	}
	n := f.Dim()
	st := newSQPState(n, len(m.terms), len(f.segs))
	m.hessEval(make([]float64, n), st)
	groups := 0
	for _, b := range st.br {
		if b.first {
			groups++
		}
	}
	if groups < 20 {
		t.Fatalf("%d terms with branches", groups)
	}
	w := f.Cfg.Weights.Spline
	H := append([]float64(nil), st.H...)
	for j := range n {
		H[j*n+j] *= 1.001
	}
	step := make([]float64, n)
	phi0, err := st.qp.solve(H, st.g, w, step, nil)
	if err != nil {
		t.Fatal(err)
	}
	phi, err := st.onBranches(H, w, step, phi0, branchPasses)
	if err != nil {
		t.Fatal(err)
	}
	st.restore()
	// φ directly: the nearest branches' objective, then each term with
	// branches moved to its least
	direct := phiOf(&st.qp, H, st.g, w, step)
	for k := 0; k < len(st.br); {
		i := st.br[k].i
		least := math.Inf(1)
		for ; k < len(st.br) && st.br[k].i == i; k++ {
			least = math.Min(least, math.Abs(st.br[k].s+rowDot(&st.qp, i, &st.br[k].a, step)))
		}
		direct += w * (least - math.Abs(st.qp.s[i]+rowDot(&st.qp, i, &st.qp.a[i], step)))
	}
	t.Logf("%d terms with branches; φ %.10g on the branches, %.10g on the nearest alone", groups, phi, phi0)
	if math.Abs(phi-direct) > 1e-12*(math.Abs(direct)+st.F) {
		t.Errorf("φ %.15g, directly %.15g", phi, direct)
	}
	if !(phi <= phi0) {
		t.Errorf("φ %.15g on the branches, above the nearest's minimum %.15g", phi, phi0)
	}
}

// rowDot is aᵀΔ for a row a of term i.
func rowDot(q *l1QP, i int, a *[7]float64, d []float64) float64 {
	var t float64
	for j := range 7 {
		t += a[j] * d[q.col(q.run[i], j)]
	}
	return t
}

// normalRow takes the curve's normal from its tangent at an interior
// closest point: for a point on the curve (distance ~1e-17, where P − c
// is rounding) it is the normal of a point 1 mm off the curve, up to sign.
func TestNormalRowOnCurve(t *testing.T) {
	u := []float64{0, 1, 2, 3, 4}
	x := []float64{0, 1, 2, 3, 4}
	y := []float64{0, 0.5, 0.2, 0.8, 0.1}
	s, err := losses.NewSpline(u, x, y)
	if err != nil {
		t.Fatal(err)
	}
	var G [2][7]float64
	G[0][0], G[1][1] = 1, 1 // the row is then the normal itself
	for _, at := range []float64{0.7, 1.9, 3.2} {
		cx, cy, dx, dy, _, _ := s.At(at)
		l := math.Hypot(dx, dy)
		nx, ny := -dy/l, dx/l
		on := s.Closest(cx, cy)
		off := s.Closest(cx+1e-3*nx, cy+1e-3*ny)
		r0, r1 := normalRow(cx, cy, &on, &G), normalRow(cx+1e-3*nx, cy+1e-3*ny, &off, &G)
		if on.Dist > 1e-12 || !on.Interior {
			t.Fatalf("at %g: the point on the curve is %g from it", at, on.Dist)
		}
		if d := math.Abs(math.Abs(r0[0]*r1[0]+r0[1]*r1[1]) - 1); d > 1e-9 || math.Abs(math.Hypot(r0[0], r0[1])-1) > 1e-12 {
			t.Errorf("at %g: normal on the curve %v, 1 mm off it %v", at, r0[:2], r1[:2])
		}
		if math.Abs(r1[0]-nx) > 1e-6 || math.Abs(r1[1]-ny) > 1e-6 {
			t.Errorf("at %g: normal 1 mm off %v, want (%g, %g)", at, r1[:2], nx, ny)
		}
	}
}
