package mecanum

import (
	"math"
	"math/rand/v2"
)

// RealLikeSpec describes a recording like the real ones of a low-cost
// Mecanum robot (issue 10): raw PWM commands on four channels in the robot's
// own order and signs at about 244 Hz, an overhead camera at 60 fps with its
// own clock that starts before the robot moves, timestamp jitter, a motor
// dead time before the motion starts, friction that depends on the command,
// the wheels' spin-up transient (Luo eq. 2), and the heading in degrees,
// unwrapped. The truth is deliberately not the model that identifies it: μ
// is TrueMu(ω_s), not the 4-16-4 network, and the transient is not in the
// steady-state model of eq. 3.
type RealLikeSpec struct {
	// PWM is the constant raw command of the run on channels p1..p4; the
	// wheels turn at ω_s = Gain·(p3, −p4, −p2, p1) (TrueWiring).
	PWM      [4]float64
	Gain     float64    // rad/s per PWM count (default 0.1)
	Duration float64    // s of commands (default 6)
	Rate     float64    // command rows per second (default 244)
	FPS      float64    // camera frames per second (default 60)
	Jitter   float64    // camera timestamp jitter σ (s, default 2 ms)
	CamLead  float64    // the camera starts this long before the commands (s, default 0.8)
	Delay    float64    // motor dead time after the first command (s, default 0.1)
	Tau      float64    // spin-up time constant of the wheels (s, default 0.05)
	Noise    float64    // camera position noise σ (m, default 2 mm)
	HeadDeg  float64    // camera heading noise σ (degrees, default 0.3)
	Pose0    [3]float64 // start pose (x, y, θ rad)
	Seed     uint64
}

// TrueWiring is the generator's channel map: ω_s,j = Gain·Sign[j]·p[Chan[j]].
var TrueWiring = struct {
	Chan [4]int
	Sign [4]float64
}{[4]int{2, 3, 1, 0}, [4]float64{1, -1, -1, 1}}

// TrueMu is the generator's command-dependent friction: μ rises with the
// wheel's own speed and differs between wheels and with the direction of
// turning — smooth, but not of the network's form.
func TrueMu(ws [4]float64) [4]float64 {
	base := [4]float64{0.42, 0.55, 0.36, 0.50}
	var mu [4]float64
	for j := range 4 {
		s := math.Abs(ws[j])
		mu[j] = base[j] + 0.35*(1-math.Exp(-s/15)) + 0.05*ws[j]/20 - 0.0015*s
	}
	return mu
}

// RealLike is one recording: the commands stream (t, p1..p4) and the camera
// stream (t, x, y, theta_deg) with their own clocks, and the true poses at the
// camera frames (in the commands' clock, for checks).
type RealLike struct {
	CmdT    []float64
	PWM     [][4]float64
	CamT    []float64 // camera clock: 0 at the first frame
	CamX    []float64
	CamY    []float64
	CamDeg  []float64
	Command [4]float64 // ω_s in the model's wheel order (rad/s)
	// Shift is the true offset to add to the camera times to put them on
	// the commands' clock.
	Shift float64
}

// SynthesizeRealLike generates a recording. p gives the robot's constants
// (its Mu and Friction are ignored: the friction is TrueMu).
func SynthesizeRealLike(p Params, s RealLikeSpec) RealLike {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&s.Gain, 0.1)
	def(&s.Duration, 6)
	def(&s.Rate, 244)
	def(&s.FPS, 60)
	def(&s.Jitter, 0.002)
	def(&s.CamLead, 0.8)
	def(&s.Delay, 0.1)
	def(&s.Tau, 0.05)
	def(&s.Noise, 0.002)
	def(&s.HeadDeg, 0.3)
	rng := rand.New(rand.NewPCG(s.Seed, 0x7265616c))
	var out RealLike
	for j := range 4 {
		out.Command[j] = s.Gain * TrueWiring.Sign[j] * s.PWM[TrueWiring.Chan[j]]
	}
	// commands: rows at ~Rate with small timestamp jitter
	n := int(s.Duration * s.Rate)
	for i := range n {
		t := float64(i)/s.Rate + 0.0002*(rng.Float64()-0.5)
		if i == 0 {
			t = 0
		}
		out.CmdT = append(out.CmdT, t)
		out.PWM = append(out.PWM, s.PWM)
	}
	end := out.CmdT[n-1] + 1/s.Rate
	// the controller stops the robot with a zero command
	out.CmdT = append(out.CmdT, end)
	out.PWM = append(out.PWM, [4]float64{})
	// the true motion, integrated finely: at rest until Delay, then the
	// wheels spin up with time constant Tau toward eq. 3's steady state;
	// the robot stops when the commands end
	mu := TrueMu(out.Command)
	B := p.BMatrix()
	K := p.K()
	const h = 1e-4
	x, y, th := s.Pose0[0], s.Pose0[1], s.Pose0[2]
	shift := -s.CamLead + 0.01*rng.Float64() // camera clock zero on the commands' clock
	out.Shift = shift
	tEnd := end + 0.3
	frame := 0
	nextFrame := func() float64 { return shift + float64(frame)/s.FPS }
	for t := shift; t < tEnd; t += h {
		for t >= nextFrame() {
			tc := float64(frame)/s.FPS + s.Jitter*rng.NormFloat64()
			out.CamT = append(out.CamT, tc)
			out.CamX = append(out.CamX, x+s.Noise*rng.NormFloat64())
			out.CamY = append(out.CamY, y+s.Noise*rng.NormFloat64())
			out.CamDeg = append(out.CamDeg, th*180/math.Pi+s.HeadDeg*rng.NormFloat64())
			frame++
		}
		a := 0.0
		if t >= s.Delay && t < end {
			a = 1 - math.Exp(-(t-s.Delay)/s.Tau)
		}
		if a == 0 {
			continue
		}
		var vx, vy, wz float64
		for j := range 4 {
			om := a * out.Command[j] * (1 - mu[j]*K)
			vx += B[0][j] * om
			vy += B[1][j] * om
			wz += B[2][j] * om
		}
		sn, cs := math.Sincos(th)
		x += h * (cs*vx - sn*vy)
		y += h * (sn*vx + cs*vy)
		th += h * wz
	}
	// jittered frame times must stay increasing (a camera driver's times do)
	for k := 1; k < len(out.CamT); k++ {
		if out.CamT[k] <= out.CamT[k-1] {
			out.CamT[k] = out.CamT[k-1] + 1e-4
		}
	}
	return out
}

// Columns returns the two streams as CSV columns: the commands file
// (t, p1..p4) and the camera file (t, x, y, theta_deg).
func (r RealLike) Columns() (cmdHead []string, cmd [][]float64, camHead []string, cam [][]float64) {
	p := make([][]float64, 4)
	for _, v := range r.PWM {
		for c := range 4 {
			p[c] = append(p[c], v[c])
		}
	}
	return []string{"t", "p1", "p2", "p3", "p4"}, [][]float64{r.CmdT, p[0], p[1], p[2], p[3]},
		[]string{"t", "x", "y", "theta_deg"}, [][]float64{r.CamT, r.CamX, r.CamY, r.CamDeg}
}

// RealLikeTrain and RealLikeUnseen are wheel-speed commands (rad/s, model
// order) of a real-like recording set: eight training commands in different
// directions (forward, sideways, on the spot, curves, mixtures) and three
// that a fit on the first eight has not seen.
var (
	RealLikeTrain = [][4]float64{
		{15, 15, 15, 15}, {-12, 12, -12, 12}, {10, -10, -10, 10}, {8, 20, 20, 8},
		{-14, -14, -14, -14}, {22, 10, 6, 16}, {-9, 16, -7, 18}, {18, 6, 16, 4},
	}
	RealLikeUnseen = [][4]float64{{12, 18, 12, 18}, {-16, 8, -16, 8}, {20, 14, 9, 15}}
)

// PWMFor returns the raw PWM channels p1..p4 that give the wheel speeds w
// under TrueWiring with gain g.
func PWMFor(w [4]float64, g float64) [4]float64 {
	var p [4]float64
	for j := range 4 {
		p[TrueWiring.Chan[j]] = math.Round(w[j] / (g * TrueWiring.Sign[j]))
	}
	return p
}

// RealLikeRecording returns the spec of repeat rep of command w: its own
// start pose, motor dead time (50–150 ms), camera lead (0.5–1 s) and noise
// seed, all drawn from seed.
func RealLikeRecording(w [4]float64, rep int, seed uint64) RealLikeSpec {
	rng := rand.New(rand.NewPCG(seed, uint64(rep)+1))
	return RealLikeSpec{
		PWM:     PWMFor(w, 0.1),
		Gain:    0.1,
		Delay:   0.05 + 0.1*rng.Float64(),
		CamLead: 0.5 + 0.5*rng.Float64(),
		Pose0:   [3]float64{0.3 * rng.NormFloat64(), 0.3 * rng.NormFloat64(), math.Pi * (2*rng.Float64() - 1)},
		Seed:    seed*131 + uint64(rep),
	}
}
