package dyn

import (
	"fmt"
)

// Fit makes a forward-mode rollout (Sim.Jacobian with Jac.Fit set) a
// weighted least-squares evaluation: beside each output it forms the
// residual r_i = w_i·(y_i − m_i) and, from the output's tangents, the
// residual's Jacobian row J_i = w_i·∂y_i/∂z, and it accumulates what a
// Gauss–Newton or Levenberg–Marquardt step needs while the values are still
// in registers: ‖r‖², Jᵀr (the gradient of ½‖r‖²) and JᵀJ (the normal
// equations). Nothing but the residuals has to be stored, and they may be
// skipped too: with R, Jac.JY and JTJ nil the rollout is the value and
// gradient of the loss ½‖r‖² in one forward pass.
//
// The residuals follow JY's rows: with Wrt.Rows, residual k of output c
// is row c·K + k (K = len(Rows)) at step Rows[k]; without, row c·T·B + t·B
// + j, Y's layout (K = T·B). A kernel generated with FitKernel does this
// in its loop (FitRoller); other kernels and the interpreter compute the
// same numbers by the same operations in the same order from the stored
// Jacobian (bit for bit the kernel's, barring fused multiply–adds).
type Fit struct {
	// Meas are the measured outputs m, [NY][K] (required).
	Meas []float64
	// Weight are the weights w: NY values (one per output), NY·K (one
	// per residual, Meas's layout), or nil for all 1. A weight of 1/σ
	// makes ½‖r‖² the negative log-likelihood of Gaussian noise.
	Weight []float64
	// R receives the residuals [NY][K], or nil to skip them.
	R []float64
	// JTJ receives each lane's JᵀJ, [B][D][D] (the rows of lane b only:
	// with Wrt.X0, lane b's initial-state columns are its own, so the
	// lanes' blocks assemble into the normal equations over the
	// parameters and every lane's initial state; see Jac.Normal), or nil.
	JTJ []float64
	// JTR receives each lane's Jᵀr, [B][D], or nil.
	JTR []float64
	// SSR is the sum of the squared residuals ‖r‖² (written).
	SSR float64
}

// FitRoller is implemented by kernels generated with FitKernel: the
// forward-mode rollout of RollTangentAt (at nil: every row) that forms
// fit's residuals, their Jacobian rows (into jy, weighted) and the lanes'
// normal equations. fit.Weight has NY or NY·K values (never nil), K =
// len(fit.Meas)/NY; fit.JTJ, fit.JTR hold n lanes' blocks and are
// overwritten; fit.SSR is overwritten; D = NP (+ S with x0dirs). fb is
// nil when fit.JTJ and fit.JTR are, else scratch of FitBlock(NY, D)·T
// values: one lane's outputs and tangents.
type FitRoller interface {
	RollFit(n, T int, x0dirs bool, at []int32, p, q, x0, u, y, jy, xT, jxT, jc []float64, fit *Fit, fb []float64) float64
}

// FitBlock is the number of scratch values per step a FitRoller needs
// with NY outputs and D directions: each output and its D tangents.
func FitBlock(ny, D int) int { return ny * (1 + D) }

// FitKernel makes the generated kernel also implement FitRoller: Sim.Jacobian
// with a Jac.Fit forms the residuals and the normal equations in the
// kernel's code instead of storing the Jacobian and reading it back.
//
// Measured on the own model (experiments/own-model, 3 parameters, 4 ×
// 20,000 steps, paired with the native rollout on 2 shared cores): the
// Jacobian pass alone costs 1.46–1.47 native rollouts, with the residuals
// formed in a second loop 1.57–1.61; the residuals and weighted rows formed
// in the kernel's loop 1.70 (the step's loop is short of registers: the
// weighting and the measurement loads cost more there than a second loop
// over the outputs; weighting the stored Jacobian afterwards, 1.78, costs a
// pass over it); the residuals with each lane's JᵀJ and Jᵀr and no
// Jacobian stored 1.89–1.92, Jᵀr alone 1.75–1.79. With the normal
// equations from the pass, the least-squares identification needs half the
// time it needs with J (BenchmarkOwnModelIdentify).
func FitKernel() GenOption { return func(g *gen) { g.fit = true } }

// checkFit checks j.Fit's lengths against the Jac's rows and columns.
func (j *Jac) checkFit(m *Model, B, T int) error {
	f := j.Fit
	ny, K := m.NY(), jacRows(j.Rows, T, B)
	name := m.spec.Name
	if len(f.Meas) != ny*K {
		return fmt.Errorf("dyn: %s: Fit.Meas has %d values, want %d (%d outputs × %d rows)", name, len(f.Meas), ny*K, ny, K)
	}
	if n := len(f.Weight); n != 0 && n != ny && n != ny*K {
		return fmt.Errorf("dyn: %s: Fit.Weight has %d values, want %d (one per output) or %d (one per residual)", name, n, ny, ny*K)
	}
	for _, c := range []struct {
		what      string
		got, want int
	}{{"R", len(f.R), ny * K}, {"JTJ", len(f.JTJ), B * j.D * j.D}, {"JTR", len(f.JTR), B * j.D}} {
		if c.got != 0 && c.got != c.want {
			return fmt.Errorf("dyn: %s: Fit.%s has %d values, want %d", name, c.what, c.got, c.want)
		}
	}
	return nil
}

// fitRun forms residuals and accumulates the lanes' normal equations, row
// by row, in the order of a generated FitRoller (per lane: steps ascending,
// outputs in order within a step).
type fitRun struct {
	f      *Fit
	K, D   int
	wc, wk int       // weight of output c, row k: Weight[c·wc + k·wk]
	ssr    []float64 // per lane
}

func (r *fitRun) start(f *Fit, ny, K, D, B int) {
	r.f, r.K, r.D = f, K, D
	r.wc, r.wk = K, 1
	if len(f.Weight) <= ny {
		r.wc, r.wk = 1, 0
	}
	if len(r.ssr) != B {
		r.ssr = make([]float64, B)
	}
	clear(r.ssr)
	clear(f.JTJ)
	clear(f.JTR)
}

// weight of output c at row k.
func (r *fitRun) weight(c, k int) float64 {
	if r.f.Weight == nil {
		return 1
	}
	return r.f.Weight[c*r.wc+k*r.wk]
}

// row handles output c at row k of lane b: value y and its tangents g
// (weighted in place).
func (r *fitRun) row(b, c, k int, y float64, g []float64) {
	f, D := r.f, r.D
	i := c*r.K + k
	w := r.weight(c, k)
	res := (y - f.Meas[i]) * w
	if f.R != nil {
		f.R[i] = res
	}
	r.ssr[b] += res * res
	for d := range g {
		g[d] *= w
	}
	if f.JTR != nil {
		jtr := f.JTR[b*D : (b+1)*D]
		for d, v := range g {
			jtr[d] += v * res
		}
	}
	if f.JTJ != nil {
		h := f.JTJ[b*D*D : (b+1)*D*D]
		for d, v := range g {
			for e := d; e < D; e++ {
				h[d*D+e] += v * g[e]
			}
		}
	}
}

// finish symmetrises the lanes' JᵀJ (accumulated in the upper triangle)
// and sums ‖r‖² over the lanes in order.
func (r *fitRun) finish() {
	f, D := r.f, r.D
	if f.JTJ != nil {
		for b := range len(f.JTJ) / max(D*D, 1) {
			h := f.JTJ[b*D*D : (b+1)*D*D]
			for d := range D {
				for e := d + 1; e < D; e++ {
					h[e*D+d] = h[d*D+e]
				}
			}
		}
	}
	f.SSR = 0
	for _, v := range r.ssr {
		f.SSR += v
	}
}

// reduceFit forms the fit from a finished rollout's Y and JY (weighting
// JY in place): the path of kernels without FitRoller.
func (j *Jac) reduceFit(run *fitRun, ny, T, B int) {
	K, D := jacRows(j.Rows, T, B), j.D
	run.start(j.Fit, ny, K, D, B)
	for k := range K {
		r := k
		if j.Rows != nil {
			r = j.Rows[k]
		}
		for c := range ny {
			row := c*K + k
			run.row(r%B, c, k, j.Y[c*T*B+r], j.JY[row*D:(row+1)*D])
		}
	}
	run.finish()
}

// selectFit copies the lanes' JᵀJ and Jᵀr of j's columns out of full's
// (all NP parameters' columns and the same X0 columns).
func (j *Jac) selectFit(full *Fit, np, S, B int) {
	D := j.D
	col := j.columns(np, S)
	F := 0 // full's columns
	if full.JTR != nil {
		F = len(full.JTR) / B
	} else if full.JTJ != nil {
		F = isqrt(len(full.JTJ) / B)
	}
	for b := range B {
		if j.Fit.JTR != nil {
			for c, fc := range col {
				j.Fit.JTR[b*D+c] = full.JTR[b*F+fc]
			}
		}
		if j.Fit.JTJ != nil {
			for c, fc := range col {
				for e, fe := range col {
					j.Fit.JTJ[(b*D+c)*D+e] = full.JTJ[(b*F+fc)*F+fe]
				}
			}
		}
	}
	j.Fit.SSR = full.SSR
}

func isqrt(n int) int {
	r := 0
	for (r+1)*(r+1) <= n {
		r++
	}
	return r
}

// columns are j's columns as columns of the Jacobian over all np
// parameters (then the S initial states with X0).
func (j *Jac) columns(np, S int) []int {
	col := make([]int, 0, j.D)
	col = append(col, j.Params...)
	if j.X0 {
		for k := range S {
			col = append(col, np+k)
		}
	}
	return col
}

// fitError names the first non-finite measurement or weight behind a
// non-finite ‖r‖², or says the outputs are not finite.
func (j *Jac) fitError(m *Model, T, B int) error {
	f := j.Fit
	K := jacRows(j.Rows, T, B)
	where := func(i int) string {
		c, k := i/K, i%K
		r := k
		if j.Rows != nil {
			r = j.Rows[k]
		}
		return fmt.Sprintf("output %s at step %d of lane %d", m.spec.Outputs[c], r/B, r%B)
	}
	for i, v := range f.Meas {
		if !finite(v) {
			return fmt.Errorf("dyn: %s: Fit.Meas[%d] = %v (%s)", m.spec.Name, i, v, where(i))
		}
	}
	for i, v := range f.Weight {
		if !finite(v) {
			return fmt.Errorf("dyn: %s: Fit.Weight[%d] = %v", m.spec.Name, i, v)
		}
	}
	return fmt.Errorf("dyn: %s: the residuals are not finite (the outputs overflow)", m.spec.Name)
}

// Normal assembles the normal equations of the fit's residuals over j's
// columns from the lanes' blocks (Fit.JTJ, Fit.JTR; either may be nil to
// skip it): without X0, the P×P sum over the lanes (jtj, len P·P; jtr, P);
// with X0, the Jacobian's columns spread as Expand spreads them, P + S·B
// of them (parameters, then state k of lane b at P + k·B + b).
func (j *Jac) Normal(jtj, jtr []float64, B int) error {
	f := j.Fit
	if f == nil {
		return fmt.Errorf("dyn: Jac.Normal without a Fit")
	}
	P, D := len(j.Params), j.D
	S := D - P
	W := P + S*B
	if jtj != nil && (len(jtj) != W*W || len(f.JTJ) != B*D*D) || jtr != nil && (len(jtr) != W || len(f.JTR) != B*D) {
		return fmt.Errorf("dyn: Jac.Normal: %d and %d values for %d columns, from %d and %d lane values", len(jtj), len(jtr), W, len(f.JTJ), len(f.JTR))
	}
	clear(jtj)
	clear(jtr)
	idx := make([]int, D)
	for b := range B {
		for d := range D {
			idx[d] = d
			if d >= P {
				idx[d] = P + (d-P)*B + b
			}
		}
		if jtr != nil {
			for d := range D {
				jtr[idx[d]] += f.JTR[b*D+d]
			}
		}
		if jtj != nil {
			for d := range D {
				for e := range D {
					jtj[idx[d]*W+idx[e]] += f.JTJ[(b*D+d)*D+e]
				}
			}
		}
	}
	return nil
}
