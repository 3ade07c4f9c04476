package skidsteer

import (
	"fmt"

	"github.com/wheelgrad/wheelgrad/dyn"
)

// lag_gen.go is its generated kernel, rewritten by step.go's go:generate
// (TestGeneratedLag).

// DeadTimeSteps is the length of LagModel's dead-time register: the
// largest dead time it represents is DeadTimeSteps log periods (1 s at
// 20 Hz).
const DeadTimeSteps = 20

// LagNames are LagModel's parameters after the nine slip coefficients.
var LagNames = [2]string{"tau", "delay"}

// LagModel is Model driven by commanded wheel speeds through input
// dynamics (issue 25): each side's wheel speed ω follows its command u
// after a dead time d through a first-order lag τ·ω̇ = u(t − d) − ω
// (dyn.LagDeadTime: exact over a step with the command held, smooth in d),
// and the step's mean wheel speeds give the commands of eqs. 2–3,
//
//	vc = r·(ω̄l + ω̄r)/2,   wc = r·(ω̄r − ω̄l)/track,
//
// then the slip terms and the Euler pose step of Model.
//
// Lanes:
//
//	state    x, y, psi        pose (m, m, rad)
//	         wl, wr           lagged wheel speeds (rad/s): the first measured
//	                          speeds of the log, else 0 (rest)
//	         ql1…, qr1…       the dead-time registers (DeadTimeSteps each):
//	                          the commands before the first step
//	input    wl_cmd, wr_cmd   commanded wheel speeds (rad/s), held for dt
//	         dt               (s); dt = 0 pads a window
//	params   a11 … a33        the slip coefficients
//	         tau, delay       time constant and dead time (s)
//	settings r, track         wheel radius and track width (m)
//	outputs  x, y, psi        the pose at the start of the step
var LagModel = dyn.MustDefine(dyn.Spec{
	Name: "skidsteer_lag",
	State: append(append([]string{"x", "y", "psi", "wl", "wr"},
		dyn.DeadTimeStates("ql", DeadTimeSteps)...), dyn.DeadTimeStates("qr", DeadTimeSteps)...),
	Input:    []string{"wl_cmd", "wr_cmd", "dt"},
	Params:   append(append([]string(nil), CoeffNames[:]...), LagNames[:]...),
	Settings: []string{"r", "track"},
	Outputs:  []string{"x", "y", "psi"},
}, func(s *dyn.Step) {
	x, y, psi := s.State("x"), s.State("y"), s.State("psi")
	dt, tau, d := s.Input("dt"), s.Param("tau"), s.Param("delay")
	nl, ml := dyn.LagDeadTime(s, "ql", DeadTimeSteps, s.State("wl"), s.Input("wl_cmd"), d, dt, tau)
	nr, mr := dyn.LagDeadTime(s, "qr", DeadTimeSteps, s.State("wr"), s.Input("wr_cmd"), d, dt, tau)
	s.Next("wl", nl)
	s.Next("wr", nr)
	r, track := s.Setting("r"), s.Setting("track")
	vc := r.Mul(ml.Add(mr)).MulC(0.5)
	wc := r.Mul(mr.Sub(ml)).Div(track)
	a := make([]dyn.X, NumCoeffs)
	for i, n := range CoeffNames {
		a[i] = s.Param(n)
	}
	vw := vc.Mul(wc)
	fwd := vc.Add(a[0].Mul(vc)).Add(a[1].Mul(wc)).Add(a[2].Mul(vw))
	lat := a[3].Mul(vc).Add(a[4].Mul(wc)).Add(a[5].Mul(vw))
	yaw := wc.Add(a[6].Mul(vc)).Add(a[7].Mul(wc)).Add(a[8].Mul(vw))
	c, sn := dyn.Cos(psi), dyn.Sin(psi)
	s.Next("x", x.Add(dt.Mul(c.Mul(fwd).Sub(sn.Mul(lat)))))
	s.Next("y", y.Add(dt.Mul(sn.Mul(fwd).Add(c.Mul(lat)))))
	s.Next("psi", psi.Add(dt.Mul(yaw)))
	s.Output("x", x)
	s.Output("y", y)
	s.Output("psi", psi)
})

// lagStates is the number of LagModel's states.
const lagStates = 5 + 2*DeadTimeSteps

// SimulateCommanded is the exact native reference of LagModel: from pose0
// and the wheel speeds w0 (left, right; the first measured speeds, or 0 for
// rest, which are also taken as the commands before the first row), it
// delays the commanded wheel speeds wlCmd, wrCmd by p.Delay (at most
// DeadTimeSteps rows), passes them through the first-order lag p.Tau, both
// exact over each row with its command held (dyn.LagDeadTimeValue, the
// float64 form of LagModel's dyn.LagDeadTime), and integrates the step's
// mean wheel speeds with Step. It returns the pose at
// every row time, as Simulate. p.Tau = 0 is no lag; p needs r and track.
func SimulateCommanded(p Params, pose0 Pose, w0 [2]float64, t, wlCmd, wrCmd []float64) ([]Pose, error) {
	n := len(t)
	if len(wlCmd) != n || len(wrCmd) != n {
		return nil, fmt.Errorf("skidsteer: %d times, %d wl_cmd, %d wr_cmd", n, len(wlCmd), len(wrCmd))
	}
	if !(p.R > 0 && p.Track > 0) {
		return nil, fmt.Errorf("skidsteer: commanded wheel speeds need the wheel radius r and track width track")
	}
	a := p.Coeffs()
	out := make([]Pose, n)
	if n == 0 {
		return out, nil
	}
	out[0] = pose0
	w := w0
	cmds := [2][]float64{wlCmd, wrCmd}
	for i := 0; i+1 < n; i++ {
		h := t[i+1] - t[i]
		if p.Delay > DeadTimeSteps*h*(1+1e-12) {
			return nil, fmt.Errorf("skidsteer: delay %g s is longer than %d log periods (%g s at row %d)", p.Delay, DeadTimeSteps, DeadTimeSteps*h, i)
		}
		var mean [2]float64
		for side := range 2 {
			// the command k rows back (rows before the first take w0)
			q := func(k int) float64 {
				if r := i - k; r >= 0 {
					return cmds[side][r]
				}
				return w0[side]
			}
			w[side], mean[side] = dyn.LagDeadTimeValue(w[side], q, DeadTimeSteps, p.Delay, h, p.Tau)
		}
		vc := p.R * (mean[0] + mean[1]) / 2
		wc := p.R * (mean[1] - mean[0]) / p.Track
		out[i+1] = Step(a, out[i], vc, wc, h)
	}
	return out, nil
}
