//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
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
	main()
}

// SIGINT while follow works: no output appears, no hidden file is left,
// and the status is 130.
func TestSignalRemovesStagedFiles(t *testing.T) {
	dir := t.TempDir()
	params := writeFile(t, dir, "p.json", followParams)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperMain$", "--", "follow", "-params", params, "-path", "figure8",
		"-out", filepath.Join(dir, "c.csv"), "-plot", filepath.Join(dir, "f.png"), "-quiet")
	cmd.Env = append(os.Environ(), "WHEELGRAD_HELPER_MAIN=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Interrupt during the synthesis (about 4 s here); the staged files
	// appear only when outputs are written, and a signal then removes them
	// too (dataset.TestRemoveTempFiles).
	waitForHandler(cmd.Process.Pid)
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

// waitForHandler waits until process pid catches SIGINT (Linux: the SigCgt
// mask of /proc/PID/status), or half a second elsewhere.
func waitForHandler(pid int) {
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		if err != nil {
			time.Sleep(500 * time.Millisecond)
			return
		}
		for _, l := range strings.Split(string(b), "\n") {
			if mask, ok := strings.CutPrefix(l, "SigCgt:"); ok {
				if m, err := strconv.ParseUint(strings.TrimSpace(mask), 16, 64); err == nil && m&(1<<(int(syscall.SIGINT)-1)) != 0 {
					time.Sleep(50 * time.Millisecond) // into the work
					return
				}
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
}
