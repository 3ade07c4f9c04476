package fit

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// WriteSummary writes the report as the one summary block every identify
// prints (docs/formats.md): what was fitted and how, every parameter with
// its value, σ where known and its verdict, why σ is unknown (once per
// reason), the model's lines and notes, and the count of the warnings.
func (r Report) WriteSummary(w io.Writer) {
	fmt.Fprintf(w, "%s identify: %s\n", r.Model, r.Data)
	it, st := "", ""
	if r.Status != nil {
		if r.Status.Iterations > 0 {
			it = fmt.Sprintf(", %d iterations", r.Status.Iterations)
		}
		st = ", " + r.Status.Reason
	}
	if r.Evaluations > 0 {
		it += fmt.Sprintf(", %d evaluations", r.Evaluations)
	}
	fmt.Fprintf(w, "  method %s%s, %s%s\n", r.Method, it, r.Elapsed.Round(time.Millisecond), st)
	width := 0
	for _, p := range r.Params {
		width = max(width, len([]rune(p.Name)))
	}
	for _, p := range r.Params {
		pad := strings.Repeat(" ", width-len([]rune(p.Name)))
		sd := "σ unknown"
		if !math.IsNaN(p.Std) {
			sd = fmt.Sprintf("± %.3g", p.Std)
		}
		v := p.Verdict().String()
		if v != "" {
			v = "  (" + v + ")"
		}
		fmt.Fprintf(w, "  %s%s = %11.5g %s%s\n", p.Name, pad, p.Value, sd, v)
	}
	// Why σ is unknown, once per reason.
	var reasons []string
	why := map[string][]string{}
	for _, p := range r.Params {
		if math.IsNaN(p.Std) && !p.Held {
			if _, ok := why[p.StdReason]; !ok {
				reasons = append(reasons, p.StdReason)
			}
			why[p.StdReason] = append(why[p.StdReason], p.Name)
		}
	}
	for _, k := range reasons {
		text := k
		if text == "" {
			text = "not computed for this model or method"
		}
		fmt.Fprintf(w, "  σ unknown (%s): %s\n", strings.Join(why[k], ", "), text)
	}
	for _, l := range r.Lines {
		fmt.Fprintf(w, "  %s\n", l)
	}
	for _, l := range r.Notes {
		fmt.Fprintf(w, "  %s\n", l)
	}
	if n := len(r.Warnings); n > 0 {
		fmt.Fprintf(w, "  %d warning(s) (on stderr): check the log's units and gaps before trusting these numbers\n", n)
	} else {
		fmt.Fprintf(w, "  no warnings\n")
	}
}
