package fit

import (
	"fmt"
	"io"
	"math"
	"strconv"
)

// WriteText writes the validation as validate prints it: a header naming
// the parameters and the data (params, data) and how each run started,
// the table of channels (fit %, NRMSE, RMS error, samples), per run the
// endpoint and k-step errors, and the count of warnings (none: no line).
func (v *Validation) WriteText(w io.Writer, params, data string, warnings int) {
	start := "initial state estimated per run, as MATLAB compare"
	if v.X0 == "first" {
		start = "simulated from each run's first state"
	}
	fmt.Fprintf(w, "%s validate: %s on %s (%s)\n", v.Model, params, data, start)
	fmt.Fprintf(w, "  %-8s %9s %9s %12s %8s\n", "output", "fit %", "NRMSE", "RMS error", "samples")
	for i := range v.Channels {
		c := &v.Channels[i]
		f, n, r := c.Fit()
		fmt.Fprintf(w, "  %-8s %9.2f %9.4f %9.4g %-3s %7d\n", c.Name, f, n, r, c.Unit, len(c.Meas))
	}
	what := "position"
	if v.DeadReckoned {
		what = "position dead-reckoned from v, w"
	}
	h := strconv.FormatFloat(v.Horizon, 'g', 4, 64)
	fmt.Fprintf(w, "  per run (%s errors; k-step: the model restarted from the measured pose %s s before each pose):\n", what, h)
	if v.Clipped {
		fmt.Fprintf(w, "  -horizon %g s clipped to the longest run, %s s\n", v.Asked, h)
	}
	for _, m := range v.Runs {
		ks := fmt.Sprintf("%s-s error %.4f m RMS over %d predictions", h, m.KStep, m.KStepN)
		if m.KStepN == 0 {
			ks = fmt.Sprintf("%s-s error n/a (%s)", h, m.Note)
		}
		ep := fmt.Sprintf("endpoint %.4f m", m.Endpoint)
		if math.IsNaN(m.Endpoint) {
			ep = "endpoint n/a (no measured pose)"
		}
		fmt.Fprintf(w, "  run %s: %d samples over %.3f s; %s; %s\n", m.ID, m.Samples, m.Duration, ep, ks)
	}
	if warnings > 0 {
		fmt.Fprintf(w, "  %d warning(s) (on stderr)\n", warnings)
	}
}
