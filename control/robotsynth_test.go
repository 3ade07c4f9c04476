package control

import (
	"math"
	"testing"
)

// OnSteps fits paths to a model's fixed step.
func TestOnSteps(t *testing.T) {
	p, rate, err := OnSteps(Figure8{A: 1, T: 40}, 4, 0.06)
	if err != nil {
		t.Fatal(err)
	}
	// 4 steps of 0.06 s per segment; 40 s rounded up to 167 segments.
	if f := p.(Figure8); math.Abs(f.T-167*0.24) > 1e-12 || math.Abs(rate-1/0.24) > 1e-12 {
		t.Errorf("figure 8 over %g s at %g segments/s, want 40.08 and 4.1667", f.T, rate)
	}
	if _, _, err := segments(p.Duration(), rate, 0.06); err != nil {
		t.Errorf("the fitted plan is not whole: %v", err)
	}
	// A plan that fits already is unchanged.
	p, rate, _ = OnSteps(Circle{R: 0.5, T: 40}, 4, 1.0/240)
	if p.(Circle).T != 40 || rate != 4 {
		t.Errorf("circle %v at %g", p, rate)
	}
	// Other paths hold their end point.
	w := shifted{Path: Circle{R: 0.5, T: 1}, dur: 1}
	q, _, _ := OnSteps(w, 4, 0.06)
	if math.Abs(q.Duration()-5*0.24) > 1e-12 {
		t.Errorf("padded duration %g, want 1.2", q.Duration())
	}
	x, y, vx, vy := q.At(1.1)
	if math.Abs(x) > 1e-12 || math.Abs(y) > 1e-12 || vx != 0 || vy != 0 {
		t.Errorf("past the end: (%g, %g, %g, %g), want the end point at rest", x, y, vx, vy)
	}
	if _, _, err := OnSteps(w, 0, 0.06); err == nil {
		t.Error("rate 0 accepted")
	}
}
