package cli

import (
	"strings"
	"testing"
)

// FuzzCLI feeds arbitrary argument lists (NUL-separated) to the command.
// It must never panic, must exit 0, 1, 2 or 3, and a failure must be one line
// on stderr. demo is skipped: it is a long job, not a parser.
func FuzzCLI(f *testing.F) {
	f.Chdir(f.TempDir())
	for _, seed := range []string{
		"", "-h", "simulate", "simulate\x00-model\x00mecanum", "identify\x00-data\x00a.csv,b.csv\x00-method\x00cmaes",
		"follow\x00-model\x00mecanum\x00-params\x00p.json\x00-path\x00figure8\x00-rate\x00NaN",
		"follow\x00-duration\x00-1", "simulate\x00--model=skidsteer\x00-params\x00\x00-controls\x00c", "identify\x00-v\x00-quiet",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		args := strings.Split(s, "\x00")
		if s == "" {
			args = nil
		}
		if len(args) > 0 && args[0] == "demo" {
			return
		}
		st, _, errOut := runCLI(args...)
		if st < 0 || st > exitUnconverged {
			t.Fatalf("%q: status %d", args, st)
		}
		if st != 0 && len(args) > 0 && strings.Count(strings.TrimSuffix(errOut, "\n"), "\n") > 0 {
			t.Fatalf("%q: status %d with a multi-line error %q", args, st, errOut)
		}
	})
}
