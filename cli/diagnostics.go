package cli

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/fit"
	"github.com/wheelgrad/wheelgrad/robots"
)

// The diagnostics every identify (and validate) handler shares are package
// fit's (issue 16, 23): a user's own log in the wrong units, with a gap,
// without motion or without the excitation a parameter needs gets a
// warning or an error instead of confident numbers. A handler calls:
//
//   - checkGaps (fit.ApplyGaps) on each run's time column, honouring
//     IdentifyArgs.Gaps (error, split, bridge);
//   - fit.TimeUnits on each time column;
//   - fit.Scale with what the log measured against what the commands
//     predict under the nominal (or -init) model, and fit.NoMotion when
//     nothing moved;
//   - after the fit: a fit.Param per parameter (its verdict is never
//     "determined" when σ is wider than the bound range), fit.OnBound,
//     fit.ResidualNoise, and printSummary of the fit.Report, the one
//     summary block of every identify;
//   - fit.CheckDetermined: undetermined parameters are refused (exit 1)
//     unless -allow-undetermined.
//
// Each returns its warnings as values; d.add prints them.

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

func (d *diag) warnf(format string, a ...any) { d.add(fit.Warnf("", format, a...)) }

// keep adds the warnings of a check and passes its error on.
func (d *diag) keep(ws []fit.Warning, err error) error {
	d.add(ws...)
	return err
}

// Gap policies (-gaps).
const (
	gapsError  = string(fit.GapsError)
	gapsSplit  = string(fit.GapsSplit)
	gapsBridge = string(fit.GapsBridge)
)

// checkGaps applies the -gaps policy to one run's time column (see
// fit.ApplyGaps) and keeps its warnings.
func checkGaps(d *diag, policy string, t []float64, isCmd func(int) bool, canSplit bool, errAt func(row int, msg string) error) ([][2]int, error) {
	pieces, ws, err := fit.ApplyGaps(fit.GapPolicy(policy), t, isCmd, canSplit, errAt)
	d.add(ws...)
	return pieces, err
}

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

// failureHint adds the likely causes to a numerical failure of the
// optimiser (a NaN or Inf loss).
func failureHint(err error) error { return robots.FailureHint(err) }

// fixedSet parses -fix and -free into the set of held parameters, given
// the names the model identifies (fit.HeldSet); a bad list is a usage
// error.
func fixedSet(names []string, fix, free string) (map[string]bool, error) {
	held, err := fit.HeldSet(names, fit.SplitList(fix), fit.SplitList(free))
	if err != nil {
		return nil, usagef("%s", err)
	}
	return held, nil
}

// tableRowErr positions a message at a row of a table.
func tableRowErr(tab *dataset.Table, offset int) func(int, string) error {
	return func(row int, msg string) error { return tab.Errorf(offset+row, "t", "%s", msg) }
}
