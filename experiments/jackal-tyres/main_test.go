package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestQuick(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	if err := run(&out, dir, true); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"== lino", "== carpet", "online μ", "== errors in variables"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("no %q in the output", s)
		}
	}
	for _, f := range []string{"forces-fx.png", "forces-fy.png", "paths-lino.png", "online-mu.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}
