package main

import (
	"fmt"
	"io"
	"os"
)

// progress writes a one-line status that overwrites itself on a terminal.
// FORMATS.md: long-running commands show progress on stderr when stderr is
// a terminal and stay quiet otherwise; -quiet and -v override.
type progress struct {
	w  io.Writer
	on bool
}

func progressOn(e env, quiet, verbose bool) *progress {
	on := isTerminal(e.stderr)
	if verbose {
		on = true
	}
	if quiet {
		on = false
	}
	return &progress{w: e.stderr, on: on}
}

func (p *progress) printf(format string, a ...any) {
	if p.on {
		fmt.Fprintf(p.w, "\r\033[K"+format, a...)
	}
}

func (p *progress) done() {
	if p.on {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
