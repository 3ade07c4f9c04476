package fit

import (
	"math"
	"strings"
	"testing"
	"time"
)

// The summary block: every parameter with value, σ and verdict; σ unknown
// said once per reason; lines, notes and the count of warnings.
func TestWriteSummary(t *testing.T) {
	r := Report{Model: "toy", Data: "1 run(s), 100 rows", Method: "lbfgsb",
		Params: []Param{
			{Name: "mu", Value: 0.61234, Lower: 0, Upper: 2, Std: 0.002},
			{Name: "c1", Value: 3, Lower: 0, Upper: 10, Std: math.NaN(), StdReason: "no Jacobian"},
			{Name: "c22", Value: 4, Lower: 0, Upper: 10, Std: math.NaN(), StdReason: "no Jacobian"},
			{Name: "h", Value: 0.06, Std: math.NaN(), Held: true},
		},
		Status:      &Status{Iterations: 12, Reason: "function converged"},
		Evaluations: 15, Elapsed: 1234567 * time.Microsecond,
		Lines: []string{"residual RMS 0.003 m"}, Warnings: []Warning{{Msg: "w"}},
	}
	var b strings.Builder
	r.WriteSummary(&b)
	want := `toy identify: 1 run(s), 100 rows
  method lbfgsb, 12 iterations, 15 evaluations, 1.235s, function converged
  mu  =     0.61234 ± 0.002  (determined)
  c1  =           3 σ unknown
  c22 =           4 σ unknown
  h   =        0.06 σ unknown  (fixed at -init)
  σ unknown (c1, c22): no Jacobian
  residual RMS 0.003 m
  1 warning(s) (on stderr): check the log's units and gaps before trusting these numbers
`
	if b.String() != want {
		t.Errorf("summary:\n%s\nwant:\n%s", b.String(), want)
	}
	r.Warnings, r.Status, r.Evaluations = nil, nil, 0
	b.Reset()
	r.WriteSummary(&b)
	if !strings.Contains(b.String(), "  method lbfgsb, 1.235s\n") || !strings.HasSuffix(b.String(), "  no warnings\n") {
		t.Errorf("no status, no warnings:\n%s", b.String())
	}
}
