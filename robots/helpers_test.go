package robots

import (
	"testing"

	"github.com/wheelgrad/wheelgrad/fit"
)

// recSink records what reaches a Sink (and its notes).
type recSink struct {
	warns []string
	notes []string
	prog  int
}

func (r *recSink) Warn(w fit.Warning)               { r.warns = append(r.warns, w.String()) }
func (r *recSink) Progress(format string, a ...any) { r.prog++ }
func (r *recSink) Done()                            {}
func (r *recSink) Note(line string)                 { r.notes = append(r.notes, line) }

// Diag.Note reaches a sink that shows notes, and no other.
func TestDiagNote(t *testing.T) {
	var s recSink
	NewDiag(&s).Note("%s: offset %+.4f s added", "a.csv", 0.25)
	if len(s.notes) != 1 || s.notes[0] != "a.csv: offset +0.2500 s added" || len(s.warns) != 0 {
		t.Errorf("notes %q, warnings %q", s.notes, s.warns)
	}
	NewDiag(nil).Note("dropped")
}

func TestParamWarningsLine(t *testing.T) {
	ws := ParamWarnings("p.json", []string{"a33: far from Table 2", "odd"})
	if len(ws) != 2 || ws[0].String() != `p.json, key "a33": far from Table 2` || ws[1].String() != "p.json: odd" {
		t.Errorf("%q", ws)
	}
}

func TestPoseTrackAndStart(t *testing.T) {
	chs := PoseChannels("psi")
	for k := range 3 {
		tk := float64(k)
		chs[0].Add(0, tk, tk, tk+0.1)
		chs[1].Add(0, tk, 0, 0)
		chs[2].Add(0, tk, 0, 0)
	}
	tr := PoseTrack(chs)
	if e := tr.Endpoint(); e < 0.0999 || e > 0.1001 {
		t.Errorf("endpoint error %g, want 0.1", e)
	}
	chs[1].T[1] = 7
	if tr := PoseTrack(chs); tr.Duration() != 0 {
		t.Error("channels sampled apart paired")
	}
	// x0 first predicts from the given state; estimate moves it to the data
	predict := func(s []float64) ([]fit.Channel, error) {
		c := []fit.Channel{{Name: "x", Unit: "m"}}
		for k := range 4 {
			c[0].Add(0, float64(k), 1+float64(k), s[0]+float64(k))
		}
		return c, nil
	}
	s, _, err := StartChannels(X0First, []float64{0}, predict)
	if err != nil || s[0] != 0 {
		t.Errorf("first: %v %v", s, err)
	}
	s, _, err = StartChannels(X0Estimate, []float64{0}, predict)
	if err != nil || s[0] < 0.99 || s[0] > 1.01 {
		t.Errorf("estimate: %v %v, want 1", s, err)
	}
}
