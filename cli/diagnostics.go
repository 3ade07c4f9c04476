package cli

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/wheelgrad/wheelgrad/fit"
)

// The diagnostics every identify and validate shares (gaps, time units,
// scale, motion, σ, verdicts, refusals of undetermined parameters) are
// package fit's, run by the model's robots adapter; its warnings come back
// as values (robots.Sink), which diag prints and keeps. This file prints
// the one summary block of every identify (printSummary).

// diag collects the warnings of one command and prints each on stderr as
// it is found ("warning: ..."), so that they also reach a user who pipes
// stdout away.
type diag struct {
	w     io.Writer
	warns []fit.Warning
}

func newDiag(w io.Writer) *diag { return &diag{w: w} }

// add keeps and prints warnings.
func (d *diag) add(ws ...fit.Warning) {
	for _, x := range ws {
		d.warns = append(d.warns, x)
		fmt.Fprintf(d.w, "warning: %s\n", x)
	}
}

// Gap policies (-gaps).
const (
	gapsError  = string(fit.GapsError)
	gapsSplit  = string(fit.GapsSplit)
	gapsBridge = string(fit.GapsBridge)
)

// printSummary prints the block every identify prints (FORMATS.md
// addition) from the fit's report: what was fitted, how, the parameters
// with σ where known, the fit, and the count of its warnings (those found
// so far).
func printSummary(w io.Writer, r fit.Report) {
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

// reportWriter is where the summary goes: stdout, or stderr when the
// parameters (or, with -json, the report) go to stdout.
func reportWriter(e env, a IdentifyArgs) io.Writer {
	if a.Out == "-" || a.Out == "" || a.JSON {
		return e.stderr
	}
	return e.stdout
}

// emitReport prints the fit's summary block (printSummary, on
// reportWriter; with -json only without -quiet) and, with -json, keeps
// the report for identifyJSON, which prints it once the command has done
// its checks.
func emitReport(e env, a IdentifyArgs, r fit.Report) error {
	if !a.Quiet || !a.JSON {
		printSummary(reportWriter(e, a), r)
	}
	if a.report != nil {
		a.report.rep = &r
	}
	return nil
}
