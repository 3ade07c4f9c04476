package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestQuick runs the experiment at small sizes: it must identify the
// parameters (command noise is unmodelled: a few percent at 8 × 150) and
// print the JSON line.
func TestQuick(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	if err := run(&out, dir, true, true); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var r struct {
		Ratio       float64   `json:"ratio"`
		ParamRelErr []float64 `json:"param_rel_err"`
		Iterations  int       `json:"iterations"`
		JacobianS   float64   `json:"jacobian_s"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &r); err != nil {
		t.Fatalf("last line %q: %v", lines[len(lines)-1], err)
	}
	for i, e := range r.ParamRelErr {
		if e > 0.05 || e < -0.05 {
			t.Errorf("parameter %d off by %.1f %%", i, 100*e)
		}
	}
	if r.Iterations < 1 || r.Iterations > 15 {
		t.Errorf("least squares took %d iterations, want 1–15", r.Iterations)
	}
	if !(r.JacobianS > 0) {
		t.Errorf("jacobian_s = %v", r.JacobianS)
	}
	if _, err := os.Stat(filepath.Join(dir, "fit-8x150-cmdnoise0.03.png")); err != nil {
		t.Error(err)
	}
	t.Log(out.String())
}
