package tire

import (
	"math"
	"strings"
	"testing"
)

// The soft-L1 loss's gradient (through the generated reverse pass, each
// sample's adjoint scaled by ρ') equals central differences of the native
// loss; at a scale far above every error it is the squared loss.
func TestRobustLossGradient(t *testing.T) {
	truth := Jackal()
	mv := Maneuvers()[2]
	mv.Duration = 3
	r, err := Synthesize(truth, mv, SynthConfig{Seed: 4, WheelStd: 0.005})
	if err != nil {
		t.Fatal(err)
	}
	k := len(r.Y) / 2
	for math.IsNaN(r.Y[k]) { // a row with a pose
		k++
	}
	r.Y[k] += 1.9 // an outlier
	start := truth
	start.Kx, start.Ky = 180, 200
	f, err := newFit(start, []*Run{r}, []int{0, 1, 2}, 1)
	if err != nil {
		t.Fatal(err)
	}
	x := f.x0()
	for _, c := range []float64{0.003, 0.05} {
		f.robust = c
		g := make([]float64, len(x))
		if _, err := f.eval(x, g); err != nil {
			t.Fatal(err)
		}
		for k := range x {
			h := 1e-6 * math.Max(1, math.Abs(x[k]))
			xp := append([]float64(nil), x...)
			xp[k] += h
			lp, _ := f.eval(xp, nil)
			xp[k] -= 2 * h
			lm, _ := f.eval(xp, nil)
			if fd := (lp - lm) / (2 * h); math.Abs(g[k]-fd) > 1e-5*math.Max(math.Abs(fd), 1e-3) {
				t.Errorf("C = %g: ∂L/∂x[%d] = %.8g, central difference %.8g", c, k, g[k], fd)
			}
		}
	}
	f.robust = 0
	sq, _ := f.eval(x, nil)
	f.robust = 1e6
	if big, _ := f.eval(x, nil); math.Abs(big/sq-1) > 1e-6 {
		t.Errorf("soft-L1 at a huge scale: %g, squared loss %g", big, sq)
	}
}

// The default Pacejka coefficients are too stiff for the 1-ms explicit
// step near rest (issue 26.2: the wheel slip chatters forever): the
// parameter warnings say so, as they do for a Dugoff Kx, Ky above
// MaxStiffness; the softer coefficients of TestIdentifyPacejka get no
// warning. The warning is the simulation's behaviour: a run at rest from
// a small push chatters with the default coefficients and settles with
// the soft ones.
func TestPacejkaStability(t *testing.T) {
	stiff := Jackal()
	stiff.Tyre = "pacejka"
	soft := stiff
	soft.Px, soft.Py = [4]float64{5, 1.5, 0.8, 0.5}, [4]float64{5, 1.3, 0.8, -0.5}
	has := func(ws []string, key string) bool {
		for _, w := range ws {
			if len(w) > len(key) && w[:len(key)+1] == key+":" {
				return true
			}
		}
		return false
	}
	if ws := stiff.Warnings(); !has(ws, "px") || !has(ws, "py") {
		t.Errorf("default Pacejka coefficients at dt = 1 ms: warnings %q", ws)
	}
	if ws := soft.Warnings(); has(ws, "px") || has(ws, "py") {
		t.Errorf("soft Pacejka coefficients: warnings %q", ws)
	}
	// wheels at rest, the body pushed to 5 mm/s: the last second's speed
	chatter := func(p Params) float64 {
		n := 2001
		r := &Run{T: make([]float64, n), WL: make([]float64, n), WR: make([]float64, n), U: make([]float64, n), V: make([]float64, n), R: make([]float64, n)}
		for k := range n {
			r.T[k] = float64(k) * 0.001
		}
		r.U[0] = 0.005
		traj, err := Simulate(p, r)
		if err != nil {
			t.Fatal(err)
		}
		m := 0.0
		for _, s := range traj[n/2:] {
			m = max(m, math.Abs(s[3]))
		}
		return m
	}
	if c := chatter(stiff); c < 1e-4 {
		t.Errorf("default Pacejka: |u| up to %.3g m/s in the last second, want chatter", c)
	}
	if c := chatter(soft); c > 1e-5 {
		t.Errorf("soft Pacejka: |u| up to %.3g m/s in the last second, want rest", c)
	}
}

// A run built in code with mismatched columns is an error from Simulate
// and Identify, not an index panic (issue 26.6).
func TestRunShapes(t *testing.T) {
	n := 100
	good := func() *Run {
		r := &Run{T: make([]float64, n), WL: make([]float64, n), WR: make([]float64, n)}
		for k := range n {
			r.T[k] = float64(k) * 0.01
		}
		return r
	}
	for name, bad := range map[string]func(r *Run){
		"short wr":    func(r *Run) { r.WR = r.WR[:n-1] },
		"u without v": func(r *Run) { r.U = make([]float64, n) },
		"short y":     func(r *Run) { r.X, r.Y, r.Psi = make([]float64, n), make([]float64, n-3), make([]float64, n) },
	} {
		r := good()
		bad(r)
		if _, err := Simulate(Jackal(), r); err == nil || !strings.Contains(err.Error(), "lengths") {
			t.Errorf("%s: Simulate: %v", name, err)
		}
		if _, err := Identify(Jackal(), []*Run{r}, IdentifyOptions{}); err == nil {
			t.Errorf("%s: Identify: no error", name)
		}
	}
	if _, err := Simulate(Jackal(), good()); err != nil {
		t.Errorf("a good run: %v", err)
	}
}
