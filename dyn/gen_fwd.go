package dyn

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Forward-mode and value-only kernels: Generate writes, beside the reverse
// kernel, RollFinal (FinalRoller: the rollout with the state in registers,
// nothing stored) and RollTangent (TangentRoller: the same with the
// tangents of every value with respect to all NP parameters, and
// optionally the lane's initial states, each direction a scalar variable).
// The tangents follow the interpreter's forward mode (fwdInterp) term for
// term: the same partial derivatives, selections for Where, Min, Max and
// Clamp, and a zero tangent through √ contributes nothing.

// fgen emits one forward rollout: D directions, the first NP the
// parameters, then (x0) the S initial states.
type fgen struct {
	*gen
	D, NP, S int
	x0       bool
	tangents bool     // RollTangent's signature (D may still be 0: a model without parameters)
	fitRoll  bool     // RollFit's: the fit's residuals and normal equations in the loop
	fitNorm  bool     // with fitRoll: the normal equations (values and tangents into fb, then fitFlush)
	dep      [][]bool // dep[i][d]: the tangent of node i in direction d may be nonzero
	needT    []bool   // node i's tangent is read (by a result or an op that reads it)
	depS     [][]bool // per state: its carried tangent may be nonzero
	// Tangents that are a copy or the negation of another (−x, x − y in a
	// direction where x's tangent is zero) get no variable of their own:
	// alias holds them, and their readers fold the sign into a sum or an
	// invariant coefficient (see sum), exactly: −(a·c) = a·(−c) and
	// s − (−a) = s + a in IEEE arithmetic.
	alias map[[2]int32]term
	invc  map[string]bool   // the invariant coefficients (parameters, settings, invariant values, 1/b of an invariant b)
	negc  map[string]string // an invariant coefficient's negation, declared before the loops
	pre   *bytes.Buffer     // where emitTangent declares invariant factors
}

func newFgen(g *gen, x0, tangents bool) *fgen {
	p := g.p
	f := &fgen{gen: g, NP: len(p.leafOf[opParam]), S: len(p.next), x0: x0, tangents: tangents, invc: map[string]bool{}}
	for i, nd := range p.nodes {
		if g.inv[i] && nd.op != opConst {
			f.invc[g.val(int32(i))] = true
		}
	}
	if tangents {
		f.D = f.NP
		if x0 {
			f.D += f.S
		}
	}
	f.depS = make([][]bool, f.S)
	for k := range f.S {
		f.depS[k] = make([]bool, f.D)
		if x0 && tangents {
			f.depS[k][f.NP+k] = true
		}
	}
	f.dep = make([][]bool, len(p.nodes))
	for i := range f.dep {
		f.dep[i] = make([]bool, f.D)
	}
	// The states' dependences grow step by step: iterate to the fixpoint.
	for changed := true; changed; {
		changed = false
		for i, nd := range p.nodes {
			dst := f.dep[i]
			switch {
			case nd.op == opState:
				copy(dst, f.depS[int(nd.k)])
			case nd.op == opParam:
				if int(nd.k) < f.D {
					dst[int(nd.k)] = true
				}
			case !nd.op.isLeaf() && nd.op.passesGradient():
				for _, o := range tangentOperands(nd) {
					for d, v := range f.dep[o] {
						dst[d] = dst[d] || v
					}
				}
			}
		}
		for k, id := range p.next {
			for d, v := range f.dep[id] {
				if v && !f.depS[k][d] {
					f.depS[k][d], changed = true, true
				}
			}
		}
	}
	f.needT = make([]bool, len(p.nodes))
	mark := func(id int32) {
		if id >= 0 && f.any(id) {
			f.needT[id] = true
		}
	}
	for _, id := range p.next {
		mark(id)
	}
	for _, id := range p.out {
		mark(id)
	}
	mark(p.cost)
	for i := len(p.nodes) - 1; i >= int(p.firstOp); i-- {
		nd := p.nodes[i]
		if !f.needT[i] || !nd.op.passesGradient() {
			continue
		}
		for _, o := range tangentOperands(nd) {
			mark(o)
		}
	}
	return f
}

func (f *fgen) any(id int32) bool {
	for _, v := range f.dep[id] {
		if v {
			return true
		}
	}
	return false
}

// tan is the Go expression of node id's tangent in direction d: "" when it
// is zero, "1" for a parameter's own direction, else a variable or the
// negation of one (an alias).
func (f *fgen) tan(id int32, d int) string {
	t := f.tterm(id, d)
	switch {
	case t.t == "" || !t.neg:
		return t.t
	case t.t == "1":
		return "-1.0"
	}
	return "-(" + t.t + ")"
}

// tterm is node id's tangent in direction d as a signed term: t is "" (zero),
// "1" or a variable.
func (f *fgen) tterm(id int32, d int) term {
	if !f.dep[id][d] {
		return term{}
	}
	if a, ok := f.alias[[2]int32{id, int32(d)}]; ok {
		return a
	}
	if f.p.nodes[id].op == opParam {
		return term{t: "1"}
	}
	return term{t: f.tname(id, d)}
}

// tname is the variable of node id's tangent in direction d.
func (f *fgen) tname(id int32, d int) string { return fmt.Sprintf("d%s_%d", f.val(id), d) }

// tt is the term ±coef·(node id's tangent in direction d), the sign of an
// alias folded in.
func (f *fgen) tt(id int32, d int, coef string, neg bool) term {
	t := f.tterm(id, d)
	return term{t: t.t, coef: coef, neg: t.neg != neg}
}

// def declares node id's tangent in direction d as the sum ts, or makes it
// an alias when the sum is a single term without a coefficient.
func (f *fgen) def(w func(string, ...any), id int32, d int, ts ...term) {
	e, a := f.sum(ts...)
	if a != nil {
		if f.alias == nil {
			f.alias = map[[2]int32]term{}
		}
		f.alias[[2]int32{id, int32(d)}] = *a
		return
	}
	w("%s := %s\n", f.tname(id, d), e)
}

// negCoef is the variable holding −c for an invariant coefficient c,
// declared (once per kernel) before the loops.
func (f *fgen) negCoef(c string) string {
	if n, ok := f.negc[c]; ok {
		return n
	}
	if f.negc == nil {
		f.negc = map[string]string{}
	}
	n := "n" + c
	f.negc[c] = n
	fmt.Fprintf(f.pre, "%s := -%s\n_ = %s\n", n, c, n)
	return n
}

// sum is sum(ts) with the signs folded where that is exact: a negated
// term with an invariant coefficient multiplies by the coefficient's
// negation, and of two terms the positive one goes first (−a + b = b − a).
// A single term without a coefficient is returned as an alias.
func (f *fgen) sum(ts ...term) (string, *term) {
	var nz []term
	for _, x := range ts {
		if x.t == "" {
			continue
		}
		if x.neg && x.coef != "" && f.invc[x.coef] && f.pre != nil {
			x.neg, x.coef = false, f.negCoef(x.coef)
		}
		nz = append(nz, x)
	}
	if len(nz) == 2 && nz[0].neg && !nz[1].neg {
		nz[0], nz[1] = nz[1], nz[0]
	}
	if len(nz) == 1 && nz[0].coef == "" {
		return "", &nz[0]
	}
	return sum(nz...), nil
}

// orZero is a tangent expression as a value.
func orZero(t string) string {
	switch t {
	case "":
		return "0"
	case "1":
		return "1.0"
	}
	return t
}

// term is coef·t (coef "" for 1), negated with neg.
type term struct {
	neg     bool
	t, coef string
}

// sum is the Go expression Σ ±t·coef, or "" when every t is zero.
func sum(ts ...term) string {
	var s string
	for _, x := range ts {
		if x.t == "" {
			continue
		}
		e := x.t
		switch {
		case x.t == "1" && x.coef == "":
			e = "1.0"
		case x.t == "1":
			e = x.coef
		case x.coef != "":
			e = x.t + " * " + x.coef
		}
		switch {
		case s == "" && x.neg && x.t == "1" && zeroLiteral(x.coef):
			// −(0.0) is Go's constant +0; the −1·0 it stands for is −0
			s = "math.Copysign(0, -1)"
		case s == "" && x.neg:
			s = "-(" + e + ")"
		case s == "":
			s = e
		case x.neg:
			s += " - (" + e + ")"
		default:
			s += " + " + e
		}
	}
	return s
}

// zeroLiteral reports whether c is a numeric literal of value zero.
func zeroLiteral(c string) bool {
	v, err := strconv.ParseFloat(c, 64)
	return err == nil && v == 0
}

// emitTangent writes node id's tangents in every direction it has; a
// partial derivative that depends on invariants alone (1/τ of x/τ) goes
// into pre, before the loops.
func (f *fgen) emitTangent(b, pre *bytes.Buffer, id int32) {
	nd := f.p.nodes[id]
	if !f.needT[id] || nd.op.isLeaf() {
		return
	}
	f.pre = pre
	w := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	v, a := f.val(id), f.val(nd.a)
	var bb, c string
	if nd.op.arity() > 1 {
		bb = f.val(nd.b)
	}
	if nd.op.arity() > 2 {
		c = f.val(nd.c)
	}
	dirs := []int{}
	for d := range f.D {
		if f.dep[id][d] {
			dirs = append(dirs, d)
		}
	}
	anyOf := func(o int32) bool { return f.any(o) }
	// factor declares a partial derivative shared by the directions.
	factor := func(name, expr string, o int32) string {
		if !anyOf(o) {
			return ""
		}
		w("%s := %s\n", name, expr)
		return name
	}
	lin := func(fa, fb string) {
		for _, d := range dirs {
			tb := term{}
			if nd.op.arity() > 1 {
				tb = f.tt(nd.b, d, fb, false)
			}
			f.def(w, id, d, f.tt(nd.a, d, fa, false), tb)
		}
	}
	switch nd.op {
	case opAdd:
		lin("", "")
	case opSub:
		for _, d := range dirs {
			f.def(w, id, d, f.tt(nd.a, d, "", false), f.tt(nd.b, d, "", true))
		}
	case opNeg:
		for _, d := range dirs {
			f.def(w, id, d, f.tt(nd.a, d, "", true))
		}
	case opMul:
		lin(bb, a)
	case opDiv:
		// ∂/∂b = −v/b as −v·(1/b): one division per step, none when b
		// is invariant.
		if !anyOf(nd.a) && !anyOf(nd.b) {
			break
		}
		dst := b
		if f.inv[nd.b] {
			dst = pre
		}
		fmt.Fprintf(dst, "fa%s := 1 / %s\n_ = fa%s\n", v, bb, v)
		if f.inv[nd.b] {
			f.invc["fa"+v] = true
		}
		fb := ""
		if anyOf(nd.b) {
			fb = factor("fb"+v, "-("+v+" * fa"+v+")", nd.b)
		}
		fa := ""
		if anyOf(nd.a) {
			fa = "fa" + v
		}
		lin(fa, fb)
	case opSin:
		if o := f.pair[id]; o >= 0 {
			lin(f.val(o), "")
		} else {
			lin(factor("fa"+v, "math.Cos("+a+")", nd.a), "")
		}
	case opCos:
		if o := f.pair[id]; o >= 0 {
			lin(factor("fa"+v, "-"+f.val(o), nd.a), "")
		} else {
			lin(factor("fa"+v, "-math.Sin("+a+")", nd.a), "")
		}
	case opTan:
		lin(factor("fa"+v, "1 + "+v+"*"+v, nd.a), "")
	case opAtan:
		lin(factor("fa"+v, "1 / (1 + "+a+"*"+a+")", nd.a), "")
	case opAtan2:
		w("var fa%s, fb%s float64\n", v, v)
		w("if r2 := %s*%s + %s*%s; r2 != 0 {\nfa%s, fb%s = %s / r2, -%s / r2\n}\n", a, a, bb, bb, v, v, bb, a)
		w("_, _ = fa%s, fb%s\n", v, v)
		lin("fa"+v, "fb"+v)
	case opExp:
		lin(v, "")
	case opLog:
		lin(factor("fa"+v, "1 / "+a, nd.a), "")
	case opLog1p:
		lin(factor("fa"+v, "1 / (1 + "+a+")", nd.a), "")
	case opSqrt:
		// √ at 0 has an infinite slope: a zero tangent stays zero.
		fa := factor("fa"+v, "0.5 / "+v, nd.a)
		for _, d := range dirs {
			t := f.tan(nd.a, d)
			if t == "1" {
				w("%s := %s\n", f.tname(id, d), fa)
				continue
			}
			w("var %s float64\nif %s != 0 {\n%s = %s * %s\n}\n", f.tname(id, d), t, f.tname(id, d), t, fa)
		}
	case opTanh:
		lin(factor("fa"+v, "1 - "+v+"*"+v, nd.a), "")
	case opAbs:
		lin(factor("fa"+v, "dyn.SignOf("+a+")", nd.a), "")
	case opCopysign: // the sign operand b passes no tangent
		fa := factor("fa"+v, "math.Copysign(1, "+a+") * math.Copysign(1, "+bb+")", nd.a)
		for _, d := range dirs {
			f.def(w, id, d, f.tt(nd.a, d, fa, false))
		}
	case opMin, opMax, opWhere, opClamp:
		var names []string
		for _, d := range dirs {
			names = append(names, f.tname(id, d))
		}
		w("var %s float64\n", strings.Join(names, ", "))
		set := func(o int32) string {
			var s string
			for _, d := range dirs {
				if t := f.tan(o, d); t != "" {
					s += fmt.Sprintf("%s = %s\n", f.tname(id, d), orZero(t))
				}
			}
			return s
		}
		switch nd.op {
		case opMin:
			b.WriteString(branch(a+" <= "+bb, set(nd.a), set(nd.b)))
		case opMax:
			b.WriteString(branch(a+" >= "+bb, set(nd.a), set(nd.b)))
		case opWhere:
			b.WriteString(branch(f.cond(nd.c), set(nd.a), set(nd.b)))
		case opClamp:
			b.WriteString(branch(a+" < "+bb, set(nd.b), branch(a+" > "+c, set(nd.c), set(nd.a))))
		}
	default:
		panic(fmt.Sprintf("dyn.Generate: tangent of %v", nd.op))
	}
}

// writeRoll writes RollFinal (D = 0) or one RollTangent variant.
func (f *fgen) writeRoll(b *bytes.Buffer, recv, name string) {
	w := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	p := f.p
	U, NY, D := len(p.leafOf[opInput]), len(p.out), f.D
	at := f.tangents && f.rows && D > 0 && NY > 0 // the stored rows are at's
	switch {
	case f.fitRoll:
		w("func (%s) %s(n, T int, at []int32, p, q, x0, u, y, jy, xT, jxT, jc []float64, fit *dyn.Fit, fb []float64) float64 {\n", recv, name)
		at = false
	case !f.tangents:
		w("func (%s) %s(n, T int, p, q, x0, u, y, xT []float64) float64 {\n", recv, name)
	case f.rows:
		w("func (%s) %s(n, T int, at []int32, p, q, x0, u, y, jy, xT, jxT, jc []float64) float64 {\n", recv, name)
	default:
		w("func (%s) %s(n, T int, p, q, x0, u, y, jy, xT, jxT, jc []float64) float64 {\n", recv, name)
	}
	if at {
		w("K := T * n // rows of each output in jy\nif at != nil {\nK = len(jy) / %d\n}\n", NY*D)
	}
	if f.fitRoll {
		f.fitHeader(b)
	}
	f.shared(b)
	for i := int(p.firstOp); i < len(p.nodes); i++ {
		if f.inv[i] {
			f.emitTangent(b, b, int32(i))
		}
	}
	// The loops go into body, the invariant factors they need into pre.
	outer := b
	var pre, body bytes.Buffer
	b = &body
	w = func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	w("var cost float64\n")
	w("for j := 0; j < n; j++ {\n")
	for k := range f.S {
		w("s%d := x0[%d*n+j]\n", k, k)
		for d := range D {
			if f.depS[k][d] {
				init := "0.0"
				if f.x0 && d == f.NP+k {
					init = "1.0"
				}
				w("d%s_%d := %s\n", f.stateName(k), d, init)
			}
		}
	}
	if f.fitRoll {
		f.fitLaneStart(b)
	}
	costDirs := []int{}
	if p.cost >= 0 {
		for d := range D {
			if f.dep[p.cost][d] {
				costDirs = append(costDirs, d)
				w("var dc_%d float64\n", d)
			}
		}
	}
	// Running offsets of the stores (one bounds check per stored row):
	// yo is (0*T+t)*n+j, jo the same times D.
	storeJY := !f.fitRoll && !at && D > 0 && NY > 0
	if NY > 0 {
		w("yo, yT := j, T*n\n_, _ = yo, yT\n")
	}
	if storeJY {
		w("jo, jT := j*%d, T*n*%d\n_, _ = jo, jT\n", D, D)
	}
	w("for t := 0; t < T; t++ {\n")
	w("ub := t * %d * n\n_ = ub\n", U)
	f.taken = !f.tangents // RollFinal: only the taken branches' values
	f.trigHere = f.trig && f.tangents
	f.rollBody(b)
	f.taken, f.trigHere = false, false
	for i := int(p.firstOp); i < len(p.nodes); i++ {
		if !f.inv[i] {
			f.emitTangent(b, &pre, int32(i))
		}
	}
	w("if y != nil {\n")
	for c, id := range p.out {
		if c == 0 {
			w("y[yo] = %s\n", f.val(id))
		} else {
			w("y[yo+%d*yT] = %s\n", c, f.val(id))
		}
	}
	w("}\n")
	if f.fitRoll {
		f.fitStep(b, recv)
	} else if at {
		w("if jy != nil {\nk := t*n + j\nif at != nil {\nk = int(at[k])\n}\nif k >= 0 {\n")
		for c, id := range p.out {
			w("r%d := (%d*K + k) * %d\n", c, c, D)
			w("jr%d := (*[%d]float64)(jy[r%d : r%d+%d])\n", c, D, c, c, D)
			for d := range D {
				w("jr%d[%d] = %s\n", c, d, orZero(f.tan(id, d)))
			}
		}
		w("}\n}\n")
	} else if D > 0 && NY > 0 {
		w("if jy != nil {\n")
		for c, id := range p.out {
			if c == 0 {
				w("jr0 := (*[%d]float64)(jy[jo : jo+%d])\n", D, D)
			} else {
				w("jr%d := (*[%d]float64)(jy[jo+%d*jT : jo+%d*jT+%d])\n", c, D, c, c, D)
			}
			for d := range D {
				w("jr%d[%d] = %s\n", c, d, orZero(f.tan(id, d)))
			}
		}
		w("}\n")
	}
	if p.cost >= 0 {
		w("cost += %s\n", f.val(p.cost))
		for _, d := range costDirs {
			w("dc_%d += %s\n", d, orZero(f.tan(p.cost, d)))
		}
	}
	// The next state through temporaries: a Next may read another state.
	for k, id := range p.next {
		w("ns%d := %s\n", k, f.val(id))
		for d := range D {
			if f.depS[k][d] {
				w("nd%d_%d := %s\n", k, d, orZero(f.tan(id, d)))
			}
		}
	}
	for k := range f.S {
		w("s%d = ns%d\n", k, k)
		for d := range D {
			if f.depS[k][d] {
				w("d%s_%d = nd%d_%d\n", f.stateName(k), d, k, d)
			}
		}
	}
	if NY > 0 {
		w("yo += n\n")
	}
	if storeJY {
		w("jo += %d * n\n", D)
	}
	w("}\n") // time loop
	if f.fitRoll && len(p.out) > 0 {
		if f.fitNorm {
			w("%s{}.%s(fb, T, j, n, at, fit, jy, &facc)\n", recv, f.flushName())
		} else {
			w("facc[0] = fs\n")
		}
	}
	for k := range f.S {
		w("xT[%d*n+j] = s%d\n", k, k)
	}
	if D > 0 {
		w("if jxT != nil {\n")
		for k := range f.S {
			w("_ = jxT[(%d*n+j)*%d+%d]\n", k, D, D-1)
			for d := range D {
				v := "0"
				if f.depS[k][d] {
					v = fmt.Sprintf("d%s_%d", f.stateName(k), d)
				}
				w("jxT[(%d*n+j)*%d+%d] = %s\n", k, D, d, v)
			}
		}
		w("}\n")
		w("if jc != nil {\n")
		for d := range D {
			v := "0"
			for _, cd := range costDirs {
				if cd == d {
					v = fmt.Sprintf("dc_%d", d)
				}
			}
			w("jc[j*%d+%d] = %s\n", D, d, v)
		}
		w("}\n")
	}
	if f.fitRoll {
		f.fitLaneEnd(b, recv)
	}
	w("}\n")
	if f.fitRoll {
		w("fit.SSR = ssr\n")
	}
	w("return cost\n}\n\n")
	outer.Write(pre.Bytes())
	outer.Write(body.Bytes())
}

// stateName is the variable of state k (s0, s1, …), whether or not the
// step reads it (a state leaf that is never read has no node).
func (f *fgen) stateName(k int) string { return fmt.Sprintf("s%d", k) }

// forwardKernels writes RollFinal and RollTangent of typeName.
func (g *gen) forwardKernels(b *bytes.Buffer, typeName string) {
	w := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	w("// RollFinal implements dyn.FinalRoller: the value-only rollout.\n")
	newFgen(g, false, false).writeRoll(b, typeName, "RollFinal")
	w("// RollTangent implements dyn.TangentRoller: the forward-mode rollout\n")
	w("// with respect to all parameters (and, with x0dirs, the initial states).\n")
	w("func (k %s) RollTangent(n, T int, x0dirs bool, p, q, x0, u, y, jy, xT, jxT, jc []float64) float64 {\n", typeName)
	if g.rows {
		w("return k.RollTangentAt(n, T, x0dirs, nil, p, q, x0, u, y, jy, xT, jxT, jc)\n}\n\n")
		w("// RollTangentAt implements dyn.TangentRollerAt: RollTangent storing the\n")
		w("// Jacobian only at the rows at selects (nil: all).\n")
		w("func (k %s) RollTangentAt(n, T int, x0dirs bool, at []int32, p, q, x0, u, y, jy, xT, jxT, jc []float64) float64 {\n", typeName)
		w("if x0dirs {\nreturn k.rollTangentX0(n, T, at, p, q, x0, u, y, jy, xT, jxT, jc)\n}\n")
		w("return k.rollTangentP(n, T, at, p, q, x0, u, y, jy, xT, jxT, jc)\n}\n\n")
	} else {
		w("if x0dirs {\nreturn k.rollTangentX0(n, T, p, q, x0, u, y, jy, xT, jxT, jc)\n}\n")
		w("return k.rollTangentP(n, T, p, q, x0, u, y, jy, xT, jxT, jc)\n}\n\n")
	}
	newFgen(g, false, true).writeRoll(b, typeName, "rollTangentP")
	newFgen(g, true, true).writeRoll(b, typeName, "rollTangentX0")
	if !g.fit {
		return
	}
	w("// RollFit implements dyn.FitRoller: the forward-mode rollout forming\n")
	w("// the fit's residuals and the lanes' normal equations in its loop.\n")
	w("func (k %s) RollFit(n, T int, x0dirs bool, at []int32, p, q, x0, u, y, jy, xT, jxT, jc []float64, fit *dyn.Fit, fb []float64) float64 {\n", typeName)
	w("switch {\ncase fb == nil && x0dirs:\nreturn k.rollFitRowsX0(n, T, at, p, q, x0, u, y, jy, xT, jxT, jc, fit, fb)\n")
	w("case fb == nil:\nreturn k.rollFitRowsP(n, T, at, p, q, x0, u, y, jy, xT, jxT, jc, fit, fb)\n")
	w("case x0dirs:\nreturn k.rollFitNormX0(n, T, at, p, q, x0, u, y, jy, xT, jxT, jc, fit, fb)\n}\n")
	w("return k.rollFitNormP(n, T, at, p, q, x0, u, y, jy, xT, jxT, jc, fit, fb)\n}\n\n")
	for _, norm := range []bool{false, true} {
		for _, x0 := range []bool{false, true} {
			f := newFgen(g, x0, true)
			f.fitRoll, f.fitNorm = true, norm
			name := map[bool]string{false: "rollFitRows", true: "rollFitNorm"}[norm] + map[bool]string{false: "P", true: "X0"}[x0]
			f.writeRoll(b, typeName, name)
			if norm {
				f.writeFlush(b, typeName)
			}
		}
	}
}

// A fit kernel that forms the normal equations (fb non-nil) stores each
// step's outputs and their tangents into a scratch block (fb, FitBlock
// values per step), and after a lane's steps a separate method (fitFlush)
// forms the lane's residuals and sums from it; without them it forms the
// residuals and the weighted rows in the loop, carrying ‖r‖² alone.
// Accumulated in the step's loop, the sums would be carried beside the
// state and its tangents, spilled, each update waiting on the last through
// memory; flushed in blocks from inside the loop, the call (or the inline
// loop) spoils the registers of the step's loop. Measured on the own model:
// twice the native rollout either way, against the Jacobian pass's 1.5.

// fitNV is the number of values a step stores into the block: per output,
// its value and its D tangents.
func (f *fgen) fitNV() int { return len(f.p.out) * (1 + f.D) }

// fitNA is the number of accumulators: ‖r‖², Jᵀr, the upper triangle of
// JᵀJ.
func (f *fgen) fitNA() int { return 1 + f.D + f.D*(f.D+1)/2 }

// fitAcc is the accumulator index of Jᵀr's d (e < 0) or JᵀJ's (d, e), d ≤ e.
func (f *fgen) fitAcc(d, e int) int {
	if e < 0 {
		return 1 + d
	}
	i := 1 + f.D
	for a := range d {
		i += f.D - a
	}
	return i + e - d
}

func (f *fgen) flushName() string {
	if f.x0 {
		return "fitFlushX0"
	}
	return "fitFlushP"
}

// fitHeader declares RollFit's locals: the sums, and the fit's slices in
// the variant that forms the residuals in its loop.
func (f *fgen) fitHeader(b *bytes.Buffer) {
	fmt.Fprintf(b, "var ssr float64\nvar facc [%d]float64\n", f.fitNA())
	switch NY := len(f.p.out); {
	case NY > 0 && f.fitNorm:
		fmt.Fprintf(b, "_ = fb[T*%d-1]\n", f.fitNV())
	case NY > 0:
		fmt.Fprintf(b, "fm, fw, fr := fit.Meas, fit.Weight, fit.R\n")
		fmt.Fprintf(b, "K := len(fm) / %d\nwc, wk := K, 1\nif len(fw) <= %d {\nwc, wk = 1, 0\n}\n", NY, NY)
	}
}

// fitLaneStart resets the lane's accumulators.
func (f *fgen) fitLaneStart(b *bytes.Buffer) {
	if f.fitNorm {
		fmt.Fprintf(b, "facc = [%d]float64{}\n", f.fitNA())
	} else {
		fmt.Fprintf(b, "var fs float64\n")
	}
}

// fitStep stores a step's outputs and tangents into the block (fb non-nil:
// the normal equations are wanted, formed after the lane's steps), or
// forms its residuals and weighted Jacobian rows in the loop, carrying ‖r‖²
// alone.
func (f *fgen) fitStep(b *bytes.Buffer, typeName string) {
	w := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	p, D, NV := f.p, f.D, f.fitNV()
	if NV == 0 {
		return
	}
	if f.fitNorm {
		w("fo := (*[%d]float64)(fb[t*%d : t*%d+%d])\n", NV, NV, NV, NV)
		for c, id := range p.out {
			w("fo[%d] = %s\n", c*(1+D), f.val(id))
			for d := range D {
				if t := f.tan(id, d); t != "" {
					w("fo[%d] = %s\n", c*(1+D)+1+d, orZero(t))
				}
			}
		}
		return
	}
	w("if k := t*n + j; at == nil || at[k] >= 0 {\nif at != nil {\nk = int(at[k])\n}\n")
	for c, id := range p.out {
		w("i%d := %d*K + k\n", c, c)
		w("w%d := fw[%d*wc+k*wk]\n", c, c)
		w("r%d := (%s - fm[i%d]) * w%d\n", c, f.val(id), c, c)
		w("fs += r%d * r%d\n", c, c)
	}
	w("if fr != nil {\n")
	for c := range p.out {
		w("fr[i%d] = r%d\n", c, c)
	}
	w("}\n")
	if D > 0 {
		w("if jy != nil {\n")
		for c, id := range p.out {
			w("_ = jy[i%d*%d+%d]\n", c, D, D-1)
			for d := range D {
				v := "0"
				if t := f.tan(id, d); t != "" {
					v = fmt.Sprintf("%s * w%d", orZero(t), c)
				}
				w("jy[i%d*%d+%d] = %s\n", c, D, d, v)
			}
		}
		w("}\n")
	}
	w("}\n")
}

// fitLaneEnd stores the lane's sums.
func (f *fgen) fitLaneEnd(b *bytes.Buffer, typeName string) {
	w := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	D := f.D
	w("ssr += facc[0]\n")
	if D == 0 {
		return
	}
	w("if fg := fit.JTR; fg != nil {\n_ = fg[j*%d+%d]\n", D, D-1)
	for d := range D {
		w("fg[j*%d+%d] = facc[%d]\n", D, d, f.fitAcc(d, -1))
	}
	w("}\nif fh := fit.JTJ; fh != nil {\n_ = fh[(j+1)*%d-1]\n", D*D)
	for d := range D {
		for e := range D {
			w("fh[j*%d+%d] = facc[%d]\n", D*D, d*D+e, f.fitAcc(min(d, e), max(d, e)))
		}
	}
	w("}\n")
}

// writeFlush writes the method that forms the residuals, weighted Jacobian
// rows and the sums of lane j's nt steps from their values and tangents in
// fb, in the order of fitRun.row.
func (f *fgen) writeFlush(b *bytes.Buffer, typeName string) {
	w := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	p, D, NV, NA := f.p, f.D, f.fitNV(), f.fitNA()
	NY := len(p.out)
	if NY == 0 {
		return
	}
	w("// %s forms the residuals of lane j's nt steps (their values and\n", f.flushName())
	w("// tangents in fb) and their sums into acc.\n")
	w("func (%s) %s(fb []float64, nt, j, n int, at []int32, fit *dyn.Fit, jy []float64, acc *[%d]float64) {\n", typeName, f.flushName(), NA)
	w("fm, fw, fr, fh, fg := fit.Meas, fit.Weight, fit.R, fit.JTJ, fit.JTR\n")
	w("K := len(fm) / %d\nwc, wk := K, 1\nif len(fw) <= %d {\nwc, wk = 1, 0\n}\n", NY, NY)
	w("fs := acc[0]\n")
	for d := range D {
		w("fg%d := acc[%d]\n", d, f.fitAcc(d, -1))
		for e := d; e < D; e++ {
			w("fh%d_%d := acc[%d]\n", d, e, f.fitAcc(d, e))
		}
	}
	g := func(c, d int) string { // the weighted tangent, "" when zero
		if f.tan(p.out[c], d) == "" {
			return ""
		}
		return fmt.Sprintf("g%d_%d", c, d)
	}
	if D > 0 {
		f.writeFlushSums(b, g)
	}
	w("for tt := 0; tt < nt; tt++ {\nk := tt*n + j\nif at != nil {\nif k = int(at[k]); k < 0 {\ncontinue\n}\n}\n")
	w("v := fb[tt*%d : tt*%d+%d]\n", NV, NV, NV)
	for c := range p.out {
		w("i%d := %d*K + k\n", c, c)
		w("w%d := fw[%d*wc+k*wk]\n", c, c)
		w("r%d := (v[%d] - fm[i%d]) * w%d\n", c, c*(1+D), c, c)
		w("fs += r%d * r%d\n", c, c)
		for d := range D {
			if g(c, d) != "" {
				w("%s := v[%d] * w%d\n", g(c, d), c*(1+D)+1+d, c)
			}
		}
	}
	w("if fr != nil {\n")
	for c := range p.out {
		w("fr[i%d] = r%d\n", c, c)
	}
	w("}\n")
	if D > 0 {
		w("if jy != nil {\n")
		for c := range p.out {
			w("_ = jy[i%d*%d+%d]\n", c, D, D-1)
			for d := range D {
				w("jy[i%d*%d+%d] = %s\n", c, D, d, orZero(g(c, d)))
			}
		}
		w("}\nif fg != nil {\n")
		for c := range p.out {
			for d := range D {
				if g(c, d) != "" {
					w("fg%d += %s * r%d\n", d, g(c, d), c)
				}
			}
		}
		w("}\nif fh != nil {\n")
		for c := range p.out {
			for d := range D {
				for e := d; e < D; e++ {
					if g(c, d) != "" && g(c, e) != "" {
						w("fh%d_%d += %s * %s\n", d, e, g(c, d), g(c, e))
					}
				}
			}
		}
		w("}\n")
	}
	w("}\n")
	f.writeFlushStore(b)
	w("}\n\n")
}

// writeFlushStore writes the flush's sums back into acc.
func (f *fgen) writeFlushStore(b *bytes.Buffer) {
	w := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	w("acc[0] = fs\n")
	for d := range f.D {
		w("acc[%d] = fg%d\n", f.fitAcc(d, -1), d)
		for e := d; e < f.D; e++ {
			w("acc[%d] = fh%d_%d\n", f.fitAcc(d, e), d, e)
		}
	}
}

// writeFlushSums writes the flush's loop for the loss and its gradient in
// the common case: every step a row (at nil), weights constant over the
// rows, nothing stored but the sums (R, JY and JTJ nil, JTR set): ‖r‖² and
// Jᵀr by the same operations in the same order as the general loop (so the
// same bits), without its per-row weight and row indexing and its tests.
// Measured on the own model (4 × 20,000 and 8 × 150 steps, paired runs on
// a loaded machine): the loss and gradient (dyn.Fit with JTR alone) from
// 1.80–1.84× the native rollout to 1.66–1.72×. The same loop with JᵀJ (and
// R) was slower than the general one (1.92 → 2.05–2.14×), so the normal
// equations keep it.
func (f *fgen) writeFlushSums(b *bytes.Buffer, g func(c, d int) string) {
	w := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	p, D, NV := f.p, f.D, f.fitNV()
	NY := len(p.out)
	w("if at == nil && fr == nil && jy == nil && fh == nil && fg != nil && len(fw) == %d && nt*n <= K {\n", NY)
	for c := range p.out {
		w("w%d := fw[%d]\n", c, c)
		w("fm%d := fm[%d*K : %d*K+K]\n", c, c, c)
	}
	w("_ = fb[nt*%d-1]\n", NV)
	w("for tt, k := 0, j; tt < nt; tt, k = tt+1, k+n {\n")
	w("v := fb[tt*%d : tt*%d+%d]\n", NV, NV, NV)
	for c := range p.out {
		w("r%d := (v[%d] - fm%d[k]) * w%d\n", c, c*(1+D), c, c)
		w("fs += r%d * r%d\n", c, c)
		for d := range D {
			if g(c, d) != "" {
				w("%s := v[%d] * w%d\n", g(c, d), c*(1+D)+1+d, c)
			}
		}
	}
	for c := range p.out {
		for d := range D {
			if g(c, d) != "" {
				w("fg%d += %s * r%d\n", d, g(c, d), c)
			}
		}
	}
	w("}\n")
	f.writeFlushStore(b)
	w("return\n}\n")
}
