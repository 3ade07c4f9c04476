package diffdrive

import (
	"fmt"
	"math"
)

// Batch is the data of the calibration problem of §III-A: M segments of N
// steps. Segment j starts from the initial state Init (eq. 24) at its first
// row k_j, is driven by the commands of rows k_j … k_j+N−1 and compared with
// the measured velocities of rows k_j+1 … k_j+N (eq. 22). Per-step arrays are
// step-major, [N·M] with step n of segment j at n·M + j, so that each step is
// one contiguous [M] vector.
type Batch struct {
	M, N   int
	UF, UL []float64 // joystick commands of step n
	V, W   []float64 // measured v and ω after step n
	Init   [4][]float64
}

// Init state vector indices.
const (
	iSdR = iota
	iSddR
	iSdL
	iSddL
)

// Check reports inconsistent lengths or non-finite values.
func (b *Batch) Check() error {
	if b.M < 1 || b.N < 1 {
		return fmt.Errorf("diffdrive.Batch: M = %d, N = %d", b.M, b.N)
	}
	for name, s := range map[string][]float64{"UF": b.UF, "UL": b.UL, "V": b.V, "W": b.W} {
		if len(s) != b.M*b.N {
			return fmt.Errorf("diffdrive.Batch: %s has %d values, want N·M = %d", name, len(s), b.M*b.N)
		}
		for i, v := range s {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("diffdrive.Batch: %s[%d] = %v", name, i, v)
			}
		}
	}
	for i, s := range b.Init {
		if len(s) != b.M {
			return fmt.Errorf("diffdrive.Batch: Init[%d] has %d values, want M = %d", i, len(s), b.M)
		}
	}
	return nil
}

// Slice returns segments [lo, hi) as a new Batch (for shards).
func (b *Batch) Slice(lo, hi int) *Batch {
	m := hi - lo
	s := &Batch{M: m, N: b.N}
	cut := func(x []float64) []float64 {
		out := make([]float64, 0, m*b.N)
		for n := range b.N {
			out = append(out, x[n*b.M+lo:n*b.M+hi]...)
		}
		return out
	}
	s.UF, s.UL, s.V, s.W = cut(b.UF), cut(b.UL), cut(b.V), cut(b.W)
	for i := range s.Init {
		s.Init[i] = append([]float64(nil), b.Init[i][lo:hi]...)
	}
	return s
}

// Smoothing selects the exact model and loss (zero values) or their
// surrogates: T is the temperature of the friction clamp (graph.TanhClampSym,
// the width of its rounded corner in m/s²) and Eps the width of the smooth
// |·| of the loss (graph.SmoothAbs, in m/s and rad/s).
type Smoothing struct {
	T, Eps float64
}

// LossSpec is what eq. 22 needs besides the model: the weight c_ω of the
// angular error and the smoothing.
type LossSpec struct {
	CW float64
	Smoothing
}

// ---- the step kernel, shared by the fused op and the native adjoint ----

// The packed state of the fused graph, one vector of length 4M + 7: the four
// wheel states [M] each, the loss accumulated so far, and six slots that are
// zero in the forward pass and accumulate ∂L/∂ζ in the backward pass (so that
// a step's adjoint carries the parameter gradient of all later steps and
// only the first step hands it to ζ).
func packedLen(m int) int { return 4*m + 7 }

// kernel evaluates one step n of every segment.
type kernel struct {
	b    *Batch
	l, h float64
	cw   float64
}

// absLoss is the per-sample |e| of eq. 22 or its surrogate, with its slope.
// The exact slope is sign(e) with sign(0) = 0, as gorgonia's Abs; it is
// written without branches on the sign, which is random for residuals and
// would cost a misprediction per sample.
func absLoss(e, eps float64) (float64, float64) {
	if eps <= 0 {
		return math.Abs(e), sgn(e)
	}
	e2 := e * e
	r := math.Sqrt(e2 + eps*eps)
	return e2 / (r + eps), e / r
}

func sgn(e float64) float64 {
	s := 0.0
	if e > 0 {
		s = 1
	}
	if e < 0 {
		s = -1
	}
	return s
}

// friction returns the friction acceleration of eq. 4 (exact for T ≤ 0, else
// graph.TanhClampSymFloat) and its partial derivatives in μ̄ and μ.
func friction(mubar, mu, T float64) (g, gx, gmu float64) {
	if T <= 0 {
		if math.Abs(mubar) <= mu {
			return mubar, 1, 0
		}
		return math.Copysign(mu, mubar), 0, math.Copysign(1, mubar)
	}
	k := 0.0
	if mu > T {
		k = mu - T
	}
	w := mu - k
	a := math.Abs(mubar)
	if a <= k {
		return mubar, 1, 0
	}
	z := (a - k) / w
	t := math.Tanh(z)
	s2 := 1 - t*t
	s := math.Copysign(1, mubar)
	if mu > T {
		gmu = s * (1 - s2)
	} else {
		gmu = s * (t - z*s2)
	}
	return s * (k + w*t), s2, gmu
}

// wheelNext is one wheel's speed update (eqs. 3–5). The exact branch tests
// |μ̄| ≤ μ in the form |ṡ + h·s̈| ≤ h·μ (multiplied by h > 0), which needs
// no division, and stops a sticking wheel at exactly 0; a slipping wheel
// moves to ṡ + h·s̈ + h·μ·sgn(μ̄) = x − h·μ·sgn(x) with x = ṡ + h·s̈.
func wheelNext(sd, sdd, h, hmu, mu, T float64) float64 {
	if T <= 0 {
		x := sd + h*sdd
		if math.Abs(x) <= hmu {
			return 0
		}
		return x - math.Copysign(hmu, x)
	}
	g, _, _ := friction(-sd/h-sdd, mu, T)
	return sd + h*sdd + h*g
}

// forward writes the packed state after step n into out from in and
// returns nothing; the loss of the step is added to out[4M].
func (k *kernel) forward(n int, z *[6]float64, sm Smoothing, in, out []float64) {
	m, h := k.b.M, k.h
	c1, c2, al, be, ga, mu := z[0], z[1], z[2]*h, z[3]*h, 1-z[4]*h, z[5]
	uf, ul := k.b.UF[n*m:(n+1)*m], k.b.UL[n*m:(n+1)*m]
	vm, wm := k.b.V[n*m:(n+1)*m], k.b.W[n*m:(n+1)*m]
	sR, aR, sL, aL := in[:m], in[m:2*m], in[2*m:3*m], in[3*m:4*m]
	oR, oaR, oL, oaL := out[:m], out[m:2*m], out[2*m:3*m], out[3*m:4*m]
	il := 1 / k.l
	hmu := h * mu
	var acc float64
	for j := range m {
		f := uf[j]
		gu := c1 * (1 - c2*math.Abs(f)) * ul[j]
		VR, VL := f+gu, f-gu
		nR := wheelNext(sR[j], aR[j], h, hmu, mu, sm.T)
		nL := wheelNext(sL[j], aL[j], h, hmu, mu, sm.T)
		oaR[j] = -be*sR[j] + ga*aR[j] + al*VR
		oaL[j] = -be*sL[j] + ga*aL[j] + al*VL
		oR[j], oL[j] = nR, nL
		ev, _ := absLoss((nR+nL)/2-vm[j], sm.Eps)
		ew, _ := absLoss((nR-nL)*il-wm[j], sm.Eps)
		acc += ev + k.cw*ew
	}
	out[4*m] = in[4*m] + acc
	copy(out[4*m+1:], in[4*m+1:4*m+7])
}

// backward writes into adjIn the adjoint of the packed state before step n
// (in) given the adjoint adjOut of the state after it, recomputing the
// step's forward quantities from in. The six ζ slots of adjOut are carried
// over with this step's contribution added.
func (k *kernel) backward(n int, z *[6]float64, sm Smoothing, in, adjOut, adjIn []float64) {
	m, h := k.b.M, k.h
	c1, c2, al, mu := z[0], z[1], z[2], z[5]
	be, ga := z[3]*h, 1-z[4]*h
	uf, ul := k.b.UF[n*m:(n+1)*m], k.b.UL[n*m:(n+1)*m]
	vm, wm := k.b.V[n*m:(n+1)*m], k.b.W[n*m:(n+1)*m]
	sR, aR, sL, aL := in[:m], in[m:2*m], in[2*m:3*m], in[3*m:4*m]
	gR, gaR, gL, gaL := adjOut[:m], adjOut[m:2*m], adjOut[2*m:3*m], adjOut[3*m:4*m]
	dR, daR, dL, daL := adjIn[:m], adjIn[m:2*m], adjIn[2*m:3*m], adjIn[3*m:4*m]
	aAcc := adjOut[4*m]
	il := 1 / k.l
	hmu := h * mu
	var gc1, gc2, gal, gbe, gga, gmu float64
	for j := range m {
		f := uf[j]
		af := math.Abs(f)
		gain := 1 - c2*af
		gu := c1 * gain * ul[j]
		VR, VL := f+gu, f-gu
		// Friction branch and slopes of each wheel's speed update.
		d1R, d2R, dmR, nR := wheelSlopes(sR[j], aR[j], h, hmu, mu, sm.T)
		d1L, d2L, dmL, nL := wheelSlopes(sL[j], aL[j], h, hmu, mu, sm.T)
		_, sv := absLoss((nR+nL)/2-vm[j], sm.Eps)
		_, sw := absLoss((nR-nL)*il-wm[j], sm.Eps)
		gv, gw := aAcc*sv, aAcc*k.cw*sw*il
		aNR := gR[j] + gv/2 + gw
		aNL := gL[j] + gv/2 - gw
		aAR, aAL := gaR[j], gaL[j]
		dR[j] = aNR*d1R - be*aAR
		daR[j] = aNR*d2R + ga*aAR
		dL[j] = aNL*d1L - be*aAL
		daL[j] = aNL*d2L + ga*aAL
		gmu += aNR*dmR + aNL*dmL
		gal += h * (aAR*VR + aAL*VL)
		gbe -= h * (aAR*sR[j] + aAL*sL[j])
		gga -= h * (aAR*aR[j] + aAL*aL[j])
		aV := al * h * (aAR - aAL) // ∂/∂gu, since V_R = uf + gu, V_L = uf − gu
		gc1 += aV * gain * ul[j]
		gc2 -= aV * c1 * af * ul[j]
	}
	adjIn[4*m] = aAcc
	g := [6]float64{gc1, gc2, gal, gbe, gga, gmu}
	for i := range g {
		adjIn[4*m+1+i] = adjOut[4*m+1+i] + g[i]
	}
}

// wheelSlopes returns ∂ṡ'/∂ṡ, ∂ṡ'/∂s̈, ∂ṡ'/∂μ and ṡ' itself, the same
// branch as wheelNext.
func wheelSlopes(sd, sdd, h, hmu, mu, T float64) (d1, d2, dmu, next float64) {
	if T <= 0 {
		x := sd + h*sdd
		if math.Abs(x) <= hmu {
			return 0, 0, 0, 0
		}
		s := math.Copysign(h, x)
		return 1, h, -s, x - math.Copysign(hmu, x)
	}
	g, gx, gm := friction(-sd/h-sdd, mu, T)
	return 1 - gx, h * (1 - gx), h * gm, sd + h*sdd + h*g
}

// packInit writes the initial packed state of b.
func packInit(b *Batch, dst []float64) {
	m := b.M
	for i := range 4 {
		copy(dst[i*m:(i+1)*m], b.Init[i])
	}
	clear(dst[4*m:])
}

// Adjoint is the hand-written native gradient of the calibration loss of eq.
// 22 over a Batch: the same kernel as the fused graph op, without gorgonia.
// It keeps the N+1 packed states and one adjoint buffer, allocated once.
type Adjoint struct {
	k      kernel
	states [][]float64
	adj    [2][]float64
}

// NewAdjoint prepares the native adjoint for b with known l and h.
func NewAdjoint(b *Batch, l, h float64, spec LossSpec) (*Adjoint, error) {
	if err := b.Check(); err != nil {
		return nil, err
	}
	a := &Adjoint{k: kernel{b: b, l: l, h: h, cw: spec.CW}}
	s := packedLen(b.M)
	for range b.N + 1 {
		a.states = append(a.states, make([]float64, s))
	}
	a.adj = [2][]float64{make([]float64, s), make([]float64, s)}
	packInit(b, a.states[0])
	return a, nil
}

// Loss returns L(ζ) of eq. 22 (forward pass only).
func (a *Adjoint) Loss(z [6]float64, sm Smoothing) float64 {
	for n := range a.k.b.N {
		a.k.forward(n, &z, sm, a.states[n], a.states[n+1])
	}
	return a.states[a.k.b.N][4*a.k.b.M]
}

// LossGrad returns L(ζ) and ∂L/∂ζ.
func (a *Adjoint) LossGrad(z [6]float64, sm Smoothing) (float64, [6]float64) {
	L := a.Loss(z, sm)
	m := a.k.b.M
	cur, prev := a.adj[0], a.adj[1]
	clear(cur)
	cur[4*m] = 1
	for n := a.k.b.N - 1; n >= 0; n-- {
		a.k.backward(n, &z, sm, a.states[n], cur, prev)
		cur, prev = prev, cur
	}
	var g [6]float64
	copy(g[:], cur[4*m+1:])
	return L, g
}

// Predictions returns the predicted v and ω of the last Loss or LossGrad
// call, step-major [N·M] like Batch.V.
func (a *Adjoint) Predictions() (v, w []float64) {
	m, N := a.k.b.M, a.k.b.N
	v, w = make([]float64, N*m), make([]float64, N*m)
	for n := range N {
		s := a.states[n+1]
		for j := range m {
			v[n*m+j] = (s[j] + s[2*m+j]) / 2
			w[n*m+j] = (s[j] - s[2*m+j]) / a.k.l
		}
	}
	return v, w
}
