package graph

import (
	"math"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// rotateCase builds Rotate2D with both outputs concatenated, so the
// standard check sees one output.
func rotateCase(name string, theta, x, y arg) opCase {
	return opCase{
		name: name,
		args: []arg{theta, x, y},
		build: func(in []*G.Node) (*G.Node, error) {
			xr, yr, err := Rotate2D(in[0], in[1], in[2])
			if err != nil {
				return nil, err
			}
			return G.Concat(0, xr, yr)
		},
		native: func(in [][]float64) []float64 {
			n := len(in[1])
			out := make([]float64, 2*n)
			for i := 0; i < n; i++ {
				th := in[0][0]
				if len(in[0]) > 1 {
					th = in[0][i]
				}
				out[i], out[n+i] = Rotate2DFloat(th, in[1][i], in[2][i])
			}
			return out
		},
	}
}

func TestRotate2DFD(t *testing.T) {
	x := vecArg("x", 1, -0.5, 2, 0, 3.5)
	y := vecArg("y", 0.3, 1, -2, 1, 0)
	checkOp(t, rotateCase("scalar heading", scalarArg("theta", 0.7), x, y), 1e-15, 1e-8)
	checkOp(t, rotateCase("heading per element", vecArg("theta", 0, math.Pi/2, -2, 3, 10), x, y), 1e-15, 1e-8)
	checkOp(t, rotateCase("matrix", matArg("theta", 2, 2, 0.1, 0.2, -0.3, 4), matArg("x", 2, 2, 1, 2, 3, 4), matArg("y", 2, 2, -1, 0, 1, 0.5)), 1e-15, 1e-8)
}

func TestRotate2DQuarterTurn(t *testing.T) {
	xr, yr := Rotate2DFloat(math.Pi/2, 1, 0)
	if math.Abs(xr) > 1e-16 || yr != 1 {
		t.Errorf("Rotate2DFloat(π/2, 1, 0) = (%v, %v), want (0, 1)", xr, yr)
	}
}

func TestRotate2DErrors(t *testing.T) {
	g := G.NewGraph()
	x := G.NewVector(g, tensor.Float64, G.WithShape(3), G.WithName("x"))
	y2 := G.NewVector(g, tensor.Float64, G.WithShape(2), G.WithName("y2"))
	th2 := G.NewVector(g, tensor.Float64, G.WithShape(2), G.WithName("th2"))
	th := G.NewScalar(g, tensor.Float64, G.WithName("th"))
	for name, args := range map[string][3]*G.Node{
		"y shape":     {th, x, y2},
		"theta shape": {th2, x, x},
		"nil theta":   {nil, x, x},
		"nil y":       {th, x, nil},
	} {
		if _, _, err := Rotate2D(args[0], args[1], args[2]); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
