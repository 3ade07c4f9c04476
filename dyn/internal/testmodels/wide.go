package testmodels

import (
	"fmt"

	"github.com/wheelgrad/wheelgrad/dyn"
)

// wide is a velocity model whose drag is a sum of P basis functions,
// Σ a_k·tanh(3(v − c_k)) with centres c_k spread over [−1, 1] (an RBF-like
// friction curve): P parameters, each in its own term, so that the step's
// value costs O(P) and its tangents O(P²). Its family measures where the
// forward mode stops paying against the reverse pass.
func wide(P int) *dyn.Model {
	params := make([]string, P)
	for k := range params {
		params[k] = fmt.Sprintf("a%d", k)
	}
	return dyn.MustDefine(dyn.Spec{
		Name:     fmt.Sprintf("wide%d", P),
		State:    []string{"x", "v"},
		Input:    []string{"u"},
		Params:   params,
		Settings: []string{"dt"},
		Outputs:  []string{"x"},
	}, func(s *dyn.Step) {
		x, v, u, dt := s.State("x"), s.State("v"), s.Input("u"), s.Setting("dt")
		drag := s.Const(0)
		for k, name := range params {
			c := -1 + 2*float64(k)/float64(max(P-1, 1))
			drag = drag.Add(s.Param(name).Mul(dyn.Tanh(v.SubC(c).MulC(3))))
		}
		s.Next("v", v.Add(dt.Mul(u.Sub(drag))))
		s.Next("x", x.Add(dt.Mul(v)))
		s.Output("x", x.Add(dt.Mul(v)))
	})
}

// Wide1 … Wide32 are wide with 1 to 32 parameters.
var (
	Wide1  = wide(1)
	Wide2  = wide(2)
	Wide4  = wide(4)
	Wide8  = wide(8)
	Wide16 = wide(16)
	Wide32 = wide(32)
)

// Edges exercises the ops whose operands pass tangents unequally:
// Copysign (only its magnitude does), Atan2, Min, Max and Clamp with
// parameters on both sides, Abs and Sign, at a state that crosses their
// switches.
var Edges = dyn.MustDefine(dyn.Spec{
	Name:    "edges",
	State:   []string{"a", "b"},
	Input:   []string{"u"},
	Params:  []string{"k", "m"},
	Outputs: []string{"y"},
}, func(s *dyn.Step) {
	a, b, u, k, m := s.State("a"), s.State("b"), s.Input("u"), s.Param("k"), s.Param("m")
	c := dyn.Copysign(k.Mul(a), b.Sub(m))
	d := dyn.Min(a.Mul(m), b).Add(dyn.Max(b.Mul(k), a))
	e := dyn.Clamp(a.Add(u), m.Neg(), k).Add(dyn.Atan2(b.Add(m), a.Sub(k)))
	f := dyn.Abs(b.Sub(u)).Mul(dyn.Sign(a.Sub(m)))
	s.Next("a", a.Add(c.Add(e).MulC(0.05)).Sub(u.MulC(0.01)))
	s.Next("b", b.Add(d.Sub(f).MulC(0.05)).Sub(b.MulC(0.02)))
	s.Output("y", c.Add(d).Add(e).Add(f))
})
