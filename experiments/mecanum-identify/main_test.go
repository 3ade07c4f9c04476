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
	var b bytes.Buffer
	if err := run(&b, dir, true); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"Fig. 6", "L-BFGS-B, analytic gradient", "CMA-ES", "second run", "Fig. 7"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, f := range []string{"fig7-loss-vs-iteration.png", "fig7-loss-vs-data.png"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}
