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
	for _, s := range []string{"asphalt", "concrete", "grass"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("no table for %s", s)
		}
		if _, err := os.Stat(filepath.Join(dir, "torque-"+s+".png")); err != nil {
			t.Error(err)
		}
	}
}
