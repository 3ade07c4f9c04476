package dyn

import "math"

// interp runs the compiled step over n lanes, one instruction at a time,
// each instruction a loop over the lanes: the dispatch is paid once per
// instruction, not per lane, so wide batches (thousands of segments) run at
// nearly the speed of compiled code and narrow ones (a few long runs) at a
// few nanoseconds per instruction. The reverse pass is derived from the
// same instructions (partials of each op), so it is generated, not written.
type interp struct {
	p     *program
	hash  string // the model's Hash (StepHasher)
	stale error  // made by NewKernel in place of a stale generated kernel
	n     int
	val   [][]float64 // per node: its lanes (leaves alias the caller's data)
	adj   [][]float64
	own   []float64 // backing of the op and constant lanes
	adb   []float64 // backing of adj
}

// StepHash implements StepHasher.
func (in *interp) StepHash() string { return in.hash }

func (in *interp) resize(n int) {
	if in.n == n && in.val != nil {
		return
	}
	p := in.p
	in.n = n
	nn := len(p.nodes)
	in.val = make([][]float64, nn)
	in.adj = make([][]float64, nn)
	in.own = make([]float64, nn*n)
	in.adb = make([]float64, nn*n)
	for i := range p.nodes {
		in.val[i] = in.own[i*n : (i+1)*n : (i+1)*n]
		in.adj[i] = in.adb[i*n : (i+1)*n : (i+1)*n]
		if p.nodes[i].op == opConst {
			for j := range in.val[i] {
				in.val[i][j] = p.nodes[i].k
			}
		}
	}
}

// bind points the leaves at this step's data and broadcasts the shared ones.
func (in *interp) bind(n int, p, q, x, u []float64) {
	in.resize(n)
	for i, nd := range in.p.nodes[:in.p.firstOp] {
		k := int(nd.k)
		switch nd.op {
		case opState:
			in.val[i] = x[k*n : (k+1)*n : (k+1)*n]
		case opInput:
			in.val[i] = u[k*n : (k+1)*n : (k+1)*n]
		case opParam, opSetting:
			v := in.own[i*n : (i+1)*n : (i+1)*n]
			s := p
			if nd.op == opSetting {
				s = q
			}
			if len(v) > 0 && v[0] == s[k] && v[len(v)-1] == s[k] {
				in.val[i] = v
				continue
			}
			for j := range v {
				v[j] = s[k]
			}
			in.val[i] = v
		}
	}
}

func (in *interp) run() {
	nodes := in.p.nodes
	for i := int(in.p.firstOp); i < len(nodes); i++ {
		nd := &nodes[i]
		d := in.val[i]
		a := in.val[nd.a][:len(d)]
		switch nd.op {
		case opAdd:
			b := in.val[nd.b][:len(d)]
			for j := range d {
				d[j] = a[j] + b[j]
			}
		case opSub:
			b := in.val[nd.b][:len(d)]
			for j := range d {
				d[j] = a[j] - b[j]
			}
		case opMul:
			b := in.val[nd.b][:len(d)]
			for j := range d {
				d[j] = a[j] * b[j]
			}
		case opDiv:
			b := in.val[nd.b][:len(d)]
			for j := range d {
				d[j] = a[j] / b[j]
			}
		case opNeg:
			for j := range d {
				d[j] = -a[j]
			}
		case opWhere:
			b, c := in.val[nd.b][:len(d)], in.val[nd.c][:len(d)]
			for j := range d {
				if c[j] != 0 {
					d[j] = a[j]
				} else {
					d[j] = b[j]
				}
			}
		default:
			switch nd.op.arity() {
			case 1:
				for j := range d {
					d[j] = eval(nd.op, a[j], 0, 0)
				}
			case 2:
				b := in.val[nd.b][:len(d)]
				for j := range d {
					d[j] = eval(nd.op, a[j], b[j], 0)
				}
			default:
				b, c := in.val[nd.b][:len(d)], in.val[nd.c][:len(d)]
				for j := range d {
					d[j] = eval(nd.op, a[j], b[j], c[j])
				}
			}
		}
	}
}

// Forward implements Kernel.
func (in *interp) Forward(n int, p, q, x, u, xn, y []float64, ys int) float64 {
	in.bind(n, p, q, x, u)
	in.run()
	for k, id := range in.p.next {
		copy(xn[k*n:(k+1)*n], in.val[id])
	}
	if y != nil {
		for c, id := range in.p.out {
			copy(y[c*ys:c*ys+n], in.val[id])
		}
	}
	var cost float64
	if in.p.cost >= 0 {
		for _, v := range in.val[in.p.cost] {
			cost += v
		}
	}
	return cost
}

// Reverse implements Kernel.
func (in *interp) Reverse(n int, p, q, x, u, axn, ay []float64, ys int, ac float64, ax, au, ap []float64) {
	in.bind(n, p, q, x, u)
	in.run()
	clear(in.adb)
	pr := in.p
	if axn != nil {
		for k, id := range pr.next {
			addTo(in.adj[id], axn[k*n:(k+1)*n])
		}
	}
	if ay != nil {
		for c, id := range pr.out {
			addTo(in.adj[id], ay[c*ys:c*ys+n])
		}
	}
	if pr.cost >= 0 && ac != 0 {
		for j := range in.adj[pr.cost] {
			in.adj[pr.cost][j] += ac
		}
	}
	nodes := pr.nodes
	for i := len(nodes) - 1; i >= int(pr.firstOp); i-- {
		nd := &nodes[i]
		if !nd.op.passesGradient() {
			continue
		}
		g := in.adj[i]
		ga := in.adj[nd.a][:len(g)]
		switch nd.op {
		case opAdd:
			gb := in.adj[nd.b][:len(g)]
			for j, v := range g {
				ga[j] += v
				gb[j] += v
			}
		case opSub:
			gb := in.adj[nd.b][:len(g)]
			for j, v := range g {
				ga[j] += v
				gb[j] -= v
			}
		case opMul:
			gb := in.adj[nd.b][:len(g)]
			a, b := in.val[nd.a][:len(g)], in.val[nd.b][:len(g)]
			for j, v := range g {
				if v != 0 { // see guardedOp
					ga[j] += v * b[j]
					gb[j] += v * a[j]
				}
			}
		case opNeg:
			for j, v := range g {
				ga[j] -= v
			}
		case opWhere:
			gb := in.adj[nd.b][:len(g)]
			c := in.val[nd.c][:len(g)]
			for j, v := range g {
				if c[j] != 0 {
					ga[j] += v
				} else {
					gb[j] += v
				}
			}
		default:
			ar := nd.op.arity()
			a, vv := in.val[nd.a][:len(g)], in.val[i]
			var b, c, gb, gc []float64
			if ar > 1 {
				b, gb = in.val[nd.b][:len(g)], in.adj[nd.b][:len(g)]
			}
			if ar > 2 {
				c, gc = in.val[nd.c][:len(g)], in.adj[nd.c][:len(g)]
			}
			for j, v := range g {
				if v == 0 { // see guardedOp
					continue
				}
				var bj, cj float64
				if ar > 1 {
					bj = b[j]
				}
				if ar > 2 {
					cj = c[j]
				}
				da, db, dc := partials(nd.op, a[j], bj, cj, vv[j])
				ga[j] += v * da
				if ar > 1 {
					gb[j] += v * db
				}
				if ar > 2 {
					gc[j] += v * dc
				}
			}
		}
	}
	for k, id := range pr.leafOf[opState] {
		dst := ax[k*n : (k+1)*n]
		if id < 0 {
			clear(dst)
		} else {
			copy(dst, in.adj[id])
		}
	}
	if au != nil {
		for k, id := range pr.leafOf[opInput] {
			dst := au[k*n : (k+1)*n]
			if id < 0 {
				clear(dst)
			} else {
				copy(dst, in.adj[id])
			}
		}
	}
	for k, id := range pr.leafOf[opParam] {
		if id < 0 {
			continue
		}
		var s float64
		for _, v := range in.adj[id] {
			s += v
		}
		ap[k] += s
	}
}

func addTo(dst, src []float64) {
	src = src[:len(dst)]
	for j := range dst {
		dst[j] += src[j]
	}
}

// branchCode is the branch op took at operands (a, b, c) in one lane, for
// the ops whose value or derivative switches (|·| and sign at 0, min, max,
// clamp, where, the comparisons, copysign); ok is false for the others.
// Two points with the same codes everywhere lie on the same smooth piece
// of the step, so a finite difference between them is exact to O(h²).
func branchCode(op opcode, a, b, c float64) (code uint8, ok bool) {
	switch op {
	case opAbs, opSign:
		return uint8(SignOf(a) + 1), true
	case opMin:
		return uint8(b2f(a <= b)), true
	case opMax:
		return uint8(b2f(a >= b)), true
	case opClamp:
		switch {
		case a < b:
			return 1, true
		case a > c:
			return 2, true
		}
		return 0, true
	case opWhere:
		return uint8(b2f(c != 0)), true
	case opGt, opGe, opLt, opLe:
		return uint8(eval(op, a, b, 0)), true
	case opCopysign:
		return uint8(2*b2f(math.Signbit(a)) + b2f(math.Signbit(b))), true
	}
	return 0, false
}

// tieCode marks, at a stencil point, a switch whose operands lie within
// rounding of its threshold (a state stuck at rest is 0 ± 1e-22): its
// branch there is noise, not a crossing, and matches any branch.
const tieCode = 255

// switches appends, after run, the branch codes of every switching
// instruction in every lane (instruction-major); with ties, operands within
// rounding of the threshold get tieCode.
func (in *interp) switches(dst []uint8, ties bool) []uint8 {
	nodes := in.p.nodes
	for i := int(in.p.firstOp); i < len(nodes); i++ {
		nd := &nodes[i]
		if _, ok := branchCode(nd.op, 0, 0, 0); !ok {
			continue
		}
		ops := [3]int32{nd.a, nd.b, nd.c}
		var v [3][]float64
		for j := range nd.op.arity() {
			v[j] = in.val[ops[j]]
		}
		for j := range in.n {
			var x [3]float64
			for o := range nd.op.arity() {
				x[o] = v[o][j]
			}
			code, _ := branchCode(nd.op, x[0], x[1], x[2])
			if ties && atTie(nd.op, x[0], x[1], x[2]) {
				code = tieCode
			}
			dst = append(dst, code)
		}
	}
	return dst
}

// atTie reports operands within rounding (1e-12, absolute and relative)
// of a switch's threshold.
func atTie(op opcode, a, b, c float64) bool {
	near := func(x, y float64) bool { return math.Abs(x-y) <= 1e-12*(1+math.Abs(x)+math.Abs(y)) }
	switch op {
	case opAbs, opSign:
		return near(a, 0)
	case opMin, opMax, opGt, opGe, opLt, opLe:
		return near(a, b)
	case opClamp:
		return near(a, b) || near(a, c)
	case opCopysign:
		return near(a, 0) || near(b, 0)
	}
	return false
}
