package dyn

import (
	"fmt"
	"math"
)

// CheckGeneratedForward compares the generated forward kernels of m with
// the interpreter on a rollout of B lanes over T steps: RollFinal's outputs,
// final state and cost must equal Forward's exactly (the same operations),
// and RollTangent's Jacobians (all parameters and the initial states) the
// interpreter's forward mode within a relative tol and its outputs and
// final state Forward's exactly (the interpreter's
// tangents are in turn checked against the reverse pass and central
// differences by dyn's tests), and RollTangent stored at every third step
// (Wrt.Rows) the same rows exactly. It returns the largest relative difference
// of the Jacobians. Packages that register a generated kernel call it from
// their tests with realistic data; it allocates.
func (m *Model) CheckGeneratedForward(p, q, x0, u []float64, B, T int, tol float64) (float64, error) {
	g := m.gen.Load()
	if g == nil {
		return 0, fmt.Errorf("dyn: %s: no generated kernel registered", m.spec.Name)
	}
	if _, ok := g.k.(FinalRoller); !ok {
		return 0, fmt.Errorf("dyn: %s: the generated kernel has no RollFinal: regenerate it", m.spec.Name)
	}
	if _, ok := g.k.(TangentRoller); !ok {
		return 0, fmt.Errorf("dyn: %s: the generated kernel has no RollTangent: regenerate it", m.spec.Name)
	}
	gs, err := m.NewSimWith(g.k, B, T)
	if err != nil {
		return 0, err
	}
	is, err := m.NewSimWith(m.NewInterpreter(), B, T)
	if err != nil {
		return 0, err
	}
	ny := m.NY() * T * B
	y1, y2 := make([]float64, ny), make([]float64, ny)
	c1, err := gs.Forward(p, q, x0, u, y1)
	if err != nil {
		return 0, err
	}
	xT := append([]float64(nil), gs.Final()...)
	c2, err := gs.Value(p, q, x0, u, y2)
	if err != nil {
		return 0, err
	}
	if c1 != c2 && !(math.IsNaN(c1) && math.IsNaN(c2)) {
		return 0, fmt.Errorf("dyn: %s: RollFinal's cost %v, Forward's %v", m.spec.Name, c2, c1)
	}
	for i := range y1 {
		if y1[i] != y2[i] {
			return 0, fmt.Errorf("dyn: %s: RollFinal's output %d is %v, Forward's %v", m.spec.Name, i, y2[i], y1[i])
		}
	}
	for i, v := range gs.Final() {
		if v != xT[i] {
			return 0, fmt.Errorf("dyn: %s: RollFinal's final state %d is %v, Forward's %v", m.spec.Name, i, v, xT[i])
		}
	}
	var worst float64
	for _, x0dirs := range []bool{false, true} {
		jg, err := gs.NewJac(Wrt{X0: x0dirs})
		if err != nil {
			return 0, err
		}
		ji, _ := is.NewJac(Wrt{X0: x0dirs})
		if err := gs.Jacobian(p, q, x0, u, jg); err != nil {
			return 0, err
		}
		if err := is.Jacobian(p, q, x0, u, ji); err != nil {
			return 0, err
		}
		// The values a tangent kernel computes are Forward's, exactly (the
		// same operations; with InlineTrig, math.Sincos's own steps).
		for i := range y1 {
			if a, c := jg.Y[i], y1[i]; a != c && !(math.IsNaN(a) && math.IsNaN(c)) {
				return 0, fmt.Errorf("dyn: %s: RollTangent's output %d is %v, Forward's %v", m.spec.Name, i, a, c)
			}
		}
		for i := range xT {
			if a, c := jg.XT[i], xT[i]; a != c && !(math.IsNaN(a) && math.IsNaN(c)) {
				return 0, fmt.Errorf("dyn: %s: RollTangent's final state %d is %v, Forward's %v", m.spec.Name, i, a, c)
			}
		}
		// Stored at every third step (Wrt.Rows): the same rows, exactly.
		var rows []int
		for r := 0; r < T*B; r += 3 {
			rows = append(rows, r)
		}
		jr, err := gs.NewJac(Wrt{X0: x0dirs, Rows: rows})
		if err != nil {
			return 0, err
		}
		if err := gs.Jacobian(p, q, x0, u, jr); err != nil {
			return 0, err
		}
		D, K := jg.D, len(rows)
		for c := range m.NY() {
			for k, r := range rows {
				for d := range D {
					a, b := jr.JY[(c*K+k)*D+d], jg.JY[(c*T*B+r)*D+d]
					if a != b && !(math.IsNaN(a) && math.IsNaN(b)) {
						return worst, fmt.Errorf("dyn: %s: generated forward mode at chosen rows (x0 columns %v), output %d row %d column %d: %v, all rows %v",
							m.spec.Name, x0dirs, c, r, d, a, b)
					}
				}
			}
		}
		for b, pair := range [][2][]float64{{jg.Y, ji.Y}, {jg.JY, ji.JY}, {jg.XT, ji.XT}, {jg.JXT, ji.JXT}, {jg.JCost, ji.JCost}} {
			for i := range pair[0] {
				a, c := pair[0][i], pair[1][i]
				d := math.Abs(a-c) / math.Max(1, math.Max(math.Abs(a), math.Abs(c)))
				if math.IsNaN(d) && !(math.IsNaN(a) && math.IsNaN(c)) {
					d = math.Inf(1)
				}
				worst = math.Max(worst, d)
				if d > tol {
					return worst, fmt.Errorf("dyn: %s: generated forward mode (x0 columns %v), block %s [%d]: %v, interpreter %v",
						m.spec.Name, x0dirs, []string{"Y", "JY", "XT", "JXT", "JCost"}[b], i, a, c)
				}
			}
		}
	}
	return worst, nil
}
