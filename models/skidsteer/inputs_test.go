package skidsteer

import (
	"math"
	"testing"
)

// CommandedFrom at row 0 is PredictCommanded; anchored at a later row it
// starts the lag there from that row's measured speeds, and the rows before
// are the commands' Euler steps undone (a step forward from them returns
// the anchor).
func TestCommandedFrom(t *testing.T) {
	p := lagParams()
	l := syntheticLagRuns(p, 1, 0, 4)[0]
	a, err := PredictCommanded(l, p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := CommandedFrom(l, p, 0, l.Pose[0])
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("row %d: %v vs %v", i, a[i], b[i])
		}
	}
	k0 := 10
	l.Wl[k0], l.Wr[k0] = 3, -2
	anchor := Pose{X: 1, Y: 2, Psi: 0.5}
	c, err := CommandedFrom(l, p, k0, anchor)
	if err != nil {
		t.Fatal(err)
	}
	if c[k0] != anchor {
		t.Errorf("anchor row %v", c[k0])
	}
	q := l.Slice(k0, len(l.T))
	if q.Wl[0] != 3 || len(q.WlCmd) != len(l.T)-k0 || q.Vc[0] != l.Vc[k0] {
		t.Errorf("Slice: %+v", q)
	}
	fwd, err := SimulateCommanded(p, anchor, [2]float64{3, -2}, q.T, q.WlCmd, q.WrCmd)
	if err != nil {
		t.Fatal(err)
	}
	if d := math.Hypot(fwd[len(fwd)-1].X-c[len(c)-1].X, fwd[len(fwd)-1].Y-c[len(c)-1].Y); d > 1e-12 {
		t.Errorf("end %v vs %v", c[len(c)-1], fwd[len(fwd)-1])
	}
	i := k0 - 1
	vc := p.R * (l.WlCmd[i] + l.WrCmd[i]) / 2
	wc := p.R * (l.WrCmd[i] - l.WlCmd[i]) / p.Track
	if s := Step(p.Coeffs(), c[i], vc, wc, l.T[i+1]-l.T[i]); math.Hypot(s.X-anchor.X, s.Y-anchor.Y) > 1e-12 || math.Abs(s.Psi-anchor.Psi) > 1e-12 {
		t.Errorf("a step from row %d reaches %v, not the anchor", i, s)
	}
	if _, err := CommandedFrom(&Log{T: l.T, Vc: l.Vc, Wc: l.Wc, Pose: l.Pose, HasPose: l.HasPose}, p, 0, Pose{}); err == nil {
		t.Error("no wl_cmd: no error")
	}
}

// WholeShortRuns keeps a run shorter than the horizon as one window; Hold
// keeps a coefficient at its start value.
func TestWindowOptionsShortRunsHold(t *testing.T) {
	p := lagParams()
	runs := syntheticLagRuns(p, 40, 0.005, 6) // 1.95-s runs
	o := WindowOptions{Inputs: Commanded, Horizon: 2, FitTau: true}
	if _, err := FitWindows(runs, Params{R: p.R, Track: p.Track}, o); err == nil {
		t.Error("2-s windows in 1.95-s runs: no error")
	}
	o.WholeShortRuns = true
	o.Hold = map[string]bool{"a13": true}
	start := Params{R: p.R, Track: p.Track}
	start.A[0][2] = 0.123
	f, err := FitWindows(runs, start, o)
	if err != nil {
		t.Fatal(err)
	}
	if f.Windows != 40 || f.Value[2] != 0.123 || f.Free[2] || f.Std[2] != 0 || !f.Free[9] || f.Params.Inputs != InputsCommanded || f.Result == nil {
		t.Errorf("%d windows, a13 = %g (free %v, σ %g), tau free %v, inputs %q", f.Windows, f.Value[2], f.Free[2], f.Std[2], f.Free[9], f.Params.Inputs)
	}
}
