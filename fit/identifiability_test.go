package fit

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// jtjOf forms JᵀJ of the columns cols.
func jtjOf(cols ...[]float64) *mat.SymDense {
	n := len(cols)
	s := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			var v float64
			for k := range cols[i] {
				v += cols[i][k] * cols[j][k]
			}
			s.SetSym(i, j, v)
		}
	}
	return s
}

// y = (a/b)·x + c determines a/b and c, not a and b: the null direction is
// (a, b, 0) (scaling a and b together), a and b get σ = ∞, and c gets the
// σ of the model y = k·x + c (c is estimable: any generalised inverse gives
// it).
func TestIdentifiabilityNullDirection(t *testing.T) {
	const a, b = 2.0, 1.0
	x := []float64{0.1, 0.5, 0.9, 1.4, 2.0, 2.2, 3.1}
	ca, cb, cc := make([]float64, len(x)), make([]float64, len(x)), make([]float64, len(x))
	for k, v := range x {
		ca[k], cb[k], cc[k] = v/b, -a*v/(b*b), 1
	}
	id, err := Identifiability([]string{"a", "b", "c"}, jtjOf(ca, cb, cc))
	if err != nil {
		t.Fatal(err)
	}
	if len(id.Null) != 1 {
		t.Fatalf("null directions %+v, want one", id.Null)
	}
	u := id.Null[0].Coef
	w := []float64{a / math.Sqrt(a*a+b*b), b / math.Sqrt(a*a+b*b), 0}
	for i := range 3 {
		if math.Abs(u[i]-w[i]) > 1e-8 {
			t.Errorf("null direction %v, want %v", u, w)
			break
		}
	}
	if txt := id.Null[0].Text; txt != "0.894·a + 0.447·b" {
		t.Errorf("null direction named %q", txt)
	}
	if !math.IsInf(id.Std[0], 1) || !math.IsInf(id.Std[1], 1) {
		t.Errorf("σ of a, b: %v, want +Inf", id.Std[:2])
	}
	var red mat.Dense
	if err := red.Inverse(jtjOf(x, cc)); err != nil {
		t.Fatal(err)
	}
	if want := math.Sqrt(red.At(1, 1)); math.Abs(id.Std[2]/want-1) > 1e-9 {
		t.Errorf("σ of c %.12g, want %.12g (the reduced model's)", id.Std[2], want)
	}

	// y = a·x + c: nothing null, σ from the inverse
	id, err = Identifiability([]string{"a", "c"}, jtjOf(x, cc))
	if err != nil || len(id.Null) != 0 {
		t.Fatalf("full rank: %+v %v", id.Null, err)
	}
	for i := range 2 {
		if want := math.Sqrt(red.At(i, i)); math.Abs(id.Std[i]/want-1) > 1e-9 {
			t.Errorf("σ[%d] %.12g, want %.12g", i, id.Std[i], want)
		}
	}

	// a parameter the residuals ignore is null on its own; the scaling
	// keeps a badly scaled but determined parameter determined
	big := make([]float64, len(x))
	for k, v := range x {
		big[k] = 1e6 * v
	}
	id, err = Identifiability([]string{"a", "c", "d"}, jtjOf(big, cc, make([]float64, len(x))))
	if err != nil || len(id.Null) != 1 || id.Null[0].Text != "1·d" || !math.IsInf(id.Std[2], 1) || math.IsInf(id.Std[0], 0) || math.IsInf(id.Std[1], 0) {
		t.Errorf("ignored d: %+v, σ %v, %v", id.Null, id.Std, err)
	}

	if _, err := Identifiability([]string{"a"}, jtjOf(x, cc)); err == nil {
		t.Error("two columns, one name: no error")
	}
	nan := jtjOf(x, cc)
	nan.SetSym(0, 1, math.NaN())
	if _, err := Identifiability([]string{"a", "c"}, nan); err == nil || !strings.Contains(err.Error(), "JᵀJ[a,c]") {
		t.Errorf("NaN: %v", err)
	}
}

func TestNewDirection(t *testing.T) {
	d := NewDirection([]string{"mu1", "mu2", "mu3"}, []float64{-3, 4, 0})
	if d.Coef[0] != -0.6 || d.Coef[1] != 0.8 || d.Coef[2] != 0 || d.Text != "−0.6·mu1 + 0.8·mu2" {
		t.Errorf("%+v, want (−0.6, 0.8, 0): unit length, the largest entry positive", d)
	}
	if d := NewDirection([]string{"a", "b"}, []float64{1, -2}); d.Coef[1] <= 0 || math.Abs(d.Coef[0]+1/math.Sqrt(5)) > 1e-15 {
		t.Errorf("sign: %+v, want the largest entry made positive", d)
	}
	if d := NewDirection([]string{"a"}, []float64{0}); d.Coef[0] != 0 || d.Text != "" {
		t.Errorf("zero: %+v", d)
	}
}
