package cli

import (
	"fmt"
	"io"

	"github.com/wheelgrad/wheelgrad/fit"
)

// The diagnostics every identify and validate shares (gaps, time units,
// scale, motion, σ, verdicts, refusals of undetermined parameters) are
// package fit's, run by the model's robots adapter; its warnings come back
// as values (robots.Sink), which diag prints and keeps. This file prints
// the one summary block of every identify (fit.Report.WriteSummary).

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

// reportWriter is where the summary goes: stdout, or stderr when the
// parameters (or, with -json, the report) go to stdout.
func reportWriter(e env, a IdentifyArgs) io.Writer {
	if a.Out == "-" || a.Out == "" || a.JSON {
		return e.stderr
	}
	return e.stdout
}

// emitReport prints the fit's summary block (fit.Report.WriteSummary, on
// reportWriter; with -json only without -quiet) and, with -json, keeps
// the report for identifyJSON, which prints it once the command has done
// its checks.
func emitReport(e env, a IdentifyArgs, r fit.Report) error {
	if !a.Quiet || !a.JSON {
		r.WriteSummary(reportWriter(e, a))
	}
	if a.report != nil {
		a.report.rep = &r
	}
	return nil
}
