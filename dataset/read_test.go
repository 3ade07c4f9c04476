package dataset

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
)

// logSpec is the Mecanum log of FORMATS.md.
var logSpec = Spec{
	Columns: []Column{
		{Name: "t"}, {Name: "w1"}, {Name: "w2"}, {Name: "w3"}, {Name: "w4"},
		{Name: "x", Optional: true, Sparse: true},
		{Name: "y", Optional: true, Sparse: true},
		{Name: "theta", Optional: true, Sparse: true},
		{Name: "traj", Optional: true, Text: true},
	},
	Time:  "t",
	Group: "traj",
}

const logHeader = "t,w1,w2,w3,w4,x,y,theta,traj\n"

func TestReadErrors(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		kind   error
		line   int
		column string
		msg    string // the exact message, if given
		has    string // a part of the message, if given
	}{
		{name: "empty", in: "", kind: ErrEmpty,
			msg: "log.csv: empty file (no header)"},
		{name: "only comments and blank lines", in: "# a log\n\n   \n# nothing\n", kind: ErrEmpty},
		{name: "only a byte order mark", in: "\uFEFF", kind: ErrEmpty},
		{name: "missing column", in: "t,w1,w2,w3\n0,1,2,3\n", kind: ErrMissingColumn, line: 1,
			msg: `log.csv: line 1: missing column "w4" (header has t, w1, w2, w3)`},
		{name: "missing columns after comments", in: "# log\n#\nT, W1 ,w3,,\"a,b\"\n", kind: ErrMissingColumn, line: 3,
			msg: `log.csv: line 3: missing columns "w2", "w4" (header has T, W1, w3, "", "a,b")`},
		{name: "no header row", in: "0,1,2,3,4\n0.1,1,2,3,4\n", kind: ErrMissingColumn, line: 1,
			has: "is the header row missing?"},
		{name: "duplicate column", in: "t,w1,w2,w3,w4,W1\n", kind: ErrDuplicateColumn, line: 1,
			msg: `log.csv: line 1: duplicate column "w1" (columns 2 and 6 of the header: "w1" and "W1")`},
		{name: "duplicate optional column", in: "t,w1,w2,w3,w4,x,x\n", kind: ErrDuplicateColumn, line: 1, has: "columns 6 and 7"},
		{name: "not a number", in: logHeader + "0,1,2,3,4,,,,a\n0.1,1,2,abc,4,,,,a\n", kind: ErrNotNumber, line: 3, column: "w3",
			msg: `log.csv: line 3, column "w3": "abc" is not a number`},
		{name: "not a number, header spelling", in: "T,W1,W2,W3,W4\n0,1,2,3,4\n1,1,2,x3,4\n", kind: ErrNotNumber, line: 3, column: "W3",
			msg: `log.csv: line 3, column "W3": "x3" is not a number`},
		{name: "hex float", in: "t,w1,w2,w3,w4\n0,0x1p3,2,3,4\n", kind: ErrNotNumber, line: 2, column: "w1", has: "plain decimals"},
		{name: "underscore", in: "t,w1,w2,w3,w4\n0,1_000,2,3,4\n", kind: ErrNotNumber, line: 2, column: "w1"},
		{name: "two points", in: "t,w1,w2,w3,w4\n0,1.2.3,2,3,4\n", kind: ErrNotNumber, line: 2, column: "w1"},
		{name: "exponent without digits", in: "t,w1,w2,w3,w4\n0,1e,2,3,4\n", kind: ErrNotNumber, line: 2, column: "w1"},
		{name: "lone point", in: "t,w1,w2,w3,w4\n0,.,2,3,4\n", kind: ErrNotNumber, line: 2, column: "w1"},
		{name: "double sign", in: "t,w1,w2,w3,w4\n0,+-inf,2,3,4\n", kind: ErrNotNumber, line: 2, column: "w1"},
		{name: "long cell is shortened", in: "t,w1,w2,w3,w4\n0," + strings.Repeat("z", 1000) + ",2,3,4\n", kind: ErrNotNumber, line: 2, column: "w1",
			msg: `log.csv: line 2, column "w1": "` + strings.Repeat("z", 40) + `"... is not a number`},
		{name: "NaN in sparse column", in: logHeader + "0,1,2,3,4,NaN,,,a\n", kind: ErrNotFinite, line: 2, column: "x",
			msg: `log.csv: line 2, column "x": NaN is not allowed (leave the cell empty where there is no value)`},
		{name: "nan", in: "t,w1,w2,w3,w4\n0,1,nan,3,4\n", kind: ErrNotFinite, line: 2, column: "w2",
			msg: `log.csv: line 2, column "w2": NaN is not allowed`},
		{name: "Inf", in: "t,w1,w2,w3,w4\n0,1,2,Inf,4\n", kind: ErrNotFinite, line: 2, column: "w3",
			msg: `log.csv: line 2, column "w3": +Inf is not allowed`},
		{name: "+Inf", in: "t,w1,w2,w3,w4\n0,1,2,+Inf,4\n", kind: ErrNotFinite, line: 2, column: "w3"},
		{name: "-infinity", in: "t,w1,w2,w3,w4\n0,1,2,-infinity,4\n", kind: ErrNotFinite, line: 2, column: "w3", has: "-Inf"},
		{name: "overflow", in: "t,w1,w2,w3,w4\n1e400,1,2,3,4\n", kind: ErrNotFinite, line: 2, column: "t",
			msg: `log.csv: line 2, column "t": "1e400" is too large for a float64`},
		{name: "too few fields", in: "# c\nt,w1,w2,w3,w4,x\n0,1,2,3,4,5\n0.1,1,2,3,4\n", kind: ErrFieldCount, line: 4,
			msg: "log.csv: line 4: 5 fields, header has 6"},
		{name: "too many fields", in: "t,w1,w2,w3,w4\n0,1,2,3,4,\n", kind: ErrFieldCount, line: 2,
			msg: "log.csv: line 2: 6 fields, header has 5"},
		{name: "one field", in: "t,w1,w2,w3,w4\n0\n", kind: ErrFieldCount, line: 2,
			msg: "log.csv: line 2: 1 field, header has 5"},
		{name: "equal time", in: "t,w1,w2,w3,w4\n0,1,2,3,4\n# camera lost\n\n0,1,2,3,4\n", kind: ErrNotIncreasing, line: 5, column: "t",
			msg: `log.csv: line 5, column "t": time 0 is not after 0 on line 2 (t must be strictly increasing)`},
		{name: "decreasing time", in: "t,w1,w2,w3,w4\n0.25,1,2,3,4\n0.5,1,2,3,4\n0.375,1,2,3,4\n", kind: ErrNotIncreasing, line: 4, column: "t",
			msg: `log.csv: line 4, column "t": time 0.375 is not after 0.5 on line 3 (t must be strictly increasing)`},
		// issue 28: runs concatenated without traj, each restarting its clock
		{name: "time back to the start", in: "t,w1,w2,w3,w4\n0,1,2,3,4\n0.5,1,2,3,4\n0,1,2,3,4\n", kind: ErrNotIncreasing, line: 4, column: "t",
			msg: `log.csv: line 4, column "t": time 0 is not after 0.5 on line 3 (t must be strictly increasing; a time that goes back is where a new run starts: several runs in one file need a traj column naming each (or -columns traj=COLUMN))`},
		{name: "negative zero after zero", in: "T,w1,w2,w3,w4\n0,1,2,3,4\n-0,1,2,3,4\n", kind: ErrNotIncreasing, line: 3, column: "T"},
		{name: "time within a group", in: logHeader + "0,1,2,3,4,,,,a\n1,1,2,3,4,,,,b\n0.5,1,2,3,4,,,,b\n", kind: ErrNotIncreasing, line: 4, column: "t",
			msg: `log.csv: line 4, column "t": time 0.5 is not after 1 on line 3 (t must be strictly increasing within each traj)`},
		{name: "group split", in: logHeader + "0,1,2,3,4,,,,a\n1,1,2,3,4,,,,a\n0,1,2,3,4,,,,b\n0,1,2,3,4,,,,a\n", kind: ErrGroupSplit, line: 5, column: "traj",
			msg: `log.csv: line 5, column "traj": "a" appears again after its run ended on line 3 (the rows of one traj must be contiguous)`},
		{name: "no data rows", in: logHeader, kind: ErrNoRows,
			msg: "log.csv: no data rows"},
		{name: "no data rows, comments", in: "# x\n" + logHeader + "# y\n\n", kind: ErrNoRows},
		{name: "empty cell", in: "t,w1,w2,w3,w4\n0,1,,3,4\n", kind: ErrEmptyCell, line: 2, column: "w2",
			msg: `log.csv: line 2, column "w2": empty cell (a value is needed on every row)`},
		{name: "blank cell", in: "t,w1,w2,w3,w4\n0,1,2,3,   \n", kind: ErrEmptyCell, line: 2, column: "w4"},
		{name: "empty time", in: "t,w1,w2,w3,w4\n,1,2,3,4\n", kind: ErrEmptyCell, line: 2, column: "t"},
		{name: "empty text cell", in: logHeader + "0,1,2,3,4,,,,\n", kind: ErrEmptyCell, line: 2, column: "traj"},
		{name: "invalid UTF-8 in a cell", in: "t,w1,w2,w3,w4\n0,1,2,3,4\n1,\xff,2,3,4\n", kind: ErrInvalidUTF8, line: 3,
			msg: "log.csv: line 3: invalid UTF-8 at byte 3 of the line (files must be UTF-8)"},
		{name: "invalid UTF-8 in the header", in: "t,w1,w2,w3,w4,caf\xe9\n0,1,2,3,4,5\n", kind: ErrInvalidUTF8, line: 1},
		{name: "invalid UTF-8 in a comment", in: "t,w1,w2,w3,w4\n0,1,2,3,4\n# caf\xe9\n", kind: ErrInvalidUTF8, line: 3},
		{name: "invalid UTF-8 in a long line", in: "t,w1,w2,w3,w4\n#" + strings.Repeat("a", 10000) + "\xc3(\n", kind: ErrInvalidUTF8, line: 2,
			has: "byte 10002"},
		{name: "UTF-16", in: "\xff\xfet\x00,\x00", kind: ErrInvalidUTF8, line: 1},
		{name: "bare quote", in: "t,w1,w2,w3,w4\n0,1,2,3x\"y\",4\n", kind: csv.ErrBareQuote, line: 2,
			msg: `log.csv: line 2: bare " in a field that is not quoted (byte 9 of the line)`},
		{name: "unterminated quote", in: "t,w1,w2,w3,w4\n0,1,2,\"3,4\n5,6\n", kind: csv.ErrQuote, line: 3,
			has: "in the record that starts on line 2"},
		{name: "text after closing quote", in: "t,w1,w2,w3,w4\n0,\"1\"x,2,3,4\n", kind: csv.ErrQuote, line: 2},
		{name: "indented comment is not a comment", in: "t,w1,w2,w3,w4\n  # note\n0,1,2,3,4\n", kind: ErrFieldCount, line: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab, err := Read(strings.NewReader(tt.in), "log.csv", logSpec)
			if err == nil {
				t.Fatalf("no error; read %d rows", tab.Len())
			}
			msg := err.Error()
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %q is a %T, not a *ParseError", msg, err)
			}
			if !errors.Is(err, tt.kind) {
				t.Errorf("error %q is not %q", msg, tt.kind)
			}
			if pe.File != "log.csv" || pe.Line != tt.line || pe.Column != tt.column {
				t.Errorf("error at %q line %d column %q, want line %d column %q (%s)", pe.File, pe.Line, pe.Column, tt.line, tt.column, msg)
			}
			if tt.msg != "" && msg != tt.msg {
				t.Errorf("message\n%s\nwant\n%s", msg, tt.msg)
			}
			if !strings.Contains(msg, tt.has) {
				t.Errorf("message %q does not contain %q", msg, tt.has)
			}
			if strings.ContainsAny(msg, "\r\n") {
				t.Errorf("message %q is not one line", msg)
			}
			if !strings.HasPrefix(msg, "log.csv: ") {
				t.Errorf("message %q does not start with the file name", msg)
			}
			if tt.line > 0 && !strings.Contains(msg, fmt.Sprintf("line %d", tt.line)) {
				t.Errorf("message %q does not name line %d", msg, tt.line)
			}
			if tt.column != "" && !strings.Contains(msg, fmt.Sprintf("column %q", tt.column)) {
				t.Errorf("message %q does not name column %q", msg, tt.column)
			}
		})
	}
}

func TestReadGood(t *testing.T) {
	in := "\uFEFF# recorded 2024-05-01, 240 Hz controls, 60 Hz camera\r\n" +
		" Traj ,note,W4,w3, W2 ,w1,T,X,Y,Theta\r\n" +
		"A,first,4,3,2,1,0,0.5,-0,1e-3\r\n" +
		"A,,4,3,2,1,0.25,,,\r\n" +
		"# camera dropped out\r\n" +
		"\r\n" +
		"   \r\n" +
		"A,\"quoted, with \"\"comma\"\"\",4,3,2,1, 0.5 ,,,\r\n" +
		"B,\"two\nlines\",+4,.3,2.,1E+2,0,1,2,3\r\n" +
		"B, ,-4,-3,-2,-1,\"1\",,,\r\n"
	tab, err := Read(strings.NewReader(in), "log.csv", logSpec)
	if err != nil {
		t.Fatal(err)
	}
	if tab.File != "log.csv" || tab.Len() != 5 {
		t.Fatalf("File %q, %d rows; want log.csv, 5", tab.File, tab.Len())
	}
	wantLines := []int{3, 4, 8, 9, 11}
	nan := math.NaN()
	want := map[string][]float64{
		"t":     {0, 0.25, 0.5, 0, 1},
		"w1":    {1, 1, 1, 100, -1},
		"w2":    {2, 2, 2, 2, -2},
		"w3":    {3, 3, 3, 0.3, -3},
		"w4":    {4, 4, 4, 4, -4},
		"x":     {0.5, nan, nan, 1, nan},
		"y":     {math.Copysign(0, -1), nan, nan, 2, nan},
		"theta": {1e-3, nan, nan, 3, nan},
	}
	for i, l := range wantLines {
		if tab.Line[i] != l {
			t.Errorf("Line = %v, want %v", tab.Line, wantLines)
			break
		}
	}
	if len(tab.Columns) != len(want) {
		t.Errorf("%d numeric columns, want %d", len(tab.Columns), len(want))
	}
	for name, w := range want {
		got := tab.Col(name)
		if len(got) != len(w) {
			t.Errorf("column %s: %v, want %v", name, got, w)
			continue
		}
		for i := range w {
			if math.Float64bits(got[i]) != math.Float64bits(w[i]) && !(math.IsNaN(got[i]) && math.IsNaN(w[i])) {
				t.Errorf("column %s: %v, want %v", name, got, w)
				break
			}
		}
	}
	if got := strings.Join(tab.TextCol("TRAJ"), " "); got != "A A A B B" {
		t.Errorf("traj = %q", got)
	}
	if tab.Has("note") || tab.Col("note") != nil {
		t.Error("extra column note was read")
	}
	if !tab.Has("Traj") || !tab.Has("theta") || tab.Has("nope") {
		t.Error("Has is wrong")
	}

	err = tab.Errorf(3, "theta", "pose jumps by %g m: %w", 2.5, ErrNotFinite)
	if got, want := err.Error(), `log.csv: line 9, column "Theta": pose jumps by 2.5 m: not a finite number`; got != want {
		t.Errorf("Errorf: %q, want %q", got, want)
	}
	if !errors.Is(err, ErrNotFinite) {
		t.Error("Errorf does not wrap its %w argument")
	}
	if got := tab.Errorf(99, "", "whole run diverges").Error(); got != "log.csv: whole run diverges" {
		t.Errorf("Errorf out of range: %q", got)
	}
}

func TestReadOptionalAndGroupAbsent(t *testing.T) {
	// No pose, no traj: one run, and time must increase over the whole file.
	tab, err := Read(strings.NewReader("t,w1,w2,w3,w4\n0,1,2,3,4\n1,1,2,3,4\n"), "c.csv", logSpec)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Has("x") || tab.Col("x") != nil || tab.Has("traj") || tab.TextCol("traj") != nil {
		t.Error("absent optional columns are in the table")
	}
	if len(tab.Columns) != 5 || len(tab.Text) != 0 {
		t.Errorf("columns %v, text %v", tab.Columns, tab.Text)
	}
}

func TestReadGroupsRestartTime(t *testing.T) {
	in := logHeader +
		"0,1,1,1,1,0,0,0,run 1\n0.1,1,1,1,1,,,,run 1\n" +
		"0,2,2,2,2,0,0,0,run 2\n0.1,2,2,2,2,,,,run 2\n0.2,2,2,2,2,,,,run 2\n" +
		"0,3,3,3,3,,,,3\n"
	tab, err := Read(strings.NewReader(in), "log.csv", logSpec)
	if err != nil {
		t.Fatal(err)
	}
	traj := tab.TextCol("traj")
	if got := strings.Join(traj, "|"); got != "run 1|run 1|run 2|run 2|run 2|3" {
		t.Errorf("traj = %q", got)
	}
	if got := fmt.Sprint(tab.Col("t")); got != "[0 0.1 0 0.1 0.2 0]" {
		t.Errorf("t = %s", got)
	}
}

func TestReadZeroSpec(t *testing.T) {
	tab, err := Read(strings.NewReader("a,b\n#\n1,x\n2,y\n"), "", Spec{})
	if err != nil {
		t.Fatal(err)
	}
	if tab.Len() != 2 || tab.Line[1] != 4 {
		t.Errorf("Line = %v", tab.Line)
	}
	_, err = Read(strings.NewReader("a,b\n1\n"), "", Spec{})
	if got := fmt.Sprint(err); got != "line 2: 1 field, header has 2" {
		t.Errorf("error without a file name: %q", got)
	}
}

func TestReadBadSpec(t *testing.T) {
	for _, spec := range []Spec{
		{Columns: []Column{{Name: " "}}},
		{Columns: []Column{{Name: "t"}, {Name: "T"}}},
		{Columns: []Column{{Name: "t"}}, Time: "time"},
		{Columns: []Column{{Name: "t", Sparse: true}}, Time: "t"},
		{Columns: []Column{{Name: "t", Optional: true}}, Time: "t"},
		{Columns: []Column{{Name: "t", Text: true}}, Time: "t"},
		{Columns: []Column{{Name: "t"}}, Group: "traj"},
		{Columns: []Column{{Name: "t"}, {Name: "traj"}}, Group: "traj"},
	} {
		_, err := Read(strings.NewReader("t,traj\n0,a\n"), "x.csv", spec)
		var pe *ParseError
		if err == nil || errors.As(err, &pe) || !strings.HasPrefix(err.Error(), "dataset: ") {
			t.Errorf("Spec %+v: error %v, want a plain dataset error", spec, err)
		}
	}
}

func TestReadNumbers(t *testing.T) {
	spec := Spec{Columns: []Column{{Name: "v"}}}
	for in, want := range map[string]float64{
		"1e-3": 1e-3, "+2": 2, "-0": math.Copysign(0, -1), ".5": 0.5, "5.": 5, "-.5e+1": -5, "1E3": 1000,
		"007": 7, "1e-400": 0, "4.9406564584124654e-324": 5e-324, "  3  ": 3, "\t3\t": 3,
		"1.7976931348623157e308": math.MaxFloat64,
	} {
		tab, err := Read(strings.NewReader("v\n"+in+"\n"), "n.csv", spec)
		if err != nil {
			t.Errorf("%q: %v", in, err)
			continue
		}
		if got := tab.Col("v")[0]; math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("%q read as %v, want %v", in, got, want)
		}
	}
}

// failAfter returns its data, then err.
type failAfter struct {
	r   io.Reader
	err error
}

func (f *failAfter) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err == io.EOF {
		return n, f.err
	}
	return n, err
}

func TestReadIOError(t *testing.T) {
	broken := errors.New("disk on fire")
	for _, r := range []io.Reader{
		iotest.ErrReader(broken),
		&failAfter{strings.NewReader("t,w1,w2,w3,w4\n0,1,2,3,4\n1,1,2"), broken},
		iotest.OneByteReader(&failAfter{strings.NewReader("t,w1,w2,w3,w4\n0,1,2,3,4\n"), broken}),
	} {
		_, err := Read(r, "log.csv", logSpec)
		var pe *ParseError
		if !errors.Is(err, broken) || errors.As(err, &pe) || !strings.HasPrefix(err.Error(), "log.csv: ") {
			t.Errorf("error %v (%T), want log.csv: disk on fire, not a *ParseError", err, err)
		}
	}
}

func TestReadOneByteAtATime(t *testing.T) {
	in := "\uFEFF#c\nt,w1,w2,w3,w4\r\n0,1,2,3,4\n#" + strings.Repeat("é", 5000) + "\n1,1,2,3,4"
	tab, err := Read(iotest.OneByteReader(strings.NewReader(in)), "log.csv", logSpec)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(tab.Line) != "[3 5]" {
		t.Errorf("Line = %v, want [3 5]", tab.Line)
	}
}

func TestReadFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.csv")
	if err := os.WriteFile(path, []byte("t,w1,w2,w3,w4\n0,1,2,3,4\n0,1,2,3,4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFile(path, logSpec)
	if want := path + `: line 3, column "t": time 0 is not after 0 on line 2 (t must be strictly increasing)`; fmt.Sprint(err) != want {
		t.Errorf("error %v, want %s", err, want)
	}
	_, err = ReadFile(filepath.Join(t.TempDir(), "none.csv"), logSpec)
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "none.csv") {
		t.Errorf("missing file: %v", err)
	}
}

func TestParseErrorOneLine(t *testing.T) {
	e := &ParseError{File: "a\nb.csv", Line: 3, Column: "x\ny", Err: errors.New("bad\r\nthing")}
	if got, want := e.Error(), `"a\nb.csv": line 3, column "x\ny": bad thing`; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if got := (&ParseError{Column: "c"}).Error(); got != `column "c": <nil>` {
		t.Errorf("%q", got)
	}
}
