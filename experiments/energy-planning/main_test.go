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
	for _, s := range []string{"Figs. 6–7", "Identified", "asphalt", "concrete", "fig20", "fig24", "exec. J"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("output lacks %q", s)
		}
	}
	for _, f := range []string{"fig6-torque", "fig7-power", "mran-asphalt", "mran-concrete", "fig20", "fig21", "fig22", "fig23", "fig24"} {
		if st, err := os.Stat(filepath.Join(dir, f+".png")); err != nil || st.Size() == 0 {
			t.Errorf("%s.png: %v", f, err)
		}
	}
}
