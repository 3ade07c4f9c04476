package terra

import (
	"errors"
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/wheelgrad/wheelgrad/opt"
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
// identification of §2.3 and the mapping of eq. 24), by opt.LeastSquares
// (bounded Levenberg–Marquardt in a trust region, SciPy's 'trf'; lsqnonlin's
// method with bounds) in log coordinates, so the parameters stay positive,
// with μ ≤ 5 and K ≤ 1 m (Validate's range), on the exact Jacobian of
// Torques (forward-mode dual numbers). m.Surface is the start. A trial point
// where the turn-centre balance fails counts as a non-finite residual (the
// trust region shrinks); at the start it is an error.
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
	so := make([]float64, len(data)) // warm starts of S_o
	first := true
	residuals := func(u, res []float64, jac *mat.Dense) error {
		m.Surface = Surface{MuO: math.Exp(u[0]), MuI: math.Exp(u[1]), K: math.Exp(u[2])}
		atStart := first
		first = false
		for j, s := range data {
			var r Result
			var err error
			if jac != nil {
				r, err = m.torques(s.Cmd, so[j])
			} else {
				r, err = m.torquesValue(s.Cmd, so[j])
			}
			so[j] = r.So
			if err != nil {
				if atStart {
					return err
				}
				for i := range res {
					res[i] = math.NaN()
				}
				return nil
			}
			res[2*j], res[2*j+1] = r.TauO-s.TauO, r.TauI-s.TauI
			if jac != nil {
				th := [3]float64{m.Surface.MuO, m.Surface.MuI, m.Surface.K}
				for k := range 3 {
					jac.Set(2*j, k, r.DTauO[k]*th[k])
					jac.Set(2*j+1, k, r.DTauI[k]*th[k])
				}
			}
		}
		return nil
	}
	u0 := []float64{math.Log(m.Surface.MuO), math.Log(m.Surface.MuI), math.Log(m.Surface.K)}
	inf := math.Inf(-1)
	p := opt.LSProblem{Residuals: residuals, M: n, Lower: []float64{inf, inf, inf}, Upper: []float64{math.Log(5), math.Log(5), 0}}
	// the trial carries the Jacobian: most trials are accepted
	res, err := opt.LeastSquares{TrialJacobian: true}.Solve(p, u0, opt.Settings{MaxIterations: 200, FunctionTol: 1e-10})
	if res != nil {
		info.Iterations, info.Evaluations = res.Iterations, res.FuncEvaluations
	}
	if err != nil {
		return Surface{}, info, err
	}
	u := res.X
	m.Surface = Surface{MuO: math.Exp(u[0]), MuI: math.Exp(u[1]), K: math.Exp(u[2])}
	info.RMS = math.Sqrt(2 * res.F / float64(n))
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
