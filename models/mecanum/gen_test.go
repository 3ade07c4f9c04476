package mecanum

import (
	"os"
	"testing"

	"github.com/wheelgrad/wheelgrad/dyn"
)

// TestGenerated keeps step_gen.go and camloss_gen.go equal to what
// dyn.Generate writes for the current definitions (DYN_UPDATE=1 rewrites
// them; Model's with ObservedRows, for SquaredLS's camera rows), and
// checks that the generated kernels are in use.
func TestGenerated(t *testing.T) {
	update := os.Getenv("DYN_UPDATE") == "1"
	for _, c := range []struct {
		m            *dyn.Model
		varName, typ string
		path         string
		opts         []dyn.GenOption
	}{{Model, "Model", "modelKernel", "step_gen.go", []dyn.GenOption{dyn.ObservedRows()}}, {cameraLoss, "cameraLoss", "cameraLossKernel", "camloss_gen.go", nil}} {
		if err := dyn.GenerateFile(c.m, "mecanum", c.varName, c.typ, c.path, update, c.opts...); err != nil {
			t.Error(err)
		}
		if !update && !c.m.Generated() {
			t.Errorf("%s: the generated kernel is not in use", c.m.Name())
		}
	}
}
