package tire

import (
	"math"
	"os"
	"testing"

	"github.com/wheelgrad/wheelgrad/dyn"
)

var generated = []struct {
	m             *dyn.Model
	varName, file string
}{
	{DugoffBody, "DugoffBody", "step_gen_dugoff.go"},
	{PacejkaBody, "PacejkaBody", "step_gen_pacejka.go"},
	{DugoffCurve, "DugoffCurve", "curve_gen_dugoff.go"},
	{PacejkaCurve, "PacejkaCurve", "curve_gen_pacejka.go"},
}

// TestGenerated keeps the generated kernels equal to what dyn.Generate
// writes (DYN_UPDATE=1 rewrites them).
func TestGenerated(t *testing.T) {
	update := os.Getenv("DYN_UPDATE") == "1"
	for _, g := range generated {
		if err := dyn.GenerateFile(g.m, "tire", g.varName, "kernel"+g.varName, g.file, update); err != nil {
			t.Error(err)
		}
		if !update && !g.m.Generated() {
			t.Errorf("%s: generated kernel not in use", g.m.Name())
		}
	}
}

// dugoffByHand is FORMATS.md's Dugoff law transcribed directly.
func dugoffByHand(mu, Kx, Ky, Fz, kappa, tanA float64) (Fx, Fy float64) {
	s := math.Sqrt(Kx*kappa*Kx*kappa + Ky*tanA*Ky*tanA)
	if s == 0 {
		return Kx * kappa / (1 - kappa), -Ky * tanA / (1 - kappa)
	}
	lam := mu * Fz * (1 - kappa) / (2 * s)
	if lam >= 1 {
		return Kx * kappa / (1 - kappa), -Ky * tanA / (1 - kappa)
	}
	f := mu * Fz * (2 - lam) / (2 * s)
	return Kx * kappa * f, -Ky * tanA * f
}

func pacejkaByHand(px, py [4]float64, Fz, kappa, tanA float64) (Fx, Fy float64) {
	P := func(c [4]float64, q float64) float64 {
		B, C, D, E := c[0], c[1], c[2], c[3]
		return D * math.Sin(C*math.Atan(B*q-E*(B*q-math.Atan(B*q))))
	}
	return Fz * P(px, kappa), -Fz * P(py, tanA)
}

// The tyre laws equal FORMATS.md at hand-picked slip states: the linear
// Dugoff branch, the saturated one, κ = ±1, s = 0 and the branch point λ = 1.
func TestForcesMatchContract(t *testing.T) {
	p := Jackal()
	p.Kx, p.Ky = 140, 90
	Fz := p.Fz()
	lam1 := p.Mu * Fz / (2*p.Kx + p.Mu*Fz) // κ with λ = 1 at α = 0
	kappa := []float64{0.001, 0.01, 0.3, 1, -1, 0, 0, lam1, -0.5, 0.05}
	tanA := []float64{0.002, 0, 0.1, 0, 0.3, 0, 0.05, 0, -0.2, -0.4}
	for _, tyre := range []string{"dugoff", "pacejka"} {
		p.Tyre = tyre
		Fx, Fy, err := p.Forces(kappa, tanA)
		if err != nil {
			t.Fatal(err)
		}
		for i := range kappa {
			var wx, wy float64
			if tyre == "dugoff" {
				wx, wy = dugoffByHand(p.Mu, p.Kx, p.Ky, Fz, kappa[i], tanA[i])
			} else {
				wx, wy = pacejkaByHand(p.Px, p.Py, Fz, kappa[i], tanA[i])
			}
			if math.Abs(Fx[i]-wx) > 1e-12*math.Max(1, math.Abs(wx)) || math.Abs(Fy[i]-wy) > 1e-12*math.Max(1, math.Abs(wy)) {
				t.Errorf("%s κ=%v tanα=%v: (%v, %v), contract (%v, %v)", tyre, kappa[i], tanA[i], Fx[i], Fy[i], wx, wy)
			}
		}
	}
	// The Dugoff branches meet at λ = 1.
	p.Tyre = "dugoff"
	Fx, _, _ := p.Forces([]float64{lam1 * (1 - 1e-9), lam1 * (1 + 1e-9)}, []float64{0, 0})
	if math.Abs(Fx[0]-Fx[1]) > 1e-6*math.Abs(Fx[0]) {
		t.Errorf("Dugoff jumps at λ = 1: %v vs %v", Fx[0], Fx[1])
	}
}

func finiteAll(t *testing.T, what string, xs ...[]float64) {
	t.Helper()
	for _, s := range xs {
		for i, v := range s {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("%s: non-finite value %v at %d", what, v, i)
			}
		}
	}
}

// No value or gradient is NaN or Inf at the singular points: at rest (every
// speed 0: κ's and α's denominators at their floor, s = 0), with a spinning
// wheel on a still robot (κ = ±1), on a robot moving with locked wheels
// (κ = −1) and at the Dugoff branch point λ = 1.
func TestNoNaNAtSingularPoints(t *testing.T) {
	for _, tyre := range []string{"dugoff", "pacejka"} {
		p := Jackal()
		p.Tyre = tyre
		m := p.Body()
		lam1 := p.Mu * p.Fz() / (2*p.Kx + p.Mu*p.Fz())
		// lanes: rest; spinning wheels at rest (κ = 1 left, −1 right);
		// sliding with locked wheels; λ = 1 on the left wheels.
		states := [][6]float64{{}, {}, {0, 0, 0, 0.5, 0, 0}, {0, 0, 0, 1, 0, 0}}
		wheels := [][2]float64{{0, 0}, {10, -10}, {0, 0}, {(1 + lam1) / (1 - lam1) / p.R, 1 / p.R}}
		// κ = (Rω − u)/max(|Rω|, |u|): Rω = (1+λ₁)/(1−λ₁)·u … gives κ = (Rω − u)/Rω.
		B, T := len(states), 3
		x0 := make([]float64, 6*B)
		u := make([]float64, T*2*B)
		for j := range B {
			for k := range 6 {
				x0[k*B+j] = states[j][k]
			}
			for s := range T {
				u[(s*2)*B+j], u[(s*2+1)*B+j] = wheels[j][0], wheels[j][1]
			}
		}
		for name, k := range map[string]dyn.Kernel{"generated": m.NewKernel(), "interpreter": m.NewInterpreter()} {
			sim, err := m.NewSimWith(k, B, T)
			if err != nil {
				t.Fatal(err)
			}
			y := make([]float64, 6*T*B)
			if _, err := sim.Forward(p.free(), p.settings(), x0, u, y); err != nil {
				t.Fatalf("%s %s: %v", tyre, name, err)
			}
			ybar := make([]float64, len(y))
			for i := range ybar {
				ybar[i] = 1
			}
			gp, gx, gu := make([]float64, len(p.free())), make([]float64, len(x0)), make([]float64, len(u))
			if err := sim.Backward(p.free(), p.settings(), u, ybar, 0, nil, gp, gx, gu); err != nil {
				t.Fatal(err)
			}
			finiteAll(t, tyre+" "+name, y, gp, gx, gu)
		}
		// The tyre law alone at κ = ±1, s = 0 and λ = 1, with its gradients.
		cm := DugoffCurve
		if tyre == "pacejka" {
			cm = PacejkaCurve
		}
		kap := []float64{1, -1, 0, lam1, 0.5}
		tan := []float64{0, 0, 0, 0, 0}
		sim := cm.NewSim(len(kap), 1)
		y := make([]float64, 2*len(kap))
		if _, err := sim.Forward(p.free(), []float64{p.Fz()}, append(kap, tan...), nil, y); err != nil {
			t.Fatal(err)
		}
		ybar := make([]float64, len(y))
		for i := range ybar {
			ybar[i] = 1
		}
		gp, gx := make([]float64, len(p.free())), make([]float64, 2*len(kap))
		if err := sim.Backward(p.free(), []float64{p.Fz()}, nil, ybar, 0, nil, gp, gx, nil); err != nil {
			t.Fatal(err)
		}
		finiteAll(t, tyre+" curve", y, gp, gx)
	}
}

// testRun is a short run with a turn, spin-up and braking.
func testRun(steps int) ([]float64, []float64) {
	wl, wr := make([]float64, steps), make([]float64, steps)
	for k := range steps {
		tt := float64(k) * 0.001
		wl[k] = 4 + 3*math.Sin(2*tt)
		wr[k] = 4 + 3*math.Sin(2*tt+1)
		if tt > 0.2 {
			wl[k] = -2
		}
	}
	return wl, wr
}

// The generated gradient (parameters, initial state, inputs) against
// central differences of the native rollout, for both tyre laws, moving.
func TestBodyGradientFiniteDifferences(t *testing.T) {
	for _, tyre := range []string{"dugoff", "pacejka"} {
		p := Jackal()
		p.Tyre = tyre
		p.Crr = 0.02
		m := p.Body()
		const B, T = 2, 400
		x0 := []float64{0, 0.1, 0, 0.2, 0.3, -0.1, 0.4, 0.1, 0, 0.05, 0.1, -0.2}
		u := make([]float64, T*2*B)
		wl, wr := testRun(T)
		for k := range T {
			u[(k*2)*B], u[(k*2+1)*B] = wl[k], wr[k]
			u[(k*2)*B+1], u[(k*2+1)*B+1] = wr[k]*0.5, wl[k]
		}
		for name, k := range map[string]dyn.Kernel{"generated": m.NewKernel(), "interpreter": m.NewInterpreter()} {
			for seed := range uint64(2) {
				c, err := m.CheckRollout(k, p.free(), p.settings(), x0, u, B, T, nil, 0, nil, seed)
				if err != nil {
					t.Fatal(err)
				}
				if c.RelErr > 1e-6 {
					t.Errorf("%s %s: %v", tyre, name, c)
				}
			}
		}
	}
}
