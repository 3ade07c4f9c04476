package tire

import (
	"errors"
	"math"
	"testing"

	"github.com/wheelgrad/wheelgrad/dataset"
)

// Simulate rolls a long run in chunks of SimulateChunk steps: every row's
// state equals one rollout over the whole run (same kernel, same order of
// operations: exactly), across two chunk boundaries.
func TestSimulateChunksEqualOneRollout(t *testing.T) {
	p := Jackal()
	mv := Maneuver{Name: "weave", Duration: 2.2 * SimulateChunk * p.Dt, Wheels: func(t, R, W float64) (float64, float64) {
		v, w := math.Min(t, 0.4), 0.8*math.Sin(2*math.Pi*t/7)
		return (v - w*W/2) / R, (v + w*W/2) / R
	}}
	r, err := Synthesize(p, mv, SynthConfig{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Simulate(p, r)
	if err != nil {
		t.Fatal(err)
	}
	pl, _ := r.plan(p.Dt)
	if pl.steps < 2*SimulateChunk {
		t.Fatalf("%d steps: the run does not cross two chunk boundaries", pl.steps)
	}
	sim := p.Body().NewSim(1, pl.steps)
	u := make([]float64, 2*pl.steps)
	r.inputs(pl, u, 0, 1, pl.steps)
	x0 := r.Initial(p)
	if _, err := sim.Forward(p.free(), p.settings(), x0[:], u, nil); err != nil {
		t.Fatal(err)
	}
	for i, k := range pl.at {
		for c, v := range sim.State(k) {
			if got[i][c] != v {
				t.Fatalf("row %d (step %d), state %d: %v chunked, %v whole", i, k, c, got[i][c], v)
			}
		}
	}
}

// Runs beyond the documented sizes are refused up front, naming the row
// (simulate) or saying ErrTooLarge (identify), before anything is allocated.
func TestSizeLimits(t *testing.T) {
	p := Jackal()
	p.Dt = 1e-9
	r := &Run{T: []float64{0, 10}, WL: []float64{1, 1}, WR: []float64{1, 1}}
	var re *dataset.RowError
	if _, err := Simulate(p, r); !errors.As(err, &re) || re.Row != 1 || re.Column != "t" {
		t.Errorf("10 s at dt = 1e-9: %v", err)
	}
	q := Jackal()
	long := &Run{T: []float64{0, 6000}, WL: []float64{1, 1}, WR: []float64{1, 1},
		X: []float64{0, 0}, Y: []float64{0, 0}, Psi: []float64{0, 0}}
	if _, err := Identify(q, []*Run{long}, IdentifyOptions{}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("6,000 s at 1 ms: %v, want ErrTooLarge", err)
	}
}
