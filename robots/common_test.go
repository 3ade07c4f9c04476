package robots

import (
	"fmt"
	"testing"

	"github.com/wheelgrad/wheelgrad/fit"
)

type recordingSink struct {
	warns []fit.Warning
	notes []string
}

func (s *recordingSink) Warn(w fit.Warning)      { s.warns = append(s.warns, w) }
func (s *recordingSink) Progress(string, ...any) {}
func (s *recordingSink) Done()                   {}
func (s *recordingSink) Note(l string)           { s.notes = append(s.notes, l) }

// A reader's notes: "warning: " lines become warnings (kept and passed
// on), the others notes; a line may arrive in pieces.
func TestNoteWriter(t *testing.T) {
	s := &recordingSink{}
	d := NewDiag(s)
	w := d.NoteWriter()
	fmt.Fprint(w, "log.csv: 2 rows before the first row with commands ignored\nwarn")
	fmt.Fprint(w, "ing: log.csv: 3 sensor rows dropped\n")
	if len(s.notes) != 1 || s.notes[0] != "log.csv: 2 rows before the first row with commands ignored" {
		t.Errorf("notes %q", s.notes)
	}
	if len(d.Warnings) != 1 || d.Warnings[0].Msg != "log.csv: 3 sensor rows dropped" || len(s.warns) != 1 {
		t.Errorf("warnings %v, sink %v", d.Warnings, s.warns)
	}
	// a sink without notes drops them
	d = NewDiag(nil)
	fmt.Fprint(d.NoteWriter(), "a note\nwarning: w\n")
	if len(d.Warnings) != 1 {
		t.Errorf("warnings %v", d.Warnings)
	}
}

func TestParamWarnings(t *testing.T) {
	ws := ParamWarnings("p.json", []string{"Kx: unusually stiff", "odd"})
	want := []string{`p.json, key "Kx": unusually stiff`, "p.json: odd"}
	for i, w := range ws {
		if w.String() != want[i] {
			t.Errorf("%d: %q, want %q", i, w.String(), want[i])
		}
	}
}
