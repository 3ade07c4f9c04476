package graph

import (
	"testing"

	G "gorgonia.org/gorgonia"
)

func repeatNative(n int) func(in [][]float64) []float64 {
	return func(in [][]float64) []float64 {
		var y []float64
		for _, v := range in[0] {
			for range n {
				y = append(y, v)
			}
		}
		return y
	}
}

func TestBlockOps(t *testing.T) {
	x := []float64{0.3, -1.2, 2.5, 0.7, -0.1, 1.9}
	cases := []opCase{
		{name: "Repeat[6]x3", args: []arg{vecArg("x", x...)},
			build:  func(in []*G.Node) (*G.Node, error) { return Repeat(in[0], 3) },
			native: repeatNative(3)},
		{name: "Repeat[2,3]x2", args: []arg{matArg("x", 2, 3, x...)},
			build: func(in []*G.Node) (*G.Node, error) { return Repeat(in[0], 2) },
			native: func(in [][]float64) []float64 { // per row
				return append(repeatNative(2)([][]float64{in[0][:3]}), repeatNative(2)([][]float64{in[0][3:]})...)
			}},
		{name: "SumBlocks[6]/2", args: []arg{vecArg("x", x...)},
			build:  func(in []*G.Node) (*G.Node, error) { return SumBlocks(in[0], 2) },
			native: func(in [][]float64) []float64 { v := in[0]; return []float64{v[0] + v[1], v[2] + v[3], v[4] + v[5]} }},
		{name: "Pick[6] every 4 from 1", args: []arg{vecArg("x", x...)},
			build:  func(in []*G.Node) (*G.Node, error) { return Pick(in[0], 4, 1) },
			native: func(in [][]float64) []float64 { return []float64{in[0][1], in[0][5]} }},
		{name: "Pick[2,3] every 2", args: []arg{matArg("x", 2, 3, x...)},
			build:  func(in []*G.Node) (*G.Node, error) { return Pick(in[0], 2, 0) },
			native: func(in [][]float64) []float64 { v := in[0]; return []float64{v[0], v[2], v[3], v[5]} }},
		{name: "Place[2] every 3 from 2 in 7", args: []arg{vecArg("x", 1.5, -2)},
			build:  func(in []*G.Node) (*G.Node, error) { return Place(in[0], 3, 2, 7) },
			native: func(in [][]float64) []float64 { return []float64{0, 0, in[0][0], 0, 0, in[0][1], 0} }},
		{name: "SumBlocks(Repeat) = n·x", args: []arg{vecArg("x", x...)},
			build: func(in []*G.Node) (*G.Node, error) {
				r, err := Repeat(in[0], 5)
				if err != nil {
					return nil, err
				}
				return SumBlocks(r, 5)
			},
			native: func(in [][]float64) []float64 {
				y := make([]float64, len(in[0]))
				for i, v := range in[0] {
					y[i] = 5 * v
				}
				return y
			}},
	}
	for _, c := range cases {
		checkOp(t, c, 1e-15, 1e-9)
	}
}

func TestBlockOpErrors(t *testing.T) {
	g := G.NewGraph()
	x := newInput(g, vecArg("x", 1, 2, 3, 4, 5))
	if _, err := SumBlocks(x, 2); err == nil {
		t.Error("SumBlocks of 5 by 2 accepted")
	}
	if _, err := Repeat(x, 0); err == nil {
		t.Error("Repeat by 0 accepted")
	}
	if _, err := Pick(x, 2, 5); err == nil {
		t.Error("Pick offset past the end accepted")
	}
	if _, err := Place(x, 2, 0, 6); err == nil {
		t.Error("Place of 5 values into 6 every 2 accepted")
	}
	// Distinct parameters must not be merged by gorgonia's hash-consing.
	a, _ := Pick(x, 2, 0)
	b, _ := Pick(x, 2, 1)
	if a == b {
		t.Error("Pick from 0 and from 1 merged into one node")
	}
}
