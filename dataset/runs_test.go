package dataset

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOriginErr(t *testing.T) {
	tab, err := Read(strings.NewReader("# a comment\nT,Vc,traj\n0,1,a\n1,2,a\n0,3,b\n1,4,b\n"), "log.csv",
		Spec{Columns: []Column{{Name: "t"}, {Name: "vc"}, {Name: "traj", Text: true}}, Time: "t", Group: "traj"})
	if err != nil {
		t.Fatal(err)
	}
	runs := tab.Runs("traj")
	if len(runs) != 2 || runs[0] != [2]int{0, 2} || runs[1] != [2]int{2, 4} {
		t.Fatalf("runs %v, want [[0 2] [2 4]]", runs)
	}
	if one := tab.Runs("nosuch"); len(one) != 1 || one[0] != [2]int{0, 4} {
		t.Fatalf("without the group column: runs %v, want [[0 4]]", one)
	}
	o := Origin{Table: tab, Row: 2, ID: "b"}
	// row 1 of run b is table row 3, file line 6; the column as spelled in the header
	err = o.Err(&RowError{Row: 1, Column: "vc", Msg: "command out of range"})
	if got, want := err.Error(), `log.csv: line 6, column "Vc": command out of range`; got != want {
		t.Errorf("Err = %q, want %q", got, want)
	}
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 6 {
		t.Errorf("Err is not a *ParseError at line 6: %#v", err)
	}
	plain := errors.New("boom")
	if err := o.Err(plain); !errors.Is(err, plain) || err.Error() != "log.csv: boom" {
		t.Errorf("Err(other) = %v, want log.csv: boom wrapping it", err)
	}
	if o.Err(nil) != nil {
		t.Error("Err(nil) is not nil")
	}
	// a run from no file keeps the model's own error
	re := &RowError{Row: 3, Column: "t", Msg: "not increasing"}
	if err := (Origin{}).Err(re); err != error(re) || err.Error() != `row 3, column "t": not increasing` {
		t.Errorf("synthetic Err = %v", err)
	}
	if got := (Origin{ID: "x"}).Errorf(2, "t", "bad "); got.Error() != `run "x", row 2: bad` {
		t.Errorf("synthetic Errorf = %q", got)
	}
	if o.CommandRows() != nil {
		t.Error("Commands of a synchronous log is not nil")
	}
}

func TestOriginCommands(t *testing.T) {
	tab, err := Read(strings.NewReader("t,w,x\n0,1,\n0.5,,3\n1,2,\n"), "log.csv",
		Spec{Columns: []Column{{Name: "t"}, {Name: "w", Sparse: true}, {Name: "x", Sparse: true}}, Time: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := HoldCommands(tab, []string{"w"}, ""); err != nil {
		t.Fatal(err)
	}
	isCmd := Origin{Table: tab}.CommandRows()
	if isCmd == nil {
		t.Fatal("Commands is nil for a log with a sensor-only row")
	}
	for i, want := range []bool{true, false, true} {
		if isCmd(i) != want {
			t.Errorf("row %d: Commands = %v, want %v", i, isCmd(i), want)
		}
	}
	if isCmd := (Origin{Table: tab, Row: 1}).CommandRows(); isCmd(0) {
		t.Error("a run from row 1: its row 0 (the sensor row) counted as a command row")
	}
}

func TestMapFor(t *testing.T) {
	dir := t.TempDir()
	raw := filepath.Join(dir, "raw.csv")
	own := filepath.Join(dir, "own.csv")
	if err := os.WriteFile(raw, []byte("t,left,right\n0,1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(own, []byte("t,vc,wc\n0,1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := &CommandMap{Columns: []string{"Left", "right"}}
	cmds := []string{"vc", "wc"}
	if MapFor(raw, m, cmds) != m {
		t.Error("the map was dropped for a file with its columns")
	}
	if MapFor(own, m, cmds) != nil {
		t.Error("the map was kept for a file in the model's own commands")
	}
	if MapFor(filepath.Join(dir, "missing.csv"), m, cmds) != m {
		t.Error("the map was dropped for an unreadable file")
	}
	if MapFor(raw, nil, cmds) != nil {
		t.Error("no map gave a map")
	}
}
