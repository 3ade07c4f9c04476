//go:build unix

package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wheelgrad/wheelgrad/robots"
)

// TestHelperMain runs main() in a child process for TestSignalRemovesStagedFiles.
func TestHelperMain(t *testing.T) {
	if os.Getenv("WHEELGRAD_HELPER_MAIN") != "1" {
		t.Skip("helper process")
	}
	i := 0
	for i < len(os.Args) && os.Args[i] != "--" {
		i++
	}
	os.Args = append([]string{"wheelgrad"}, os.Args[i+1:]...)
	if ready := os.Getenv("WHEELGRAD_HELPER_READY"); ready != "" {
		signalsReady = func() { os.WriteFile(ready, nil, 0o644) }
	}
	os.Exit(Main(os.Args[1:], robots.Default()))
}

// SIGINT while follow works: no output appears, no hidden file is left,
// and the status is 130.
func TestSignalRemovesStagedFiles(t *testing.T) {
	dir := t.TempDir()
	params := writeFile(t, dir, "p.json", followParams)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperMain$", "--", "follow", "-params", params, "-path", "figure8",
		"-out", filepath.Join(dir, "c.csv"), "-plot", filepath.Join(dir, "f.png"), "-quiet")
	ready := filepath.Join(t.TempDir(), "ready")
	cmd.Env = append(os.Environ(), "WHEELGRAD_HELPER_MAIN=1", "WHEELGRAD_HELPER_READY="+ready)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Interrupt during the synthesis (about 4 s here); the staged files
	// appear only when outputs are written, and a signal then removes them
	// too (stage.TestRemoveTempFiles).
	waitForHandler(t, ready)
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 130 {
		t.Errorf("exit: %v, stderr %q", err, stderr.String())
	}
	es, _ := os.ReadDir(dir)
	if len(es) != 1 {
		t.Errorf("left %v", es)
	}
}

// waitForHandler waits until main has installed its signal handler (the
// helper writes the file ready then), and a little into the work. (The
// SigCgt mask of /proc/PID/status cannot tell: the Go runtime catches
// SIGINT from its start, before main's handler exists; under load the test
// then killed the process by the runtime's default action.)
func waitForHandler(t *testing.T, ready string) {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(ready); err == nil {
			time.Sleep(50 * time.Millisecond) // into the work
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("the helper process never installed its signal handler")
}
