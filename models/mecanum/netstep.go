package mecanum

import (
	"sync"

	"github.com/wheelgrad/wheelgrad/dyn"
)

//go:generate env DYN_UPDATE=1 go test -count=1 -run TestGeneratedNet .

// NetModel is the Mecanum step with the friction network of §VI (end) in
// place of constant μ, written once in the step language of package dyn:
// at every row the 4-16-4 network maps the commanded wheel speeds to the
// friction coefficients (FrictionNet.Predict),
//
//	h = tanh(W1·(ω_s/scale) + b1),   μ = mu_max·σ(W2·h + b2),
//
// and eqs. 3–5 advance the pose as Model does. The network's 9·16 + 4 =
// 148 weights are one vector parameter w (dyn.Vec("w", 148), in
// FrictionNet's flatten order: W1 row by row, b1, W2 row by row, b2), so
// that the generated reverse pass gives their gradient and the forward
// mode their Jacobian. netstep_gen.go is its generated kernel; NetFit's
// loss (the network trained jointly over runs) runs on it, and NetFit's
// hand-written adjoint survives only as the test reference.
//
// Lanes:
//
//	state     x, y, theta          pose (m, m, rad)
//	input     w1..w4, dt           commanded wheel speeds ω_s (rad/s), held for dt (s)
//	params    w0..w147             the network's weights
//	settings  M, g, r, Ts, lab     the known constants of Params (SettingsOf)
//	          scale, mu_max        the network's input scale and output bound
//	outputs   x, y, theta          the pose at the start of the step (as Model)
//	          xd, yd, thd          the world-frame velocity during the step
//	                               (eq. 5's increments over dt): a camera sample
//	                               δ late sees pose + δ·velocity (NetFit.Delays)
var NetModel = netModel(NetHidden)

var netModels sync.Map // hidden units → *dyn.Model

// NetModelOf returns the network-friction step with h hidden units:
// NetModel (generated kernel) for h = NetHidden, otherwise a definition
// made on first use (run by dyn's interpreter).
func NetModelOf(h int) *dyn.Model {
	if h == NetHidden && NetModel != nil {
		return NetModel
	}
	if m, ok := netModels.Load(h); ok {
		return m.(*dyn.Model)
	}
	m, _ := netModels.LoadOrStore(h, netModel(h))
	return m.(*dyn.Model)
}

// netWeights is the number of weights of a 4-h-4 network.
func netWeights(h int) int { return 9*h + 4 }

func netModel(h int) *dyn.Model {
	name := "mecanum_net"
	if h != NetHidden {
		name = "mecanum_net_h" + itoa(h)
	}
	return dyn.MustDefine(dyn.Spec{
		Name:     name,
		State:    []string{"x", "y", "theta"},
		Input:    []string{"w1", "w2", "w3", "w4", "dt"},
		Params:   dyn.Vec("w", netWeights(h)),
		Settings: []string{"M", "g", "r", "Ts", "lab", "scale", "mu_max"},
		Outputs:  []string{"x", "y", "theta", "xd", "yd", "thd"},
	}, func(s *dyn.Step) {
		x, y, th := s.State("x"), s.State("y"), s.State("theta")
		M, g, r, Ts, lab := s.Setting("M"), s.Setting("g"), s.Setting("r"), s.Setting("Ts"), s.Setting("lab")
		wt := s.ParamVec("w", netWeights(h))
		W1, b1, W2, b2 := wt[:4*h], wt[4*h:5*h], wt[5*h:9*h], wt[9*h:]
		var om [4]dyn.X
		for j := range 4 {
			om[j] = s.Input("w" + itoa(j+1))
		}
		// the network (FrictionNet.Predict): inputs scaled to order one
		inv := s.Const(1).Div(s.Setting("scale"))
		var in [4]dyn.X
		for j := range 4 {
			in[j] = om[j].Mul(inv)
		}
		hid := make([]dyn.X, h)
		for i := range h {
			a := b1[i]
			for j := range 4 {
				a = a.Add(W1[i*4+j].Mul(in[j]))
			}
			hid[i] = dyn.Tanh(a)
		}
		muMax := s.Setting("mu_max")
		var mu [4]dyn.X
		for o := range 4 {
			a := b2[o]
			for i := range h {
				a = a.Add(W2[o*h+i].Mul(hid[i]))
			}
			// mu_max·σ(a), σ(a) = (1 + tanh(a/2))/2: finite for every a
			mu[o] = muMax.Mul(dyn.Tanh(a.MulC(0.5)).AddC(1).MulC(0.5))
		}
		// eqs. 3–4 as Model
		K := M.Mul(g).Mul(r).Div(Ts.MulC(4))
		c := r.Div(lab.MulC(4))
		cl := c.Mul(lab)
		b := [3][4]dyn.X{{cl.Neg(), cl, cl.Neg(), cl}, {cl, cl, cl, cl}, {c, c.Neg(), c.Neg(), c}}
		var v [3]dyn.X
		for j := range 4 {
			w := om[j].Mul(mu[j].Mul(K).RSubC(1))
			for row := range 3 {
				if j == 0 {
					v[row] = b[row][0].Mul(w)
				} else {
					v[row] = v[row].Add(b[row][j].Mul(w))
				}
			}
		}
		// eq. 5
		dt := s.Input("dt")
		sn, cs := dyn.Sin(th), dyn.Cos(th)
		xd := cs.Mul(v[0]).Sub(sn.Mul(v[1]))
		yd := sn.Mul(v[0]).Add(cs.Mul(v[1]))
		s.Next("x", x.Add(dt.Mul(xd)))
		s.Next("y", y.Add(dt.Mul(yd)))
		s.Next("theta", th.Add(dt.Mul(v[2])))
		s.Output("x", x)
		s.Output("y", y)
		s.Output("theta", th)
		s.Output("xd", xd)
		s.Output("yd", yd)
		s.Output("thd", v[2])
	})
}

// NetSettingsOf returns NetModel's settings for p and a network's input
// scale and output bound.
func NetSettingsOf(p Params, scale, muMax float64) []float64 {
	return []float64{p.M, p.G, p.R, p.Ts, p.Lab, scale, muMax}
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}
