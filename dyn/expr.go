package dyn

import (
	"fmt"
	"math"
)

// opcode is one instruction of the step tape.
type opcode uint8

const (
	opConst   opcode = iota // k
	opState                 // leaf: state lane k
	opInput                 // leaf: input lane k
	opParam                 // leaf: parameter k (shared by the batch)
	opSetting               // leaf: setting k (shared, never differentiated)

	opAdd
	opSub
	opMul
	opDiv
	opNeg
	opSin
	opCos
	opTan
	opAtan
	opAtan2 // atan2(a, b) = angle of (b, a)
	opExp
	opLog
	opLog1p
	opSqrt
	opTanh
	opAbs
	opSign
	opMin
	opMax
	opClamp    // clamp(a, lo = b, hi = c)
	opWhere    // c != 0 ? a : b, with the condition in c
	opCopysign // |a| with the sign of b
	opGt
	opGe
	opLt
	opLe

	numOps
)

var opNames = [numOps]string{
	opConst: "const", opState: "state", opInput: "input", opParam: "param", opSetting: "setting",
	opAdd: "add", opSub: "sub", opMul: "mul", opDiv: "div", opNeg: "neg",
	opSin: "sin", opCos: "cos", opTan: "tan", opAtan: "atan", opAtan2: "atan2",
	opExp: "exp", opLog: "log", opLog1p: "log1p", opSqrt: "sqrt", opTanh: "tanh",
	opAbs: "abs", opSign: "sign", opMin: "min", opMax: "max", opClamp: "clamp",
	opWhere: "where", opCopysign: "copysign", opGt: "gt", opGe: "ge", opLt: "lt", opLe: "le",
}

func (o opcode) String() string { return opNames[o] }

func (o opcode) isLeaf() bool { return o <= opSetting }

// arity is the number of operands (0 for leaves and constants).
func (o opcode) arity() int {
	switch {
	case o.isLeaf():
		return 0
	case o == opClamp || o == opWhere:
		return 3
	case o == opAdd || o == opSub || o == opMul || o == opDiv || o == opAtan2 ||
		o == opMin || o == opMax || o == opCopysign || o >= opGt:
		return 2
	default:
		return 1
	}
}

// smooth reports ops whose value is a differentiable function of all their
// operands; the others (comparisons, sign) pass no gradient.
func (o opcode) passesGradient() bool {
	return !o.isLeaf() && o != opSign && o < opGt
}

// NaN safety. The reverse step of every op that multiplies its adjoint by
// a partial derivative skips lanes whose adjoint is exactly zero (in the
// interpreter and in generated code). A branch that Where does not take
// gets adjoint 0, and so does everything only it reads; its values and
// partials may be NaN or Inf (1/0, log 0, exp overflowing, tanh or sin of
// NaN, a friction surrogate at temperature 0), and 0·NaN would be NaN. With
// the skip, an adjoint is non-zero only along paths the forward pass took,
// so no non-finite value of an untaken branch reaches a gradient: the
// "double where" problem is solved here, not left to the user. Ops whose
// reverse step passes the adjoint on unchanged (+ − neg min max clamp
// where) need no skip: 0 stays 0.
// node is one tape entry; a, b, c index earlier nodes; k is a constant's
// value or a leaf's lane index.
type node struct {
	op      opcode
	a, b, c int32
	k       float64
}

// tape records a step definition as it runs.
type tape struct {
	nodes []node
	memo  map[node]int32 // common subexpressions
}

func newTape() *tape { return &tape{memo: map[node]int32{}} }

// X is a scalar expression of a step definition: a value per lane of the
// batch (a run or a segment). It is built by the methods of Step and X and
// the functions of this package; it cannot be inspected while the step is
// defined, only combined (the definition is traced once, as JAX traces a
// function, and then compiled).
type X struct {
	t *tape
	i int32
}

func (t *tape) add(n node) X {
	if id, ok := t.memo[n]; ok {
		return X{t, id}
	}
	// Constant folding: an op whose operands are all constants is a constant.
	if ar := n.op.arity(); ar > 0 {
		allConst := true
		var v [3]float64
		ops := [3]int32{n.a, n.b, n.c}
		for j := range ar {
			m := t.nodes[ops[j]]
			if m.op != opConst {
				allConst = false
				break
			}
			v[j] = m.k
		}
		if allConst {
			return t.constant(eval(n.op, v[0], v[1], v[2]))
		}
	}
	id := int32(len(t.nodes))
	t.nodes = append(t.nodes, n)
	t.memo[n] = id
	return X{t, id}
}

func (t *tape) constant(v float64) X {
	if v == 0 {
		v = 0 // one zero: -0 and +0 compare equal but key differently
	}
	return t.add(node{op: opConst, k: v})
}

func (x X) check(ys ...X) *tape {
	if x.t == nil {
		panic("dyn: use of a zero X (not made by a Step)")
	}
	for _, y := range ys {
		if y.t != x.t {
			panic("dyn: expressions from different step definitions mixed")
		}
	}
	return x.t
}

func (x X) un(op opcode) X { return x.check().add(node{op: op, a: x.i}) }
func (x X) bin(op opcode, y X) X {
	t := x.check(y)
	a, b := x.i, y.i
	if (op == opAdd || op == opMul || op == opMin || op == opMax) && a > b {
		a, b = b, a // commutative: one key for CSE
	}
	return t.add(node{op: op, a: a, b: b})
}

// constOf reports whether x is a constant and its value.
func (x X) constOf() (float64, bool) {
	n := x.t.nodes[x.i]
	return n.k, n.op == opConst
}

// Add returns x + y.
func (x X) Add(y X) X {
	if v, ok := y.constOf(); ok && v == 0 {
		return x
	}
	if v, ok := x.constOf(); ok && v == 0 {
		return y
	}
	return x.bin(opAdd, y)
}

// Sub returns x − y.
func (x X) Sub(y X) X {
	if v, ok := y.constOf(); ok && v == 0 {
		return x
	}
	return x.bin(opSub, y)
}

// Mul returns x·y.
func (x X) Mul(y X) X {
	if v, ok := y.constOf(); ok && v == 1 {
		return x
	}
	if v, ok := x.constOf(); ok && v == 1 {
		return y
	}
	return x.bin(opMul, y)
}

// Div returns x / y.
func (x X) Div(y X) X {
	if v, ok := y.constOf(); ok && v == 1 {
		return x
	}
	return x.bin(opDiv, y)
}

// AddC returns x + c.
func (x X) AddC(c float64) X { return x.Add(x.check().constant(c)) }

// SubC returns x − c.
func (x X) SubC(c float64) X { return x.Sub(x.check().constant(c)) }

// MulC returns c·x.
func (x X) MulC(c float64) X { return x.Mul(x.check().constant(c)) }

// DivC returns x / c.
func (x X) DivC(c float64) X { return x.Div(x.check().constant(c)) }

// RSubC returns c − x.
func (x X) RSubC(c float64) X { return x.check().constant(c).Sub(x) }

// Neg returns −x.
func (x X) Neg() X { return x.un(opNeg) }

// Square returns x².
func (x X) Square() X { return x.Mul(x) }

// Sin returns sin x.
func Sin(x X) X { return x.un(opSin) }

// Cos returns cos x.
func Cos(x X) X { return x.un(opCos) }

// Tan returns tan x.
func Tan(x X) X { return x.un(opTan) }

// Atan returns atan x.
func Atan(x X) X { return x.un(opAtan) }

// Atan2 returns the angle of the point (x, y), as math.Atan2(y, x). Its
// gradient at the origin is taken as zero (the angle is undefined there).
func Atan2(y, x X) X { return y.bin(opAtan2, x) }

// Exp returns eˣ.
func Exp(x X) X { return x.un(opExp) }

// Log returns ln x.
func Log(x X) X { return x.un(opLog) }

// Log1p returns ln(1 + x), accurate for small x.
func Log1p(x X) X { return x.un(opLog1p) }

// Sqrt returns √x.
func Sqrt(x X) X { return x.un(opSqrt) }

// Tanh returns tanh x.
func Tanh(x X) X { return x.un(opTanh) }

// Abs returns |x|, with the subgradient sign(x) (0 at x = 0, as gorgonia's).
func Abs(x X) X { return x.un(opAbs) }

// Sign returns −1, 0 or 1; it passes no gradient.
func Sign(x X) X { return x.un(opSign) }

// Min returns x if x ≤ y, else y; the gradient goes to the one returned.
func Min(x, y X) X { return x.bin(opMin, y) }

// Max returns x if x ≥ y, else y; the gradient goes to the one returned.
func Max(x, y X) X { return x.bin(opMax, y) }

// Clamp returns lo where x < lo, hi where x > hi and x otherwise: the exact
// Kikuuwe clamp of Park, Lee, Kuipers eq. 4 with graph.Clamp's subgradients
// (dx = 1 inside and on the limits, dlo where x < lo, dhi where x > hi).
func Clamp(x, lo, hi X) X {
	t := x.check(lo, hi)
	return t.add(node{op: opClamp, a: x.i, b: lo.i, c: hi.i})
}

// Where returns a in lanes where cond ≠ 0 and b elsewhere; cond is usually
// a comparison (Gt, Ge, Lt, Le). Only the branch taken receives gradient,
// and a NaN or Inf in the branch not taken reaches neither the value nor
// the gradient (see the package overview).
func Where(cond, a, b X) X {
	t := cond.check(a, b)
	if v, ok := cond.constOf(); ok {
		if v != 0 {
			return a
		}
		return b
	}
	if a.i == b.i {
		return a
	}
	return t.add(node{op: opWhere, a: a.i, b: b.i, c: cond.i})
}

// Copysign returns |x| with the sign of y, as math.Copysign (branch-free);
// the gradient reaches x only, ∂/∂x = sign(x)·sign(y) with the signs of
// math.Copysign(1, ·), so 0 counts as positive.
func Copysign(x, y X) X { return x.bin(opCopysign, y) }

// Gt returns 1 where x > y, else 0 (no gradient).
func Gt(x, y X) X { return x.bin(opGt, y) }

// Ge returns 1 where x ≥ y, else 0 (no gradient).
func Ge(x, y X) X { return x.bin(opGe, y) }

// Lt returns 1 where x < y, else 0 (no gradient).
func Lt(x, y X) X { return x.bin(opLt, y) }

// Le returns 1 where x ≤ y, else 0 (no gradient).
func Le(x, y X) X { return x.bin(opLe, y) }

// Softplus is graph.Softplus: max(z, 0) + T·log1p(exp(−|z|/T)), a smooth
// max(z, 0) at temperature T > 0.
func Softplus(z, T X) X {
	a := Abs(z)
	relu := z.Add(a).MulC(0.5)
	return relu.Add(softplusTail(a, T))
}

func softplusTail(a, T X) X { return T.Mul(Log1p(Exp(a.Neg().Div(T)))) }

// SoftClamp is graph.SoftClamp: a smooth Clamp(x, lo, hi) at temperature
// T > 0, evaluated as Clamp(x, lo, hi) + e(|x − lo|) − e(|x − hi|) with
// e(a) = T·log1p(exp(−a/T)), the |·| taken with Clamp's own branch signs.
func SoftClamp(x, lo, hi, T X) X {
	y := Clamp(x, lo, hi)
	sLo := Lt(x, lo).MulC(-2).AddC(1) // 1 − 2·[x < lo]
	sHi := Gt(x, hi).MulC(2).SubC(1)  // 2·[x > hi] − 1
	eLo := softplusTail(sLo.Mul(x.Sub(lo)), T)
	eHi := softplusTail(sHi.Mul(x.Sub(hi)), T)
	return y.Add(eLo.Sub(eHi))
}

// TanhClampSym is graph.TanhClampSym: x where |x| ≤ k = max(mu − T, 0),
// else sign(x)·(k + w·tanh((|x| − k)/w)) with w = mu − k; a C² friction
// surrogate of the symmetric clamp to (−mu, mu) with band T > 0.
func TanhClampSym(x, mu, T X) X {
	a := Abs(x)
	k := Gt(mu, T).Mul(mu.Sub(T))
	w := mu.Sub(k)
	tail := k.Add(w.Mul(Tanh(a.Sub(k).Div(w))))
	return Where(Le(a, k), x, Sign(x).Mul(tail))
}

// SmoothAbs is graph.SmoothAbs: x²/(√(x² + eps²) + eps), a C∞ |x| of width
// eps > 0.
func SmoothAbs(x, eps X) X {
	x2 := x.Square()
	return x2.Div(Sqrt(x2.Add(eps.Square())).Add(eps))
}

// ---- scalar semantics, shared by constant folding, the interpreter and the
// generated code (through the exported helpers of rt.go) ----

// eval is the value of op at (a, b, c).
func eval(op opcode, a, b, c float64) float64 {
	switch op {
	case opAdd:
		return a + b
	case opSub:
		return a - b
	case opMul:
		return a * b
	case opDiv:
		return a / b
	case opNeg:
		return -a
	case opSin:
		return math.Sin(a)
	case opCos:
		return math.Cos(a)
	case opTan:
		return math.Tan(a)
	case opAtan:
		return math.Atan(a)
	case opAtan2:
		return math.Atan2(a, b)
	case opExp:
		return math.Exp(a)
	case opLog:
		return math.Log(a)
	case opLog1p:
		return math.Log1p(a)
	case opSqrt:
		return math.Sqrt(a)
	case opTanh:
		return math.Tanh(a)
	case opAbs:
		return math.Abs(a)
	case opSign:
		return SignOf(a)
	case opMin:
		return MinOf(a, b)
	case opMax:
		return MaxOf(a, b)
	case opClamp:
		return ClampOf(a, b, c)
	case opWhere:
		if c != 0 {
			return a
		}
		return b
	case opCopysign:
		return math.Copysign(a, b)
	case opGt:
		return b2f(a > b)
	case opGe:
		return b2f(a >= b)
	case opLt:
		return b2f(a < b)
	case opLe:
		return b2f(a <= b)
	}
	panic(fmt.Sprintf("dyn: eval of %v", op))
}

// partials returns ∂v/∂a, ∂v/∂b, ∂v/∂c of v = op(a, b, c).
func partials(op opcode, a, b, c, v float64) (da, db, dc float64) {
	switch op {
	case opAdd:
		return 1, 1, 0
	case opSub:
		return 1, -1, 0
	case opMul:
		return b, a, 0
	case opDiv:
		return 1 / b, -v / b, 0
	case opNeg:
		return -1, 0, 0
	case opSin:
		return math.Cos(a), 0, 0
	case opCos:
		return -math.Sin(a), 0, 0
	case opTan:
		return 1 + v*v, 0, 0
	case opAtan:
		return 1 / (1 + a*a), 0, 0
	case opAtan2:
		r2 := a*a + b*b
		if r2 == 0 {
			return 0, 0, 0
		}
		return b / r2, -a / r2, 0
	case opExp:
		return v, 0, 0
	case opLog:
		return 1 / a, 0, 0
	case opLog1p:
		return 1 / (1 + a), 0, 0
	case opSqrt:
		return 0.5 / v, 0, 0
	case opTanh:
		return 1 - v*v, 0, 0
	case opAbs:
		return SignOf(a), 0, 0
	case opMin:
		if a <= b {
			return 1, 0, 0
		}
		return 0, 1, 0
	case opMax:
		if a >= b {
			return 1, 0, 0
		}
		return 0, 1, 0
	case opClamp:
		switch {
		case a < b:
			return 0, 1, 0
		case a > c:
			return 0, 0, 1
		}
		return 1, 0, 0
	case opWhere:
		if c != 0 {
			return 1, 0, 0
		}
		return 0, 1, 0
	case opCopysign:
		return math.Copysign(1, a) * math.Copysign(1, b), 0, 0
	}
	return 0, 0, 0
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
