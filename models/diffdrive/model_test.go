package diffdrive

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestParamsValidate(t *testing.T) {
	for _, p := range []Params{Paper(), Vulcan()} {
		if err := p.Validate(); err != nil {
			t.Errorf("%+v: %v", p, err)
		}
	}
	bad := Paper()
	bad.Mu = -1
	if err := bad.Validate(); err == nil {
		t.Error("negative mu accepted")
	}
	bad = Paper()
	bad.Gamma = 40 // 1 − γh = −1.4: unstable
	if err := bad.Validate(); err == nil {
		t.Error("unstable gamma accepted")
	}
	bad = Paper()
	bad.H = math.NaN()
	if err := bad.Validate(); err == nil {
		t.Error("NaN h accepted")
	}
}

func TestSteadyCoordsRoundTrip(t *testing.T) {
	v := Vulcan()
	if math.Abs(v.Alpha-0.0245*8.5) > 1e-15 || math.Abs(v.Gamma-0.155*8.5/0.28) > 1e-14 {
		t.Fatalf("Vulcan α = %v, γ = %v", v.Alpha, v.Gamma)
	}
	p := Paper()
	q := FromSteady(p.Steady(), p.L, p.H)
	for i, z := range p.Zeta() {
		if math.Abs(q.Zeta()[i]-z) > 1e-14*z {
			t.Errorf("%s: %v after round trip, want %v", ZetaNames[i], q.Zeta()[i], z)
		}
	}
}

// The Kikuuwe property (eqs. 4–5): whenever |μ̄| ≤ μ the wheel stops at
// exactly zero in one step, not at a rounding residue, and otherwise it
// keeps moving.
func TestWheelLockIsExactlyZero(t *testing.T) {
	p := Paper()
	rng := rand.New(rand.NewPCG(1, 2))
	locks, slips := 0, 0
	for range 20000 {
		sd := rng.NormFloat64() * 0.02
		sdd := rng.NormFloat64() * 0.3
		mubar := -sd/p.H - sdd
		n, _, locked := p.StepWheel(sd, sdd, rng.NormFloat64()*5)
		if math.Abs(mubar) <= p.Mu {
			locks++
			if !locked || n != 0 || math.Signbit(n) {
				t.Fatalf("sd=%v sdd=%v: |μ̄| = %v ≤ μ but next speed %v (locked %v)", sd, sdd, math.Abs(mubar), n, locked)
			}
		} else {
			slips++
			if locked || n == 0 {
				t.Fatalf("sd=%v sdd=%v: |μ̄| = %v > μ but locked", sd, sdd, math.Abs(mubar))
			}
			// Friction opposes the stick direction: the step overshoots zero
			// by less than it would without friction.
			if want := sd + p.H*sdd + p.H*math.Copysign(p.Mu, mubar); math.Abs(n-want) > 1e-15 {
				t.Fatalf("slip step %v, want %v", n, want)
			}
		}
	}
	if locks < 1000 || slips < 1000 {
		t.Fatalf("test did not exercise both branches: %d locks, %d slips", locks, slips)
	}
	// From rest with an input inside the deadband the wheel never moves.
	db := p.Deadband()
	s := State{}
	for range 2000 {
		var lock [2]bool
		s, lock = p.Step(s, 0.99*db, 0)
		if s.SdR != 0 || s.SdL != 0 || !lock[0] || !lock[1] {
			t.Fatalf("inside the deadband the wheels moved: %+v", s)
		}
	}
}

func TestSimulateSpeedsMatchesStep(t *testing.T) {
	p := Paper()
	uf, ul := testCommands(3000, 7)
	tr, err := p.Simulate(State{SdR: 0.3, SddR: 0.1, SdL: -0.2}, uf, ul)
	if err != nil {
		t.Fatal(err)
	}
	vr, vl := make([]float64, len(uf)), make([]float64, len(uf))
	p.SimulateSpeeds(State{SdR: 0.3, SddR: 0.1, SdL: -0.2}, uf, ul, vr, vl)
	nlock := 0
	for k := range uf {
		if vr[k] != tr.VR[k] || vl[k] != tr.VL[k] {
			t.Fatalf("row %d: SimulateSpeeds (%v, %v), Simulate (%v, %v)", k, vr[k], vl[k], tr.VR[k], tr.VL[k])
		}
		if tr.LockR[k] {
			nlock++
			if tr.VR[k] != 0 {
				t.Fatalf("row %d locked with speed %v", k, tr.VR[k])
			}
		}
	}
	if nlock == 0 {
		t.Fatal("no wheel lock in the test commands")
	}
}

// testCommands is a mix of holds, zeros and sines, in the joystick units of
// the paper's wheelchair (deadband ≈ 3, top speed ≈ 1.3 m/s at uf ≈ 40).
func testCommands(n int, seed uint64) (uf, ul []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	uf, ul = make([]float64, n), make([]float64, n)
	f, l := 0.0, 0.0
	for k := range n {
		if k%50 == 0 {
			switch rng.IntN(3) {
			case 0:
				f, l = 0, 0
			default:
				f, l = rng.NormFloat64()*20, rng.NormFloat64()*20
			}
		}
		uf[k] = f + 5*math.Sin(float64(k)*0.05)
		ul[k] = l
	}
	return uf, ul
}

// Eq. 18 against long simulations, on both wheels and both parameter sets:
// beyond the deadband the rollout settles at (α/β)V ∓ μγ/β, inside it the
// wheel stays locked.
func TestSteadyStateMatchesLongSimulation(t *testing.T) {
	for _, p := range []Params{Paper(), Vulcan()} {
		db := p.Deadband()
		for _, V := range []float64{-40, -10, -1.01 * db, -0.99 * db, 0, 0.5 * db, 0.99 * db, 1.01 * db, 3 * db, 25, 60} {
			s := State{}
			for range 20000 {
				s, _ = p.Step(s, V, 0)
			}
			want := p.SteadySpeed(V)
			if math.Abs(s.SdR-want) > 1e-9 || math.Abs(s.SdL-want) > 1e-9 {
				t.Errorf("%v: V = %v: speeds %v, %v after 1200 s, eq. 18 gives %v", p.Beta, V, s.SdR, s.SdL, want)
			}
			if math.Abs(V) <= db && (s.SdR != 0 || s.SdL != 0) {
				t.Errorf("V = %v inside the deadband %v: wheel not locked", V, db)
			}
		}
	}
}

func TestSteadyBodyMatchesLongSimulation(t *testing.T) {
	p := Vulcan()
	for _, c := range [][2]float64{{30, 10}, {30, -40}, {-20, 15}, {0, 60}, {2, 0}} {
		s := State{}
		for range 20000 {
			s, _ = p.Step(s, c[0], c[1])
		}
		v, w := p.Body(s)
		wv, ww := p.SteadyBody(c[0], c[1])
		if math.Abs(v-wv) > 1e-9 || math.Abs(w-ww) > 1e-9 {
			t.Errorf("command %v: (v, ω) = (%v, %v), steady state (%v, %v)", c, v, w, wv, ww)
		}
	}
}

// The feed-forward inverse of footnote 1, checked by simulating the command
// it returns until the robot settles, including a pure turn on the spot and
// a stop (which must give exactly zero command, not a deadband value).
func TestFeedforwardConverges(t *testing.T) {
	for _, p := range []Params{Paper(), Vulcan()} {
		for _, target := range [][2]float64{{0.5, 0}, {1.0, 0.4}, {-0.4, -0.3}, {0, 0.8}, {0.2, -1.0}, {0, 0}} {
			uf, ul, err := p.Feedforward(target[0], target[1])
			if err != nil {
				t.Fatal(err)
			}
			if target == [2]float64{} && (uf != 0 || ul != 0) {
				t.Errorf("stop: command (%v, %v), want exactly 0", uf, ul)
			}
			s := State{SdR: 0.3, SddR: 0.5, SdL: -0.1}
			for range 5000 {
				s, _ = p.Step(s, uf, ul)
			}
			v, w := p.Body(s)
			if math.Abs(v-target[0]) > 1e-9 || math.Abs(w-target[1]) > 1e-9 {
				t.Errorf("β=%v target %v: command (%v, %v) settles at (%v, %v)", p.Beta, target, uf, ul, v, w)
			}
		}
	}
	if _, _, err := Paper().Feedforward(20, 0); err == nil {
		t.Error("unreachable speed gave no error")
	}
}
