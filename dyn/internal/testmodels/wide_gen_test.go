package testmodels

import (
	"fmt"
	"os"
	"testing"

	"github.com/wheelgrad/wheelgrad/dyn"
)

// TestGeneratedWide keeps wide*_gen.go equal to what dyn.Generate writes
// (DYN_UPDATE=1 rewrites them).
func TestGeneratedWide(t *testing.T) {
	update := os.Getenv("DYN_UPDATE") == "1"
	for _, c := range []struct {
		m *dyn.Model
		P int
	}{{Wide1, 1}, {Wide2, 2}, {Wide4, 4}, {Wide8, 8}, {Wide16, 16}, {Wide32, 32}} {
		v := fmt.Sprintf("Wide%d", c.P)
		if err := dyn.GenerateFile(c.m, "testmodels", v, fmt.Sprintf("wide%dKernel", c.P), fmt.Sprintf("wide%d_gen.go", c.P), update); err != nil {
			t.Error(err)
		}
		if !update && !c.m.Generated() {
			t.Errorf("%s: the generated kernel is not in use", c.m.Name())
		}
	}
	if err := dyn.GenerateFile(Edges, "testmodels", "Edges", "edgesKernel", "edges_gen.go", update); err != nil {
		t.Error(err)
	}
}
