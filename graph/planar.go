package graph

import (
	"fmt"
	"hash"
	"hash/fnv"
	"math"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// PlanarPath integrates body-frame steps into planar poses by explicit Euler
// with the heading at the start of each step, the pose update of Luo et al.
// eq. 5 (and of every unicycle or differential-drive model):
//
//	θ[t+1] = θ[t] + dθ[t]
//	x[t+1] = x[t] + cos θ[t]·dx[t] − sin θ[t]·dy[t]
//	y[t+1] = y[t] + sin θ[t]·dx[t] + cos θ[t]·dy[t]
//
// d is [3, B, T]: the body-frame displacements (dx, dy, dθ) = (v_x, v_y,
// ω_z)·Δt of B runs of T steps; p0 is [3, B]: the start poses (x0, y0, θ0)
// of the runs. The result is [3, B, T]: (x, y, θ) at the start of every step
// (row t holds the pose before step t acts, so step T−1 never shows).
//
// It is the fusion of Rotate2D and three CumSums in one node: with the
// primitives the same rollout takes about twenty elementwise nodes over
// [B, T] and their backward passes, which dominate a loss evaluation. The
// gradient is the adjoint recursion, built from two further custom ops
// (PlanarPathVJP) that read the output poses instead of recomputing them;
// those are not differentiable again, so PlanarPath supports first
// derivatives only (never take G.Grad of its gradient). PlanarPathFloat is
// the native twin.
func PlanarPath(d, p0 *G.Node) (*G.Node, error) {
	const fn = "PlanarPath"
	if err := checkInput(fn, "d", d); err != nil {
		return nil, err
	}
	if err := checkInput(fn, "p0", p0); err != nil {
		return nil, err
	}
	if _, err := (planarPathOp{}).InferShape(d.Shape(), p0.Shape()); err != nil {
		return nil, fmt.Errorf("graph.%s: %w", fn, err)
	}
	y, err := G.ApplyOp(planarPathOp{}, d, p0)
	if err != nil {
		return nil, wrap(fn, err)
	}
	return y, nil
}

// PlanarPathFloat is the native twin of PlanarPath for one run: x, y, th
// (len T) receive the poses at the start of each of the T steps dx, dy, dth,
// from the start pose (x0, y0, th0). The arithmetic is the op's, so results
// agree bit for bit.
func PlanarPathFloat(x, y, th, dx, dy, dth []float64, x0, y0, th0 float64) {
	px, py, pth := x0, y0, th0
	for t := range dx {
		x[t], y[t], th[t] = px, py, pth
		s, c := math.Sincos(pth)
		px += c*dx[t] - s*dy[t]
		py += s*dx[t] + c*dy[t]
		pth += dth[t]
	}
}

// planarPathOp is the forward op of PlanarPath.
type planarPathOp struct{}

func (planarPathOp) Arity() int { return 2 }

func (planarPathOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	return hm.NewFnType(G.TensorType{Dims: 3, Of: a}, G.TensorType{Dims: 2, Of: a}, G.TensorType{Dims: 3, Of: a})
}

func (op planarPathOp) InferShape(inputs ...G.DimSizer) (tensor.Shape, error) {
	if len(inputs) != 2 {
		return nil, fmt.Errorf("%v: want 2 inputs, have %d", op, len(inputs))
	}
	d, ok1 := inputs[0].(tensor.Shape)
	p, ok2 := inputs[1].(tensor.Shape)
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("%v: input shapes are %T and %T, want tensor.Shape", op, inputs[0], inputs[1])
	}
	if len(d) != 3 || d[0] != 3 || d[1] < 1 || d[2] < 1 {
		return nil, fmt.Errorf("d: shape %v, want [3, B, T]", d)
	}
	if len(p) != 2 || p[0] != 3 || p[1] != d[1] {
		return nil, fmt.Errorf("p0: shape %v, want [3, %d]", p, d[1])
	}
	return d.Clone(), nil
}

func (op planarPathOp) Do(inputs ...G.Value) (G.Value, error) {
	if len(inputs) != 2 {
		return nil, fmt.Errorf("%v: want 2 inputs, have %d", op, len(inputs))
	}
	d, ds, err := denseFloats(op, inputs[0])
	if err != nil {
		return nil, err
	}
	p, ps, err := denseFloats(op, inputs[1])
	if err != nil {
		return nil, err
	}
	if _, err := op.InferShape(ds, ps); err != nil {
		return nil, fmt.Errorf("%v: %w", op, err)
	}
	b, n := ds[1], ds[2]
	N := b * n
	out := tensor.New(tensor.WithShape(ds...), tensor.Of(tensor.Float64))
	o := out.Data().([]float64)
	for r := range b {
		i := r * n
		PlanarPathFloat(o[i:i+n], o[N+i:N+i+n], o[2*N+i:2*N+i+n], d[i:i+n], d[N+i:N+i+n], d[2*N+i:2*N+i+n], p[r], p[b+r], p[2*b+r])
	}
	return out, nil
}

func (planarPathOp) ReturnsPtr() bool     { return false }
func (planarPathOp) CallsExtern() bool    { return false }
func (planarPathOp) OverwritesInput() int { return -1 }
func (planarPathOp) WriteHash(h hash.Hash) {
	fmt.Fprint(h, "wheelgrad.PlanarPath")
}
func (op planarPathOp) Hashcode() uint32 { return hashOf(op) }
func (planarPathOp) String() string      { return "PlanarPath" }

func (planarPathOp) DiffWRT(int) []bool { return []bool{true, true} }

// SymDiff returns the two adjoints as PlanarPathVJP nodes of the output and
// its gradient.
func (op planarPathOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	if len(inputs) != 2 {
		return nil, fmt.Errorf("%v: SymDiff: want 2 inputs, have %d", op, len(inputs))
	}
	dd, err := G.ApplyOp(planarVJPOp{wrtStart: false}, output, grad)
	if err != nil {
		return nil, fmt.Errorf("%v: SymDiff: %w", op, err)
	}
	dp, err := G.ApplyOp(planarVJPOp{wrtStart: true}, output, grad)
	if err != nil {
		return nil, fmt.Errorf("%v: SymDiff: %w", op, err)
	}
	return G.Nodes{dd, dp}, nil
}

// PlanarPathVJPFloat is the adjoint of PlanarPathFloat for one run: given
// the poses x, y, th it produced and the gradients gx, gy, gth of a loss with
// respect to them, it writes the gradients with respect to the steps into
// ddx, ddy, ddth (any of them may be nil to skip) and returns those with
// respect to the start pose.
//
// With r_x[t] = Σ_{u>t} g_x[u] (likewise r_y), the direct effect of θ[t] is
// h[t] = g_θ[t] − Δy[t]·r_x[t] + Δx[t]·r_y[t], Δ the step's world
// displacement (read off the poses, so no trigonometry is needed for it);
// then ∂/∂dx[t] = cos θ·r_x + sin θ·r_y, ∂/∂dy[t] = −sin θ·r_x + cos θ·r_y,
// ∂/∂dθ[t] = Σ_{u>t} h[u], and the start pose gets Σ g_x, Σ g_y, Σ h.
func PlanarPathVJPFloat(ddx, ddy, ddth, x, y, th, gx, gy, gth []float64) (gx0, gy0, gth0 float64) {
	n := len(x)
	var rx, ry, rh float64
	for t := n - 1; t >= 0; t-- {
		h := gth[t]
		if t+1 < n {
			h += -(y[t+1]-y[t])*rx + (x[t+1]-x[t])*ry
		}
		if ddx != nil {
			s, c := math.Sincos(th[t])
			ddx[t] = c*rx + s*ry
			ddy[t] = -s*rx + c*ry
			ddth[t] = rh
		}
		rx += gx[t]
		ry += gy[t]
		rh += h
	}
	return rx, ry, rh
}

// planarVJPOp is the backward op of PlanarPath: inputs are the forward
// output [3, B, T] and its gradient; the result is the gradient with respect
// to the steps d ([3, B, T]) or, with wrtStart, to the start poses ([3, B]).
type planarVJPOp struct{ wrtStart bool }

func (planarVJPOp) Arity() int { return 2 }

func (op planarVJPOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	t3 := G.TensorType{Dims: 3, Of: a}
	if op.wrtStart {
		return hm.NewFnType(t3, t3, G.TensorType{Dims: 2, Of: a})
	}
	return hm.NewFnType(t3, t3, t3)
}

func (op planarVJPOp) InferShape(inputs ...G.DimSizer) (tensor.Shape, error) {
	if len(inputs) != 2 {
		return nil, fmt.Errorf("%v: want 2 inputs, have %d", op, len(inputs))
	}
	o, ok1 := inputs[0].(tensor.Shape)
	g, ok2 := inputs[1].(tensor.Shape)
	if !ok1 || !ok2 || len(o) != 3 || o[0] != 3 || !sameShape(o, g) {
		return nil, fmt.Errorf("%v: shapes %v and %v, want two equal [3, B, T]", op, inputs[0], inputs[1])
	}
	if op.wrtStart {
		return tensor.Shape{3, o[1]}, nil
	}
	return o.Clone(), nil
}

func (op planarVJPOp) Do(inputs ...G.Value) (G.Value, error) {
	if len(inputs) != 2 {
		return nil, fmt.Errorf("%v: want 2 inputs, have %d", op, len(inputs))
	}
	o, os, err := denseFloats(op, inputs[0])
	if err != nil {
		return nil, err
	}
	g, gs, err := denseFloats(op, inputs[1])
	if err != nil {
		return nil, err
	}
	shape, err := op.InferShape(os, gs)
	if err != nil {
		return nil, err
	}
	b, n := os[1], os[2]
	N := b * n
	out := tensor.New(tensor.WithShape(shape...), tensor.Of(tensor.Float64))
	r := out.Data().([]float64)
	for k := range b {
		i := k * n
		var ddx, ddy, ddth []float64
		if !op.wrtStart {
			ddx, ddy, ddth = r[i:i+n], r[N+i:N+i+n], r[2*N+i:2*N+i+n]
		}
		a, bb, c := PlanarPathVJPFloat(ddx, ddy, ddth, o[i:i+n], o[N+i:N+i+n], o[2*N+i:2*N+i+n], g[i:i+n], g[N+i:N+i+n], g[2*N+i:2*N+i+n])
		if op.wrtStart {
			r[k], r[b+k], r[2*b+k] = a, bb, c
		}
	}
	return out, nil
}

func (planarVJPOp) ReturnsPtr() bool     { return false }
func (planarVJPOp) CallsExtern() bool    { return false }
func (planarVJPOp) OverwritesInput() int { return -1 }
func (op planarVJPOp) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "wheelgrad.PlanarPathVJP{wrtStart: %t}", op.wrtStart)
}
func (op planarVJPOp) Hashcode() uint32 { return hashOf(op) }
func (op planarVJPOp) String() string {
	if op.wrtStart {
		return "PlanarPathVJP{start}"
	}
	return "PlanarPathVJP{steps}"
}

// hashOf is the Hashcode of an op from its WriteHash.
func hashOf(op interface{ WriteHash(hash.Hash) }) uint32 {
	h := fnv.New32a()
	op.WriteHash(h)
	return h.Sum32()
}

// denseFloats returns the elements of a float64 tensor value in row-major
// order (materialising strided views) and its shape.
func denseFloats(op fmt.Stringer, v G.Value) ([]float64, tensor.Shape, error) {
	if f, ok := v.(*G.F64); ok {
		return []float64{float64(*f)}, tensor.Shape{}, nil
	}
	d, ok := v.(*tensor.Dense)
	if !ok {
		return nil, nil, fmt.Errorf("%v: input is a %T, want a *tensor.Dense", op, v)
	}
	if d.Dtype() != tensor.Float64 {
		return nil, nil, fmt.Errorf("%v: input has dtype %v, want float64", op, d.Dtype())
	}
	if d.RequiresIterator() {
		d = d.Materialize().(*tensor.Dense)
	}
	data, ok := d.Data().([]float64)
	if !ok {
		if f, ok := d.Data().(float64); ok {
			return []float64{f}, d.Shape().Clone(), nil
		}
		return nil, nil, fmt.Errorf("%v: input data is a %T, want []float64", op, d.Data())
	}
	n := d.Shape().TotalSize()
	if len(data) < n {
		return nil, nil, fmt.Errorf("%v: input holds %d values, shape %v needs %d", op, len(data), d.Shape(), n)
	}
	return data[:n], d.Shape().Clone(), nil
}

var (
	_ G.SDOp = planarPathOp{}
	_ G.Op   = planarVJPOp{}
)
