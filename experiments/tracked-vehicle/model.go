package main

import "github.com/wheelgrad/wheelgrad/dyn"

//go:generate env DYN_UPDATE=1 go test -count=1 -run TestGenerated$ .

// Knots of the motor table: the command's magnitude |u| ∈ [0, 1] at which
// the table gives the drive (force per unit mass, m/s²). The value at 0 is
// 0; the five others are parameters.
var Knots = []float64{0, 0.2, 0.4, 0.6, 0.8, 1}

// symKnots are Knots mirrored: the table over u ∈ [−1, 1].
var symKnots = func() []float64 {
	var k []float64
	for i := len(Knots) - 1; i > 0; i-- {
		k = append(k, -Knots[i])
	}
	return append(k, Knots...)
}()

// Parameter order of Robot.
const (
	pFs     = iota // stiction level (m/s²): the breakaway drive
	pFc            // Coulomb level (m/s²)
	pB             // viscous coefficient (1/s)
	pVs            // Stribeck speed (m/s)
	pF0            // first of the five table values F0 … F4 at Knots[1:]
	nParams = pF0 + 5
)

// Robot is a tracked vehicle written by a user in the step language, as a
// user would write it: each track's speed (vl, vr) is driven by a motor
// whose drive is a table of the command (dyn.Interp1, the motor curve
// measured at six commands), against viscous friction b·v and a friction
// level that falls from stiction fs at rest to Coulomb fc in motion (the
// Stribeck curve, Armstrong-Hélouvry's fc + (fs − fc)·exp(−(v/vs)²)),
// applied as an exact clamp (Kikuuwe et al.: a track whose drive cannot
// overcome the friction level stops, and stays stopped, in one step). The
// body moves as a skid-steer with the two tracks' mean speeds over the
// step and the track width W; the outputs are the pose after the step and
// the mean speeds (el, er: what wheel encoders count over a period). The step length dt is an input, so that a log's own time stamps
// drive the model.
var Robot = define("tracked_vehicle")

// define defines the model under a name (a second instance gets its own
// built-in self-check: see checkKink).
func define(name string) *dyn.Model {
	return dyn.MustDefine(dyn.Spec{
		Name:     name,
		State:    []string{"x", "y", "th", "vl", "vr"},
		Input:    []string{"ul", "ur", "dt"},
		Params:   append([]string{"fs", "fc", "b", "vs"}, dyn.Vec("F", 5)...),
		Settings: []string{"W"},
		Outputs:  []string{"x", "y", "th", "el", "er"},
	}, func(s *dyn.Step) {
		x, y, th := s.State("x"), s.State("y"), s.State("th")
		dt, W := s.Input("dt"), s.Setting("W")
		fs, fc, b, vs := s.Param("fs"), s.Param("fc"), s.Param("b"), s.Param("vs")
		// The motor table over u ∈ [−1, 1], odd in u: −F4 … −F0, 0, F0 … F4.
		// (Copysign(Interp1(|u|), u) would be the same function in fewer
		// instructions, but at u = 0, a stopped command, the reverse pass would
		// take |·|'s subgradient 0 there and lose the drive's slope.)
		F := s.ParamVec("F", 5)
		table := make([]dyn.X, 0, len(symKnots))
		for i := len(F) - 1; i >= 0; i-- {
			table = append(table, F[i].Neg())
		}
		table = append(append(table, s.Const(0)), F...)

		track := func(v, u dyn.X) dyn.X {
			drive := dyn.Interp1(u, symKnots, table)   // motor table
			free := v.Add(dt.Mul(drive.Sub(b.Mul(v)))) // speed without the friction level
			r := v.Div(vs)
			level := fc.Add(fs.Sub(fc).Mul(dyn.Exp(r.Mul(r).Neg()))) // Stribeck: fs at rest, fc in motion
			slide := dt.Mul(level)
			// Exact clamp: the level stops the track within the step, or slows it.
			return dyn.Where(dyn.Gt(dyn.Abs(free), slide), free.Sub(dyn.Copysign(slide, free)), s.Const(0))
		}
		vl0, vr0 := s.State("vl"), s.State("vr")
		vl, vr := track(vl0, s.Input("ul")), track(vr0, s.Input("ur"))
		// The tracks' mean speeds over the step (trapezoidal): what encoders
		// count, and what moves the body.
		el, er := vl0.Add(vl).MulC(0.5), vr0.Add(vr).MulC(0.5)
		v, w := el.Add(er).MulC(0.5), er.Sub(el).Div(W)
		mid := th.Add(dt.Mul(w).MulC(0.5)) // heading at mid-step
		xn, yn, thn := x.Add(dt.Mul(v).Mul(dyn.Cos(mid))), y.Add(dt.Mul(v).Mul(dyn.Sin(mid))), th.Add(dt.Mul(w))
		s.Next("vl", vl)
		s.Next("vr", vr)
		for _, o := range []struct {
			name string
			v    dyn.X
		}{{"x", xn}, {"y", yn}, {"th", thn}} {
			s.Next(o.name, o.v)
			s.Output(o.name, o.v)
		}
		s.Output("el", el)
		s.Output("er", er)
	})
}
