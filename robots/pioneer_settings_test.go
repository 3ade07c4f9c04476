package robots_test

import (
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/fit"
	"github.com/wheelgrad/wheelgrad/robots"
)

// -maxiter and -method reach pioneer.Identify: one iteration per stage
// (six delay stages, two more, the exact stage), the method named in the
// report; lbfgsb is the other method.
func TestPioneerSettings(t *testing.T) {
	var m robots.Pioneer
	src := []robots.Source{{Path: pioneerLog}}
	for _, c := range []struct {
		method string
		stages int
	}{{"", 9}, {"lbfgsb", 8}} {
		out, err := m.IdentifyWith(robots.IdentifyRequest{Sources: src, Method: c.method, Fit: fit.Settings{MaxIter: 1}}, robots.PioneerOptions{})
		if err != nil {
			t.Fatal(err)
		}
		st := out.Report.Status
		want := c.method
		if want == "" {
			want = "lsq"
		}
		if st == nil || st.Method != want || st.Iterations != c.stages || !strings.HasPrefix(out.Report.Method, want+" (experimental form") {
			t.Errorf("-method %q -maxiter 1: status %+v, method %q; want %s, %d iterations", c.method, st, out.Report.Method, want, c.stages)
		}
	}
}
