package dataset

import (
	"math"
	"testing"
)

func TestDerivative5Accuracy(t *testing.T) {
	h := 0.06
	n := 200
	x, d := make([]float64, n), make([]float64, n)
	for i := range x {
		x[i] = math.Sin(0.7 * float64(i) * h)
	}
	if err := Derivative5(d, x, h); err != nil {
		t.Fatal(err)
	}
	for i := range x {
		want := 0.7 * math.Cos(0.7*float64(i)*h)
		tol := 1e-6 // 5-point: (0.7h)⁴·0.7/30 ≈ 7e-8
		if i < 2 || i >= n-2 {
			tol = 3e-3 // one-sided 3-point: (0.7h)²·0.7/3 ≈ 4e-4
		}
		if math.Abs(d[i]-want) > tol {
			t.Errorf("i = %d: %v, want %v", i, d[i], want)
		}
	}
	// Exact on cubics (the 5-point formula's error term is the fifth derivative).
	for i := range x {
		s := float64(i) * h
		x[i] = 2*s*s*s - s + 1
	}
	_ = Derivative5(d, x, h)
	for i := 2; i < n-2; i++ {
		s := float64(i) * h
		if want := 6*s*s - 1; math.Abs(d[i]-want) > 1e-9 {
			t.Fatalf("cubic, i = %d: %v, want %v", i, d[i], want)
		}
	}
}

func TestDerivative5Errors(t *testing.T) {
	if err := Derivative5(make([]float64, 3), make([]float64, 4), 0.1); err == nil {
		t.Error("length mismatch accepted")
	}
	if err := Derivative5(make([]float64, 4), make([]float64, 4), 0); err == nil {
		t.Error("h = 0 accepted")
	}
	for n := range 5 {
		d := make([]float64, n)
		x := make([]float64, n)
		for i := range x {
			x[i] = 3 * float64(i)
		}
		if err := Derivative5(d, x, 1); err != nil {
			t.Fatal(err)
		}
		for i := range d {
			if n >= 2 && math.Abs(d[i]-3) > 1e-12 {
				t.Errorf("n = %d: d[%d] = %v, want 3", n, i, d[i])
			}
		}
	}
}

func TestMedian5RejectsSpikes(t *testing.T) {
	x := []float64{1, 1, 1, 9, 1, 1, 1, -7, 1, 1}
	d := make([]float64, len(x))
	if err := Median5(d, x); err != nil {
		t.Fatal(err)
	}
	for i, v := range d {
		if v != 1 {
			t.Errorf("d[%d] = %v, want 1", i, v)
		}
	}
	y := []float64{1, 2, 3, 4, 5, 6}
	if err := Median5(d[:6], y); err != nil {
		t.Fatal(err)
	}
	for i := range y {
		if d[i] != y[i] {
			t.Errorf("monotone series changed at %d: %v", i, d[i])
		}
	}
}

func TestSegmentStarts(t *testing.T) {
	s, err := SegmentStarts(37500, 50, StrideFor(37500, 50, 2, 3800), 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(s) < 3600 || len(s) > 4000 {
		t.Errorf("%d segments, want about 3800", len(s))
	}
	last := s[len(s)-1]
	if last+50 >= 37500 || s[0] != 2 {
		t.Errorf("segments [%d, %d] do not fit", s[0], last)
	}
	if _, err := SegmentStarts(10, 50, 1, 0); err == nil {
		t.Error("too short a log accepted")
	}
	if _, err := SegmentStarts(100, 0, 1, 0); err == nil {
		t.Error("N = 0 accepted")
	}
	s, _ = SegmentStarts(11, 10, 3, 0)
	if len(s) != 1 || s[0] != 0 {
		t.Errorf("exact fit: %v", s)
	}
}

// A destination of another length is an error, not a panic (issue 26.6).
func TestMedian5Shape(t *testing.T) {
	if err := Median5(make([]float64, 3), make([]float64, 5)); err == nil {
		t.Error("no error for a short destination")
	}
}
