package sbmpo

import (
	"math"
	"testing"

	"github.com/wheelgrad/wheelgrad/models/skidsteer"
	"github.com/wheelgrad/wheelgrad/models/skidsteer/terra"
	"gonum.org/v1/gonum/diff/fd"
)

var asphaltSlip = [9]float64{15e-3, -0.4e-3, -10e-3, 7e-3, 15e-3, -7e-3, 5e-3, -405e-3, 119e-3}

// coneScenario is a 10 m × 10 m area with cones between start and goal.
func coneScenario(t testing.TB) (*EnergyPlanner, skidsteer.Pose, [2]float64) {
	m := terra.Model{Vehicle: terra.FSUBot, Surface: terra.Asphalt, A: asphaltSlip}
	tb, err := m.NewTable(0.6, 1.2, 121)
	if err != nil {
		t.Fatal(err)
	}
	p := &EnergyPlanner{A: asphaltSlip, Table: tb, Bounds: [4]float64{0, 10, 0, 10},
		Obstacles: []Obstacle{{3, 2.5, 0.15}, {5, 5, 0.15}, {4.2, 6.8, 0.15}, {6.8, 3.6, 0.15}, {7.5, 7.2, 0.15}, {2.2, 5, 0.15}}}
	return p, skidsteer.Pose{X: 1, Y: 1}, [2]float64{9, 9}
}

func TestHalton(t *testing.T) {
	h := Halton(5, 1)
	want := []float64{0, -0.5, 0.5, -0.75, 0.25}
	for i := range want {
		if math.Abs(h[i]-want[i]) > 1e-15 {
			t.Fatalf("Halton = %v, want %v", h, want)
		}
	}
}

func TestSBMPOConeScenario(t *testing.T) {
	p, start, goal := coneScenario(t)
	plan, err := p.Plan(start, goal)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("SBMPO: %d segments, energy %.1f J, length %.2f m, time %.1f s, %d expanded, %v (MTR %.2f m)",
		len(plan.Wc), plan.Energy, plan.Length, plan.Time, plan.Expanded, plan.Elapsed, p.Table.MTR)
	if hit, clear := p.Collides(plan); hit {
		t.Errorf("SBMPO plan collides (clearance %g)", clear)
	}
	end := plan.Poses[len(plan.Poses)-1]
	if d := math.Hypot(end.X-goal[0], end.Y-goal[1]); d > 0.3 {
		t.Errorf("SBMPO plan ends %g m from the goal", d)
	}
	wmax := p.MaxYawRate()
	for _, w := range plan.Wc {
		if math.Abs(w) > wmax+1e-12 {
			t.Errorf("yaw rate %g beyond the MTR bound %g", w, wmax)
		}
	}
	ref, info, err := p.Refine(plan, goal, RefineWeights{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("refined: accepted %v, energy %.1f → %.1f J, clearance %.3f m, %d iterations, %v", info.Accepted, info.Before, info.After, info.Clearance, info.Iterations, info.Elapsed)
	if !info.Accepted || !(ref.Energy < plan.Energy) {
		t.Errorf("refinement did not lower the energy without collision: %+v", info)
	}
	if hit, _ := p.Collides(ref); hit {
		t.Error("refined plan collides")
	}
	for _, w := range ref.Wc {
		if math.Abs(w) > wmax+1e-12 {
			t.Errorf("refined yaw rate %g beyond the MTR bound %g", w, wmax)
		}
	}
}

func TestRefineGradient(t *testing.T) {
	p, start, goal := coneScenario(t)
	q := p.defaults()
	o := &refineObjective{q: q, w: RefineWeights{}.defaults(), start: start, goal: goal, vc: 0.6}
	n := 12
	x := make([]float64, 2*n)
	for k := range n {
		x[k] = 0.3 * math.Sin(float64(k))
		x[n+k] = 0.5 + 0.05*float64(k%3)
	}
	// pass near a cone so the clearance penalty is active
	p.Obstacles = append(p.Obstacles, Obstacle{2.5, 1.3, 0.2})
	o.q.Obstacles = p.Obstacles
	g := make([]float64, 2*n)
	f0, _ := o.eval(x, g)
	if f0 <= 0 {
		t.Fatal("objective not positive")
	}
	for i := range x {
		num := fd.Derivative(func(d float64) float64 {
			xd := append([]float64(nil), x...)
			xd[i] += d
			f, _ := o.eval(xd, nil)
			return f
		}, 0, &fd.Settings{Formula: fd.Central, Step: 1e-6 * math.Max(1, math.Abs(x[i]))})
		if math.Abs(num-g[i]) > 1e-5*(math.Abs(num)+1) {
			t.Errorf("∂f/∂x[%d]: reverse pass %.9g, central differences %.9g", i, g[i], num)
		}
	}
}

func BenchmarkSBMPOConeScenario(b *testing.B) {
	p, start, goal := coneScenario(b)
	cpu0 := cpuTime()
	for b.Loop() {
		if _, err := p.Plan(start, goal); err != nil {
			b.Fatal(err)
		}
	}
	// CPU time of the process per plan: on a shared machine, wall time
	// includes waiting for a core.
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1e3/float64(b.N), "cpu-ms/op")
}

func BenchmarkSBMPORefine(b *testing.B) {
	p, start, goal := coneScenario(b)
	plan, err := p.Plan(start, goal)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, _, err := p.Refine(plan, goal, RefineWeights{}); err != nil {
			b.Fatal(err)
		}
	}
}
