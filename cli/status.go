package cli

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/wheelgrad/wheelgrad/fit"
)

// Exit statuses (FORMATS.md: 0, 1, 2; README "Contract additions": 3).
const (
	exitOK          = 0
	exitFailure     = 1 // runtime failure: nothing written
	exitUsage       = 2 // bad command line: nothing done
	exitUnconverged = 3 // an optimiser stopped before converging: outputs written, status recorded
)

// unconvergedError is an optimisation that stopped at a limit (or stalled)
// without converging. The command's outputs are written (the parameter file
// records the status) and the exit status is exitUnconverged, unless
// -allow-unconverged, which makes it a warning.
type unconvergedError = fit.UnconvergedError

// fitSettings are the optimiser flags every identify shares: -maxiter,
// -tol and -allow-unconverged (fit.Settings: Apply, Settled, Check).
type fitSettings = fit.Settings

// runHandler runs a command, turning a panic into one line (a runtime error
// such as an allocation too large for this machine must not become a stack
// dump).
func runHandler(exec func(env) error, e env) (err error) {
	defer func() {
		if p := recover(); p != nil {
			var re runtime.Error
			if pe, ok := p.(error); ok && errors.As(pe, &re) && strings.Contains(re.Error(), "makeslice") {
				err = fmt.Errorf("the input is too large for this machine's memory (%v)", re)
				return
			}
			err = fmt.Errorf("internal error (please report it): %v", p)
		}
	}()
	return exec(e)
}

// limitMemory sets the garbage collector's soft limit to the memory
// available at start (unless GOMEMLIMIT says otherwise), so that it collects
// harder before the kernel has to refuse.
func limitMemory() {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	if a := fit.AvailableMemory(); a > 0 {
		debug.SetMemoryLimit(int64(a))
	}
}
