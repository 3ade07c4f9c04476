package robots

import (
	"math"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"

	"github.com/wheelgrad/wheelgrad/ad"
	"github.com/wheelgrad/wheelgrad/control"
	"github.com/wheelgrad/wheelgrad/models/mecanum"
)

// The FORMATS.md defaults with the friction.
var testRobot = mecanum.Drive{Params: mecanum.Params{Model: "mecanum", R: 0.03, Lab: 0.2, M: 4, G: 9.8, Ts: 0.6, Mu: []float64{0.6, 0.7, 0.8, 0.9}}}

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

func smallPlan(t *testing.T, path control.Path, mode control.HeadingMode, theta0 float64, m mecanum.Drive) *control.Plan {
	t.Helper()
	p, err := control.NewPlan(m, path, mode, theta0, 1, 1.0/10, 30)
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
		path   control.Path
		mode   control.HeadingMode
		theta0 float64
		m      mecanum.Drive
	}{
		{"circle tangent", control.Circle{R: 0.5, T: 6}, control.Tangent, -math.Pi / 2, testRobot},
		{"figure8 reversed", control.Figure8{A: 1, T: 8}, control.Figure8ReverseRight, 3 * math.Pi / 4, testRobot},
		{"figure8 fixed, friction network", control.Figure8{A: 1, T: 5}, control.Fixed, 0.3, fr},
	} {
		p := smallPlan(t, c.path, c.mode, c.theta0, c.m)
		p.Start.X, p.Start.Y = 0.01, -0.02
		s, err := control.NewSynthesizer(p)
		if err != nil {
			t.Fatal(err)
		}
		for seed := range uint64(3) {
			x := s.Flatten(randomControls(p.K, seed))
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
	for _, m := range []mecanum.Drive{testRobot, func() mecanum.Drive {
		m := testRobot
		m.Friction = toyFriction{a: [4]float64{0.5, 0.6, 0.7, 0.8}}
		return m
	}()} {
		for _, v := range [][3]float64{{0.1, 0.2, 0.5}, {-0.3, 0, 0}, {0, -0.1, -1}} {
			ws := m.PseudoInverse(v[0], v[1], v[2])
			vx, vy, wz := m.Body(ws)
			if math.Abs(vx-v[0]) > 1e-9 || math.Abs(vy-v[1]) > 1e-9 || math.Abs(wz-v[2]) > 1e-9 {
				t.Errorf("B(B⁺ %v) = (%g, %g, %g)", v, vx, vy, wz)
			}
		}
	}
}

// Execute must agree with models/mecanum's Simulate (pose before each row's
// command) on the same controls written as 240-Hz rows.
func TestExecuteMatchesMecanumSimulate(t *testing.T) {
	c := randomControls(5, 7)
	n, dt := 12, 1.0/240
	start := control.Pose{X: 0.1, Y: -0.2, Theta: 0.4}
	poses, _ := control.Execute(testRobot, start, c, n, dt)
	var run mecanum.Run
	for i := 0; i <= len(c)*n; i++ {
		ws := c[min(i/n, len(c)-1)]
		run.T = append(run.T, float64(i)*dt)
		run.W = append(run.W, ws)
		nan := math.NaN()
		if i == 0 {
			run.X, run.Y, run.Theta = append(run.X, start.X), append(run.Y, start.Y), append(run.Theta, start.Theta)
		} else {
			run.X, run.Y, run.Theta = append(run.X, nan), append(run.Y, nan), append(run.Theta, nan)
		}
	}
	x, y, th := mecanum.Simulate(testRobot.Params, &run)
	for k, p := range poses {
		if math.Abs(p.X-x[k+1]) > 1e-12 || math.Abs(p.Y-y[k+1]) > 1e-12 || math.Abs(p.Theta-th[k+1]) > 1e-12 {
			t.Fatalf("step %d: control.Execute %+v, Simulate (%g, %g, %g)", k, p, x[k+1], y[k+1], th[k+1])
		}
	}
}

func testNet() *mecanum.FrictionNet {
	r := rand.New(rand.NewPCG(5, 5))
	n := &mecanum.FrictionNet{Scale: 20, MuMax: 2}
	for range mecanum.NetHidden {
		row := make([]float64, 4)
		for j := range row {
			row[j] = r.NormFloat64()
		}
		n.W1 = append(n.W1, row)
		n.B1 = append(n.B1, 0.1*r.NormFloat64())
	}
	for range 4 {
		row := make([]float64, mecanum.NetHidden)
		for i := range row {
			row[i] = 0.3 * r.NormFloat64()
		}
		n.W2 = append(n.W2, row)
		n.B2 = append(n.B2, -0.5+0.1*r.NormFloat64())
	}
	return n
}

// The synthesis loss through the friction network: graph equals native, and
// the gradient equals finite differences.
func TestSynthesisThroughFrictionNet(t *testing.T) {
	p := testRobot.Params
	p.Friction = testNet()
	m, err := mecanum.NewDrive(p)
	if err != nil {
		t.Fatal(err)
	}
	plan := smallPlan(t, control.Figure8{A: 1, T: 6}, control.Figure8ReverseRight, 3*math.Pi/4, m)
	s, err := control.NewSynthesizer(plan)
	if err != nil {
		t.Fatal(err)
	}
	x := s.Flatten(randomControls(plan.K, 9))
	grad := make([]float64, len(x))
	f, err := s.Loss(x, grad)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := s.NativeLoss(x)
	if math.Abs(f-want) > 1e-12*math.Abs(want) {
		t.Errorf("graph %.16g, native %.16g", f, want)
	}
	chk, _ := ad.CheckGrad(func(x []float64) (float64, error) { f, _ := s.NativeLoss(x); return f, nil }, grad, x, 1e-4)
	if chk.MaxRelErr > 1e-6 {
		t.Errorf("gradient through the network: %v", chk)
	}
}
