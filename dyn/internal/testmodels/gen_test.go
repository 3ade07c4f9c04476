package testmodels

import (
	"os"
	"testing"

	"github.com/wheelgrad/wheelgrad/dyn"
)

// TestGenerated keeps kernels_gen.go equal to what dyn.Generate writes for
// the current definitions (DYN_UPDATE=1 rewrites it); Lag's with
// ObservedRows, InlineTrig and FitKernel (its tangent kernel stores chosen rows only,
// computes its Sin/Cos pair inline, and forms a fit's residuals in its loop).
func TestGenerated(t *testing.T) {
	update := os.Getenv("DYN_UPDATE") == "1"
	for _, c := range []struct {
		m            *dyn.Model
		varName, typ string
		path         string
		opts         []dyn.GenOption
	}{{Kitchen, "Kitchen", "kitchenKernel", "kitchen_gen.go", nil}, {Lag, "Lag", "lagKernel", "lag_gen.go", []dyn.GenOption{dyn.ObservedRows(), dyn.InlineTrig(), dyn.FitKernel()}},
		{Gain, "Gain", "gainKernel", "gain_gen.go", nil}, {Untaken, "Untaken", "untakenKernel", "untaken_gen.go", nil}, {Tables, "Tables", "tablesKernel", "tables_gen.go", nil}} {
		if err := dyn.GenerateFile(c.m, "testmodels", c.varName, c.typ, c.path, update, c.opts...); err != nil {
			t.Error(err)
		}
		if !update && !c.m.Generated() {
			t.Errorf("%s: the generated kernel is not in use", c.m.Name())
		}
	}
}
