package dyn

import (
	"fmt"
)

// Wrt names the directions of a forward-mode rollout (Sim.Jacobian): the
// quantities the sensitivities are taken with respect to.
type Wrt struct {
	// Params are the indices of the differentiated parameters, in the
	// order of the Jacobian's columns; nil means all NP in order. Held
	// parameters are simply left out.
	Params []int
	// X0 adds each lane's S initial states as S more columns, after the
	// parameters. A lane's initial state reaches only that lane, so these
	// columns are block-diagonal and stored compactly: column len(Params)+k
	// of a row of lane j is the derivative with respect to state k of lane
	// j's initial state (in the full Jacobian over all S·B initial states,
	// the column P + k·B + j; zero in the rows of the other lanes).
	X0 bool
	// Rows, if non-nil, are the only steps whose output Jacobian is
	// stored: indices t·B + j into a [T][B] output (step t of lane j),
	// ascending, without repeats. JY then holds NY·len(Rows) rows, output
	// c at Rows[k] in row c·len(Rows) + k, so that a least-squares problem
	// whose residuals use some steps only (camera samples among command
	// rows) neither stores nor reads the others. Y, XT, JXT and JCost are
	// unchanged. A kernel generated with ObservedRows skips the other rows
	// in its loop; others store every row into a scratch block first.
	Rows []int
}

// Jac receives a forward-mode rollout: the values of a Forward and their
// Jacobians with respect to D = len(Params) (+ S with X0) directions,
// row-major with D columns, so that a least-squares solver uses a block
// directly: residuals r_i = w_i·(Y_i − measured_i) have the Jacobian rows
// w_i·JY[i·D : (i+1)·D]. Make one with Sim.NewJac; any of Y, JY, XT's
// Jacobian JXT and JCost may be set to nil to skip it.
type Jac struct {
	Params []int // the parameters of the columns
	X0     bool  // the last S columns are the lane's initial states
	D      int   // columns
	Rows   []int // Wrt.Rows: the steps whose JY rows are stored (nil: all)

	Y  []float64 // outputs [NY][T][B], as Forward's y
	JY []float64 // ∂Y/∂z: [NY·T·B][D], row i the output Y[i]; with Rows [NY·len(Rows)][D]

	XT  []float64 // final state [S][B] (always written)
	JXT []float64 // ∂XT/∂z: [S·B][D]

	Cost  float64   // the summed cost
	JCost []float64 // ∂cost/∂z per lane: [B][D]; the parameters' gradient of the total cost is the sum of the rows

	// Fit, if non-nil, makes the rollout a weighted least-squares
	// evaluation (see Fit): its residuals and normal equations are formed
	// in the pass, and JY (if not nil) holds the residuals' Jacobian
	// w_i·∂Y_i/∂z instead of ∂Y/∂z. Y, XT, JXT, JCost and Cost are
	// unchanged.
	Fit *Fit

	full *Jac // all parameters' columns, when a generated kernel computes them and Params is a subset

	// with Fit: the kernel's arguments (fitK), all parameters' blocks
	// for a subset (fullFit), the Go reduction's state, and Y, JY for a
	// kernel that has no FitRoller when the caller stores neither
	fitK, fullFit Fit
	frun          fitRun
	fitY, fitJY   []float64
	fitBuf        []float64 // a FitRoller's scratch
	ones          []float64

	// with Rows: at[t·B+j] is the stored row of step t of lane j, or −1;
	// gather is a kernel's JY over all rows when it cannot skip rows
	at     []int32
	gather []float64
}

// TangentRoller is implemented by generated kernels: the forward-mode
// rollout of n lanes over T steps carrying, in registers, the tangents of
// every value with respect to all NP parameters (D = NP) or, with x0dirs,
// the parameters and the lane's S initial states (D = NP + S). Layouts are
// Jac's: y [NY][T][n], jy [NY·T·n][D], xT [S][n], jxT [S·n][D], jc [n][D];
// all but xT may be nil. It returns the summed cost. It stores no states.
type TangentRoller interface {
	RollTangent(n, T int, x0dirs bool, p, q, x0, u, y, jy, xT, jxT, jc []float64) float64
}

// TangentRollerAt is implemented by generated kernels made with the
// ObservedRows option: RollTangent storing the Jacobian at some steps only.
// at is nil (every row, as RollTangent) or has T·n entries, at[t·n+j] the
// row block k where step t of lane j is stored (rows c·K + k of jy for
// output c, K = len(jy)/(NY·D)) or −1 to store nothing.
type TangentRollerAt interface {
	RollTangentAt(n, T int, x0dirs bool, at []int32, p, q, x0, u, y, jy, xT, jxT, jc []float64) float64
}

// FinalRoller is implemented by generated kernels: the value-only rollout
// (Sim.Value), the state kept in registers and never stored: it writes the
// outputs y ([NY][T][n], or nil) and the final state xT ([S][n]) and
// returns the summed cost.
type FinalRoller interface {
	RollFinal(n, T int, p, q, x0, u, y, xT []float64) float64
}

// NewJac allocates a Jac for this Sim's B lanes and T steps.
func (s *Sim) NewJac(w Wrt) (*Jac, error) {
	m := s.m
	ps := w.Params
	if ps == nil {
		ps = make([]int, m.NP())
		for i := range ps {
			ps[i] = i
		}
	}
	seen := make([]bool, m.NP())
	for _, k := range ps {
		if k < 0 || k >= m.NP() {
			return nil, fmt.Errorf("dyn: %s: Jacobian with respect to parameter %d, the model has %d", m.spec.Name, k, m.NP())
		}
		if seen[k] {
			return nil, fmt.Errorf("dyn: %s: Jacobian with respect to parameter %s twice", m.spec.Name, m.spec.Params[k])
		}
		seen[k] = true
	}
	var rows []int
	if w.Rows != nil {
		rows = append([]int{}, w.Rows...)
		for k, r := range rows {
			if r < 0 || r >= s.T*s.B {
				return nil, fmt.Errorf("dyn: %s: Jacobian row %d of %d steps × %d lanes", m.spec.Name, r, s.T, s.B)
			}
			if k > 0 && r <= rows[k-1] {
				return nil, fmt.Errorf("dyn: %s: Jacobian rows %d then %d: want them ascending, without repeats", m.spec.Name, rows[k-1], r)
			}
		}
	}
	return newJac(m, s.B, s.T, append([]int(nil), ps...), w.X0, rows), nil
}

func newJac(m *Model, B, T int, ps []int, x0 bool, rows []int) *Jac {
	D := len(ps)
	if x0 {
		D += m.NS()
	}
	ny, ns := m.NY()*T*B, m.NS()*B
	j := &Jac{Params: ps, X0: x0, D: D, Rows: rows,
		Y: make([]float64, ny), JY: make([]float64, m.NY()*jacRows(rows, T, B)*D),
		XT: make([]float64, ns), JXT: make([]float64, ns*D),
		JCost: make([]float64, B*D)}
	if rows != nil {
		j.at = make([]int32, T*B)
		for i := range j.at {
			j.at[i] = -1
		}
		for k, r := range rows {
			j.at[r] = int32(k)
		}
	}
	return j
}

// jacRows is the number of stored steps: len(rows), or T·B for nil.
func jacRows(rows []int, T, B int) int {
	if rows == nil {
		return T * B
	}
	return len(rows)
}

// allParams reports whether ps is 0, 1, …, NP−1.
func allParams(ps []int, np int) bool {
	if len(ps) != np {
		return false
	}
	for i, k := range ps {
		if k != i {
			return false
		}
	}
	return true
}

func (j *Jac) check(m *Model, B, T int) error {
	ny, ns := m.NY()*T*B, m.NS()*B
	D := len(j.Params)
	if j.X0 {
		D += m.NS()
	}
	if (j.Rows != nil) != (j.at != nil) || len(j.at) != 0 && len(j.at) != T*B {
		return fmt.Errorf("dyn: %s: Jac.Rows changed or the Jac is another Sim's (make it with NewJac for this Sim)", m.spec.Name)
	}
	for _, c := range []struct {
		what      string
		got, want int
		opt       bool
	}{{"D", j.D, D, false}, {"Y", len(j.Y), ny, true}, {"JY", len(j.JY), m.NY() * jacRows(j.Rows, T, B) * D, true}, {"XT", len(j.XT), ns, false},
		{"JXT", len(j.JXT), ns * D, true}, {"JCost", len(j.JCost), B * D, true}} {
		if c.got != c.want && !(c.opt && c.got == 0) {
			return fmt.Errorf("dyn: %s: Jac.%s has %d values, want %d (make it with NewJac for this Sim)", m.spec.Name, c.what, c.got, c.want)
		}
	}
	return nil
}

// orNil is nil for an empty slice, so that a kernel skips it.
func orNil(x []float64) []float64 {
	if len(x) == 0 {
		return nil
	}
	return x
}

// Jacobian is the forward-mode (tangent) rollout: one pass from x0 under u
// that computes what Forward computes (outputs, final state, cost) and
// their derivatives with respect to the directions of j (NewJac), carrying
// D tangents beside each value. Its cost grows with D, not with the number
// of outputs: for a least-squares problem (many residuals, few parameters)
// it gives the whole Jacobian for less than one reverse pass would take
// for one gradient (see the package overview for when to use which).
//
// A generated kernel carries the tangents of all NP parameters in
// registers (a subset is copied out of them); without one, the interpreter
// carries exactly the requested directions. Like Value, it does not store
// the trajectory: a Backward after it rolls the model forward again first.
// The derivatives at kinks (Clamp, Min, Max, Abs, Where) are the same
// subgradients as the reverse pass's, so every row of JY dotted with a
// vector v equals the reverse pass's ∂⟨v, Y⟩ for the same directions.
func (s *Sim) Jacobian(p, q, x0, u []float64, j *Jac) error {
	m := s.m
	if err := s.enter(); err != nil {
		return err
	}
	busy := true
	defer func() {
		if busy {
			s.busy.Store(false)
		}
	}()
	s.ran = false
	if err := s.checkLens(p, q, x0, u); err != nil {
		return err
	}
	if err := j.check(m, s.B, s.T); err != nil {
		return err
	}
	if err := s.CheckFinite(p, q, x0, nil); err != nil {
		return err
	}
	if j.Fit != nil {
		if err := j.checkFit(m, s.B, s.T); err != nil {
			return err
		}
	}
	S, B := m.NS(), s.B
	if tr, ok := s.k.(TangentRoller); ok {
		fr, fitK := s.k.(FitRoller)
		fitK = fitK && j.Fit != nil
		// Without a FitRoller, the fit is formed from the stored Y and JY.
		reduce := j.Fit != nil && !fitK
		userY, userJY := j.Y, j.JY
		if reduce {
			ny := m.NY()
			if len(j.Y) == 0 {
				if len(j.fitY) != ny*s.T*B {
					j.fitY = make([]float64, ny*s.T*B)
				}
				j.Y = j.fitY
			}
			if n := ny * jacRows(j.Rows, s.T, B) * j.D; len(j.JY) == 0 {
				if len(j.fitJY) != n {
					j.fitJY = make([]float64, n)
				}
				j.JY = j.fitJY
			}
		}
		out := j
		if !allParams(j.Params, m.NP()) {
			if j.full == nil {
				ps := make([]int, m.NP())
				for i := range ps {
					ps[i] = i
				}
				j.full = newJac(m, B, s.T, ps, j.X0, j.Rows)
			}
			out = j.full
			out.Y = j.Y
			if len(j.JY) == 0 {
				out.JY = nil
			} else if len(out.JY) == 0 {
				out.JY = make([]float64, m.NY()*jacRows(j.Rows, s.T, B)*out.D)
			}
		}
		jy := orNil(out.JY)
		ta, okAt := s.k.(TangentRollerAt)
		switch {
		case fitK:
			var fb []float64 // the normal equations: the kernel's block
			if j.Fit.JTJ != nil || j.Fit.JTR != nil {
				if n := s.T * FitBlock(m.NY(), out.D); len(j.fitBuf) != n {
					j.fitBuf = make([]float64, n)
				}
				fb = j.fitBuf
			}
			out.Cost = fr.RollFit(B, s.T, j.X0, j.at, p, q, x0, u, orNil(out.Y), jy, j.XT, orNil(out.JXT), orNil(out.JCost), j.fitArgs(m.NY(), B, out.D), fb)
		case okAt:
			out.Cost = ta.RollTangentAt(B, s.T, j.X0, j.at, p, q, x0, u, orNil(out.Y), jy, j.XT, orNil(out.JXT), orNil(out.JCost))
		case jy != nil && j.Rows != nil:
			// A kernel that stores every row: into a full block, then
			// the rows of j gathered out of it.
			if n := m.NY() * s.T * B * out.D; len(out.gather) != n {
				out.gather = make([]float64, n)
			}
			out.Cost = tr.RollTangent(B, s.T, j.X0, p, q, x0, u, orNil(out.Y), out.gather, j.XT, orNil(out.JXT), orNil(out.JCost))
			out.gatherRows(m.NY(), s.T*B)
		default:
			out.Cost = tr.RollTangent(B, s.T, j.X0, p, q, x0, u, orNil(out.Y), jy, j.XT, orNil(out.JXT), orNil(out.JCost))
		}
		if out != j {
			j.Cost = out.Cost
			j.selectColumns(out, m.NP(), S)
		}
		if fitK {
			if out != j {
				j.selectFit(&j.fitK, m.NP(), S, B)
			} else {
				j.Fit.SSR = j.fitK.SSR
			}
		}
		if reduce {
			j.reduceFit(&j.frun, m.NY(), s.T, B)
			j.Y, j.JY = userY, userJY
		}
	} else {
		if s.tin == nil || !s.tin.same(j.Params, j.X0) {
			s.tin = newFwdInterp(m.prog, m.NP(), j.Params, j.X0)
		}
		var run *fitRun
		if j.Fit != nil {
			run = &j.frun
			run.start(j.Fit, m.NY(), jacRows(j.Rows, s.T, B), j.D, B)
		}
		j.Cost = s.tin.roll(B, s.T, j.at, p, q, x0, u, orNil(j.Y), orNil(j.JY), j.XT, orNil(j.JXT), orNil(j.JCost), run)
		if run != nil {
			run.finish()
		}
	}
	copy(s.X[:S*B], x0)
	copy(s.X[s.T*S*B:], j.XT)
	s.stale, s.cost = true, j.Cost
	if !finite(j.Cost) || !allFinite(j.XT) {
		// Roll forward storing the states, to name where it diverged.
		busy = false
		s.busy.Store(false)
		_, err := s.Forward(p, q, x0, u, nil)
		if err == nil {
			err = fmt.Errorf("dyn: %s: the forward-mode rollout is not finite where Forward is", m.spec.Name)
		}
		return err
	}
	if j.Fit != nil && !finite(j.Fit.SSR) {
		return j.fitError(m, s.T, B)
	}
	s.ran = true
	return nil
}

// fitArgs is the Fit a FitRoller gets: Weight never nil, and the lanes'
// blocks over all D columns it computes (the caller's, or scratch when j's
// columns are a subset of them).
func (j *Jac) fitArgs(ny, B, D int) *Fit {
	f, a := j.Fit, &j.fitK
	a.Meas, a.Weight, a.R, a.JTJ, a.JTR = f.Meas, f.Weight, f.R, f.JTJ, f.JTR
	if a.Weight == nil {
		if len(j.ones) != ny {
			j.ones = make([]float64, ny)
			for i := range j.ones {
				j.ones[i] = 1
			}
		}
		a.Weight = j.ones
	}
	if D != j.D {
		a.JTJ, a.JTR = nil, nil
		if f.JTJ != nil {
			if len(j.fullFit.JTJ) != B*D*D {
				j.fullFit.JTJ = make([]float64, B*D*D)
			}
			a.JTJ = j.fullFit.JTJ
		}
		if f.JTR != nil {
			if len(j.fullFit.JTR) != B*D {
				j.fullFit.JTR = make([]float64, B*D)
			}
			a.JTR = j.fullFit.JTR
		}
	}
	return a
}

// gatherRows copies the stored rows out of gather (all tb = T·B rows of
// each of the ny outputs) into JY.
func (j *Jac) gatherRows(ny, tb int) {
	D, K := j.D, len(j.Rows)
	for c := range ny {
		for k, r := range j.Rows {
			copy(j.JY[(c*K+k)*D:(c*K+k+1)*D], j.gather[(c*tb+r)*D:(c*tb+r+1)*D])
		}
	}
}

// selectColumns copies the columns of j's directions out of full, which
// has all NP parameters' columns (and the same X0 columns).
func (j *Jac) selectColumns(full *Jac, np, S int) {
	D, F := j.D, full.D
	col := make([]int, 0, D) // j's column c is full's column col[c]
	col = append(col, j.Params...)
	if j.X0 {
		for k := range S {
			col = append(col, np+k)
		}
	}
	for _, pair := range [][2][]float64{{j.JY, full.JY}, {j.JXT, full.JXT}, {j.JCost, full.JCost}} {
		dst, src := pair[0], pair[1]
		if len(dst) == 0 {
			continue
		}
		for r := range len(dst) / D {
			row, frow := dst[r*D:(r+1)*D], src[r*F:(r+1)*F]
			for c, fc := range col {
				row[c] = frow[fc]
			}
		}
	}
}

// fwdInterp carries tangents through the interpreter: per node, D lanes
// of n tangents ([D][n]) beside its n values, derived from the same
// partial derivatives as the reverse pass.
type fwdInterp struct {
	in   *interp
	np   int
	ps   []int
	x0   bool
	D    int
	n    int
	has  []bool      // node carries a tangent
	tv   [][]float64 // per node: [D][n] (nil when it carries none)
	tb   []float64   // backing of the ops' tangents
	xs   [2][]float64
	ts   [2][]float64 // state tangents [S][D][n]
	zero []float64
	g    []float64 // one row's tangents (Fit)
}

func newFwdInterp(p *program, np int, ps []int, x0 bool) *fwdInterp {
	f := &fwdInterp{in: &interp{p: p}, np: np, ps: append([]int(nil), ps...), x0: x0}
	f.D = len(ps)
	if x0 {
		f.D += len(p.next)
	}
	pdir := make([]int, np)
	for i := range pdir {
		pdir[i] = -1
	}
	for d, k := range ps {
		pdir[k] = d
	}
	f.has = make([]bool, len(p.nodes))
	for i, nd := range p.nodes {
		switch {
		case nd.op == opState:
			f.has[i] = true
		case nd.op == opParam:
			f.has[i] = pdir[int(nd.k)] >= 0
		case !nd.op.isLeaf() && nd.op.passesGradient():
			for _, o := range tangentOperands(nd) {
				f.has[i] = f.has[i] || f.has[o]
			}
		}
	}
	return f
}

// tangentOperands are the operands whose tangents reach the node's: all
// but Where's condition and Copysign's sign.
func tangentOperands(nd node) []int32 {
	switch nd.op {
	case opWhere:
		return []int32{nd.a, nd.b}
	case opCopysign:
		return []int32{nd.a}
	}
	return []int32{nd.a, nd.b, nd.c}[:nd.op.arity()]
}

func (f *fwdInterp) same(ps []int, x0 bool) bool {
	if x0 != f.x0 || len(ps) != len(f.ps) {
		return false
	}
	for i := range ps {
		if ps[i] != f.ps[i] {
			return false
		}
	}
	return true
}

func (f *fwdInterp) resize(n int) {
	if f.n == n && f.tv != nil {
		return
	}
	f.n = n
	p := f.in.p
	S, D := len(p.next), f.D
	f.tv = make([][]float64, len(p.nodes))
	f.tb = make([]float64, len(p.nodes)*D*n)
	for i, nd := range p.nodes {
		if !f.has[i] {
			continue
		}
		f.tv[i] = f.tb[i*D*n : (i+1)*D*n : (i+1)*D*n]
		if nd.op == opParam { // the unit tangent of its direction
			for d, k := range f.ps {
				if k == int(nd.k) {
					for j := range n {
						f.tv[i][d*n+j] = 1
					}
				}
			}
		}
	}
	for b := range 2 {
		f.xs[b] = make([]float64, S*n)
		f.ts[b] = make([]float64, S*D*n)
	}
	f.zero = make([]float64, n)
	f.g = make([]float64, D)
}

// roll is TangentRollerAt's RollTangentAt for the directions of f.
// With fit, the outputs' rows also form the fit's residuals and normal
// equations, and jy receives the weighted rows.
func (f *fwdInterp) roll(n, T int, at []int32, p, q, x0, u, y, jy, xT, jxT, jc []float64, fit *fitRun) float64 {
	f.resize(n)
	pr := f.in.p
	S, U, D, NP := len(pr.next), len(pr.leafOf[opInput]), f.D, len(f.ps)
	x, tx := f.xs[0], f.ts[0]
	copy(x, x0)
	clear(tx)
	if f.x0 {
		for k := range S {
			for j := range n {
				tx[(k*D+NP+k)*n+j] = 1
			}
		}
	}
	if jc != nil {
		clear(jc)
	}
	var cost float64
	for t := range T {
		xn, txn := f.xs[(t+1)%2], f.ts[(t+1)%2]
		in := f.in
		in.bind(n, p, q, x, u[t*U*n:(t+1)*U*n])
		in.run()
		for k, id := range pr.leafOf[opState] {
			if id >= 0 {
				f.tv[id] = tx[k*D*n : (k+1)*D*n : (k+1)*D*n]
			}
		}
		f.tangents()
		if y != nil {
			for c, id := range pr.out {
				copy(y[(c*T+t)*n:(c*T+t+1)*n], in.val[id])
			}
		}
		if fit != nil {
			g := f.g[:D]
			for j := range n {
				k := t*n + j
				if at != nil {
					k = int(at[k])
				}
				if k < 0 {
					continue
				}
				for c, id := range pr.out {
					f.scatterLane(g, id, j)
					fit.row(j, c, k, in.val[id][j], g)
					if jy != nil {
						copy(jy[(c*fit.K+k)*D:(c*fit.K+k+1)*D], g)
					}
				}
			}
		} else if jy != nil && at == nil {
			for c, id := range pr.out {
				f.scatter(jy[(c*T+t)*n*D:(c*T+t+1)*n*D], id, false)
			}
		} else if jy != nil {
			K := len(jy) / (len(pr.out) * D)
			for j := range n {
				k := int(at[t*n+j])
				if k < 0 {
					continue
				}
				for c, id := range pr.out {
					f.scatterLane(jy[(c*K+k)*D:(c*K+k+1)*D], id, j)
				}
			}
		}
		if pr.cost >= 0 {
			for _, v := range in.val[pr.cost] {
				cost += v
			}
			if jc != nil {
				f.scatter(jc, pr.cost, true)
			}
		}
		for k, id := range pr.next {
			copy(xn[k*n:(k+1)*n], in.val[id])
			dst := txn[k*D*n : (k+1)*D*n]
			if f.tv[id] == nil {
				clear(dst)
			} else {
				copy(dst, f.tv[id])
			}
		}
		x, tx = xn, txn
	}
	copy(xT, x)
	if jxT != nil {
		for k := range S {
			for j := range n {
				for d := range D {
					jxT[(k*n+j)*D+d] = tx[(k*D+d)*n+j]
				}
			}
		}
	}
	return cost
}

// scatter writes (or adds) node id's tangents [D][n] into rows [n][D].
func (f *fwdInterp) scatter(dst []float64, id int32, add bool) {
	n, D := f.n, f.D
	tv := f.tv[id]
	for j := range n {
		row := dst[j*D : (j+1)*D]
		for d := range D {
			var v float64
			if tv != nil {
				v = tv[d*n+j]
			}
			if add {
				row[d] += v
			} else {
				row[d] = v
			}
		}
	}
}

// scatterLane writes node id's tangents of lane j into row.
func (f *fwdInterp) scatterLane(row []float64, id int32, j int) {
	tv := f.tv[id]
	for d := range row {
		row[d] = 0
		if tv != nil {
			row[d] = tv[d*f.n+j]
		}
	}
}

// tangents computes every op's tangents from its operands', with the
// partial derivatives of the reverse pass: selections (Where, Min, Max,
// Clamp) select the tangent of the operand they return, and a zero tangent
// contributes nothing (so an infinite partial, √ at 0, meets no 0·Inf).
func (f *fwdInterp) tangents() {
	in, pr, n, D := f.in, f.in.p, f.n, f.D
	for i := int(pr.firstOp); i < len(pr.nodes); i++ {
		if !f.has[i] {
			continue
		}
		nd := &pr.nodes[i]
		td := f.tv[i]
		a, v := in.val[nd.a][:n], in.val[i][:n]
		ta, tb, tc := f.tan(nd.a), []float64(nil), []float64(nil)
		var b, c []float64
		if ar := nd.op.arity(); ar > 1 {
			b, tb = in.val[nd.b][:n], f.tan(nd.b)
			if ar > 2 {
				c, tc = in.val[nd.c][:n], f.tan(nd.c)
			}
		}
		for d := range D {
			dst := td[d*n : (d+1)*n]
			pa, pb, pc := f.dir(ta, d), f.dir(tb, d), f.dir(tc, d)
			switch nd.op {
			case opAdd:
				for j := range dst {
					dst[j] = pa[j] + pb[j]
				}
			case opSub:
				for j := range dst {
					dst[j] = pa[j] - pb[j]
				}
			case opNeg:
				for j := range dst {
					dst[j] = -pa[j]
				}
			case opMul: // partials (b, a), inlined
				for j := range dst {
					var s float64
					if pa[j] != 0 {
						s += pa[j] * b[j]
					}
					if pb[j] != 0 {
						s += pb[j] * a[j]
					}
					dst[j] = s
				}
			case opDiv: // partials (1/b, −v/b), inlined
				for j := range dst {
					var s float64
					if pa[j] != 0 {
						s += pa[j] * (1 / b[j])
					}
					if pb[j] != 0 {
						s += pb[j] * (-v[j] / b[j])
					}
					dst[j] = s
				}
			case opWhere:
				for j := range dst {
					if c[j] != 0 {
						dst[j] = pa[j]
					} else {
						dst[j] = pb[j]
					}
				}
			case opMin:
				for j := range dst {
					if a[j] <= b[j] {
						dst[j] = pa[j]
					} else {
						dst[j] = pb[j]
					}
				}
			case opMax:
				for j := range dst {
					if a[j] >= b[j] {
						dst[j] = pa[j]
					} else {
						dst[j] = pb[j]
					}
				}
			case opClamp:
				for j := range dst {
					switch {
					case a[j] < b[j]:
						dst[j] = pb[j]
					case a[j] > c[j]:
						dst[j] = pc[j]
					default:
						dst[j] = pa[j]
					}
				}
			case opCopysign:
				for j := range dst {
					dst[j] = 0
					if pa[j] != 0 {
						da, _, _ := partials(nd.op, a[j], b[j], 0, v[j])
						dst[j] = pa[j] * da
					}
				}
			default:
				for j := range dst {
					var bj, cj float64
					if b != nil {
						bj = b[j]
					}
					if c != nil {
						cj = c[j]
					}
					da, db, dc := partials(nd.op, a[j], bj, cj, v[j])
					var s float64
					if pa[j] != 0 {
						s += pa[j] * da
					}
					if pb[j] != 0 {
						s += pb[j] * db
					}
					if pc[j] != 0 {
						s += pc[j] * dc
					}
					dst[j] = s
				}
			}
		}
	}
}

// tan is node id's tangents [D][n], or nil when it carries none.
func (f *fwdInterp) tan(id int32) []float64 { return f.tv[id] }

// dir is direction d of tangents t (zeros when t is nil).
func (f *fwdInterp) dir(t []float64, d int) []float64 {
	if t == nil {
		return f.zero
	}
	return t[d*f.n : (d+1)*f.n]
}

// Expand writes the Jacobian of the outputs with the initial states'
// columns spread out, as a least-squares solver over the parameters and
// every lane's initial state wants it: dst is [NY·T·B][P + S·B] row-major
// (with Rows, [NY·len(Rows)][P + S·B], JY's rows), columns 0…P−1 the
// parameters (j.Params), then state k of lane b at column P + k·B + b (zero
// outside the row's own lane). B is the Sim's lane count. Without X0 it
// copies JY.
func (j *Jac) Expand(dst []float64, B int) error {
	P := len(j.Params)
	S := j.D - P
	unit := j.D * max(B, 1) // the rows come in whole steps of B lanes
	if j.Rows != nil {
		unit = j.D * max(len(j.Rows), 1)
	}
	if B < 1 || j.D < 1 || len(j.JY)%unit != 0 {
		return fmt.Errorf("dyn: Jac.Expand: %d Jacobian values do not hold rows of %d columns over %d lanes", len(j.JY), j.D, B)
	}
	m := len(j.JY) / j.D
	W := P + S*B
	if len(dst) != m*W {
		return fmt.Errorf("dyn: Jac.Expand: %d values, want %d (%d rows × %d columns)", len(dst), m*W, m, W)
	}
	clear(dst)
	for i := range m {
		row, src := dst[i*W:(i+1)*W], j.JY[i*j.D:(i+1)*j.D]
		copy(row, src[:P])
		b := i % B
		if j.Rows != nil {
			b = j.Rows[i%len(j.Rows)] % B
		}
		for k := range S {
			row[P+k*B+b] = src[P+k]
		}
	}
	return nil
}
