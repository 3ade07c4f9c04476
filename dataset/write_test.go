package dataset

import (
	"bytes"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteCSVRoundTrip(t *testing.T) {
	special := []float64{
		0, math.Copysign(0, -1), 1, -1, 0.1, 1.0 / 3, 2.0 / 3, 1e-3, 123456789.123456789,
		math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, 2.2250738585072014e-308, // denormal, smallest normal
		math.MaxFloat64, -math.MaxFloat64, 1e308, 1e-300, 9007199254740993, math.Pi, math.Nextafter(1, 2),
	}
	rng := rand.New(rand.NewPCG(1, 2))
	n := len(special) + 500
	t0 := make([]float64, n)
	a := make([]float64, n)
	b := make([]float64, n) // sparse: NaN every third row
	for i := range n {
		t0[i] = float64(i) * (1.0 / 240)
		if i < len(special) {
			a[i] = special[i]
		} else {
			// Random bit patterns cover every exponent; skip non-finite ones.
			for a[i] = math.Inf(1); math.IsInf(a[i], 0) || math.IsNaN(a[i]); {
				a[i] = math.Float64frombits(rng.Uint64())
			}
		}
		b[i] = rng.NormFloat64()
		if i%3 == 0 {
			b[i] = math.NaN()
		}
	}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, []string{"t", "a", "b"}, [][]float64{t0, a, b}); err != nil {
		t.Fatal(err)
	}
	spec := Spec{Columns: []Column{{Name: "t"}, {Name: "a"}, {Name: "b", Sparse: true}}, Time: "t"}
	tab, err := Read(&buf, "rt.csv", spec)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]float64{"t": t0, "a": a, "b": b} {
		got := tab.Col(name)
		if len(got) != n {
			t.Fatalf("column %s has %d rows, want %d", name, len(got), n)
		}
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Errorf("column %s row %d: read %v (%#x), wrote %v (%#x)", name, i, got[i], math.Float64bits(got[i]), want[i], math.Float64bits(want[i]))
			}
		}
	}
}

func TestWriteCSVFormat(t *testing.T) {
	var buf bytes.Buffer
	err := WriteCSV(&buf, []string{"t", "x"}, [][]float64{{0, 0.5}, {math.Copysign(0, -1), math.NaN()}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := buf.String(), "t,x\n0,-0\n0.5,\n"; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
}

func TestWriteCSVErrors(t *testing.T) {
	for name, tt := range map[string]struct {
		header []string
		cols   [][]float64
		has    string
	}{
		"names and columns differ": {[]string{"t"}, [][]float64{{1}, {2}}, "1 name for 2 columns"},
		"ragged":                   {[]string{"t", "x"}, [][]float64{{1, 2}, {2}}, `column "x" has 1 rows`},
		"no columns":               {nil, nil, "no columns"},
		"Inf":                      {[]string{"t", "x"}, [][]float64{{1, 2}, {2, math.Inf(-1)}}, `row 2, column "x": cannot write -Inf`},
		"duplicate names":          {[]string{"t", "T"}, [][]float64{{1}, {2}}, `columns 1 and 2 are both named "T"`},
		"empty name":               {[]string{"t", ""}, [][]float64{{1}, {2}}, "empty"},
		"spaced name":              {[]string{"t", " x"}, [][]float64{{1}, {2}}, "surrounding spaces"},
		"one column, NaN":          {[]string{"x"}, [][]float64{{1, math.NaN()}}, "one-column"},
	} {
		err := WriteCSV(io.Discard, tt.header, tt.cols)
		if err == nil || !strings.Contains(err.Error(), tt.has) {
			t.Errorf("%s: error %v, want one containing %q", name, err, tt.has)
		}
	}
	err := WriteCSV(io.Discard, []string{"x"}, [][]float64{{math.Inf(1)}})
	if !errors.Is(err, ErrNotFinite) {
		t.Errorf("Inf: %v is not ErrNotFinite", err)
	}
}

func TestWriterText(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	w.WriteHeader("traj", "t", "x", "note")
	rows := [][]Cell{
		{Text("#1"), Num(0), Num(1.5), Text("plain")},
		{Text("#1"), Num(0.25), Num(math.NaN()), Text(`a "quoted", text`)},
		{Text("b,c"), Num(0), Num(-2), Text("")},
		{Text("ünïcode"), Num(0), Num(3), Text("#not a comment here")},
	}
	for _, r := range rows {
		if err := w.WriteRow(r...); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	want := "traj,t,x,note\n" +
		"\"#1\",0,1.5,plain\n" +
		"\"#1\",0.25,,\"a \"\"quoted\"\", text\"\n" +
		"\"b,c\",0,-2,\n" +
		"ünïcode,0,3,#not a comment here\n"
	if buf.String() != want {
		t.Errorf("wrote\n%s\nwant\n%s", buf.String(), want)
	}
	spec := Spec{
		Columns: []Column{{Name: "t"}, {Name: "x", Sparse: true}, {Name: "traj", Text: true}, {Name: "note", Text: true, Sparse: true}},
		Time:    "t", Group: "traj",
	}
	tab, err := Read(&buf, "w.csv", spec)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		if tab.TextCol("traj")[i] != r[0].text || tab.TextCol("note")[i] != r[3].text ||
			tab.Col("t")[i] != r[1].num || math.Float64bits(tab.Col("x")[i]) != math.Float64bits(r[2].num) {
			t.Errorf("row %d read back as %q %v %v %q", i, tab.TextCol("traj")[i], tab.Col("t")[i], tab.Col("x")[i], tab.TextCol("note")[i])
		}
	}
}

func TestWriterErrors(t *testing.T) {
	w := NewWriter(io.Discard)
	if err := w.WriteFloats(1); err == nil || !strings.Contains(err.Error(), "before the header") {
		t.Errorf("row before header: %v", err)
	}
	if err := w.WriteHeader("a"); err == nil {
		t.Error("the first error did not stick")
	}

	for name, tt := range map[string]struct {
		row []Cell
		has string
	}{
		"count":     {[]Cell{Num(1)}, "row 1 has 1 cell, header has 2"},
		"spaces":    {[]Cell{Num(1), Text(" a")}, `row 1, column "id": text " a" has surrounding spaces`},
		"newline":   {[]Cell{Num(1), Text("a\nb")}, "line break"},
		"bad UTF-8": {[]Cell{Num(1), Text("\xff")}, "UTF-8"},
	} {
		w := NewWriter(io.Discard)
		if err := w.WriteHeader("t", "id"); err != nil {
			t.Fatal(err)
		}
		err := w.WriteRow(tt.row...)
		if err == nil || !strings.Contains(err.Error(), tt.has) {
			t.Errorf("%s: error %v, want one containing %q", name, err, tt.has)
		}
		if w.Flush() != err {
			t.Errorf("%s: Flush does not return the first error", name)
		}
	}
	if err := NewWriter(io.Discard).WriteHeader("a", "b\r"); err == nil {
		t.Error("a name with a line break was accepted")
	}
}

func TestReadRefusesTextWithLineBreak(t *testing.T) {
	_, err := Read(strings.NewReader("t,traj\n0,\"a\nb\"\n"), "log.csv", Spec{Time: "t", Columns: []Column{{Name: "t"}, {Name: "traj", Text: true}}})
	var pe *ParseError
	if !errors.As(err, &pe) || !errors.Is(err, ErrInvalidText) || pe.Column != "traj" {
		t.Errorf("err = %v", err)
	}
}

// WriteFile writes a complete rendering; a failing one leaves the file as
// it was and names it.
func TestWriteFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.csv")
	if err := WriteFile(path, func(w io.Writer) error { return WriteCSV(w, []string{"t"}, [][]float64{{1, 2}}) }); err != nil {
		t.Fatal(err)
	}
	broken := errors.New("diverged")
	err := WriteFile(path, func(w io.Writer) error { io.WriteString(w, "t\n0,"); return broken })
	if !errors.Is(err, broken) || !strings.Contains(err.Error(), path) {
		t.Errorf("failing write: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "t\n1\n2\n" {
		t.Errorf("file holds %q", b)
	}
}
