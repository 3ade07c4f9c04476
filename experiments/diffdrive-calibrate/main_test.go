package main

import (
	"os"
	"path/filepath"
	"testing"
)

// The smoke test runs the whole experiment on short logs.
func TestQuick(t *testing.T) {
	dir := t.TempDir()
	if err := run(dir, true); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"fig3-training-steps.png", "fig5-wheel-locks.png", "fig6-robot-test.png", "fig9-human-test.png"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}
