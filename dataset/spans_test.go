package dataset

import (
	"bytes"
	"strings"
	"testing"
)

// Issue 25.3: poses recorded after the commands end are not simulated with
// the last command held: dropped with a warning naming how many and when;
// one command period after the last command still counts (the command acts
// during it); HoldLast keeps them all.
func TestReadLogDropsPosesAfterCommands(t *testing.T) {
	log := "t,w1,w2,x,theta,traj\n" +
		"0,1,2,0,0,a\n0.1,1,2,,,a\n0.2,3,4,,,a\n0.25,,,0.5,0,a\n0.3,,,0.6,0,a\n0.45,,,0.7,0,a\n0.9,,,0.8,0,a\n" +
		"0,1,1,0,0,b\n0.1,1,1,0.1,0,b\n0.15,,,0.2,0,b\n"
	p := writeTemp(t, "log.csv", log)
	var note bytes.Buffer
	tab, err := ReadLog(p, testSpec, LogOptions{Commands: []string{"w1", "w2"}, Note: &note})
	if err != nil {
		t.Fatal(err)
	}
	// run a: commands every 0.1 s end at 0.2: 0.25 and 0.3 kept, 0.45 and 0.9 dropped;
	// run b: 0.15 is within one period of 0.1
	if tab.Len() != 8 {
		t.Fatalf("%d rows (t = %v), want 8", tab.Len(), tab.Col("t"))
	}
	if got := tab.Col("t")[4]; got != 0.3 {
		t.Errorf("run a ends at t = %v, want 0.3", got)
	}
	if tab.TextCol("traj")[5] != "b" || !tab.Held(7) || tab.Held(5) {
		t.Errorf("held flags or runs wrong after the drop: traj %v", tab.TextCol("traj"))
	}
	want := `2 sensor rows after the last command row dropped in run "a" (t = 0.45 … 0.9 s; the commands end at t = 0.2 s, one command period 0.1 s before)`
	if !strings.Contains(note.String(), want) || !strings.Contains(note.String(), "-hold-last") {
		t.Errorf("note %q, want %q", note.String(), want)
	}
	note.Reset()
	tab, err = ReadLog(p, testSpec, LogOptions{Commands: []string{"w1", "w2"}, Note: &note, HoldLast: true})
	if err != nil {
		t.Fatal(err)
	}
	if tab.Len() != 10 || strings.Contains(note.String(), "dropped") {
		t.Errorf("HoldLast: %d rows, note %q", tab.Len(), note.String())
	}
	if tab.Col("w1")[6] != 3 {
		t.Errorf("HoldLast: the last command not held: w1 = %v", tab.Col("w1"))
	}
}

// A log where every row has commands, or with one command row only (no
// period known), loses nothing.
func TestDropAfterCommandsNothing(t *testing.T) {
	for _, log := range []string{
		"t,w1,w2,x,theta\n0,1,2,0,0\n0.1,1,2,0.1,0\n0.2,1,2,0.2,0\n",
		"t,w1,w2,x,theta\n0,1,2,0,0\n0.1,,,0.1,0\n5,,,0.2,0\n",
	} {
		var note bytes.Buffer
		tab, err := ReadLog(writeTemp(t, "l.csv", log), testSpec, LogOptions{Commands: []string{"w1", "w2"}, Note: &note})
		if err != nil || tab.Len() != 3 || note.Len() != 0 {
			t.Errorf("%q: err %v, %d rows, note %q", log, err, tab.Len(), note.String())
		}
	}
}
