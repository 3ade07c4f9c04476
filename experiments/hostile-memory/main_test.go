package main

import (
	"os"
	"testing"
	"time"
)

// The test binary is re-executed as the child that runs the command line.
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(Child())
	}
	os.Exit(m.Run())
}

// The short cases: every hostile input is refused (exit 1 or 2) with one
// line on stderr, within 200 MB of the clean command's peak and without a
// hang.
func TestHostileMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("runs about a dozen commands in child processes")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	rs, err := Run(self, "../..", Cases(false), 2*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		t.Logf("%s: exit %d, peak %.0f MB (%+.0f), %v", r.Case.Name, r.Status, r.PeakMB, r.AboveMB, r.Duration.Round(time.Millisecond))
		if r.Case.Baseline == "" {
			if r.Status != 0 {
				t.Errorf("%s: exit %d: %s", r.Case.Name, r.Status, r.Stderr)
			}
			continue
		}
		if r.Status != 1 && r.Status != 2 {
			t.Errorf("%s: exit %d, want a refusal (1 or 2)", r.Case.Name, r.Status)
		}
		if !(r.AboveMB <= 200) { // NaN: the peak was not recorded
			t.Errorf("%s: peak %.0f MB, %.0f MB above the clean command's", r.Case.Name, r.PeakMB, r.AboveMB)
		}
		if n := len(r.Stderr); n == 0 || n > 600 {
			t.Errorf("%s: stderr of %d bytes: %.300s", r.Case.Name, n, r.Stderr)
		}
	}
}
