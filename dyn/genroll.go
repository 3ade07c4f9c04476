package dyn

import (
	"bytes"
	"fmt"
)

// RolloutKernel is a Kernel that also runs a whole rollout, every step of
// every lane, in one call; generated kernels implement it and Sim uses it
// when its kernel does. Two things make it faster than a step per call, for
// narrow batches over long horizons above all (a few runs of thousands of
// steps): the expressions of parameters and settings alone (a friction gain
// M·g·r/(4·Ts), 1 − μ·K) are computed once per rollout, not per step, and
// their adjoints are summed over the rollout before being propagated; and
// the forward pass saves the values of its transcendental functions (sin,
// cos, exp, …) on a tape that the reverse pass reads instead of calling
// them again (what it recomputes from the stored states is arithmetic).
//
// Layouts are those of Sim: X holds the T+1 states [T+1][S][B] (X[0:S·B]
// the initial state, which ForwardRollout reads; it writes the others), u
// the inputs [T][U][B], y and ybar the outputs [NY][T][B] (may be nil), and
// tape [T][TapeLen][B]. ReverseRollout takes in lam the adjoint of the final
// state [S][B] and leaves there the adjoint of the initial state; it writes
// ubar ([T][U][B], may be nil) and adds the parameters' adjoints into pbar.
// The values equal Kernel's step by step up to the order of the sums of
// parameter adjoints (rounding).
type RolloutKernel interface {
	Kernel
	TapeLen() int
	ForwardRollout(B, T int, p, q, X, u, tape, y []float64) float64
	ReverseRollout(B, T int, p, q, X, u, tape, ybar []float64, cbar float64, lam, ubar, pbar []float64)
	// ReverseRolloutStates is S reverse passes at once, sharing the values
	// they recompute: lam holds S seeds [S][S][B] (seed k: the adjoint of
	// the final state, replaced by that of the initial state) and pbar
	// [S][P] receives each seed's parameter adjoints. With the identity as
	// seeds it is the Jacobian of the final state (summed over the lanes),
	// what a filter linearising a rollout needs (Sim.FinalJacobian).
	ReverseRolloutStates(B, T int, p, q, X, u, tape, lam, pbar []float64)
}

// taped reports the ops whose values the forward rollout saves.
func taped(o opcode) bool {
	switch o {
	case opSin, opCos, opTan, opAtan, opAtan2, opExp, opLog, opLog1p, opSqrt, opTanh:
		return true
	}
	return false
}

// rollAnalyse finds the invariant nodes (of parameters, settings and
// constants alone) and gives each taped op that is not invariant its slot.
func (g *gen) rollAnalyse() (inv []bool, slot []int, nt int) {
	p := g.p
	inv = make([]bool, len(p.nodes))
	slot = make([]int, len(p.nodes))
	for i, nd := range p.nodes {
		slot[i] = -1
		switch {
		case nd.op == opConst || nd.op == opParam || nd.op == opSetting:
			inv[i] = true
		case !nd.op.isLeaf():
			inv[i] = true
			ops := [3]int32{nd.a, nd.b, nd.c}
			for j := range nd.op.arity() {
				inv[i] = inv[i] && inv[ops[j]]
			}
		}
		if !inv[i] && taped(nd.op) {
			slot[i] = nt
			nt++
		}
	}
	return inv, slot, nt
}

// unused returns, for a pass that computes the nodes computed[i], the nodes
// whose value no computed node reads (a result, or an operand of taped
// nodes only): the generated code marks them used, as Go requires.
func (g *gen) unused(computed []bool) []bool {
	p := g.p
	read := make([]bool, len(p.nodes))
	for i, nd := range p.nodes {
		if nd.op.isLeaf() || !computed[i] {
			continue
		}
		ops := [3]int32{nd.a, nd.b, nd.c}
		for j := range nd.op.arity() {
			read[ops[j]] = true
		}
	}
	out := make([]bool, len(p.nodes))
	for i, nd := range p.nodes {
		out[i] = !read[i] && nd.op != opConst
	}
	return out
}

// rollout writes the RolloutKernel methods of typeName.
func (g *gen) rollout(b *bytes.Buffer, typeName string) {
	w := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	p := g.p
	S := g.m.NS()
	inv, slot, nt := g.rollAnalyse()
	usesX, usesU := false, false
	for _, nd := range p.nodes[:p.firstOp] {
		usesX = usesX || nd.op == opState
		usesU = usesU || nd.op == opInput
	}
	invariants := func() {
		for i := int(p.firstOp); i < len(p.nodes); i++ {
			if inv[i] {
				g.emitOp(b, int32(i))
			}
		}
	}

	w("// TapeLen implements dyn.RolloutKernel.\n")
	w("func (%s) TapeLen() int { return %d }\n\n", typeName, nt)

	// Forward.
	w("// ForwardRollout implements dyn.RolloutKernel.\n")
	w("func (%s) ForwardRollout(B, T int, p, q, X, u, tape, y []float64) float64 {\n", typeName)
	g.shared(b)
	invariants()
	w("\tys := T * B\n\tvar cost float64\n")
	w("\tfor t := 0; t < T; t++ {\n")
	g.stepSlices(b, usesX, usesU, nt, false)
	if p.cost >= 0 {
		w("\t\tvar ct float64\n")
	}
	w("\t\tfor j := 0; j < B; j++ {\n")
	g.loads(b, "x", "ut", "B")
	for i := int(p.firstOp); i < len(p.nodes); i++ {
		if inv[i] {
			continue
		}
		g.emitOp(b, int32(i))
		if slot[i] < 0 {
			continue
		}
		if si, ci, ok := g.sincos(int32(i)); ok {
			if int32(i) == min(si, ci) {
				w("\t\ttp[%d*B+j] = %s\n\t\ttp[%d*B+j] = %s\n", slot[si], g.val(si), slot[ci], g.val(ci))
			}
			continue
		}
		w("\t\ttp[%d*B+j] = %s\n", slot[i], g.val(int32(i)))
	}
	for k, id := range p.next {
		w("\t\txn[%d*B+j] = %s\n", k, g.val(id))
	}
	w("\t\tif y != nil {\n")
	for c, id := range p.out {
		w("\t\t\ty[%d*ys+t*B+j] = %s\n", c, g.val(id))
	}
	w("\t\t}\n")
	if p.cost >= 0 {
		w("\t\tct += %s\n", g.val(p.cost))
	}
	w("\t\t}\n")
	if p.cost >= 0 {
		w("\t\tcost += ct\n")
	}
	w("\t}\n")
	w("\t_ = ys\n\treturn cost\n}\n\n")

	// Reverse.
	computed := make([]bool, len(p.nodes))
	for i := int(p.firstOp); i < len(p.nodes); i++ {
		computed[i] = slot[i] < 0
	}
	unread := g.unused(computed)
	// The products in the loops skip their zero-adjoint guard when only an
	// invariant operand could be non-finite (a gain 1/T of the settings):
	// the invariants are checked once, and if one is ±Inf or NaN the step
	// kernel, whose products all keep their guards, does the pass.
	rollNF := make([]bool, len(p.nodes))
	var check []string
	for i, nd := range p.nodes {
		if inv[i] {
			if g.mayBeNonFinite[i] && !nd.op.isLeaf() {
				check = append(check, g.val(int32(i)))
			}
			continue
		}
		rollNF[i] = g.mayBeNonFinite[i] && (nonFiniteSource(nd.op) || anyOperand(nd, rollNF))
	}
	g.inv = inv
	defer func() { g.inv = nil }()
	for _, seeds := range []bool{false, true} {
		if seeds {
			w("// ReverseRolloutStates implements dyn.RolloutKernel.\n")
			w("func (%s) ReverseRolloutStates(B, T int, p, q, X, u, tape, lam, pbar []float64) {\n", typeName)
		} else {
			w("// ReverseRollout implements dyn.RolloutKernel.\n")
			w("func (%s) ReverseRollout(B, T int, p, q, X, u, tape, ybar []float64, cbar float64, lam, ubar, pbar []float64) {\n", typeName)
		}
		g.shared(b)
		invariants()
		for i, nd := range p.nodes {
			if inv[i] && unread[i] && (nd.op == opParam || nd.op == opSetting || !nd.op.isLeaf()) {
				w("\t_ = %s\n", g.val(int32(i)))
			}
		}
		if len(check) > 0 {
			w("\tif !dyn.AllFinite(%s) {\n", joinComma(check))
			if seeds {
				w("\t\tfor k := 0; k < %d; k++ {\n", S)
				w("\t\t\tdyn.ReverseByStep(%s{}, B, T, p, q, X, u, nil, 0, lam[k*%d*B:(k+1)*%d*B], nil, pbar[k*%d:(k+1)*%d])\n\t\t}\n", typeName, S, S, g.m.NP(), g.m.NP())
			} else {
				w("\t\tdyn.ReverseByStep(%s{}, B, T, p, q, X, u, ybar, cbar, lam, ubar, pbar)\n", typeName)
			}
			w("\t\treturn\n\t}\n")
		}
		// Adjoints of the invariant nodes (parameters included): sums over
		// the rollout (one per seed), propagated to the parameters after it.
		g.seeds = seeds
		var acc []string
		for i := range p.nodes {
			if inv[i] && g.need[i] {
				acc = append(acc, "g"+g.val(int32(i)))
			}
		}
		if len(acc) > 0 {
			if seeds {
				w("\tvar %s [%d]float64\n", joinComma(acc), S)
			} else {
				w("\tvar %s float64\n", joinComma(acc))
			}
		}
		nf := g.mayBeNonFinite
		g.mayBeNonFinite = rollNF
		if seeds {
			g.reverseLoop(b, inv, slot, unread, usesX, usesU, false)
		} else {
			w("\tys := T * B\n")
			// Two copies of the loop: without the inputs' adjoints
			// (identification: the gradient is wanted for parameters and
			// initial states only) and with them (control synthesis).
			w("\tif ubar == nil {\n")
			g.reverseLoop(b, inv, slot, unread, usesX, usesU, false)
			w("\t} else {\n")
			g.reverseLoop(b, inv, slot, unread, usesX, usesU, true)
			w("\t}\n\t_ = ys\n")
		}
		g.mayBeNonFinite = nf
		if seeds {
			w("\tfor k := 0; k < %d; k++ {\n", S)
		}
		for i := len(p.nodes) - 1; i >= int(p.firstOp); i-- {
			if inv[i] && g.need[i] && p.nodes[i].op.passesGradient() {
				g.reverseOp(b, int32(i))
			}
		}
		for k, id := range p.leafOf[opParam] {
			if id >= 0 && g.need[id] {
				if seeds {
					w("\tpbar[k*%d+%d] += %s\n", g.m.NP(), k, g.adj(id))
				} else {
					w("\tpbar[%d] += %s\n", k, g.adj(id))
				}
			}
		}
		if seeds {
			w("\t}\n")
		}
		g.seeds = false
		w("}\n\n")
	}
}

func joinComma(s []string) string {
	var b bytes.Buffer
	for i, v := range s {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(v)
	}
	return b.String()
}

// reverseLoop writes the time loop of ReverseRollout, with or without the
// inputs' adjoints.
func (g *gen) reverseLoop(b *bytes.Buffer, inv []bool, slot []int, unread []bool, usesX, usesU bool, withU bool) {
	w := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	p := g.p
	U := g.m.NU()
	nt := 0
	for _, s := range slot {
		nt = max(nt, s+1)
	}
	g.noInputs = !withU
	defer func() { g.noInputs = false }()
	w("\tfor t := T - 1; t >= 0; t-- {\n")
	g.stepSlices(b, usesX, usesU, nt, true)
	w("\t\tfor j := 0; j < B; j++ {\n")
	g.loads(b, "x", "ut", "B")
	lam := "lam"
	if g.seeds {
		lam = "lk"
	}
	for i := int(p.firstOp); i < len(p.nodes); i++ {
		if inv[i] {
			continue
		}
		if slot[i] < 0 {
			g.emitOp(b, int32(i))
			continue
		}
		if si, ci, ok := g.sincos(int32(i)); ok {
			if int32(i) == min(si, ci) {
				w("\t\t%s, %s := tp[%d*B+j], tp[%d*B+j]\n", g.val(si), g.val(ci), slot[si], slot[ci])
			}
			continue
		}
		w("\t\t%s := tp[%d*B+j]\n", g.val(int32(i)), slot[i])
	}
	for i := range p.nodes {
		if !inv[i] && unread[i] {
			w("\t\t_ = %s\n", g.val(int32(i)))
		}
	}
	if g.seeds {
		// one adjoint sweep per seed, sharing the recomputed values
		w("\t\tfor k := 0; k < %d; k++ {\n", g.m.NS())
		w("\t\tlk := lam[k*%d*B : (k+1)*%d*B]\n", g.m.NS(), g.m.NS())
	}
	var decl []string
	for i := range p.nodes {
		if !inv[i] && g.needs(int32(i)) {
			decl = append(decl, g.adj(int32(i)))
		}
	}
	if len(decl) > 0 {
		w("\t\tvar %s float64\n", joinComma(decl))
	}
	for k, id := range p.next {
		if g.needs(id) {
			w("\t\t%s += %s[%d*B+j]\n", g.adj(id), lam, k)
		}
	}
	if !g.seeds {
		w("\t\tif ybar != nil {\n")
		for c, id := range p.out {
			if g.needs(id) {
				w("\t\t\t%s += ybar[%d*ys+t*B+j]\n", g.adj(id), c)
			}
		}
		w("\t\t}\n")
		if p.cost >= 0 && g.needs(p.cost) {
			w("\t\t%s += cbar\n", g.adj(p.cost))
		}
	}
	for i := len(p.nodes) - 1; i >= int(p.firstOp); i-- {
		if !inv[i] && g.needs(int32(i)) && p.nodes[i].op.passesGradient() {
			g.reverseOp(b, int32(i))
		}
	}
	for k, id := range p.leafOf[opState] {
		if id >= 0 && g.needs(id) {
			w("\t\t%s[%d*B+j] = %s\n", lam, k, g.adj(id))
		} else {
			w("\t\t%s[%d*B+j] = 0\n", lam, k)
		}
	}
	if g.seeds {
		w("\t\t}\n")
	}
	if withU {
		for k, id := range p.leafOf[opInput] {
			if id >= 0 && g.need[id] {
				w("\t\t\tubar[(t*%d+%d)*B+j] = %s\n", U, k, g.adj(id))
			} else {
				w("\t\t\tubar[(t*%d+%d)*B+j] = 0\n", U, k)
			}
		}
	}
	w("\t\t}\n\t}\n")
}

// stepSlices writes the slices of step t: its state x (and next state xn
// in the forward pass), inputs ut and tape tp.
func (g *gen) stepSlices(b *bytes.Buffer, usesX, usesU bool, nt int, reverse bool) {
	w := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	S, U := g.m.NS(), g.m.NU()
	if usesX {
		w("\t\tx := X[t*%d*B : (t+1)*%d*B]\n", S, S)
	}
	if !reverse {
		w("\t\txn := X[(t+1)*%d*B : (t+2)*%d*B]\n", S, S)
	}
	if usesU {
		w("\t\tut := u[t*%d*B : (t+1)*%d*B]\n", U, U)
	}
	if nt > 0 {
		w("\t\ttp := tape[t*%d*B : (t+1)*%d*B]\n", nt, nt)
	}
}

// nonFiniteSource reports the ops that can make ±Inf or NaN of finite
// operands (see gen.mayBeNonFinite).
func nonFiniteSource(o opcode) bool {
	switch o {
	case opDiv, opLog, opLog1p, opSqrt, opTan, opExp:
		return true
	}
	return false
}

// anyOperand reports whether flag holds for a value operand of nd (a
// Where's condition and the outputs of comparisons and Sign excluded, as in
// gen.analyse).
func anyOperand(nd node, flag []bool) bool {
	if nd.op == opSign || nd.op >= opGt {
		return false
	}
	ops := [3]int32{nd.a, nd.b, nd.c}
	for j := range nd.op.arity() {
		if nd.op == opWhere && j == 2 {
			continue
		}
		if flag[ops[j]] {
			return true
		}
	}
	return false
}
