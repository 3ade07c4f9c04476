package ad

import (
	"errors"
	"fmt"
	"runtime"
	"sync"

	G "gorgonia.org/gorgonia"
)

// ShardBuildFunc builds the loss of the batch items [lo, hi) — for example
// the segments lo..hi-1 of a calibration log. The total loss is the sum of
// the shards' losses, so a loss that is a mean over the batch must divide by
// the full batch size, not by hi−lo.
type ShardBuildFunc func(g *Graph, params []*G.Node, lo, hi int) (*G.Node, error)

// Sharded splits a batch dimension over several Programs, one TapeMachine
// each, evaluates them in goroutines and sums losses and gradients in shard
// order (so the result does not depend on scheduling).
type Sharded struct {
	shards []*Program
	ranges [][2]int
	dim    int
	grads  [][]float64
}

// CompileSharded compiles one Program per shard over a batch of the given
// size. shards ≤ 0 means runtime.NumCPU(); it is capped at the batch size.
// Options (node budget, self-check) apply to each shard.
func CompileSharded(params []Param, batch, shards int, build ShardBuildFunc, opts ...Option) (*Sharded, error) {
	if batch <= 0 {
		return nil, fmt.Errorf("ad: batch size %d", batch)
	}
	if build == nil {
		return nil, errors.New("ad: nil build function")
	}
	if shards <= 0 {
		shards = runtime.NumCPU()
	}
	shards = min(shards, batch)
	s := &Sharded{}
	// Shards are compiled one after another: compiling is done once, and
	// gorgonia's graph construction keeps some package-level counters.
	for k := range shards {
		lo, hi := k*batch/shards, (k+1)*batch/shards
		p, err := Compile(params, func(g *Graph, pn []*G.Node) (*G.Node, error) {
			return build(g, pn, lo, hi)
		}, opts...)
		if err != nil {
			return nil, fmt.Errorf("shard %d (items %d–%d): %w", k, lo, hi-1, err)
		}
		s.shards = append(s.shards, p)
		s.ranges = append(s.ranges, [2]int{lo, hi})
		s.grads = append(s.grads, make([]float64, p.Dim()))
	}
	s.dim = s.shards[0].Dim()
	return s, nil
}

// Dim is the length of x.
func (s *Sharded) Dim() int { return s.dim }

// Shards returns the per-shard Programs and their batch ranges [lo, hi), for
// SetInput on a shard's data or reading its watched outputs.
func (s *Sharded) Shards() ([]*Program, [][2]int) { return s.shards, s.ranges }

// Nodes is the node count of the largest shard.
func (s *Sharded) Nodes() int {
	n := 0
	for _, p := range s.shards {
		n = max(n, p.Nodes())
	}
	return n
}

// ValueAndGrad returns the summed loss and a new gradient slice.
func (s *Sharded) ValueAndGrad(x []float64) (float64, []float64, error) {
	g := make([]float64, s.dim)
	f, err := s.ValueAndGradInto(x, g)
	return f, g, err
}

// ValueAndGradInto evaluates every shard concurrently and writes the summed
// gradient into grad.
func (s *Sharded) ValueAndGradInto(x, grad []float64) (float64, error) {
	if len(x) != s.dim || len(grad) != s.dim {
		return 0, fmt.Errorf("ad: x has %d values and grad %d, the program has %d parameters", len(x), len(grad), s.dim)
	}
	fs := make([]float64, len(s.shards))
	errs := make([]error, len(s.shards))
	var wg sync.WaitGroup
	for k, p := range s.shards {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fs[k], errs[k] = p.ValueAndGradInto(x, s.grads[k])
		}()
	}
	wg.Wait()
	var f float64
	clear(grad)
	for k := range s.shards {
		if errs[k] != nil {
			return 0, fmt.Errorf("shard %d: %w", k, errs[k])
		}
		f += fs[k]
		for i, v := range s.grads[k] {
			grad[i] += v
		}
	}
	return f, nil
}

// Eval has the signature of opt.Objective (see Program.Eval). The shards
// compute their gradients even when grad is nil.
func (s *Sharded) Eval(x, grad []float64) (float64, error) {
	if grad == nil {
		grad = make([]float64, s.dim)
	}
	return s.ValueAndGradInto(x, grad)
}
