package dyn

import (
	"strings"
	"testing"
)

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

// TestGenerateTakenBranch: in the value kernels, the instructions only one
// branch of a Where reads are inside the if on its condition (the taken
// branch alone runs); the reverse kernel still computes both (it reads
// their values), and the results are not moved.
func TestGenerateTakenBranch(t *testing.T) {
	m := MustDefine(Spec{Name: "branchy", State: []string{"x"}, Params: []string{"k"}}, func(s *Step) {
		x := s.State("x")
		s.Next("x", Where(Gt(x, s.Const(0)), Exp(Sqrt(x).Mul(s.Param("k"))), Log1p(x.Square()).Neg()))
	})
	src, err := Generate(m, "p", "Branchy", "branchyKernel")
	if err != nil {
		t.Fatal(err)
	}
	fn := func(name string) string {
		s := string(src)
		i := strings.Index(s, ") "+name+"(")
		if i < 0 {
			t.Fatalf("no %s in the generated source", name)
		}
		j := strings.Index(s[i:], "\n}\n")
		return s[i : i+j]
	}
	for _, name := range []string{"Forward", "Roll", "RollFinal"} {
		f := fn(name)
		iff, els := strings.Index(f, "if s0 > 0.0 {"), strings.Index(f, "} else {")
		if iff < 0 || els < 0 {
			t.Fatalf("%s: no if on the condition:\n%s", name, f)
		}
		for _, op := range []string{"math.Sqrt(", "math.Exp("} {
			if k := strings.Index(f, op); !(k > iff && k < els) {
				t.Errorf("%s: %s is not in the branch taken when x > 0:\n%s", name, op, f)
			}
		}
		if k := strings.Index(f, "math.Log1p("); !(k > els) {
			t.Errorf("%s: math.Log1p is not in the other branch:\n%s", name, f)
		}
	}
	rev := fn("Reverse")
	if strings.Contains(rev, "} else {\n") && strings.Index(rev, "math.Sqrt(") > strings.Index(rev, "if s0 > 0.0 {") {
		t.Errorf("Reverse computes a branch conditionally; it reads both:\n%s", rev)
	}
}
