package cli

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
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

// availableMemory is the memory the process may use, in bytes: the
// kernel's MemAvailable, or a GOMEMLIMIT in force, whichever is smaller; 0
// when unknown.
func availableMemory() float64 {
	avail := 0.0
	if f, err := os.Open("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:"); ok {
				fs := strings.Fields(rest)
				if len(fs) > 0 {
					if kb, err := strconv.ParseFloat(fs[0], 64); err == nil {
						avail = kb * 1024
					}
				}
			}
		}
		f.Close()
	}
	if lim := debug.SetMemoryLimit(-1); lim > 0 && lim < math.MaxInt64 && (avail == 0 || float64(lim) < avail) {
		avail = float64(lim)
	}
	return avail
}

// limitMemory sets the garbage collector's soft limit to the memory
// available at start (unless GOMEMLIMIT says otherwise), so that it collects
// harder before the kernel has to refuse.
func limitMemory() {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	if a := availableMemory(); a > 0 {
		debug.SetMemoryLimit(int64(a))
	}
}

// needMemory refuses, as one line, work whose up-front size estimate
// exceeds the memory available: an out-of-memory crash is a stack dump.
func needMemory(what string, bytes float64) error {
	avail := availableMemory()
	if avail > 0 && bytes > avail {
		return fmt.Errorf("%s needs about %s of memory, %s available", what, showBytes(bytes), showBytes(avail))
	}
	if bytes > 1<<47 { // beyond any machine, and beyond int on some
		return fmt.Errorf("%s needs about %s of memory", what, showBytes(bytes))
	}
	return nil
}

func showBytes(b float64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.3g GB", b/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.3g MB", b/(1<<20))
	}
	return fmt.Sprintf("%.0f kB", b/1024)
}

// Up-front memory estimates (bytes), measured with /usr/bin/time: Mecanum
// identify of a 125-s log (3.2 MB of CSV) peaked at 36 MB, 11× the file,
// doubled for the models not measured. (follow is bounded by
// control.MaxSteps and plans long paths in chunks.)
const (
	memBase      = 50 << 20
	memPerByte   = 24  // per byte of input CSV
	memPerOutRow = 120 // per row of a CSV rendered in memory
)

// inputMemory estimates the memory of reading and fitting files.
func inputMemory(what string, paths ...string) error {
	total := float64(memBase)
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			total += memPerByte * float64(fi.Size())
		}
	}
	return needMemory(what, total)
}
