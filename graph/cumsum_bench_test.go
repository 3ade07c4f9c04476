package graph

import (
	"fmt"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// BenchmarkCumSum measures one forward and backward pass of the loss
// Σ w ⊙ CumSum(x) (value and gradient with respect to x), three ways:
//
//	op:        the custom op in a compiled TapeMachine (RunAll + Reset)
//	loop:      plain Go, CumSumFloat forward and ReverseCumSumFloat backward
//	primitive: the O(T²) triangular-matrix product in a TapeMachine, only
//	           for sizes where the T×T matrix is affordable
func BenchmarkCumSum(b *testing.B) {
	for _, shape := range [][]int{{2000}, {100000}, {50, 2000}} {
		size := 1
		for _, d := range shape {
			size *= d
		}
		r := rand.New(rand.NewPCG(7, 7))
		x := randomValues(r, size)
		w := weights(size)
		name := fmt.Sprint(shape)
		b.Run("op"+name, func(b *testing.B) {
			benchGraph(b, shape, x, w, func(x *G.Node) (*G.Node, error) { return CumSum(x, false) })
		})
		b.Run("loop"+name, func(b *testing.B) {
			n := shape[len(shape)-1]
			y, gx := make([]float64, size), make([]float64, size)
			var sink float64
			for b.Loop() {
				var loss float64
				for r := 0; r < size; r += n {
					CumSumFloat(y[r:r+n], x[r:r+n], false)
					ReverseCumSumFloat(gx[r:r+n], w[r:r+n], false)
				}
				for i, v := range y {
					loss += w[i] * v
				}
				sink += loss + gx[0]
			}
			_ = sink
		})
		if shape[len(shape)-1] <= 2000 && size <= 2000 {
			b.Run("primitive"+name, func(b *testing.B) {
				benchGraph(b, shape, x, w, cumSumVariant{}.primitive)
			})
		}
	}
}

func benchGraph(b *testing.B, shape []int, x, w []float64, op func(*G.Node) (*G.Node, error)) {
	g := G.NewGraph()
	xn := G.NewTensor(g, tensor.Float64, len(shape), G.WithShape(shape...), G.WithName("x"),
		G.WithValue(tensor.New(tensor.WithShape(shape...), tensor.WithBacking(append([]float64(nil), x...)))))
	y, err := op(xn)
	if err != nil {
		b.Fatal(err)
	}
	loss, err := weightedSum(y, w)
	if err != nil {
		b.Fatal(err)
	}
	grads, err := G.Grad(loss, xn)
	if err != nil {
		b.Fatal(err)
	}
	m := G.NewTapeMachine(g)
	defer m.Close()
	for b.Loop() {
		if err := m.RunAll(); err != nil {
			b.Fatal(err)
		}
		m.Reset()
	}
	_ = grads
}
