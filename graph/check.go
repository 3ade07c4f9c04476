package graph

import (
	"fmt"
	"math"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// checkInput reports whether x can be the main operand of an op of this
// package: a float64 node. fn names the calling function so that the error
// says where a model went wrong.
func checkInput(fn, name string, x *G.Node) error {
	if x == nil {
		return fmt.Errorf("graph.%s: %s is nil", fn, name)
	}
	if dt := x.Dtype(); dt != tensor.Float64 {
		return fmt.Errorf("graph.%s: %s has dtype %v, want float64", fn, name, dt)
	}
	return nil
}

// checkOperand reports whether p can be combined elementwise with x: a
// float64 node that is either a scalar (one value for the whole batch, e.g.
// one friction coefficient) or has exactly x's shape (one value per element).
// Gorgonia broadcasts only scalars without explicit patterns, so anything else
// is refused here with a message rather than deep inside the type checker.
func checkOperand(fn, name string, x, p *G.Node) error {
	if err := checkInput(fn, name, p); err != nil {
		return err
	}
	if p.IsScalar() {
		return nil
	}
	if xs, ps := x.Shape(), p.Shape(); !sameShape(xs, ps) {
		return fmt.Errorf("graph.%s: %s has shape %v, want a scalar or the shape of x %v", fn, name, ps, xs)
	}
	return nil
}

// knownValues returns the values of p if they are already known at build
// time (a constant, or an input bound with G.WithValue or G.Let), else nil.
// Values bound later cannot be checked while building; the doc comments of
// the callers state the requirements.
func knownValues(p *G.Node) []float64 {
	v := p.Value()
	if v == nil {
		return nil
	}
	switch d := v.Data().(type) {
	case float64:
		return []float64{d}
	case []float64:
		return d[:v.Shape().TotalSize()]
	}
	return nil
}

// checkPositive refuses a temperature or width whose known value is not a
// finite positive number.
func checkPositive(fn, name string, p *G.Node) error {
	for _, f := range knownValues(p) {
		if !(f > 0) || math.IsInf(f, 1) {
			return fmt.Errorf("graph.%s: %s = %v, want a finite value > 0", fn, name, f)
		}
	}
	return nil
}

// checkOrdered refuses limits whose known values have lo > hi somewhere (or
// a NaN): the mask arithmetic of Clamp assumes at most one limit is active.
// Each of lo and hi is a scalar or has the same number of elements.
func checkOrdered(fn, loName, hiName string, lo, hi *G.Node) error {
	l, h := knownValues(lo), knownValues(hi)
	if l == nil || h == nil {
		return nil
	}
	n := max(len(l), len(h))
	at := func(v []float64, i int) float64 {
		if len(v) == 1 {
			return v[0]
		}
		return v[i]
	}
	for i := 0; i < n; i++ {
		if a, b := at(l, i), at(h, i); !(a <= b) {
			return fmt.Errorf("graph.%s: %s = %v > %s = %v at element %d, want %s ≤ %s", fn, loName, a, hiName, b, i, loName, hiName)
		}
	}
	return nil
}

func shapeError(name string, got, want tensor.Shape) error {
	return fmt.Errorf("%s has shape %v, want %v", name, got, want)
}

// sameShape is strict equality of shapes. tensor.Shape.Eq calls a vector
// [n] equal to a column [n, 1]; gorgonia would then combine them into a
// matrix, which is never what a model meant.
func sameShape(a, b tensor.Shape) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
