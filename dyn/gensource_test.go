package dyn

import "testing"

// The generated header's "source:" line names the file that declares the
// model's variable: a plain file, never a test or a generated one.
func TestDefinitionFile(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"Kitchen", "models.go"}, // var Kitchen = dyn.MustDefine(...)
		{"Gain", "models.go"},
		{"kitchenKernel", ""}, // a type in kitchen_gen.go, not a variable
		{"NoSuchModel", ""},
	} {
		if got := definitionFile("internal/testmodels", c.name); got != c.want {
			t.Errorf("definitionFile(internal/testmodels, %s) = %q, want %q", c.name, got, c.want)
		}
	}
	if got := definitionFile("no/such/dir", "Kitchen"); got != "" {
		t.Errorf("definitionFile of a missing directory = %q, want \"\"", got)
	}
}
