package terra

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Sample is one steady-turn torque pair (measured, or predicted by another
// model such as the learned network of §3.2).
type Sample struct {
	Cmd        Command
	TauI, TauO float64
}

// FitInfo reports a fit.
type FitInfo struct {
	Iterations, Evaluations int
	RMS                     float64 // torque residual RMS (N·m)
	Time                    time.Duration
}

// Fit finds the surface [μ_o μ_i K] that makes the model reproduce the
// samples in the least-squares sense, Σ (τ_o − τ_o*)² + (τ_i − τ_i*)² (the
// identification of §2.3 and the mapping of eq. 24). It is Levenberg–
// Marquardt (lsqnonlin's method) in log coordinates, so the parameters stay
// positive, on the exact Jacobian of Torques. m.Surface is the start.
func Fit(m Model, data []Sample) (Surface, FitInfo, error) {
	start := time.Now()
	if len(data) == 0 {
		return Surface{}, FitInfo{}, errors.New("terra: no samples to fit")
	}
	for j, s := range data {
		if math.IsNaN(s.TauI) || math.IsNaN(s.TauO) || math.IsInf(s.TauI, 0) || math.IsInf(s.TauO, 0) {
			return Surface{}, FitInfo{}, fmt.Errorf("terra: sample %d is not finite", j)
		}
	}
	if err := m.Validate(); err != nil {
		return Surface{}, FitInfo{}, err
	}
	var info FitInfo
	n := 2 * len(data)
	res := make([]float64, n)
	jac := make([]float64, n*3)
	so := make([]float64, len(data)) // warm starts of S_o
	eval := func(u [3]float64, withJac bool) (float64, error) {
		m.Surface = Surface{MuO: math.Exp(u[0]), MuI: math.Exp(u[1]), K: math.Exp(u[2])}
		info.Evaluations++
		f := 0.0
		for j, s := range data {
			var r Result
			var err error
			if withJac {
				r, err = m.torques(s.Cmd, so[j])
			} else {
				r, err = m.torquesValue(s.Cmd, so[j])
			}
			so[j] = r.So
			if err != nil {
				return 0, err
			}
			res[2*j], res[2*j+1] = r.TauO-s.TauO, r.TauI-s.TauI
			f += res[2*j]*res[2*j] + res[2*j+1]*res[2*j+1]
			if withJac {
				th := [3]float64{m.Surface.MuO, m.Surface.MuI, m.Surface.K}
				for k := range 3 {
					jac[(2*j)*3+k] = r.DTauO[k] * th[k]
					jac[(2*j+1)*3+k] = r.DTauI[k] * th[k]
				}
			}
		}
		return f, nil
	}
	u := [3]float64{math.Log(m.Surface.MuO), math.Log(m.Surface.MuI), math.Log(m.Surface.K)}
	f, err := eval(u, true)
	if err != nil {
		return Surface{}, info, err
	}
	lambda := 1e-3
	keepRes, keepJac := make([]float64, n), make([]float64, n*3)
	for info.Iterations = 0; info.Iterations < 200; info.Iterations++ {
		var jtj [3][3]float64
		var jtr [3]float64
		for i := range n {
			for a := range 3 {
				jtr[a] += jac[i*3+a] * res[i]
				for b := range 3 {
					jtj[a][b] += jac[i*3+a] * jac[i*3+b]
				}
			}
		}
		if math.Sqrt(jtr[0]*jtr[0]+jtr[1]*jtr[1]+jtr[2]*jtr[2]) < 1e-12*(1+f) {
			break
		}
		copy(keepRes, res)
		copy(keepJac, jac)
		improved, small := false, false
		for range 30 {
			var a [3][3]float64
			for i := range 3 {
				a[i] = jtj[i]
				a[i][i] += lambda * (jtj[i][i] + 1e-12)
			}
			step, ok := solve3(a, [3]float64{-jtr[0], -jtr[1], -jtr[2]})
			if !ok {
				lambda *= 10
				continue
			}
			var un [3]float64
			for i := range 3 {
				// log steps ≤ 2, and μ ≤ 5, K ≤ 1 m (Validate's range)
				un[i] = u[i] + math.Max(-2, math.Min(2, step[i]))
			}
			un[0] = math.Min(un[0], math.Log(5))
			un[1] = math.Min(un[1], math.Log(5))
			un[2] = math.Min(un[2], 0)
			// the trial carries the Jacobian: most trials are accepted
			fn, err := eval(un, true)
			if err == nil && fn < f {
				small = math.Abs(un[0]-u[0])+math.Abs(un[1]-u[1])+math.Abs(un[2]-u[2]) < 1e-10 || f-fn < 1e-10*(1e-6+fn)
				u, f = un, fn
				lambda = math.Max(lambda/10, 1e-12)
				improved = true
				break
			}
			lambda *= 10
		}
		if !improved {
			copy(res, keepRes)
			copy(jac, keepJac)
			break
		}
		if small {
			info.Iterations++
			break
		}
	}
	m.Surface = Surface{MuO: math.Exp(u[0]), MuI: math.Exp(u[1]), K: math.Exp(u[2])}
	info.RMS = math.Sqrt(f / float64(n))
	info.Time = time.Since(start)
	return m.Surface, info, nil
}

// solve3 solves a 3×3 system by Cramer's rule.
func solve3(a [3][3]float64, b [3]float64) ([3]float64, bool) {
	det := func(m [3][3]float64) float64 {
		return m[0][0]*(m[1][1]*m[2][2]-m[1][2]*m[2][1]) - m[0][1]*(m[1][0]*m[2][2]-m[1][2]*m[2][0]) + m[0][2]*(m[1][0]*m[2][1]-m[1][1]*m[2][0])
	}
	d := det(a)
	if d == 0 || math.IsNaN(d) {
		return [3]float64{}, false
	}
	var x [3]float64
	for i := range 3 {
		c := a
		for r := range 3 {
			c[r][i] = b[r]
		}
		x[i] = det(c) / d
	}
	return x, true
}

// MappingCommands are the yaw rates (rad/s) of the mapping of §3.2 (eq. 24),
// at vc = 0.6 m/s.
var MappingCommands = []float64{0.24, 0.17, 0.08, 0.05, 0.01, 0.004, 0.002, 0.001}

// Triplet is one (ρ, τ_i, τ_o) sample of the torque-vs-radius relation.
type Triplet struct{ Rho, TauI, TauO float64 }

// Triplets returns n samples of the steady CCW turns of radii log-spaced
// from rhoMin to rhoMax at forward speed vc: the initial conditions of the
// learned network (§4.1: 30 triplets, sharp, medium and shallow turns).
func (m *Model) Triplets(vc, rhoMin, rhoMax float64, n int) ([]Triplet, error) {
	if n < 2 || !(rhoMin > 0) || !(rhoMax > rhoMin) || math.IsInf(rhoMax, 0) || !(vc > 0) {
		return nil, fmt.Errorf("terra: triplets need n ≥ 2, 0 < rhoMin < rhoMax and vc > 0 (got %d, %g, %g, %g)", n, rhoMin, rhoMax, vc)
	}
	out := make([]Triplet, n)
	for i := range n {
		rho := rhoMin * math.Pow(rhoMax/rhoMin, float64(i)/float64(n-1))
		r, err := m.TorquesValue(Command{Vc: vc, Wc: vc / rho})
		if err != nil {
			return nil, err
		}
		out[i] = Triplet{rho, r.TauI, r.TauO}
	}
	return out, nil
}
