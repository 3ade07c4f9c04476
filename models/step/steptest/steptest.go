// Package steptest holds a user's model for the tests of models/step and
// of the robots adapter over it: the drag car (a velocity lag against
// drag, driving a unicycle) and logs of it.
package steptest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/dyn"
)

// DragCar is a user's model for these tests: a velocity lag (tau, gain k)
// against cubic drag d, driving a unicycle; smooth, so that central
// differences have no kink to straddle. Outputs: the pose after the step.
// With linear drag (cubic false) only k/tau and 1/tau + d are determined.
// PoseDragCar outputs its heading too, as control.Robot needs of a Driver.
var DragCar, LinearDragCar, PoseDragCar = dragDefine(true, false), dragDefine(false, false), dragDefine(true, true)

func dragDefine(cubic, heading bool) *dyn.Model {
	out := []string{"x", "y"}
	if heading {
		out = append(out, "th")
	}
	return dyn.MustDefine(dyn.Spec{
		Name: "drag_car", State: []string{"x", "y", "th", "v"}, Input: []string{"u", "w"},
		Params: []string{"tau", "k", "d"}, Settings: []string{"dt"}, Outputs: out,
	}, func(s *dyn.Step) { dragStep(s, cubic, heading) })
}

func dragStep(s *dyn.Step, cubic, heading bool) {
	x, y, th, v := s.State("x"), s.State("y"), s.State("th"), s.State("v")
	dt := s.Setting("dt")
	drag := v
	if cubic {
		drag = v.Mul(v).Mul(v)
	}
	acc := s.Param("k").Mul(s.Input("u")).Sub(v).Div(s.Param("tau")).Sub(s.Param("d").Mul(drag))
	s.Next("v", v.Add(dt.Mul(acc)))
	nth := th.Add(dt.Mul(s.Input("w")))
	s.Next("th", nth)
	if heading {
		s.Output("th", nth)
	}
	nx, ny := x.Add(dt.Mul(v).Mul(dyn.Cos(th))), y.Add(dt.Mul(v).Mul(dyn.Sin(th)))
	s.Next("x", nx)
	s.Next("y", ny)
	s.Output("x", nx)
	s.Output("y", ny)
}

// DragTruth are the true tau, k, d of the logs.
var DragTruth = []float64{0.3, 1.1, 0.2}

// DragLog writes runs of the true drag car: commands at 50 Hz stamped with
// ±3 ms jitter, a tracker at 25 Hz on its own clock with 5-mm noise.
func DragLog(t testing.TB, runs, steps int, seed uint64) string {
	t.Helper()
	const dt = 0.02
	rng := rand.New(rand.NewPCG(seed, 1))
	B, T := runs, steps
	x0, u := make([]float64, 4*B), make([]float64, T*2*B)
	for j := range B {
		x0[j], x0[B+j], x0[2*B+j] = rng.NormFloat64(), rng.NormFloat64(), 2*math.Pi*rng.Float64()
		for t := range T {
			if t%40 == 0 {
				u[(t*2)*B+j], u[(t*2+1)*B+j] = 2*rng.Float64()-0.5, 2*rng.Float64()-1
			} else {
				u[(t*2)*B+j], u[(t*2+1)*B+j] = u[((t-1)*2)*B+j], u[((t-1)*2+1)*B+j]
			}
		}
	}
	sim := DragCar.NewSim(B, T)
	if _, err := sim.Forward(DragTruth, []float64{dt}, x0, u, nil); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("t,u,w,x,y,traj\n")
	for j := range B {
		for k := range T {
			fmt.Fprintf(&b, "%.6f,%.17g,%.17g,,,%d\n", float64(k)*dt+0.003*(2*rng.Float64()-1), u[(k*2)*B+j], u[(k*2+1)*B+j], j)
			if k%2 == 0 && k+1 < T {
				f := 0.5 + 0.1*(2*rng.Float64()-1)
				at := func(s int) float64 { return sim.X[(k*4+s)*B+j] + f*(sim.X[((k+1)*4+s)*B+j]-sim.X[(k*4+s)*B+j]) }
				fmt.Fprintf(&b, "%.6f,,,%.17g,%.17g,%d\n", (float64(k)+f)*dt, at(0)+0.005*rng.NormFloat64(), at(1)+0.005*rng.NormFloat64(), j)
			}
		}
	}
	path := filepath.Join(t.TempDir(), "log.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
