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
