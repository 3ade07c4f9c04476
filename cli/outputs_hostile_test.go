package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wheelgrad/wheelgrad/robots"
)

var skidsteerSample = []string{"-data", "../models/skidsteer/testdata/commands.csv", "-poses", "../models/skidsteer/testdata/vo.csv"}

// A write-protected -out is not replaced (issue 26.3).
func TestWriteProtectedOutKept(t *testing.T) {
	dir := t.TempDir()
	out := writeFile(t, dir, "p.json", "mine\n")
	os.Chmod(out, 0o444)
	st, _, errOut := runCLI(append([]string{"identify", "-model", "skidsteer", "-out", out}, skidsteerSample...)...)
	if st != 2 || !strings.Contains(errOut, "write-protected") || !strings.Contains(errOut, out) {
		t.Errorf("status %d, stderr %q", st, errOut)
	}
	if b, _ := os.ReadFile(out); string(b) != "mine\n" {
		t.Errorf("the protected file now holds %q", b)
	}
}

// failWriter fails every write, as a full disk or a closed pipe behind
// stdout does.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// A summary lost on stdout is exit 1, and the -plot is not renamed into
// place after it.
func TestFailedStdoutIsFailure(t *testing.T) {
	dir := t.TempDir()
	out, png := filepath.Join(dir, "p.json"), filepath.Join(dir, "f.png")
	var stderr strings.Builder
	// The summary goes to stdout when -out names a file.
	args := append([]string{"identify", "-model", "skidsteer", "-method", "batch", "-out", out, "-plot", png}, skidsteerSample...)
	st := Run(args, robots.Default(), failWriter{}, &stderr)
	if st != 1 || !strings.Contains(stderr.String(), "writing stdout") {
		t.Errorf("status %d, stderr %q", st, stderr.String())
	}
	for _, f := range []string{out, png} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s written after stdout failed", f)
		}
	}
	if es, _ := os.ReadDir(dir); len(es) != 0 {
		t.Errorf("left %v", es)
	}
}

// A device output that fails (/dev/full) leaves the other outputs as they
// were: devices are written before any rename.
func TestFailedDeviceBeforeRename(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	dir := t.TempDir()
	out := writeFile(t, dir, "p.json", "old\n")
	st, _, errOut := runCLI(append([]string{"identify", "-model", "skidsteer", "-method", "batch", "-out", out, "-plot", "/dev/full"}, skidsteerSample...)...)
	if st != 1 {
		t.Errorf("status %d, stderr %q", st, errOut)
	}
	if b, _ := os.ReadFile(out); string(b) != "old\n" {
		t.Errorf("-out replaced although -plot failed: %q", b)
	}
}

// Staged files a killed run left beside an output are swept by the next
// run on that output; young ones (a run under way) and other hidden files
// are kept.
func TestStaleStagesSwept(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "p.json")
	old := writeFile(t, dir, ".p.tmp3k9x2a.json", "{")
	young := writeFile(t, dir, ".p.tmp5bq.json", "{")
	mine := writeFile(t, dir, ".p.tmp-notes.json", "{")
	past := time.Now().Add(-time.Hour)
	for _, f := range []string{old, mine} {
		os.Chtimes(f, past, past)
	}
	st, _, errOut := runCLI(append([]string{"identify", "-model", "skidsteer", "-out", out}, skidsteerSample...)...)
	if st != 0 {
		t.Fatalf("status %d, stderr %q", st, errOut)
	}
	if _, err := os.Stat(old); err == nil {
		t.Error("the stale staged file is still there")
	}
	for _, f := range []string{young, mine} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s removed", f)
		}
	}
}
