//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A log or parameter file that is a FIFO fed without end (one endless
// line) is a one-line error and exit 1 on every command that reads it, not
// a read until the process dies (issue 26.1).
func TestFIFOInputs(t *testing.T) {
	dir := t.TempDir()
	fifo := func(name, head string) string {
		p := filepath.Join(dir, name)
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		go func() {
			w, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err != nil {
				return
			}
			defer w.Close()
			w.Write([]byte(head))
			chunk := []byte(strings.Repeat("7", 4096))
			for {
				if _, err := w.Write(chunk); err != nil {
					return // the reader closed it
				}
			}
		}()
		return p
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"identify", "-model", "tire", "-data", fifo("log.csv", "t,wl,wr,x,y,psi\n0,"), "-out", filepath.Join(dir, "p.json")}, "log.csv: line 2: line longer than 1 MiB"},
		{[]string{"simulate", "-model", "skidsteer", "-params", fifo("p.json", `{"model": "skidsteer", "a": [`), "-controls", "../models/skidsteer/testdata/commands.csv"}, "p.json"},
	} {
		st, _, errOut := runCLI(c.args...)
		lines := strings.Split(strings.TrimSpace(errOut), "\n")
		if st != 1 || !strings.Contains(errOut, c.want) || len(lines) != 1 || len(errOut) > 400 {
			t.Errorf("%s: status %d, stderr %q: want exit 1 and one line with %q", c.args[0], st, errOut, c.want)
		}
	}
}
