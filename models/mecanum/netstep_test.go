package mecanum

import (
	"os"
	"testing"

	"github.com/wheelgrad/wheelgrad/dyn"
)

// TestGeneratedNet keeps netstep_gen.go equal to what dyn.Generate writes
// for NetModel (DYN_UPDATE=1 rewrites it) and checks that it is in use.
func TestGeneratedNet(t *testing.T) {
	if err := dyn.GenerateFile(NetModel, "mecanum", "NetModel", "netModelKernel", "netstep_gen.go", updateGenerated()); err != nil {
		t.Error(err)
	}
	if !updateGenerated() && !NetModel.Generated() {
		t.Error("NetModel: the generated kernel is not in use")
	}
}

func updateGenerated() bool { return os.Getenv("DYN_UPDATE") == "1" }

// TestGeneratedMu keeps mustep_gen.go equal to what dyn.Generate writes for
// MuModel and checks that it is in use.
func TestGeneratedMu(t *testing.T) {
	if err := dyn.GenerateFile(MuModel, "mecanum", "MuModel", "muModelKernel", "mustep_gen.go", updateGenerated()); err != nil {
		t.Error(err)
	}
	if !updateGenerated() && !MuModel.Generated() {
		t.Error("MuModel: the generated kernel is not in use")
	}
}
