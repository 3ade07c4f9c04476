package main

import (
	"os"
	"testing"

	"github.com/wheelgrad/wheelgrad/dyn"
)

// TestGenerated keeps model_gen.go equal to what dyn.Generate writes for
// Robot (DYN_UPDATE=1 rewrites it).
func TestGenerated(t *testing.T) {
	if err := dyn.GenerateFile(Robot, "main", "Robot", "robotKernel", "model_gen.go", os.Getenv("DYN_UPDATE") == "1"); err != nil {
		t.Fatal(err)
	}
}

// TestGeneratedForward: the generated value and tangent kernels equal the
// interpreter on a log of the true robot (stick, breakaway, slide).
func TestGeneratedForward(t *testing.T) {
	d, err := newDataset([]*logRun{simulateLog(truth, 6, 1), simulateLog(truth, 6, 2)})
	if err != nil {
		t.Fatal(err)
	}
	rel, err := Robot.CheckGeneratedForward(truth.Params(), []float64{truth.W}, d.x0, d.u, d.B, d.T, 1e-9)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("largest relative difference of the Jacobians: %.2g", rel)
}
