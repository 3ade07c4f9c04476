package unicycle

import (
	"os"
	"testing"

	"github.com/wheelgrad/wheelgrad/dyn"
)

// TestGenerated keeps model_gen.go equal to what dyn.Generate writes for
// Robot (DYN_UPDATE=1 rewrites it), with InlineTrig (its tangent kernel
// computes sin and cos of the heading inline) and FitKernel (it forms the
// tracker residuals and the normal equations in its loop).
func TestGenerated(t *testing.T) {
	if err := dyn.GenerateFile(Robot, "unicycle", "Robot", "robotKernel", "model_gen.go", os.Getenv("DYN_UPDATE") == "1", dyn.InlineTrig(), dyn.FitKernel()); err != nil {
		t.Fatal(err)
	}
}
