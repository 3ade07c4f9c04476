package control

import (
	"math"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"

	"github.com/wheelgrad/wheelgrad/ad"
	"github.com/wheelgrad/wheelgrad/opt"
)

// linearDrive is a Drive for control's own tests, no robot of models/*: the
// body velocity is a fixed linear map of the four commands, v = A·ws, with
// the orthogonal rows of A scaled by a, b and c, and a loss factor f(ws) =
// 1 − 0.1·tanh(ws/10) per command when lossy (so that the graph is not
// linear in the commands).
type linearDrive struct {
	a, b, c float64
	lossy   bool
}

var testDrive = linearDrive{a: 0.01, b: 0.02, c: 0.05}

// rows of A before scaling: orthogonal, of squared norms 4, 4, 4.
var linearRows = [3][4]float64{{1, 1, -1, -1}, {1, 1, 1, 1}, {1, -1, 1, -1}}

func (d linearDrive) scale() [3]float64 { return [3]float64{d.a, d.b, d.c} }

func (d linearDrive) eff(w float64) float64 {
	if d.lossy {
		return w * (1 - 0.1*math.Tanh(w/10))
	}
	return w
}

func (d linearDrive) Body(ws [4]float64) (vx, vy, wz float64) {
	var v [3]float64
	for r := range v {
		for j := range ws {
			v[r] += d.scale()[r] * linearRows[r][j] * d.eff(ws[j])
		}
	}
	return v[0], v[1], v[2]
}

func (d linearDrive) BodyGraph(g *ad.Graph, ws [4]*G.Node) (vx, vy, wz *G.Node, err error) {
	var b errBuilder
	var om [4]*G.Node
	for j := range om {
		om[j] = ws[j]
		if d.lossy {
			t := b.do(G.Tanh(b.do(G.Mul(ws[j], g.Scalar(0.1)))))
			om[j] = b.do(G.HadamardProd(ws[j], b.do(G.Sub(g.Scalar(1), b.do(G.Mul(t, g.Scalar(0.1)))))))
		}
	}
	var v [3]*G.Node
	for r := range v {
		for j := range om {
			t := b.do(G.Mul(om[j], g.Scalar(d.scale()[r]*linearRows[r][j])))
			if v[r] == nil {
				v[r] = t
			} else {
				v[r] = b.do(G.Add(v[r], t))
			}
		}
	}
	return v[0], v[1], v[2], b.err
}

// PseudoInverse of the lossless map: A⁺ = Aᵀ·diag(1/(4·scale²)).
func (d linearDrive) PseudoInverse(vx, vy, wz float64) [4]float64 {
	var ws [4]float64
	for r, v := range [3]float64{vx, vy, wz} {
		for j := range ws {
			ws[j] += linearRows[r][j] * v / (4 * d.scale()[r])
		}
	}
	return ws
}

func (d linearDrive) Validate() error { return nil }

// The graph synthesizer's loss equals its native twin (NativeLoss) and its
// gradient equals central differences of the native loss, for a drive that
// is linear in the commands and one that is not.
func TestSynthesisGraphMatchesNative(t *testing.T) {
	lossy := testDrive
	lossy.lossy = true
	for _, c := range []struct {
		name   string
		path   Path
		mode   HeadingMode
		theta0 float64
		d      Drive
	}{
		{"circle tangent", Circle{R: 0.5, T: 6}, Tangent, -math.Pi / 2, testDrive},
		{"figure8 reversed", Figure8{A: 1, T: 8}, Figure8ReverseRight, 3 * math.Pi / 4, testDrive},
		{"figure8 fixed, lossy", Figure8{A: 1, T: 5}, Fixed, 0.3, lossy},
	} {
		p, err := NewPlan(c.d, c.path, c.mode, c.theta0, 1, 1.0/10, 30)
		if err != nil {
			t.Fatal(err)
		}
		p.Start.X, p.Start.Y = 0.01, -0.02
		s, err := NewSynthesizer(p)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(uint64(len(c.name)), 3))
		for range 3 {
			x := make([]float64, 4*p.K)
			for i := range x {
				x[i] = 20*r.Float64() - 5
			}
			grad := make([]float64, len(x))
			f, err := s.Loss(x, grad)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := s.NativeLoss(x)
			if math.Abs(f-want) > 1e-12*math.Abs(want) {
				t.Errorf("%s: graph loss %.16g, native %.16g", c.name, f, want)
			}
			chk, err := ad.CheckGrad(func(x []float64) (float64, error) { f, _ := s.NativeLoss(x); return f, nil }, grad, x, 1e-4)
			if err != nil {
				t.Fatal(err)
			}
			if chk.MaxRelErr > 1e-6 {
				t.Errorf("%s: %v", c.name, chk)
			}
		}
	}
}

// PseudoInverse inverts Body for the lossless drive, and synthesis then
// meets the circle targets of `wheelgrad follow` (RMS ≤ 1 cm, max ≤ 3 cm,
// the whole curve covered).
func TestLinearDriveFollowsCircle(t *testing.T) {
	for _, v := range [][3]float64{{0.1, 0.2, 0.5}, {-0.3, 0, 0}} {
		vx, vy, wz := testDrive.Body(testDrive.PseudoInverse(v[0], v[1], v[2]))
		if math.Abs(vx-v[0]) > 1e-12 || math.Abs(vy-v[1]) > 1e-12 || math.Abs(wz-v[2]) > 1e-12 {
			t.Errorf("A·A⁺%v = (%g, %g, %g)", v, vx, vy, wz)
		}
	}
	p, err := NewPlan(testDrive, Circle{R: 0.5, T: 10}, Tangent, 0, 4, 1.0/240, 30)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSynthesizer(p)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Synthesize(nil, opt.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	poses, vel := Execute(testDrive, p.Start, res.Controls, p.N, p.Dt)
	tr := Track(p.Path, 0, p.Dt, poses, vel)
	t.Logf("linear drive, circle: RMS %.3f mm, %d iterations", 1e3*tr.RMS, res.Opt.Iterations)
	if tr.RMS > 0.01 || tr.Max > 0.03 || tr.Coverage < 0.999 || tr.Steps != p.K*p.N {
		t.Errorf("RMS %.4f m, max %.4f m, coverage %.4f over %d steps", tr.RMS, tr.Max, tr.Coverage, tr.Steps)
	}
}
