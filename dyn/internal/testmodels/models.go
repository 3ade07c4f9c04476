// Package testmodels holds step definitions that exercise every op of the
// dyn step language, with generated kernels, for dyn's tests.
package testmodels

import "github.com/wheelgrad/wheelgrad/dyn"

//go:generate env DYN_UPDATE=1 go test -count=1 -run TestGenerated .

// Kitchen uses every op of the step language once or more, on a state that
// stays in the ops' domains (logs of positive values, sqrt of positive
// values, Where shielding a sqrt of a negative value and a division by zero).
var Kitchen = dyn.MustDefine(dyn.Spec{
	Name:     "kitchen",
	State:    []string{"a", "b", "c"},
	Input:    []string{"u", "w"},
	Params:   []string{"p1", "p2", "p3"},
	Settings: []string{"T", "h"},
	Outputs:  []string{"y1", "y2"},
}, func(s *dyn.Step) {
	a, b, c := s.State("a"), s.State("b"), s.State("c")
	u, w := s.Input("u"), s.Input("w")
	p1, p2, p3 := s.Param("p1"), s.Param("p2"), s.Param("p3")
	T, h := s.Setting("T"), s.Setting("h")
	pos := a.Square().AddC(1) // > 0
	f1 := dyn.Sin(a).Mul(dyn.Cos(b)).Add(dyn.Tan(c.MulC(0.3)))
	f2 := dyn.Atan(u).Sub(dyn.Atan2(b, pos)).Add(dyn.Exp(c.MulC(-0.5)))
	f3 := dyn.Log(pos).Add(dyn.Log1p(pos)).Add(dyn.Sqrt(pos)).Mul(dyn.Tanh(p1))
	f4 := dyn.Abs(a.Sub(u)).Mul(dyn.Sign(b)).Add(dyn.Min(a, w)).Sub(dyn.Max(b, p2))
	f5 := dyn.Clamp(a.Mul(p1), p2.Neg(), p2).Add(dyn.SoftClamp(b, p2.Neg(), p3, T))
	f6 := dyn.TanhClampSym(c.Sub(u), p3, T).Add(dyn.SmoothAbs(a.Sub(b), T)).Add(dyn.Softplus(c, T))
	// The branch not taken is NaN (sqrt of a negative) or Inf (1/0).
	neg := dyn.Lt(a, s.Const(0))
	f7 := dyn.Where(neg, dyn.Sqrt(a.Neg()), dyn.Sqrt(a)).Add(dyn.Where(dyn.Ge(dyn.Abs(b), s.Const(1e-3)), s.Const(1).Div(b), b.MulC(1000)))
	f8 := dyn.Where(dyn.Gt(c, s.Const(0)), c, c.Neg()).Add(dyn.Where(dyn.Le(w, s.Const(0)), w.MulC(2), w.DivC(3)))
	s.Next("a", a.Add(h.Mul(f1.Add(f4).MulC(0.1).Add(p1.Mul(u)))))
	s.Next("b", b.Add(h.Mul(f2.Add(f5).MulC(0.1).Sub(p2.Mul(b)))))
	s.Next("c", c.Add(h.Mul(f3.Add(f6).Add(f7).Add(f8).MulC(0.05).Sub(p3.Mul(c)))))
	s.Output("y1", a.Mul(b).Add(f7))
	s.Output("y2", dyn.Sin(c).Add(f8))
	s.Cost(a.Sub(w).Square().MulC(0.5))
})

// Lag is the own-model example: a first-order velocity lag with gain k and
// time constant tau, Coulomb friction of level c (the Kikuuwe clamp, or
// its tanh surrogate of band T when T > 0), and unicycle kinematics.
var Lag = dyn.MustDefine(dyn.Spec{
	Name:     "lag",
	State:    []string{"x", "y", "th", "v"},
	Input:    []string{"u", "w"},
	Params:   []string{"tau", "k", "c"},
	Settings: []string{"dt", "T"},
	Outputs:  []string{"x", "y"},
}, func(s *dyn.Step) {
	x, y, th, v := s.State("x"), s.State("y"), s.State("th"), s.State("v")
	u, w := s.Input("u"), s.Input("w")
	tau, k, c := s.Param("tau"), s.Param("k"), s.Param("c")
	dt, T := s.Setting("dt"), s.Setting("T")
	drive := k.Mul(u).Sub(v).Div(tau)
	stick := v.Neg().Div(dt).Sub(drive) // friction that would stop the wheel
	fr := dyn.Where(dyn.Gt(T, s.Const(0)), dyn.TanhClampSym(stick, c, T), dyn.Clamp(stick, c.Neg(), c))
	vn := v.Add(dt.Mul(drive.Add(fr)))
	s.Next("v", vn)
	s.Next("th", th.Add(dt.Mul(w)))
	s.Next("x", x.Add(dt.Mul(v).Mul(dyn.Cos(th))))
	s.Next("y", y.Add(dt.Mul(v).Mul(dyn.Sin(th))))
	s.Output("x", x)
	s.Output("y", y)
})

// Gain divides by a setting on a branch that Where shields: at T = 0 the
// invariant 1/T is infinite on the branch not taken, which makes the
// generated rollout kernel hand its reverse pass to the guarded step kernel.
var Gain = dyn.MustDefine(dyn.Spec{
	Name:     "gain",
	State:    []string{"v"},
	Input:    []string{"u"},
	Params:   []string{"k"},
	Settings: []string{"T"},
}, func(s *dyn.Step) {
	v, u, k, T := s.State("v"), s.Input("u"), s.Param("k"), s.Setting("T")
	drive := k.Mul(u).Sub(v)
	inv := s.Const(1).Div(T)
	s.Next("v", dyn.Where(dyn.Gt(T, s.Const(0)), v.Add(drive.Mul(inv).MulC(0.01)), v.Add(drive.MulC(0.01))))
})

// Untaken is one branch per op that is non-finite (in value or partial
// derivative) when its input sits at the op's singular point, under a
// Where that does not take it: its gradient must stay the taken branch's.
// Lane k is state k, input k, parameter k; the taken branch is x·p + u
// (where x > 0), the untaken one bad(x, u, p).
var Untaken = dyn.MustDefine(UntakenSpec(), func(s *dyn.Step) {
	for _, c := range UntakenCases {
		x, u, p := s.State(c.Name), s.Input("u_"+c.Name), s.Param("p_"+c.Name)
		s.Next(c.Name, dyn.Where(dyn.Gt(x, s.Const(0)), x.Mul(p).Add(u), c.Bad(s, x, u, p)))
	}
})

// UntakenCases are Untaken's branches: U is the input that makes Bad
// non-finite.
var UntakenCases = []struct {
	Name string
	U    float64
	Bad  func(s *dyn.Step, x, u, p dyn.X) dyn.X
}{
	{"div", 0, func(s *dyn.Step, x, u, p dyn.X) dyn.X { return p.Div(u) }},
	{"mul", 1000, func(s *dyn.Step, x, u, p dyn.X) dyn.X { return dyn.Exp(u).Mul(p) }},
	{"sin", 1000, func(s *dyn.Step, x, u, p dyn.X) dyn.X { return dyn.Sin(dyn.Exp(u)) }},
	{"cos", 1000, func(s *dyn.Step, x, u, p dyn.X) dyn.X { return dyn.Cos(dyn.Exp(u)).Mul(x) }},
	{"tan", 0, func(s *dyn.Step, x, u, p dyn.X) dyn.X { return dyn.Tan(u.Div(u)) }},
	{"atan", 0, func(s *dyn.Step, x, u, p dyn.X) dyn.X { return dyn.Atan(u.Div(u)) }},
	{"atan2", 0, func(s *dyn.Step, x, u, p dyn.X) dyn.X { return dyn.Atan2(u.Div(u), p) }},
	{"exp", 1000, func(s *dyn.Step, x, u, p dyn.X) dyn.X { return dyn.Exp(u.Mul(p)) }},
	{"log", 0, func(s *dyn.Step, x, u, p dyn.X) dyn.X { return dyn.Log(u) }},
	{"log1p", -1, func(s *dyn.Step, x, u, p dyn.X) dyn.X { return dyn.Log1p(u) }},
	{"sqrt", 0, func(s *dyn.Step, x, u, p dyn.X) dyn.X { return dyn.Sqrt(u) }},
	{"tanh", 0, func(s *dyn.Step, x, u, p dyn.X) dyn.X { return dyn.Tanh(x.Div(u)) }},
	{"abs", 0, func(s *dyn.Step, x, u, p dyn.X) dyn.X { return dyn.Abs(x.Div(u)) }},
	{"neg", 0, func(s *dyn.Step, x, u, p dyn.X) dyn.X { return p.Div(u).Neg() }},
	{"min", 0, func(s *dyn.Step, x, u, p dyn.X) dyn.X { return dyn.Min(p.Div(u), x) }},
	{"max", 0, func(s *dyn.Step, x, u, p dyn.X) dyn.X { return dyn.Max(x, u.Div(u)) }},
	{"clamp", 0, func(s *dyn.Step, x, u, p dyn.X) dyn.X { return dyn.Clamp(x.Div(u), p.Neg(), p) }},
	{"copysign", 0, func(s *dyn.Step, x, u, p dyn.X) dyn.X { return dyn.Copysign(p.Div(u), x) }},
	{"where", 0, func(s *dyn.Step, x, u, p dyn.X) dyn.X { return dyn.Where(dyn.Lt(x, p), x.Div(u), p.Div(u)) }},
	// The friction surrogates at temperature 0 (u is the temperature).
	{"tanhclampsym", 0, func(s *dyn.Step, x, u, p dyn.X) dyn.X { return dyn.TanhClampSym(x, p, u) }},
	{"softplus", 0, func(s *dyn.Step, x, u, p dyn.X) dyn.X { return dyn.Softplus(x.Sub(p), u) }},
	{"softclamp", 0, func(s *dyn.Step, x, u, p dyn.X) dyn.X { return dyn.SoftClamp(x, p.Neg(), p, u) }},
	{"smoothabs", 0, func(s *dyn.Step, x, u, p dyn.X) dyn.X { return dyn.SmoothAbs(x.Sub(p), u) }},
}

// UntakenSpec names Untaken's lanes after its cases.
func UntakenSpec() dyn.Spec {
	sp := dyn.Spec{Name: "untaken"}
	for _, c := range UntakenCases {
		sp.State = append(sp.State, c.Name)
		sp.Input = append(sp.Input, "u_"+c.Name)
		sp.Params = append(sp.Params, "p_"+c.Name)
	}
	return sp
}

// Table knots: a motor table over the command, a drag map over speed ×
// command and a grade profile over the position.
var (
	MotorKnots = []float64{-1, -0.4, 0, 0.5, 1}
	DragV      = []float64{-2, -0.5, 0, 0.5, 2}
	DragU      = []float64{-1, 0, 1}
	GradeKnots = []float64{0, 1, 2.5, 4}
)

// Tables drives a cart through the table ops: v' = v + dt·(motor(u) −
// drag(v, u) − grade(x)), with motor a cubic Hermite table of finite-
// difference slopes (Hermite1, slopes nil), drag a bilinear map (Interp2)
// and grade a cubic Hermite table with slopes of its own (all values and
// slopes are parameters).
var Tables = dyn.MustDefine(dyn.Spec{
	Name:     "tables",
	State:    []string{"x", "v"},
	Input:    []string{"u"},
	Params:   append(append(append(dyn.Vec("m", 5), dyn.Vec("d", 15)...), dyn.Vec("g", 4)...), dyn.Vec("gs", 4)...),
	Settings: []string{"dt"},
	Outputs:  []string{"x", "v"},
}, func(s *dyn.Step) {
	x, v, u, dt := s.State("x"), s.State("v"), s.Input("u"), s.Setting("dt")
	motor := dyn.Hermite1(u, MotorKnots, s.ParamVec("m", 5), nil)
	drag := dyn.Interp2(v, u, DragV, DragU, s.ParamVec("d", 15))
	grade := dyn.Hermite1(x, GradeKnots, s.ParamVec("g", 4), s.ParamVec("gs", 4))
	s.Next("x", x.Add(dt.Mul(v)))
	s.Next("v", v.Add(dt.Mul(motor.Sub(drag).Sub(grade))))
	s.Output("x", x)
	s.Output("v", v)
})
