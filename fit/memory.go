package fit

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// AvailableMemory is the memory the process may use, in bytes: the
// kernel's MemAvailable, or a GOMEMLIMIT in force, whichever is smaller; 0
// when unknown.
func AvailableMemory() float64 {
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

// NeedMemory refuses, as one line, work whose up-front size estimate
// (bytes) exceeds the memory available (AvailableMemory): an out-of-memory
// crash is a stack dump.
func NeedMemory(what string, bytes float64) error {
	avail := AvailableMemory()
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
	memBase    = 50 << 20
	memPerByte = 24 // per byte of input CSV
)

// InputMemory refuses reading and fitting the files at paths when their
// up-front estimate (memBase + memPerByte per byte of the files) exceeds
// the memory available (NeedMemory); what names the work in the error.
func InputMemory(what string, paths ...string) error {
	total := float64(memBase)
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			total += memPerByte * float64(fi.Size())
		}
	}
	return NeedMemory(what, total)
}
