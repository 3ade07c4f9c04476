// Package benchpair holds the paired benchmark of the toolkit's speed
// tables (docs/performance.md): an operation timed against the native
// rollout in the same iterations, so that its ratio holds on a shared,
// noisy machine. It is for benchmarks only.
package benchpair

import (
	"testing"
	"time"
)

// Run runs op b.N times, each followed by native, and reports op's mean
// time (ns/op), its fastest (min-ns) and, as x-native, the ratio of the
// fastest op to the fastest native run over the same iterations: on a
// shared machine the minimum of paired runs is the time of the code, the
// mean that of the neighbours too.
func Run(b *testing.B, native, op func() error) {
	var tOp time.Duration
	minOp, minNat := time.Duration(1<<62), time.Duration(1<<62)
	for range b.N {
		t0 := time.Now()
		if err := op(); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := native(); err != nil {
			b.Fatal(err)
		}
		dOp, dNat := t1.Sub(t0), time.Since(t1)
		tOp, minOp, minNat = tOp+dOp, min(minOp, dOp), min(minNat, dNat)
	}
	b.ReportMetric(float64(tOp.Nanoseconds())/float64(b.N), "ns/op")
	b.ReportMetric(float64(minOp.Nanoseconds()), "min-ns")
	b.ReportMetric(float64(minOp)/float64(minNat), "x-native")
}
