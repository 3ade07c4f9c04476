package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/wheelgrad/wheelgrad/fleet/synth"
)

func TestRun(t *testing.T) {
	dir := t.TempDir()
	if rc := run([]string{"-robots", "4", "-days", "2", "-seed", "2", "-out", dir}); rc != 0 {
		t.Fatalf("exit %d", rc)
	}
	b, err := os.ReadFile(filepath.Join(dir, "truth.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tr synth.Truth
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatal(err)
	}
	if len(tr.Robots) != 4 || len(tr.Robots[0].Days) != 2 {
		t.Errorf("truth.json has %d robots, want 4 of 2 days", len(tr.Robots))
	}
	if _, err := os.Stat(filepath.Join(dir, "manifest.csv")); err != nil {
		t.Error(err)
	}
	for _, args := range [][]string{{}, {"-out", dir, "-robots", "0"}, {"-out", dir, "-bogus"}} {
		if rc := run(args); rc != 2 {
			t.Errorf("run %q: exit %d, want 2", args, rc)
		}
	}
	if rc := run([]string{"-out", dir, "-models", "hovercraft"}); rc != 1 {
		t.Errorf("an unknown model: exit %d, want 1", rc)
	}
}
