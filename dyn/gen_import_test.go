package dyn_test

import (
	"bytes"
	"testing"

	"github.com/wheelgrad/wheelgrad/dyn"
)

// A kernel imports dyn only when it calls one of its helpers: a model of
// plain arithmetic (a kinematic model) must generate compilable code.
func TestGenerateImportsDynOnlyWhenUsed(t *testing.T) {
	for _, c := range []struct {
		sign bool
		want bool
	}{{false, false}, {true, true}} {
		m := dyn.MustDefine(dyn.Spec{Name: "imp", State: []string{"x"}, Input: []string{"u"}}, func(s *dyn.Step) {
			v := s.State("x").Add(s.Input("u"))
			if c.sign {
				v = v.Mul(dyn.Sign(s.Input("u")))
			}
			s.Next("x", v)
		})
		src, err := dyn.Generate(m, "p", "M", "k")
		if err != nil {
			t.Fatal(err)
		}
		if got := bytes.Contains(src, []byte(`"github.com/wheelgrad/wheelgrad/dyn"`)); got != c.want {
			t.Errorf("sign %v: imports dyn %v, want %v\n%s", c.sign, got, c.want, src)
		}
	}
}
