package cli

import (
	"fmt"
	"io"
	"os"
	"time"
)

// progress writes a one-line status that overwrites itself on a terminal.
// FORMATS.md: long-running commands show progress on stderr when stderr is
// a terminal and stay quiet otherwise; -quiet and -v override.
type progress struct {
	w  io.Writer
	on bool
	// tty: overwrite the line with \r and an erase code; otherwise (-v into
	// a file or pipe) plain lines, at most one every plainEvery, and no
	// escape codes.
	tty  bool
	last time.Time
}

const plainEvery = time.Second

func progressOn(e env, quiet, verbose bool) *progress {
	on := isTerminal(e.stderr)
	if verbose {
		on = true
	}
	if quiet {
		on = false
	}
	return &progress{w: e.stderr, on: on, tty: isTerminal(e.stderr)}
}

func (p *progress) printf(format string, a ...any) {
	if p == nil || !p.on {
		return
	}
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K"+format, a...)
		return
	}
	if now := time.Now(); now.Sub(p.last) >= plainEvery {
		p.last = now
		fmt.Fprintf(p.w, format+"\n", a...)
	}
}

func (p *progress) done() {
	if p != nil && p.on && p.tty {
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
