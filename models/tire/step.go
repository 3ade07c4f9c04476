package tire

import "github.com/wheelgrad/wheelgrad/dyn"

// settingNames are the known constants of the step models, in order.
var settingNames = []string{"m", "Izz", "R", "W", "l1", "l2", "g", "veps", "vroll", "dt"}

// dugoff is eqs. 12–15 as FORMATS.md completes them: with kx = Kx·κ,
// ky = Ky·tan α, s = √(kx² + ky²) and λ = μ·Fz·(1 − κ)/(2s),
//
//	λ ≥ 1 or s = 0:  Fx = kx/(1 − κ),            Fy = −ky/(1 − κ)
//	λ < 1:           Fx = kx·μ·Fz·(2 − λ)/(2s),  Fy = −ky·μ·Fz·(2 − λ)/(2s)
//
// (the saturated branch with (1 − κ) cancelled: finite at κ = 1). Both
// branches are computed and Where selects, so the branch not taken may be
// Inf (1/0 at κ = 1, or at s = 0) without reaching the value or the
// gradient. The two branches agree at λ = 1, value and slope in κ.
func dugoff(st *dyn.Step, mu, Kx, Ky, Fz, kappa, tanA dyn.X) (Fx, Fy dyn.X) {
	kx, ky := Kx.Mul(kappa), Ky.Mul(tanA)
	s := dyn.Sqrt(kx.Square().Add(ky.Square()))
	omk := kappa.RSubC(1)
	muFz := mu.Mul(Fz)
	lam := muFz.Mul(omk).Div(s.MulC(2))
	one := st.Const(1)
	linear := dyn.Where(dyn.Le(s, st.Const(0)), one, dyn.Ge(lam, one))
	sat := muFz.Mul(lam.RSubC(2)).Div(s.MulC(2))
	Fx = dyn.Where(linear, kx.Div(omk), kx.Mul(sat))
	Fy = dyn.Where(linear, ky.Neg().Div(omk), ky.Neg().Mul(sat))
	return Fx, Fy
}

// magic is Pacejka's eq. 9, P(q) = D·sin(C·atan(B·q − E·(B·q − atan(B·q)))).
func magic(B, C, D, E, q dyn.X) dyn.X {
	bq := B.Mul(q)
	return D.Mul(dyn.Sin(C.Mul(dyn.Atan(bq.Sub(E.Mul(bq.Sub(dyn.Atan(bq))))))))
}

// pacejka is eqs. 10–11 (pure slip): Fx = Fz·Px(κ), Fy = −Fz·Py(tan α).
func pacejka(s *dyn.Step, Fz, kappa, tanA dyn.X) (Fx, Fy dyn.X) {
	p := func(n string) dyn.X { return s.Param(n) }
	Fx = Fz.Mul(magic(p("pxB"), p("pxC"), p("pxD"), p("pxE"), kappa))
	Fy = Fz.Mul(magic(p("pyB"), p("pyC"), p("pyD"), p("pyE"), tanA)).Neg()
	return Fx, Fy
}

func paramNames(tyre string) []string {
	if tyre == "pacejka" {
		return []string{"pxB", "pxC", "pxD", "pxE", "pyB", "pyC", "pyD", "pyE", "crr"}
	}
	return []string{"mu", "Kx", "Ky", "crr"}
}

// forces is the tyre law of the model.
func forces(s *dyn.Step, tyre string, Fz, kappa, tanA dyn.X) (Fx, Fy dyn.X) {
	if tyre == "pacejka" {
		return pacejka(s, Fz, kappa, tanA)
	}
	return dugoff(s, s.Param("mu"), s.Param("Kx"), s.Param("Ky"), Fz, kappa, tanA)
}

// defineBody is the four-wheel rigid body of eqs. 16–21 (FORMATS.md): per
// wheel i at (a_i, b_i), hub velocity ux = u − b·r, uy = v + a·r; slip
// κ = (R·ω − ux)/max(|R·ω|, |ux|, veps) (eq. 7 with its singular
// denominator bounded) and tan α = uy/max(|ux|, veps) (eq. 8: the force laws
// read tan α, so the atan is not taken); rolling resistance
// crr·Fz·tanh(ux/vroll); then
//
//	m(u̇ − v·r) = Σ(Fx − Rx),  m(v̇ + u·r) = ΣFy,  Izz·ṙ = Σ(a·Fy − b·(Fx − Rx)),
//
// semi-implicit Euler: the velocities first, then the pose with the new
// velocities and the heading at the start of the step.
func defineBody(tyre string) *dyn.Model {
	return dyn.MustDefine(dyn.Spec{
		Name:     "tire_" + tyre,
		State:    []string{"x", "y", "psi", "u", "v", "r"},
		Input:    []string{"wl", "wr"},
		Params:   paramNames(tyre),
		Settings: settingNames,
	}, func(s *dyn.Step) {
		q := func(n string) dyn.X { return s.Setting(n) }
		u, v, r, psi := s.State("u"), s.State("v"), s.State("r"), s.State("psi")
		R, W, veps, dt := q("R"), q("W"), q("veps"), q("dt")
		Fz := q("m").Mul(q("g")).DivC(4)
		halfW := W.MulC(0.5)
		wheels := []struct{ a, b, w dyn.X }{
			{q("l1"), halfW, s.Input("wl")},             // 1 front left
			{q("l1"), halfW.Neg(), s.Input("wr")},       // 2 front right
			{q("l2").Neg(), halfW, s.Input("wl")},       // 3 rear left
			{q("l2").Neg(), halfW.Neg(), s.Input("wr")}, // 4 rear right
		}
		var sumFx, sumFy, Mz dyn.X
		for i, wh := range wheels {
			ux := u.Sub(wh.b.Mul(r))
			uy := v.Add(wh.a.Mul(r))
			Rw := R.Mul(wh.w)
			aux := dyn.Abs(ux)
			d := dyn.Max(dyn.Max(dyn.Abs(Rw), aux), veps)
			kappa := Rw.Sub(ux).Div(d)
			tanA := uy.Div(dyn.Max(aux, veps))
			Fx, Fy := forces(s, tyre, Fz, kappa, tanA)
			Rx := s.Param("crr").Mul(Fz).Mul(dyn.Tanh(ux.Div(q("vroll"))))
			long := Fx.Sub(Rx)
			mz := wh.a.Mul(Fy).Sub(wh.b.Mul(long))
			if i == 0 {
				sumFx, sumFy, Mz = long, Fy, mz
			} else {
				sumFx, sumFy, Mz = sumFx.Add(long), sumFy.Add(Fy), Mz.Add(mz)
			}
		}
		m := q("m")
		un := u.Add(dt.Mul(sumFx.Div(m).Add(v.Mul(r))))
		vn := v.Add(dt.Mul(sumFy.Div(m).Sub(u.Mul(r))))
		rn := r.Add(dt.Mul(Mz.Div(q("Izz"))))
		c, sn := dyn.Cos(psi), dyn.Sin(psi)
		s.Next("u", un)
		s.Next("v", vn)
		s.Next("r", rn)
		s.Next("x", s.State("x").Add(dt.Mul(un.Mul(c).Sub(vn.Mul(sn)))))
		s.Next("y", s.State("y").Add(dt.Mul(un.Mul(sn).Add(vn.Mul(c)))))
		s.Next("psi", psi.Add(dt.Mul(rn)))
	})
}

//go:generate env DYN_UPDATE=1 go test -count=1 -run TestGenerated .

// Body models, one per tyre law: states x, y, psi, u, v, r; inputs the
// measured wheel speeds wl, wr (rad/s); settings m, Izz, R, W, l1, l2, g,
// veps, vroll, dt.
var (
	DugoffBody  = defineBody("dugoff")
	PacejkaBody = defineBody("pacejka")
)

// defineCurve is the tyre law alone, for force curves (Figs. 7–8) and the
// tests that pin hand-computed forces: states kappa and tanA carried
// unchanged, setting Fz, outputs Fx and Fy.
func defineCurve(tyre string) *dyn.Model {
	return dyn.MustDefine(dyn.Spec{
		Name:     "tyre_" + tyre,
		State:    []string{"kappa", "tanA"},
		Params:   paramNames(tyre),
		Settings: []string{"Fz"},
		Outputs:  []string{"Fx", "Fy"},
		// The body's parameter vector: rolling resistance crr acts on the
		// body, not in the tyre law.
		AllowUnused: true,
	}, func(s *dyn.Step) {
		k, t := s.State("kappa"), s.State("tanA")
		Fx, Fy := forces(s, tyre, s.Setting("Fz"), k, t)
		s.Next("kappa", k)
		s.Next("tanA", t)
		s.Output("Fx", Fx)
		s.Output("Fy", Fy)
	})
}

// Tyre-law models (see defineCurve).
var (
	DugoffCurve  = defineCurve("dugoff")
	PacejkaCurve = defineCurve("pacejka")
)

// Body returns the body model of p's tyre law.
func (p Params) Body() *dyn.Model {
	if p.Tyre == "pacejka" {
		return PacejkaBody
	}
	return DugoffBody
}

// Forces evaluates p's tyre law at n slip states: κ and tan α per state;
// Fx and Fy (N) per wheel load Fz = m·g/4.
func (p Params) Forces(kappa, tanA []float64) (Fx, Fy []float64, err error) {
	m := DugoffCurve
	if p.Tyre == "pacejka" {
		m = PacejkaCurve
	}
	n := len(kappa)
	sim := m.NewSim(n, 1)
	x0 := append(append([]float64(nil), kappa...), tanA...)
	y := make([]float64, 2*n)
	if _, err := sim.Forward(p.free(), []float64{p.Fz()}, x0, nil, y); err != nil {
		return nil, nil, err
	}
	return y[:n], y[n:], nil
}
