package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMain(m *testing.M) {
	if spec := os.Getenv(genEnv); spec != "" { // a generator child (see genEnv)
		os.Exit(genMain(spec))
	}
	os.Exit(m.Run())
}

// TestQuick runs every case at its small sizes through the built command
// line: each must succeed and report a positive time, throughput and peak,
// and the PNG must be written.
func TestQuick(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	rs, err := run(&out, dir, "", "", 0, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	want := 0
	for _, c := range cases() {
		want += len(c.quick)
	}
	if len(rs) != want {
		t.Fatalf("%d results, want %d", len(rs), want)
	}
	seen := map[string]bool{}
	for _, r := range rs {
		seen[r.Model+" "+r.Command] = true
		if !(r.Wall > 0) || !(r.PeakMB > 1) || !(r.PerSecond() > 0) {
			t.Errorf("%+v", r)
		}
	}
	for _, m := range []string{"mecanum", "diffdrive", "skidsteer", "tire"} {
		for _, c := range []string{"identify", "simulate", "follow"} {
			if m == "tire" && c == "follow" {
				continue // follow has no tire model
			}
			if !seen[m+" "+c] {
				t.Errorf("no %s %s case", m, c)
			}
		}
	}
	if st, err := os.Stat(filepath.Join(dir, "scale.png")); err != nil || st.Size() < 1000 {
		t.Errorf("scale.png: %v", err)
	}
	if !strings.Contains(out.String(), "peak RSS") {
		t.Errorf("no table:\n%s", out.String())
	}
}
