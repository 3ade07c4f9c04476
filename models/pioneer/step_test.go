package pioneer

import (
	"os"
	"testing"

	"github.com/wheelgrad/wheelgrad/dyn"
)

var generated = []struct {
	m             *dyn.Model
	varName, file string
}{
	{PhysicalStep, "PhysicalStep", "physical_gen.go"},
	{ExperimentalStep, "ExperimentalStep", "experimental_gen.go"},
}

// TestGenerated keeps the generated kernels equal to what dyn.Generate
// writes (DYN_UPDATE=1 rewrites them).
func TestGenerated(t *testing.T) {
	update := os.Getenv("DYN_UPDATE") == "1"
	for _, g := range generated {
		if err := dyn.GenerateFile(g.m, "pioneer", g.varName, "kernel"+g.varName, g.file, update); err != nil {
			t.Error(err)
		}
		if !update && !g.m.Generated() {
			t.Errorf("%s: generated kernel not in use", g.m.Name())
		}
	}
}
