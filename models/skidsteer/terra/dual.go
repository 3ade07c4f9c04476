package terra

import "math"

// Tangent directions carried by dual: the three surface parameters, the nine
// slip coefficients, the two commands, and the turn-centre shift S_o (used
// internally for the implicit derivative of the lateral force balance).
const (
	dMuO = iota
	dMuI
	dK
	dA  // a11..a33 at dA..dA+8
	dVc = dA + 9
	dWc = dVc + 1
	dSo = dWc + 1
	nd  = dSo + 1
)

// dual is a forward-mode dual number: a value and its derivatives along the
// nd tangent directions. The model is written once on duals; its value part
// is the native float64 model and the tangents are its exact gradient.
type dual struct {
	v float64
	d [nd]float64
}

// num is the arithmetic the model is written in: fl (plain float64, the
// native model) and dual (the same model with its forward-mode gradient).
type num[T any] interface {
	from(c float64) T
	value() float64
	add(T) T
	sub(T) T
	mul(T) T
	div(T) T
	scale(float64) T
	addc(float64) T
	exp() T
	sin() T
	cos() T
	sqrt() T
	tanh() T
	sinc() T
	cosc() T
}

// fl is the plain float64 arithmetic.
type fl float64

func (fl) from(c float64) fl    { return fl(c) }
func (a fl) value() float64     { return float64(a) }
func (a fl) add(b fl) fl        { return a + b }
func (a fl) sub(b fl) fl        { return a - b }
func (a fl) mul(b fl) fl        { return a * b }
func (a fl) div(b fl) fl        { return a / b }
func (a fl) scale(c float64) fl { return a * fl(c) }
func (a fl) addc(c float64) fl  { return a + fl(c) }
func (a fl) exp() fl            { return fl(math.Exp(float64(a))) }
func (a fl) sin() fl            { return fl(math.Sin(float64(a))) }
func (a fl) cos() fl            { return fl(math.Cos(float64(a))) }
func (a fl) sqrt() fl           { return fl(math.Sqrt(float64(a))) }
func (a fl) tanh() fl           { return fl(math.Tanh(float64(a))) }
func (a fl) sinc() fl           { v, _ := sinc(float64(a)); return fl(v) }
func (a fl) cosc() fl           { v, _ := cosc(float64(a)); return fl(v) }

func seed(v float64, i int) dual {
	x := dual{v: v}
	x.d[i] = 1
	return x
}

func (dual) from(c float64) dual { return dual{v: c} }
func (a dual) value() float64    { return a.v }

func (a dual) add(b dual) dual {
	a.v += b.v
	for i := range a.d {
		a.d[i] += b.d[i]
	}
	return a
}

func (a dual) sub(b dual) dual {
	a.v -= b.v
	for i := range a.d {
		a.d[i] -= b.d[i]
	}
	return a
}

func (a dual) addc(c float64) dual { a.v += c; return a }

func (a dual) scale(c float64) dual {
	a.v *= c
	for i := range a.d {
		a.d[i] *= c
	}
	return a
}

func (a dual) mul(b dual) dual {
	r := dual{v: a.v * b.v}
	for i := range r.d {
		r.d[i] = a.d[i]*b.v + a.v*b.d[i]
	}
	return r
}

func (a dual) div(b dual) dual {
	q := a.v / b.v
	r := dual{v: q}
	for i := range r.d {
		r.d[i] = (a.d[i] - q*b.d[i]) / b.v
	}
	return r
}

// chain applies a scalar function with value f and derivative df at a.v.
func (a dual) chain(f, df float64) dual {
	r := dual{v: f}
	for i := range r.d {
		r.d[i] = df * a.d[i]
	}
	return r
}

func (a dual) exp() dual  { e := math.Exp(a.v); return a.chain(e, e) }
func (a dual) sin() dual  { return a.chain(math.Sin(a.v), math.Cos(a.v)) }
func (a dual) cos() dual  { return a.chain(math.Cos(a.v), -math.Sin(a.v)) }
func (a dual) tanh() dual { t := math.Tanh(a.v); return a.chain(t, 1-t*t) }
func (a dual) sqrt() dual { s := math.Sqrt(a.v); return a.chain(s, 0.5/s) }
func (a dual) sinc() dual { return a.chain(sinc(a.v)) }
func (a dual) cosc() dual { return a.chain(cosc(a.v)) }

// sinc is sin(φ)/φ and cosc (cos φ − 1)/φ with their derivatives, smooth
// through φ = 0 (series below |φ| < 1e-3): they keep R″·sin φ = v·t·sin(φ)/φ
// finite on a straight line, where R″ = v/Ω is infinite.
func sinc(x float64) (float64, float64) {
	if math.Abs(x) < 1e-3 {
		x2 := x * x
		return 1 - x2/6 + x2*x2/120, -x/3 + x*x2/30
	}
	s, c := math.Sincos(x)
	return s / x, (x*c - s) / (x * x)
}

func cosc(x float64) (float64, float64) {
	if math.Abs(x) < 1e-3 {
		x2 := x * x
		return -x/2 + x*x2/24, -0.5 + x2/8
	}
	s, c := math.Sincos(x)
	return (c - 1) / x, (-x*s - (c - 1)) / (x * x)
}
