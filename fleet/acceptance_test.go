package fleet

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/wheelgrad/wheelgrad/fleet/synth"
)

// The acceptance test: a synthetic fleet of 40 robots × 5 days of
// the built-in models (synth, seed 1: 8 robots drifting by design, 5
// broken logs) through the pipeline on Prism, drift judged with the
// fleet's σ at -k auto: every drifting robot flagged on the day it drifts,
// no steady robot flagged on any day, every broken log a dead letter with
// the toolkit's error for it and no other dead letter.
func TestFleet40x5(t *testing.T) {
	dir := t.TempDir()
	tr, err := synth.Write(dir, synth.Config{Robots: 40, Days: 5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	es, err := ReadManifest(tr.Manifest, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	p, s := beam.NewPipelineWithRoot()
	outs := Build(s, es, Config{Out: out, KAuto: true, Parallelism: 2})
	passert.Count(s, outs, "outcomes", 200)
	if err := ptest.Run(p); err != nil {
		t.Fatal(err)
	}
	reps := readJSONL[DayReport](t, filepath.Join(out, "report.jsonl"))
	if len(reps) != 200 {
		t.Fatalf("%d report rows, want 200", len(reps))
	}
	flagged := map[string]bool{}
	for _, r := range reps {
		if r.Drift {
			flagged[r.Robot+"/"+r.Day] = true
		}
	}
	drifting := 0
	for _, r := range tr.Robots {
		if r.Drift != nil {
			drifting++
			if k := r.ID + "/" + strconv.Itoa(r.Drift.Day); !flagged[k] {
				t.Errorf("%s (%s, %s from day %d) not flagged on its drift day", r.ID, r.Model, r.Drift.Kind, r.Drift.Day)
			}
			continue
		}
		for _, d := range r.Days {
			if k := fmt.Sprintf("%s/%d", r.ID, d.Day); flagged[k] {
				t.Errorf("steady robot %s flagged on day %d", r.ID, d.Day)
			}
		}
	}
	if drifting == 0 || len(tr.Broken) == 0 {
		t.Fatalf("the generator made %d drifting robots and %d broken logs: the test tests nothing", drifting, len(tr.Broken))
	}
	dead := readJSONL[DeadLetter](t, filepath.Join(out, "dead_letters.jsonl"))
	if len(dead) != len(tr.Broken) {
		t.Errorf("%d dead letters, want the %d broken logs: %+v", len(dead), len(tr.Broken), dead)
	}
	for _, b := range tr.Broken {
		found := false
		for _, d := range dead {
			if d.Robot == b.Robot && d.Day == strconv.Itoa(b.Day) {
				found = true
				if !strings.Contains(d.Error, b.Error) || !strings.Contains(d.Error, filepath.Join(dir, b.Data)) {
					t.Errorf("%s/%d (%s): dead letter %q, want the file and %q", b.Robot, b.Day, b.Kind, d.Error, b.Error)
				}
			}
		}
		if !found {
			t.Errorf("%s/%d (%s): no dead letter", b.Robot, b.Day, b.Kind)
		}
	}
}
