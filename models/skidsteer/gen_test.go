package skidsteer

import (
	"os"
	"testing"

	"github.com/wheelgrad/wheelgrad/dyn"
)

// TestGenerated keeps step_gen.go equal to what dyn.Generate writes for the
// current definition of Model (DYN_UPDATE=1 rewrites it), and checks that
// the generated kernel is in use.
func TestGenerated(t *testing.T) {
	update := os.Getenv("DYN_UPDATE") == "1"
	if err := dyn.GenerateFile(Model, "skidsteer", "Model", "modelKernel", "step_gen.go", update); err != nil {
		t.Error(err)
	}
	if !update && !Model.Generated() {
		t.Error("the generated kernel of Model is not in use")
	}
}
