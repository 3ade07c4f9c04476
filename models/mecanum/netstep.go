package mecanum

import (
	"sync"

	"github.com/wheelgrad/wheelgrad/dyn"
)

//go:generate env DYN_UPDATE=1 go test -count=1 -run TestGenerated(Net|Mu) .

// The network-friction Mecanum step is written in the step language of
// package dyn as two definitions, chained by NetFit's loss:
//
//   - NetModel, the friction network of §VI (end) at one command: the
//     4-16-4 network mapping the commanded wheel speeds to the friction
//     coefficients (FrictionNet.Predict),
//
//     h = tanh(W1·(ω_s/scale) + b1),   μ = mu_max·σ(W2·h + b2),
//
//     its 9·16 + 4 = 148 weights one vector parameter w (dyn.Vec("w",
//     148), in FrictionNet's flatten order: W1 row by row, b1, W2 row by
//     row, b2); a lane per distinct command of the runs, one step.
//
//   - MuModel, eqs. 3–5 as Model with μ an input of the row instead of a
//     parameter, so that each row takes its command's μ.
//
// The network runs once per distinct command, not once per row: a run
// holds a command for hundreds of rows, and evaluating the 148-weight
// network inside the row's step made training 46× slower (measured on the
// real-like set of experiments/real-logs: 8 min 21 s against 10.8 s for the
// hand-written adjoint; split, see NetFit). The gradient chains the two
// generated reverse passes: MuModel's adjoints of each row's μ, summed over
// the rows of a command, are NetModel's output adjoints.
//
// NetModel lanes:
//
//	state     n                    counts the evaluations (a definition needs a state)
//	input     w1..w4               the commanded wheel speeds ω_s (rad/s)
//	params    w0..w147             the network's weights
//	settings  scale, mu_max        the network's input scale and output bound
//	outputs   mu1..mu4             μ_j (eq. 3's friction coefficients)
var NetModel = netModel(NetHidden)

var netModels sync.Map // hidden units → *dyn.Model

// NetModelOf returns the friction network with h hidden units: NetModel
// (generated kernel) for h = NetHidden, otherwise a definition made on
// first use (run by dyn's interpreter).
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
	name := "mecanum_friction_net"
	if h != NetHidden {
		name += "_h" + itoa(h)
	}
	return dyn.MustDefine(dyn.Spec{
		Name:     name,
		State:    []string{"n"},
		Input:    []string{"w1", "w2", "w3", "w4"},
		Params:   dyn.Vec("w", netWeights(h)),
		Settings: []string{"scale", "mu_max"},
		Outputs:  []string{"mu1", "mu2", "mu3", "mu4"},
	}, func(s *dyn.Step) {
		s.Next("n", s.State("n").AddC(1))
		wt := s.ParamVec("w", netWeights(h))
		W1, b1, W2, b2 := wt[:4*h], wt[4*h:5*h], wt[5*h:9*h], wt[9*h:]
		// inputs scaled to order one
		inv := s.Const(1).Div(s.Setting("scale"))
		var in [4]dyn.X
		for j := range 4 {
			in[j] = s.Input("w" + itoa(j+1)).Mul(inv)
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
		for o := range 4 {
			a := b2[o]
			for i := range h {
				a = a.Add(W2[o*h+i].Mul(hid[i]))
			}
			// mu_max·σ(a), σ(a) = (1 + tanh(a/2))/2: finite for every a
			s.Output("mu"+itoa(o+1), muMax.Mul(dyn.Tanh(a.MulC(0.5)).AddC(1).MulC(0.5)))
		}
	})
}

// MuModel is Model (eqs. 3–5) with the friction coefficients inputs of the
// row rather than parameters: the rollout of a friction that varies with
// the command (NetModel's μ at each row's command). Its outputs add the
// world-frame velocity during the step, eq. 5's increments over dt, so
// that a camera sample δ late is compared with pose + δ·velocity
// (NetFit.Delays).
//
// Lanes:
//
//	state     x, y, theta          pose (m, m, rad)
//	input     w1..w4               commanded wheel speeds ω_s (rad/s)
//	          mu1..mu4             the row's friction coefficients
//	          dt                   the time the row is held (s; 0 pads a run)
//	settings  M, g, r, Ts, lab     the known constants of Params (SettingsOf)
//	outputs   x, y, theta          the pose at the start of the step (as Model)
//	          xd, yd, thd          the world-frame velocity during the step
var MuModel = dyn.MustDefine(dyn.Spec{
	Name:     "mecanum_mu_inputs",
	State:    []string{"x", "y", "theta"},
	Input:    []string{"w1", "w2", "w3", "w4", "mu1", "mu2", "mu3", "mu4", "dt"},
	Settings: []string{"M", "g", "r", "Ts", "lab"},
	Outputs:  []string{"x", "y", "theta", "xd", "yd", "thd"},
}, func(s *dyn.Step) {
	// eqs. 3–5 as Model (step), μ_j from the inputs
	xd, yd, thd := step(s, [4]dyn.X{s.Input("mu1"), s.Input("mu2"), s.Input("mu3"), s.Input("mu4")})
	s.Output("xd", xd)
	s.Output("yd", yd)
	s.Output("thd", thd)
})

// netSettings returns NetModel's settings: the input scale and output bound.
func netSettings(scale, muMax float64) []float64 { return []float64{scale, muMax} }

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}
