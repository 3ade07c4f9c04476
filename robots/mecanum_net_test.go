package robots_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/models/mecanum"
	"github.com/wheelgrad/wheelgrad/robots"
)

// -friction net on real-like recordings (3 commands, 2 repeats each):
// the summary compares the network with the per-command fits, and the
// report carries the leave-one-command-out check (one group per command,
// its two runs), which -json prints as held_out.
func TestMecanumNetLeaveOneCommandOut(t *testing.T) {
	dir := t.TempDir()
	var srcs []robots.Source
	for i, w := range mecanum.RealLikeTrain[:3] {
		for rep := range 2 {
			s := mecanum.RealLikeRecording(w, rep, 11+uint64(i))
			s.Duration = 2
			r := mecanum.SynthesizeRealLike(mecanum.DefaultParams(), s)
			ch, c, mh, m := r.Columns()
			src := robots.Source{Path: filepath.Join(dir, fmt.Sprintf("cmd%d%c.csv", i, 'a'+rep)), Poses: filepath.Join(dir, fmt.Sprintf("cam%d%c.csv", i, 'a'+rep)), AutoOffset: true}
			for _, f := range []struct {
				path string
				h    []string
				c    [][]float64
			}{{src.Path, ch, c}, {src.Poses, mh, m}} {
				var b bytes.Buffer
				if err := dataset.WriteCSV(&b, f.h, f.c); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(f.path, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			srcs = append(srcs, src)
		}
	}
	p := mecanum.DefaultParams()
	p.CommandMap = &dataset.CommandMap{Columns: []string{"p3", "p4", "p2", "p1"}, Scale: []float64{0.1, -0.1, -0.1, 0.1}}
	o := robots.DefaultMecanumOptions()
	o.Friction = "net"
	out, err := robots.Mecanum{}.IdentifyWith(robots.IdentifyRequest{Sources: srcs, Init: p, Sink: &noteSink{}}, o)
	if err != nil {
		t.Fatal(err)
	}
	rep := out.Report
	text := strings.Join(rep.Lines, "\n")
	t.Log(text)
	for _, want := range []string{"one constant μ per command", "network / per-command", "leave-one-command-out", "left out [", "held-out check"} {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q", want)
		}
	}
	h := rep.HeldOut
	if h == nil || len(h.Groups) != 3 {
		t.Fatalf("held-out report %+v", h)
	}
	for _, g := range h.Groups {
		if len(g.Runs) != 2 || !(g.Model > 0) || !(g.Baseline > 0) {
			t.Errorf("group %+v: want its 2 runs and two positive RMS", g)
		}
	}
	b, err := rep.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	ho, ok := m["held_out"].(map[string]any)
	if !ok || ho["method"] != "leave-one-command-out" || len(ho["groups"].([]any)) != 3 {
		t.Errorf("-json: held_out %v", m["held_out"])
	}
}
