package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/fit"
)

// identify -json (see docs/cli.md): the handler runs as without -json
// (its parameter file to a named -out only, its summary to stderr) and
// hands its fit.Report to emitReport; once it has returned — its checks
// done, every warning found — the report goes to stdout as one JSON object
// with all the warnings: the diagnostics' (with file and row) and any
// other line printed as "warning: ..." (e.g. an unconverged fit accepted
// with -allow-unconverged). A handler that fails prints nothing there; an
// unconverged fit (exit 3) prints the report with its status.

// reportSlot receives a handler's report.
type reportSlot struct{ rep *fit.Report }

// identifyJSON runs an identify handler and prints its report.
func identifyJSON(e env, model string, a IdentifyArgs, h func(env, IdentifyArgs) error) error {
	tap := &warnTap{w: e.stderr}
	e.stderr = tap
	if a.Diag != nil {
		a.Diag.w = tap
	} else {
		a.Diag = newDiag(tap)
	}
	a.report = &reportSlot{}
	err := h(e, a)
	var uc unconvergedError
	if err != nil && !errors.As(err, &uc) {
		return err
	}
	if a.report.rep == nil {
		return fmt.Errorf("identify -json: the %s fit built no report", model)
	}
	r := *a.report.rep
	r.Warnings = slices.Clone(a.Diag.warns)
	known := map[string]int{}
	for _, w := range r.Warnings {
		known[w.String()]++
	}
	for _, l := range tap.warns {
		if known[l] > 0 {
			known[l]--
			continue
		}
		r.Warnings = append(r.Warnings, fit.Warning{Msg: l})
	}
	b, jerr := r.JSON()
	if jerr != nil {
		return jerr
	}
	if werr := e.writeOut("-", func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	}); werr != nil {
		return werr
	}
	return err
}

// simulate -json: the handler writes its trajectory CSV as without -json
// (to -out when it names a file, else to a buffer that is dropped), and
// stdout gets one summary object instead:
//
//	{"model", "rows", "runs", "columns", "final": {column: value, ...}, "warnings": [...]}
//
// rows, runs, columns and final are dataset.SummarizeTrajectory's,
// warnings the lines the handler printed as "warning: ..." (still printed
// on stderr).
type simSummary struct {
	Model    string         `json:"model"`
	Rows     int            `json:"rows"`
	Runs     int            `json:"runs"`
	Columns  []string       `json:"columns"`
	Final    map[string]any `json:"final"`
	Warnings []string       `json:"warnings"`
}

// warnTap passes writes through and keeps the lines that start with
// "warning: ".
type warnTap struct {
	w     io.Writer
	buf   bytes.Buffer
	warns []string
}

func (t *warnTap) Write(p []byte) (int, error) {
	t.buf.Write(p)
	for {
		line, err := t.buf.ReadString('\n')
		if err != nil { // an incomplete line: keep it for the next write
			t.buf.Reset()
			t.buf.WriteString(line)
			break
		}
		if m, ok := strings.CutPrefix(strings.TrimRight(line, "\n"), "warning: "); ok {
			t.warns = append(t.warns, m)
		}
	}
	return t.w.Write(p)
}

// simulateJSON runs a simulate handler and prints its summary object.
func simulateJSON(e env, model string, a SimulateArgs, h func(env, SimulateArgs) error) error {
	if e.outs == nil {
		return fmt.Errorf("simulate -json needs the command's output set")
	}
	tap := &warnTap{w: e.stderr}
	e.stderr = tap
	if err := h(e, a); err != nil {
		return err
	}
	data, err := e.outs.Take(a.Out) // stdout holds the summary instead
	if err != nil {
		return err
	}
	if data == nil {
		return fmt.Errorf("simulate -json: the %s handler wrote no trajectory", model)
	}
	sum, err := dataset.SummarizeTrajectory(data)
	if err != nil {
		return fmt.Errorf("simulate -json: %w", err)
	}
	s := simSummary{Model: model, Columns: sum.Columns, Rows: sum.Rows, Runs: sum.Runs, Final: sum.Final, Warnings: tap.warns}
	if s.Warnings == nil {
		s.Warnings = []string{}
	}
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return e.writeOut("-", func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}
