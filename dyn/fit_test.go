package dyn_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/dyn"
	"github.com/wheelgrad/wheelgrad/dyn/internal/testmodels"
)

// fitRows are every third row of T·B and the last (for Wrt.Rows).
func fitRows(T, B int) []int {
	var rows []int
	for r := 1; r < T*B; r += 3 {
		rows = append(rows, r)
	}
	if rows[len(rows)-1] != T*B-1 {
		rows = append(rows, T*B-1)
	}
	return rows
}

// fitData are measurements near the outputs y at the rows (nil: all) and
// weights: none, one per output, or one per residual.
func fitData(y []float64, ny, T, B int, rows []int, weights string, seed uint64) (meas, wt []float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	K := T * B
	if rows != nil {
		K = len(rows)
	}
	meas = make([]float64, ny*K)
	for c := range ny {
		for k := range K {
			r := k
			if rows != nil {
				r = rows[k]
			}
			meas[c*K+k] = y[c*T*B+r] + 0.1*rng.NormFloat64()
		}
	}
	switch weights {
	case "output":
		for c := range ny {
			wt = append(wt, 0.5+float64(c))
		}
	case "residual":
		wt = make([]float64, ny*K)
		for i := range wt {
			wt[i] = rng.Float64() * 3
		}
	}
	return meas, wt
}

// TestFitEqualsJacobian: a Jacobian with a Fit (kernels generated with
// FitKernel form it in their loop: Lag's; the other generated kernels and
// the interpreter from the stored rows) gives Y, XT, JXT, JCost and the
// cost of the same Jacobian without one, bit for bit; residuals w·(y − m)
// and JY rows w·∂y/∂z bit for bit as formed from them; each lane's Jᵀr,
// JᵀJ and ‖r‖² to 1e-14 of their sums over the plain Jacobian's rows; the
// same blocks again without R and JY stored, and Jᵀr and ‖r‖² without
// JᵀJ; and the same residuals and
// rows without the normal equations (a FitRoller's other shape). For all parameters, a
// subset, the initial states, chosen rows, and each kind of weight.
func TestFitEqualsJacobian(t *testing.T) {
	for _, c := range fwdCases() {
		np, ny := c.m.NP(), c.m.NY()
		ws := []dyn.Wrt{{}, {X0: true}, {Rows: fitRows(c.T, c.B)}}
		if np > 1 {
			ws = append(ws, dyn.Wrt{Params: []int{np - 1, 0}, X0: true}, dyn.Wrt{Params: []int{1}, Rows: fitRows(c.T, c.B)})
		}
		for kname, k := range kernels(c.m) {
			_, inKernel := k.(dyn.FitRoller)
			for wi, w := range ws {
				for _, weights := range []string{"none", "output", "residual"} {
					name := fmt.Sprintf("%s %s (FitRoller %v) %+v %s", c.name, kname, inKernel, w, weights)
					sim, err := c.m.NewSimWith(k, c.B, c.T)
					if err != nil {
						t.Fatal(err)
					}
					plain, err := sim.NewJac(w)
					if err != nil {
						t.Fatal(err)
					}
					if err := sim.Jacobian(c.p, c.q, c.x0, c.u, plain); err != nil {
						t.Fatal(err)
					}
					meas, wt := fitData(plain.Y, ny, c.T, c.B, w.Rows, weights, uint64(wi+1))
					D, K := plain.D, len(meas)/max(ny, 1)
					fj, err := sim.NewJac(w)
					if err != nil {
						t.Fatal(err)
					}
					fj.Fit = &dyn.Fit{Meas: meas, Weight: wt, R: make([]float64, len(meas)), JTJ: make([]float64, c.B*D*D), JTR: make([]float64, c.B*D), SSR: -1}
					if err := sim.Jacobian(c.p, c.q, c.x0, c.u, fj); err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					same := func(what string, a, b []float64) {
						t.Helper()
						if len(a) != len(b) {
							t.Fatalf("%s: %s: %d vs %d values", name, what, len(a), len(b))
						}
						for i := range a {
							if a[i] != b[i] && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
								t.Fatalf("%s: %s[%d]: %v, want %v", name, what, i, a[i], b[i])
							}
						}
					}
					same("Y", fj.Y, plain.Y)
					same("XT", fj.XT, plain.XT)
					same("JXT", fj.JXT, plain.JXT)
					same("JCost", fj.JCost, plain.JCost)
					if fj.Cost != plain.Cost && !(math.IsNaN(fj.Cost) && math.IsNaN(plain.Cost)) {
						t.Fatalf("%s: cost %v, want %v", name, fj.Cost, plain.Cost)
					}
					// Residuals and weighted rows, and the lanes' sums.
					wantR, wantJY := make([]float64, len(meas)), make([]float64, len(plain.JY))
					jtr, jtj, ssr := make([]float64, c.B*D), make([]float64, c.B*D*D), make([]float64, c.B)
					for kk := range K {
						r := kk
						if w.Rows != nil {
							r = w.Rows[kk]
						}
						b := r % c.B
						for o := range ny {
							i := o*K + kk
							wgt := 1.0
							switch weights {
							case "output":
								wgt = wt[o]
							case "residual":
								wgt = wt[i]
							}
							res := (plain.Y[o*c.T*c.B+r] - meas[i]) * wgt
							wantR[i] = res
							ssr[b] += res * res
							for d := range D {
								wantJY[i*D+d] = plain.JY[i*D+d] * wgt
							}
							for d := range D {
								jtr[b*D+d] += wantJY[i*D+d] * res
								for e := range D {
									jtj[(b*D+d)*D+e] += wantJY[i*D+d] * wantJY[i*D+e]
								}
							}
						}
					}
					same("R", fj.Fit.R, wantR)
					for i := range wantJY {
						if a, b := fj.JY[i], wantJY[i]; a != b {
							t.Fatalf("%s: JY[%d] = %v, want %v", name, i, a, b)
						}
					}
					var sum float64
					for _, v := range ssr {
						sum += v
					}
					if !close(fj.Fit.SSR, sum, 1e-14) {
						t.Fatalf("%s: SSR %v, want %v", name, fj.Fit.SSR, sum)
					}
					for i := range jtr {
						if !close(fj.Fit.JTR[i], jtr[i], 1e-14) {
							t.Fatalf("%s: JTR[%d] = %v, want %v", name, i, fj.Fit.JTR[i], jtr[i])
						}
					}
					for i := range jtj {
						if !close(fj.Fit.JTJ[i], jtj[i], 1e-14) {
							t.Fatalf("%s: JTJ[%d] = %v, want %v", name, i, fj.Fit.JTJ[i], jtj[i])
						}
					}
					// Only the normal equations: the same blocks.
					nj, err := sim.NewJac(w)
					if err != nil {
						t.Fatal(err)
					}
					nj.Y, nj.JY, nj.JXT, nj.JCost = nil, nil, nil, nil
					nj.Fit = &dyn.Fit{Meas: meas, Weight: wt, JTJ: make([]float64, c.B*D*D), JTR: make([]float64, c.B*D)}
					if err := sim.Jacobian(c.p, c.q, c.x0, c.u, nj); err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					// Residuals and rows only (a FitRoller forms them in its
					// step loop): the same values.
					rj, err := sim.NewJac(w)
					if err != nil {
						t.Fatal(err)
					}
					rj.Fit = &dyn.Fit{Meas: meas, Weight: wt, R: make([]float64, len(meas))}
					if err := sim.Jacobian(c.p, c.q, c.x0, c.u, rj); err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					same("R of rows alone", rj.Fit.R, fj.Fit.R)
					same("JY of rows alone", rj.JY, fj.JY)
					same("Y of rows alone", rj.Y, plain.Y)
					if !close(rj.Fit.SSR, fj.Fit.SSR, 1e-14) {
						t.Fatalf("%s: SSR of rows alone %v, want %v", name, rj.Fit.SSR, fj.Fit.SSR)
					}
					same("JTJ alone", nj.Fit.JTJ, fj.Fit.JTJ)
					same("JTR alone", nj.Fit.JTR, fj.Fit.JTR)
					if nj.Fit.SSR != fj.Fit.SSR {
						t.Fatalf("%s: SSR alone %v, want %v", name, nj.Fit.SSR, fj.Fit.SSR)
					}
					// The loss and gradient alone (no JᵀJ): the same bits.
					gj, err := sim.NewJac(w)
					if err != nil {
						t.Fatal(err)
					}
					gj.Y, gj.JY, gj.JXT, gj.JCost = nil, nil, nil, nil
					gj.Fit = &dyn.Fit{Meas: meas, Weight: wt, JTR: make([]float64, c.B*D)}
					if err := sim.Jacobian(c.p, c.q, c.x0, c.u, gj); err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					same("JTR without JTJ", gj.Fit.JTR, fj.Fit.JTR)
					if gj.Fit.SSR != fj.Fit.SSR {
						t.Fatalf("%s: SSR without JTJ %v, want %v", name, gj.Fit.SSR, fj.Fit.SSR)
					}
				}
			}
		}
	}
	if _, ok := testmodels.Lag.NewKernel().(dyn.FitRoller); !ok {
		t.Error("Lag's kernel, generated with FitKernel, has no RollFit")
	}
	if _, ok := testmodels.Kitchen.NewKernel().(dyn.FitRoller); ok {
		t.Error("Kitchen's kernel, generated without FitKernel, has RollFit")
	}
}

// TestFitGradientMatchesCentralDifferences: Jᵀr of the fit (summed over
// the lanes by Normal, with the initial states spread) is the gradient of
// ½‖r‖² = ½ Σ w²(y − m)² computed by central differences of the native
// rollout (Sim.Forward), for the parameters and every lane's initial
// state, and Normal's JᵀJ is JᵀJ of the expanded Jacobian, with the
// generated kernel (FitRoller) and the interpreter.
func TestFitGradientMatchesCentralDifferences(t *testing.T) {
	m := testmodels.Lag
	const B, T = 3, 200
	x0, u := lagData(B, T, 5)
	p, q := []float64{0.25, 1.3, 0.8}, []float64{0.01, 0.2} // the tanh surrogate: smooth
	for kname, k := range kernels(m) {
		sim, err := m.NewSimWith(k, B, T)
		if err != nil {
			t.Fatal(err)
		}
		y := make([]float64, m.NY()*T*B)
		if _, err := sim.Forward(p, q, x0, u, y); err != nil {
			t.Fatal(err)
		}
		meas, wt := fitData(y, m.NY(), T, B, nil, "residual", 3)
		loss := func(p, x0 []float64) float64 {
			if _, err := sim.Forward(p, q, x0, u, y); err != nil {
				t.Fatal(err)
			}
			var s float64
			for i := range y {
				r := wt[i] * (y[i] - meas[i])
				s += r * r
			}
			return s / 2
		}
		j, err := sim.NewJac(dyn.Wrt{X0: true})
		if err != nil {
			t.Fatal(err)
		}
		P, S, D := m.NP(), m.NS(), j.D
		j.Fit = &dyn.Fit{Meas: meas, Weight: wt, JTJ: make([]float64, B*D*D), JTR: make([]float64, B*D)}
		if err := sim.Jacobian(p, q, x0, u, j); err != nil {
			t.Fatal(err)
		}
		if !close(j.Fit.SSR/2, loss(p, x0), 1e-13) {
			t.Errorf("%s: ½‖r‖² = %v, the native rollout's %v", kname, j.Fit.SSR/2, loss(p, x0))
		}
		W := P + S*B
		g, h := make([]float64, W), make([]float64, W*W)
		if err := j.Normal(h, g, B); err != nil {
			t.Fatal(err)
		}
		for col := range W {
			pp, xx := append([]float64(nil), p...), append([]float64(nil), x0...)
			v, step := &pp, 1e-6
			i := col
			if col >= P {
				v, i = &xx, col-P // state k of lane b at P + k·B + b: x0's own index k·B + b
			}
			h0 := (*v)[i]
			(*v)[i] = h0 + step
			fp := loss(pp, xx)
			(*v)[i] = h0 - step
			fm := loss(pp, xx)
			num := (fp - fm) / (2 * step)
			if !close(g[col], num, 1e-6) {
				t.Errorf("%s: gradient column %d: %v, central differences %v", kname, col, g[col], num)
			}
		}
		// Normal's JᵀJ against the expanded weighted Jacobian.
		jj, err := sim.NewJac(dyn.Wrt{X0: true})
		if err != nil {
			t.Fatal(err)
		}
		jj.Fit = &dyn.Fit{Meas: meas, Weight: wt}
		if err := sim.Jacobian(p, q, x0, u, jj); err != nil {
			t.Fatal(err)
		}
		full := make([]float64, len(jj.JY)/D*W)
		if err := jj.Expand(full, B); err != nil {
			t.Fatal(err)
		}
		for a := range W {
			for b := range W {
				var s float64
				for r := range len(full) / W {
					s += full[r*W+a] * full[r*W+b]
				}
				if !close(h[a*W+b], s, 1e-12) {
					t.Fatalf("%s: JᵀJ[%d,%d] = %v, from the expanded Jacobian %v", kname, a, b, h[a*W+b], s)
				}
			}
		}
	}
}

// TestFitErrors: wrong lengths and non-finite measurements are errors
// naming the field (and the output, step and lane), never a panic.
func TestFitErrors(t *testing.T) {
	m := testmodels.Lag
	const B, T = 2, 10
	x0, u := lagData(B, T, 1)
	p, q := []float64{0.25, 1.3, 0.8}, []float64{0.01, 0}
	for kname, k := range kernels(m) {
		sim, err := m.NewSimWith(k, B, T)
		if err != nil {
			t.Fatal(err)
		}
		n := m.NY() * T * B
		for _, c := range []struct {
			fit  dyn.Fit
			want string
		}{
			{dyn.Fit{Meas: make([]float64, n-1)}, "Fit.Meas has"},
			{dyn.Fit{Meas: make([]float64, n), Weight: make([]float64, 3)}, "Fit.Weight has 3"},
			{dyn.Fit{Meas: make([]float64, n), R: make([]float64, 2)}, "Fit.R has 2"},
			{dyn.Fit{Meas: make([]float64, n), JTJ: make([]float64, 2)}, "Fit.JTJ has 2"},
			{dyn.Fit{Meas: make([]float64, n), JTR: make([]float64, 2)}, "Fit.JTR has 2"},
			{dyn.Fit{Meas: append(make([]float64, T*B+3), math.NaN())}, "Fit.Meas[23] = NaN (output y at step 1 of lane 1)"},
			{dyn.Fit{Meas: make([]float64, n), Weight: []float64{1, math.Inf(1)}}, "Fit.Weight[1] = +Inf"},
		} {
			if len(c.fit.Meas) < n && c.fit.Meas[len(c.fit.Meas)-1] != 0 {
				c.fit.Meas = append(c.fit.Meas, make([]float64, n-len(c.fit.Meas))...)
			}
			j, err := sim.NewJac(dyn.Wrt{})
			if err != nil {
				t.Fatal(err)
			}
			f := c.fit
			j.Fit = &f
			err = sim.Jacobian(p, q, x0, u, j)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: error %v, want one containing %q", kname, err, c.want)
			}
		}
	}
}
