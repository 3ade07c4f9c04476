package cli

import (
	"os"
	"strings"
	"testing"
)

// Inputs that never end (a device; likewise a pipe or FIFO) are refused
// with one line and exit status 1, in bounded memory, never read until the
// process dies (issue 26.1).
func TestEndlessInputs(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	dir := t.TempDir()
	params := writeFile(t, dir, "p.json", `{"model": "skidsteer", "r": 0.3, "track": 1.08}`)
	for _, args := range [][]string{
		{"identify", "-model", "skidsteer", "-data", "/dev/zero"},
		{"identify", "-model", "mecanum", "-data", "/dev/zero"},
		{"simulate", "-model", "skidsteer", "-params", "/dev/zero", "-controls", params},
		{"identify", "-model", "skidsteer", "-data", "/dev/zero", "-init", "/dev/zero"},
		{"validate", "-model", "tire", "-params", "/dev/zero", "-data", params},
	} {
		st, _, errOut := runCLI(args...)
		if st != 1 || strings.Count(errOut, "\n") != 1 || len(errOut) > 400 || !strings.Contains(errOut, "/dev/zero") {
			t.Errorf("%v: status %d, stderr %q", args, st, errOut)
		}
	}
}
