package control

import (
	"math"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"

	"github.com/wheelgrad/wheelgrad/ad"
)

// The FORMATS.md defaults with the friction.
var testRobot = Mecanum{R: 0.03, Lab: 0.2, M: 4, Gravity: 9.8, Ts: 0.6, Mu: [4]float64{0.6, 0.7, 0.8, 0.9}}

// toyFriction is a smooth command-dependent friction for tests:
// μ_j = a_j + b·tanh(ω_s,j / 10).
type toyFriction struct{ a [4]float64 }

func (f toyFriction) Mu(ws [4]float64) [4]float64 {
	var mu [4]float64
	for j := range mu {
		mu[j] = f.a[j] + 0.1*math.Tanh(ws[j]/10)
	}
	return mu
}

func (f toyFriction) Graph(g *ad.Graph, ws [4]*G.Node) ([4]*G.Node, error) {
	var mu [4]*G.Node
	for j := range mu {
		t, err := G.Tanh(G.Must(G.Mul(ws[j], g.Scalar(0.1))))
		if err != nil {
			return mu, err
		}
		mu[j] = G.Must(G.Add(G.Must(G.Mul(t, g.Scalar(0.1))), g.Scalar(f.a[j])))
	}
	return mu, nil
}

func smallPlan(t *testing.T, path Path, mode HeadingMode, theta0 float64, m Mecanum) *Plan {
	t.Helper()
	p, err := NewPlan(m, path, mode, theta0, 1, 1.0/10, 30)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func randomControls(k int, seed uint64) [][4]float64 {
	r := rand.New(rand.NewPCG(seed, 3))
	c := make([][4]float64, k)
	for i := range c {
		for j := range 4 {
			c[i][j] = 20*r.Float64() - 5
		}
	}
	return c
}

func TestSynthesisGraphMatchesNative(t *testing.T) {
	fr := testRobot
	fr.Friction = toyFriction{a: [4]float64{0.5, 0.6, 0.7, 0.8}}
	for _, c := range []struct {
		name   string
		path   Path
		mode   HeadingMode
		theta0 float64
		m      Mecanum
	}{
		{"circle tangent", Circle{R: 0.5, T: 6}, Tangent, -math.Pi / 2, testRobot},
		{"figure8 reversed", Figure8{A: 1, T: 8}, Figure8ReverseRight, 3 * math.Pi / 4, testRobot},
		{"figure8 fixed, friction network", Figure8{A: 1, T: 5}, Fixed, 0.3, fr},
	} {
		p := smallPlan(t, c.path, c.mode, c.theta0, c.m)
		p.Start.X, p.Start.Y = 0.01, -0.02
		s, err := NewSynthesizer(p)
		if err != nil {
			t.Fatal(err)
		}
		for seed := range uint64(3) {
			x := flatten(randomControls(p.K, seed))
			grad := make([]float64, len(x))
			f, err := s.Loss(x, grad)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := s.NativeLoss(x)
			if math.Abs(f-want) > 1e-12*math.Abs(want) {
				t.Errorf("%s seed %d: graph loss %.16g, native %.16g", c.name, seed, f, want)
			}
			// Random commands give losses of ~1e5 against gradient components
			// of ~1, so at a step of 1e-6 round-off dominates the central
			// difference (measured: the error falls from 1.4e-6 at h = 1e-7 to
			// 1.3e-9 at h = 1e-4); commands are ~10 rad/s, h = 1e-4 relative.
			chk, err := ad.CheckGrad(func(x []float64) (float64, error) { f, _ := s.NativeLoss(x); return f, nil }, grad, x, 1e-4)
			if err != nil {
				t.Fatal(err)
			}
			if chk.MaxRelErr > 1e-6 {
				t.Errorf("%s seed %d: %v", c.name, seed, chk)
			}
		}
	}
}

func TestPseudoInverse(t *testing.T) {
	for _, m := range []Mecanum{testRobot, func() Mecanum { m := testRobot; m.Friction = toyFriction{a: [4]float64{0.5, 0.6, 0.7, 0.8}}; return m }()} {
		for _, v := range [][3]float64{{0.1, 0.2, 0.5}, {-0.3, 0, 0}, {0, -0.1, -1}} {
			ws := m.PseudoInverse(v[0], v[1], v[2])
			vx, vy, wz := m.Body(ws)
			if math.Abs(vx-v[0]) > 1e-9 || math.Abs(vy-v[1]) > 1e-9 || math.Abs(wz-v[2]) > 1e-9 {
				t.Errorf("B(B⁺ %v) = (%g, %g, %g)", v, vx, vy, wz)
			}
		}
	}
}
