package fit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Work beyond any machine is refused in one line naming it; a small file
// passes.
func TestNeedMemory(t *testing.T) {
	if err := NeedMemory("planning", 1<<48); err == nil || !strings.HasPrefix(err.Error(), "planning needs about ") {
		t.Errorf("1<<48 bytes: %v", err)
	}
	if a := AvailableMemory(); a > 0 {
		if err := NeedMemory("reading", 2*a); err == nil || !strings.Contains(err.Error(), "available") {
			t.Errorf("twice the available memory: %v", err)
		}
	}
	path := filepath.Join(t.TempDir(), "log.csv")
	if err := os.WriteFile(path, []byte("t,x\n0,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := InputMemory("identifying from "+path, path); err != nil {
		t.Errorf("a small log: %v", err)
	}
}
