package control

import (
	"math"
	"testing"

	"github.com/wheelgrad/wheelgrad/dyn"
	"gonum.org/v1/gonum/diff/fd"
)

// unicycle returns a kinematic unicycle whose pose outputs are the pose
// after each step (atStart false) or at its start (as models that report a
// log row's pose do).
func unicycle(atStart bool) *dyn.Model {
	name := "unicycle_next"
	if atStart {
		name = "unicycle_start"
	}
	return dyn.MustDefine(dyn.Spec{
		Name:    name,
		State:   []string{"x", "y", "th"},
		Input:   []string{"u", "w", "dt"},
		Params:  []string{"k"},
		Outputs: []string{"x", "y", "th"},
	}, func(s *dyn.Step) {
		x, y, th := s.State("x"), s.State("y"), s.State("th")
		u, w, dt := s.Input("u"), s.Input("w"), s.Input("dt")
		v := s.Param("k").Mul(u)
		xn, yn, thn := x.Add(dt.Mul(v).Mul(dyn.Cos(th))), y.Add(dt.Mul(v).Mul(dyn.Sin(th))), th.Add(dt.Mul(w))
		s.Next("x", xn)
		s.Next("y", yn)
		s.Next("th", thn)
		if atStart {
			s.Output("x", x)
			s.Output("y", y)
			s.Output("th", th)
		} else {
			s.Output("x", xn)
			s.Output("y", yn)
			s.Output("th", thn)
		}
	})
}

// A Robot reads the pose from outputs after the step or at its start alike:
// the same unicycle written both ways gives the same poses, loss and
// gradient, and the gradient equals central differences of the loss.
func TestRobotOutputsAtStepStart(t *testing.T) {
	robot := func(m *dyn.Model) Robot {
		return Robot{Model: m, Params: []float64{0.9}, State0: make([]float64, 3), X: "x", Y: "y", Heading: "th",
			Controls: []Control{{Input: "u", Lo: -1, Hi: 1, Scale: 0.03}, {Input: "w", Lo: -2, Hi: 2, Scale: 0.1}},
			DtInput:  "dt", Guess: func(fwd, _, yaw float64) []float64 { return []float64{fwd / 0.9, yaw} }}
	}
	var loss [2]float64
	var grads [2][]float64
	var poses [2][]Pose
	for i, atStart := range []bool{false, true} {
		r := robot(unicycle(atStart))
		if err := r.Validate(); err != nil {
			t.Fatal(err)
		}
		p, err := NewRobotPlan(r, Figure8{A: 1, T: 6}, Tangent, math.Pi/4, 2, 0.05)
		if err != nil {
			t.Fatal(err)
		}
		p.Start.X = 0.02
		s, err := NewRobotSynthesizer(p)
		if err != nil {
			t.Fatal(err)
		}
		c := s.InitialGuess()
		for k := range c {
			c[k][0] += 0.1 * math.Sin(float64(k))
			c[k][1] += 0.3 * math.Cos(float64(3*k))
		}
		x := s.Flatten(c)
		grads[i] = make([]float64, len(x))
		if loss[i], err = s.Loss(x, grads[i]); err != nil {
			t.Fatal(err)
		}
		x0, _ := r.StartState(p.Start)
		if poses[i], _, _, err = r.Execute(x0, c, p.N, p.Dt); err != nil {
			t.Fatal(err)
		}
		num := fd.Gradient(nil, func(x []float64) float64 {
			f, _ := s.Loss(x, nil)
			return f
		}, x, &fd.Settings{Formula: fd.Central, Step: 1e-6})
		for j, d := range num {
			if math.Abs(d-grads[i][j]) > 1e-5*(1+math.Abs(d)) {
				t.Errorf("outputs at start %v: ∂L/∂x[%d] = %.9g, central differences %.9g", atStart, j, grads[i][j], d)
			}
		}
	}
	if math.Abs(loss[0]-loss[1]) > 1e-12*loss[0] {
		t.Errorf("loss %.17g with outputs after the step, %.17g at its start", loss[0], loss[1])
	}
	for j := range grads[0] {
		if math.Abs(grads[0][j]-grads[1][j]) > 1e-10*(1+math.Abs(grads[0][j])) {
			t.Errorf("gradient entry %d: %.17g after, %.17g at the start", j, grads[0][j], grads[1][j])
		}
	}
	if len(poses[0]) != len(poses[1]) || poses[0][len(poses[0])-1] != poses[1][len(poses[1])-1] {
		t.Errorf("final poses %v and %v", poses[0][len(poses[0])-1], poses[1][len(poses[1])-1])
	}
}
