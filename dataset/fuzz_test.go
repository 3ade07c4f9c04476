package dataset

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
)

// FuzzRead feeds arbitrary bytes to Read with the Mecanum log spec and checks
// the contract: no panic; either a one-line *ParseError or a table whose
// columns all have Len() rows at increasing lines, with finite values (NaN
// only in Sparse columns) and time strictly increasing within each run; and
// that such a table, written with Writer, reads back identical.
func FuzzRead(f *testing.F) {
	for _, s := range []string{
		"",
		logHeader + "0,1,2,3,4,0,0,0,a\n0.1,1,2,3,4,,,,a\n0,1,2,3,4,1,1,1,b\n",
		"\uFEFF# comment\r\nT,W1,W2,W3,W4\r\n0,1,2,3,4\r\n\r\n# more\r\n1e-3,-0,+2,.5,5.\r\n",
		"w4,w3,w2,w1,t,extra\n1,2,3,4,0,x\n1,2,3,4,1,\"y,z\"\n",
		"t,w1,w2,w3,w4,traj\n0,1,2,3,4,\"#1\"\n1,1,2,3,4,\"multi\nline\"\n",
		"t,w1,w2,w3,w4\n0,NaN,2,3,4\n",
		"t,w1,w2,w3,w4\n0,0x1p3,1_000,Inf,4\n",
		"t,w1,w2,w3,w4\n1,1,2,3,4\n0.5,1,2,3,4\n",
		"t,w1,w2,w3,w4,t\n",
		"t,w1,w2,w3\n0,1,2,3\n",
		"t,w1,w2,w3,w4\n0,1,2,3\n",
		"t,w1,w2,w3,w4\n0,1,2,\"3,4\n",
		"t,w1,w2,w3,w4\n0,1,2,3\"x\",4\n",
		"t,w1,w2,w3,w4\n0,1,2,3,\xff\n",
		logHeader + "0,1,2,3,4,,,,a\n0,1,2,3,4,,,,b\n1,1,2,3,4,,,,a\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tab, err := Read(bytes.NewReader(data), "fuzz.csv", logSpec)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is a %T, not a *ParseError", err, err)
			}
			if msg := err.Error(); strings.ContainsAny(msg, "\r\n") || !strings.HasPrefix(msg, "fuzz.csv: ") {
				t.Fatalf("message %q is not one line starting with the file name", msg)
			}
			if pe.Line < 0 || pe.Line > bytes.Count(data, []byte("\n"))+1 {
				t.Fatalf("error line %d is not in the file: %v", pe.Line, err)
			}
			return
		}
		checkTable(t, tab)
		roundTrip(t, tab)
	})
}

func checkTable(t *testing.T, tab *Table) {
	t.Helper()
	n := tab.Len()
	if n == 0 {
		t.Fatal("a table without rows")
	}
	for i := 1; i < n; i++ {
		if tab.Line[i] <= tab.Line[i-1] {
			t.Fatalf("lines %v do not increase", tab.Line)
		}
	}
	sparse := map[string]bool{}
	for _, c := range logSpec.Columns {
		sparse[c.Name] = c.Sparse
		if !c.Optional && !tab.Has(c.Name) {
			t.Fatalf("required column %s missing", c.Name)
		}
	}
	for name, col := range tab.Columns {
		if len(col) != n {
			t.Fatalf("column %s has %d rows, table %d", name, len(col), n)
		}
		for i, v := range col {
			if math.IsInf(v, 0) || math.IsNaN(v) && !sparse[name] {
				t.Fatalf("column %s row %d is %v", name, i, v)
			}
		}
	}
	for name, col := range tab.Text {
		if len(col) != n {
			t.Fatalf("text column %s has %d rows, table %d", name, len(col), n)
		}
	}
	tt, traj := tab.Col("t"), tab.TextCol("traj")
	for i := 1; i < n; i++ {
		if (traj == nil || traj[i] == traj[i-1]) && !(tt[i] > tt[i-1]) {
			t.Fatalf("time %v then %v in one run", tt[i-1], tt[i])
		}
	}
}

// roundTrip writes tab with Writer, text column first so that ids starting
// with '#' are exercised, and checks that Read gives it back bit for bit.
func roundTrip(t *testing.T, tab *Table) {
	t.Helper()
	var names []string
	if tab.Has("traj") {
		for _, id := range tab.TextCol("traj") {
			if strings.ContainsAny(id, "\r\n") {
				return // Writer refuses line breaks in text
			}
		}
		names = append(names, "traj")
	}
	for _, c := range logSpec.Columns {
		if !c.Text && tab.Has(c.Name) {
			names = append(names, c.Name)
		}
	}
	var buf bytes.Buffer
	w := NewWriter(&buf)
	w.WriteHeader(names...)
	row := make([]Cell, len(names))
	for i := range tab.Len() {
		for j, name := range names {
			if name == "traj" {
				row[j] = Text(tab.TextCol(name)[i])
			} else {
				row[j] = Num(tab.Col(name)[i])
			}
		}
		w.WriteRow(row...)
	}
	if err := w.Flush(); err != nil {
		t.Fatalf("writing the table back: %v", err)
	}
	back, err := Read(&buf, "back.csv", logSpec)
	if err != nil {
		t.Fatalf("reading back %q: %v", buf.String(), err)
	}
	for name, col := range tab.Columns {
		got := back.Col(name)
		for i := range col {
			if math.Float64bits(got[i]) != math.Float64bits(col[i]) && !(math.IsNaN(got[i]) && math.IsNaN(col[i])) {
				t.Fatalf("column %s row %d: %v read back as %v", name, i, col[i], got[i])
			}
		}
	}
	for name, col := range tab.Text {
		if strings.Join(back.TextCol(name), "\x00") != strings.Join(col, "\x00") {
			t.Fatalf("text column %s: %q read back as %q", name, col, back.TextCol(name))
		}
	}
}
