//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
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

// SIGINT while follow works removes the staged -out and -plot files: no
// hidden file is left, no output appears, and the status is 130.
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
	// Wait for the staged files, then interrupt.
	deadline := time.Now().Add(20 * time.Second)
	for {
		es, _ := os.ReadDir(dir)
		hidden := 0
		for _, e := range es {
			if strings.HasPrefix(e.Name(), ".") {
				hidden++
			}
		}
		if hidden == 2 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no staged files appeared: %v", es)
		}
		time.Sleep(10 * time.Millisecond)
	}
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
