package pioneer

import "github.com/wheelgrad/wheelgrad/dyn"

// Non-smooth pieces of both forms (saturation, slope limit, the fractional
// delay's switch, the zero-velocity threshold) go through the helpers
// below. Each takes the temperature T of the surrogate (a setting): at
// T = 0 the value is exact (Clamp, Where, Abs; the gradient their
// subgradient); at T > 0 it is a smooth surrogate of width T that
// identification anneals towards 0. Only the exact branch is taken at
// T = 0 and only the smooth one at T > 0 (dyn.Where), and the smooth
// branch divides by max(T, 1e-9), so neither leaks a NaN into the other.

func on(T dyn.X) dyn.X { return dyn.Gt(T, T.MulC(0)) }

func safe(T dyn.X) dyn.X { return dyn.Max(T, T.MulC(0).AddC(1e-9)) }

// clampT is Clamp(x, lo, hi) (exact) or graph.SoftClamp at temperature T.
func clampT(x, lo, hi, T dyn.X) dyn.X {
	return dyn.Where(on(T), dyn.SoftClamp(x, lo, hi, safe(T)), dyn.Clamp(x, lo, hi))
}

// stepT is the Heaviside step [z ≥ 0] (exact) or the logistic
// ½ + ½·tanh(z/(2T)).
func stepT(z, T dyn.X) dyn.X {
	one, zero := z.MulC(0).AddC(1), z.MulC(0)
	smooth := dyn.Tanh(z.Div(safe(T).MulC(2))).MulC(0.5).AddC(0.5)
	return dyn.Where(on(T), smooth, dyn.Where(dyn.Ge(z, zero), one, zero))
}

// absT is |x| (exact) or graph.SmoothAbs of width T.
func absT(x, T dyn.X) dyn.X { return dyn.Where(on(T), dyn.SmoothAbs(x, safe(T)), dyn.Abs(x)) }

// signT is sign(x) (exact, with sign(0) = 1) or tanh(x/(2T)).
func signT(x, T dyn.X) dyn.X {
	return stepT(x, T).MulC(2).SubC(1)
}

// slopeLimit is the acceleration/deceleration limit of §2 on a reference:
// s moves towards x by at most acc·dt while |s| grows and dec·dt while it
// shrinks (s ≥ 0: up at acc, down at dec; s < 0 the other way round).
// T is the temperature of the clamp (a velocity); the switch on the sign of
// s has the same temperature.
func slopeLimit(s, x, acc, dec, dt, T dyn.X) dyn.X {
	pos := stepT(s, T)
	neg := pos.RSubC(1)
	up := pos.Mul(acc).Add(neg.Mul(dec)).Mul(dt)
	down := pos.Mul(dec).Add(neg.Mul(acc)).Mul(dt)
	return s.Add(clampT(x.Sub(s), down.Neg(), up, T))
}

//go:generate env DYN_UPDATE=1 go test -count=1 -run TestGenerated .

// PhysicalStep is the physical model of §2.1 and §3.1 (Fig. 7), one step of
// the micro-controller's internal loop h (5 ms by default: Ts/h steps per
// 100-ms sample). Per step, in SI units:
//
//   - delay: the reference arrives φ after the sample starts (the integer
//     part of the communication delay is a shift of the reference sequence,
//     found by search): r = r_prev before φ, r_cur from φ on (at T = 0 exact,
//     to within one step h; at Tt > 0 a logistic switch of width Tt seconds);
//   - saturation (vmax, wmax) and slope limits (acc_v, dec_v, acc_w, dec_w),
//     applied every step h, as the micro-controller does;
//   - kinematics (inverse of eqs. 6–8): wheel speed references
//     (v ± ω·b/2)/r;
//   - a PI wheel-speed controller per wheel, u = K_R·(e + ∫e/T_I);
//   - the DC motor: armature current T_A·di/dt = K_A·(u − k_E·θ̇) − i,
//     discretised exactly over h (zero-order hold), torque M = K_M·i; the
//     back-EMF constant k_E = I_0/(T_M·K_A·K_M) is the one that gives the
//     rotor alone its mechanical time constant T_M (Table 2: k_E ≈ K_M);
//   - the coupled wheel dynamics of eqs. 14–17, A·θ̈_R + B·θ̈_L = M_R − K·θ̇_R
//     and B·θ̈_R + A·θ̈_L = M_L − K·θ̇_L, A, B from m, r, b, d, I_A, I_0,
//     semi-implicit Euler;
//   - encoder averaging over the 100-ms sample: the wheel angles travelled
//     since the sample began (reset by the input first), whose mean rates are
//     the outputs v = r·(Δθ_R + Δθ_L)/(2·Ts), ω = r·(Δθ_R − Δθ_L)/(b·Ts),
//     the measured velocities at the end of the sample (input last = 1).
//
// The running cost compares them with the measured v, w on a sample's last
// step: last·wt·(sv·(v − vm)² + sw·(ω − wm)²).
var PhysicalStep = dyn.MustDefine(dyn.Spec{
	Name:     "pioneer_physical",
	State:    []string{"rv", "rw", "iR", "iL", "thR", "thL", "eR", "eL", "aR", "aL"},
	Input:    []string{"vp", "wp", "vc", "wc", "pos", "first", "last", "vm", "wm", "wt"},
	Params:   PhysicalParamNames,
	Settings: []string{"Ts", "h", "T", "Tt", "sv", "sw"},
	Outputs:  []string{"v", "w"},
}, func(s *dyn.Step) {
	p := s.Param
	Ts, h, T, Tt := s.Setting("Ts"), s.Setting("h"), s.Setting("T"), s.Setting("Tt")
	r, b := p("r"), p("b")
	// delay: which reference has arrived
	arrived := stepT(s.Input("pos").Sub(p("phi")), Tt)
	vp, wp := s.Input("vp"), s.Input("wp")
	vref := vp.Add(s.Input("vc").Sub(vp).Mul(arrived))
	wref := wp.Add(s.Input("wc").Sub(wp).Mul(arrived))
	// saturation and slope limits, every step h (temperature per step)
	Th := T.Mul(h).Div(Ts)
	rv := slopeLimit(s.State("rv"), clampT(vref, p("vmax").Neg(), p("vmax"), T), p("acc_v"), p("dec_v"), h, Th)
	rw := slopeLimit(s.State("rw"), clampT(wref, p("wmax").Neg(), p("wmax"), T), p("acc_w"), p("dec_w"), h, Th)
	// kinematics: wheel speed references (rad/s)
	half := rw.Mul(b).MulC(0.5)
	refR, refL := rv.Add(half).Div(r), rv.Sub(half).Div(r)
	// coupled wheel dynamics, eqs. 16–17
	m, d := p("m"), p("d")
	rb := r.Div(b)
	J := p("IA").Add(m.Mul(d).Mul(d)).Mul(rb).Mul(rb)
	mr := m.Mul(r).Mul(r).MulC(0.25)
	A := mr.Add(J).Add(p("I0"))
	B := mr.Sub(J)
	det := A.Mul(A).Sub(B.Mul(B))
	alpha := dyn.Exp(h.Div(p("TA")).Neg())
	kE := p("I0").Div(p("TM").Mul(p("KA")).Mul(p("KM")))
	type wheel struct{ i, th, e, a, ref dyn.X }
	wheels := [2]wheel{
		{s.State("iR"), s.State("thR"), s.State("eR"), s.State("aR"), refR},
		{s.State("iL"), s.State("thL"), s.State("eL"), s.State("aL"), refL},
	}
	var M, f, eN, iN [2]dyn.X
	for k, w := range wheels {
		e := w.ref.Sub(w.th)
		eN[k] = w.e.Add(h.Mul(e))
		u := p("KR").Mul(e.Add(eN[k].Div(p("TI"))))
		iN[k] = alpha.Mul(w.i).Add(alpha.RSubC(1).Mul(p("KA")).Mul(u.Sub(kE.Mul(w.th))))
		M[k] = p("KM").Mul(iN[k])
		f[k] = M[k].Sub(p("K").Mul(w.th))
	}
	thR := wheels[0].th.Add(h.Mul(A.Mul(f[0]).Sub(B.Mul(f[1]))).Div(det))
	thL := wheels[1].th.Add(h.Mul(A.Mul(f[1]).Sub(B.Mul(f[0]))).Div(det))
	keep := s.Input("first").RSubC(1)
	aR := keep.Mul(wheels[0].a).Add(h.Mul(thR))
	aL := keep.Mul(wheels[1].a).Add(h.Mul(thL))
	s.Next("rv", rv)
	s.Next("rw", rw)
	s.Next("iR", iN[0])
	s.Next("iL", iN[1])
	s.Next("eR", eN[0])
	s.Next("eL", eN[1])
	s.Next("thR", thR)
	s.Next("thL", thL)
	s.Next("aR", aR)
	s.Next("aL", aL)
	v := r.Mul(aR.Add(aL)).Div(Ts.MulC(2))
	w := r.Mul(aR.Sub(aL)).Div(b.Mul(Ts))
	s.Output("v", v)
	s.Output("w", w)
	dv, dw := v.Sub(s.Input("vm")), w.Sub(s.Input("wm"))
	res := s.Setting("sv").Mul(dv).Mul(dv).Add(s.Setting("sw").Mul(dw).Mul(dw))
	s.Cost(s.Input("last").Mul(s.Input("wt")).Mul(res))
})

// PhysicalParamNames are the parameters of Physical, in order.
var PhysicalParamNames = []string{"vmax", "wmax", "acc_v", "dec_v", "acc_w", "dec_w", "phi", "KR", "TI", "K",
	"m", "r", "b", "d", "I0", "IA", "KA", "KM", "TA", "TM"}

// channel is one channel (v or ω) of the experimental model (Fig. 8), one
// 100-ms sample: the reference x (already shifted by the integer delay)
// saturated and slope limited (s), the fractional delay as a first-order
// lag of time constant tau discretised exactly with a zero-order hold
// (y = a·y + (1 − a)·s, a = exp(−Ts/tau): §2.2's "ZOH discretized first
// order transfer function"), and the threshold at zero velocity of §3.2:
// when the reference changes the direction of motion (s opposite to dir,
// the direction of the last motion), the output is held at zero until |s|
// reaches thr = thr0 + thr1·|ds/dt|, a straight line in the ramp slope
// (Fig. 6); dir follows the sign of the output once |out| > delta.
func channel(sPrev, y, dir, x, sat, acc, dec, tau, thr0, thr1, Ts, T, delta dyn.X) (sN, yN, dirN, out dyn.X) {
	sN = slopeLimit(sPrev, clampT(x, sat.Neg(), sat, T), acc, dec, Ts, T)
	a := dyn.Exp(Ts.Div(tau).Neg())
	yN = a.Mul(y).Add(a.RSubC(1).Mul(sN))
	slope := sN.Sub(sPrev).Div(Ts)
	thr := thr0.Add(thr1.Mul(absT(slope, T.Div(Ts))))
	reversing := stepT(sN.Mul(dir).Neg(), T).Mul(dyn.Gt(dir.Mul(dir), dir.MulC(0)))
	released := stepT(absT(sN, T).Sub(thr), T)
	hold := reversing.Mul(released.RSubC(1))
	out = yN.Mul(hold.RSubC(1))
	moving := stepT(absT(out, T).Sub(delta), T)
	dirN = dir.Add(moving.Mul(signT(out, T).Sub(dir)))
	return sN, yN, dirN, out
}

// ExperimentalStep is the experimental model of §2.2 and §3.2 (Fig. 8): two
// channels in parallel, v and ω, each with its own parameters, one step per
// 100-ms sample. The running cost is wt·(sv·(v − vm)² + sw·(ω − wm)²).
var ExperimentalStep = dyn.MustDefine(dyn.Spec{
	Name:     "pioneer_experimental",
	State:    []string{"s_v", "yv", "dirv", "s_w", "yw", "dirw"},
	Input:    []string{"vr", "wr", "vm", "wm", "wt"},
	Params:   ExperimentalParamNames,
	Settings: []string{"Ts", "T", "delta", "sv", "sw"},
	Outputs:  []string{"v", "w"},
}, func(s *dyn.Step) {
	p := s.Param
	Ts, T, delta := s.Setting("Ts"), s.Setting("T"), s.Setting("delta")
	svN, yv, dv, v := channel(s.State("s_v"), s.State("yv"), s.State("dirv"), s.Input("vr"),
		p("vmax"), p("acc_v"), p("dec_v"), p("tau_v"), p("thr0_v"), p("thr1_v"), Ts, T, delta)
	swN, yw, dw, w := channel(s.State("s_w"), s.State("yw"), s.State("dirw"), s.Input("wr"),
		p("wmax"), p("acc_w"), p("dec_w"), p("tau_w"), p("thr0_w"), p("thr1_w"), Ts, T, delta)
	s.Next("s_v", svN)
	s.Next("yv", yv)
	s.Next("dirv", dv)
	s.Next("s_w", swN)
	s.Next("yw", yw)
	s.Next("dirw", dw)
	s.Output("v", v)
	s.Output("w", w)
	ev, ew := v.Sub(s.Input("vm")), w.Sub(s.Input("wm"))
	s.Cost(s.Input("wt").Mul(s.Setting("sv").Mul(ev).Mul(ev).Add(s.Setting("sw").Mul(ew).Mul(ew))))
})

// ExperimentalParamNames are the parameters of Experimental, in order.
var ExperimentalParamNames = []string{"vmax", "acc_v", "dec_v", "tau_v", "thr0_v", "thr1_v",
	"wmax", "acc_w", "dec_w", "tau_w", "thr0_w", "thr1_w"}
