package mecanum

import (
	"sync"
	"testing"
	"time"
)

// l1Sub is one subproblem l1QP.solve was handed during an identification:
// the terms (q: n, nb, s, a, run), the damped H, g, w and the warm start.
type l1Sub struct {
	set  string
	q    *l1QP
	H, g []float64
	w    float64
	warm []int
}

// spinRuns are four 7-s runs that turn (each a different command, start
// heading 0.5k): with the demo-like logs, the sets the subproblems of
// BenchmarkL1QPSolve and TestL1QPSameAsRef come from.
func spinRuns() []Run {
	cmds := [][4]float64{{8, -8, 8, -8}, {-6, -6, 6, 6}, {10, 4, 10, 4}, {3, 9, -9, -3}}
	var runs []Run
	for k, c := range cmds {
		r, _ := paperRun(c, uint64(70+k), [3]float64{0, 0, 0.5 * float64(k)})
		r.ID = string(rune('a' + k))
		runs = append(runs, r)
	}
	return runs
}

var l1Subs struct {
	once sync.Once
	subs []l1Sub
	err  error
}

// recordL1Subs records every subproblem handed to l1QP.solve (l1QPRecord)
// during the default identification of demoLikeRuns and of spinRuns, once.
func recordL1Subs(tb testing.TB) []l1Sub {
	tb.Helper()
	l1Subs.once.Do(func() {
		sets := []struct {
			name string
			p    Params
			runs []Run
		}{{"demo", DefaultParams(), demoLikeRuns()}, {"spin", testParams(), spinRuns()}}
		defer func() { l1QPRecord = nil }()
		for _, set := range sets {
			l1QPRecord = func(q *l1QP, H, g []float64, w float64, warm []int) {
				c := &l1QP{n: q.n, nb: q.nb, s: append([]float64(nil), q.s...),
					a: append([][7]float64(nil), q.a...), run: append([]int32(nil), q.run...)}
				l1Subs.subs = append(l1Subs.subs, l1Sub{set.name, c, append([]float64(nil), H...),
					append([]float64(nil), g...), w, append([]int(nil), warm...)})
			}
			f, err := NewFit(set.p, set.runs, DefaultConfig())
			if err == nil {
				_, err = Identify(f, IdentifyOptions{Init: [4]float64{0.5, 0.5, 0.5, 0.5}})
			}
			if err != nil {
				l1Subs.err = err
				return
			}
		}
	})
	if l1Subs.err != nil {
		tb.Fatal(l1Subs.err)
	}
	if len(l1Subs.subs) == 0 {
		tb.Fatal("no subproblem recorded")
	}
	return l1Subs.subs
}

// BenchmarkL1QPSolve replays the subproblems of two default
// identifications (recordL1Subs: the demo-like logs and four spinning
// runs), each from its warm start, with the reference solve (ref, the
// O(m)-per-iteration one) and with l1QP.solve (new), in one run: one op is
// every subproblem once; reported ns per solve and active-set iterations
// per solve, and for new the terms tested per iteration (of m = 1,263 and
// 1,684) and the index's new base points per solve.
//
// Measured (-benchtime 60x -count 3, load ~1): 91 subproblems, 9.0
// iterations per solve; ref 166–167 µs per solve, new 118–120 µs (1.4×),
// 276 terms tested per iteration. What is left is mostly per solve, O(m):
// ‖a_i‖, the signs and Σσ_i·a_i of s (one pass), the residuals, signs and
// index at the base point (one pass and a counting sort), φ (one pass);
// and the terms tested because d moved from the base point (about three
// quarters of those tested: the Cauchy–Schwarz bound on 7 entries is
// loose). BenchmarkEq8Parts, this tree against its parent side by side
// (2 × 3 runs each, alternating): second-ms 6.29–6.48 → 5.84–5.96,
// x-squared 9.32–9.78 → 8.71–9.21; μ the same to the bit on the demo-like
// logs and on spinRuns.
func BenchmarkL1QPSolve(b *testing.B) {
	subs := recordL1Subs(b)
	for _, v := range []struct {
		name  string
		solve func(q *l1QP, H, g []float64, w float64, out []float64, warm []int) (float64, error)
	}{{"ref", (*l1QP).solveRef}, {"new", (*l1QP).solve}} {
		b.Run(v.name, func(b *testing.B) {
			qs := make([]*l1QP, len(subs))
			outs := make([][]float64, len(subs))
			for k, s := range subs {
				c := *s.q
				qs[k], outs[k] = &c, make([]float64, s.q.n)
			}
			var iters, tested, rebases int
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				iters, tested, rebases = 0, 0, 0
				for k, s := range subs {
					if _, err := v.solve(qs[k], s.H, s.g, s.w, outs[k], s.warm); err != nil {
						b.Fatal(err)
					}
					iters += qs[k].iters
					tested += qs[k].tested
					rebases += qs[k].rebases
				}
			}
			el := time.Since(start)
			b.ReportMetric(float64(el.Nanoseconds())/float64(b.N*len(subs)), "ns/solve")
			b.ReportMetric(float64(iters)/float64(len(subs)), "iters/solve")
			b.ReportMetric(float64(len(subs)), "solves")
			if v.name == "new" {
				b.ReportMetric(float64(tested)/float64(iters), "tested/iter")
				b.ReportMetric(float64(rebases)/float64(len(subs)), "rebases/solve")
			}
		})
	}
}
