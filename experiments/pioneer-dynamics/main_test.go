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
	for _, s := range []string{"Tab. 3", "Tab. 4", "Tab. 5", "Tab. 6", "Tab. 7", "identified physical", "identified experimental", "error reduction"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("no %q in the output", s)
		}
	}
	for _, f := range []string{"fig9-v-set1.png", "fig10-verr-set1-physical.png", "fig11-w-set2.png", "fig12-werr-set2-experimental.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}
