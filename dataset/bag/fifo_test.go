//go:build unix

package bag

import (
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"
)

// A bag given as a pipe (a shell's <(zstdcat run.mcap.zst)) has no size:
// it was read as a file of 0 bytes, "truncated … runs past the end of the
// file (0 bytes)". It is read whole first, and gives what the file gives.
func TestReadFileFromPipe(t *testing.T) {
	const src = "testdata/scenario-bz2.bag"
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "run.bag")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	go func() {
		w, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		w.Write(b)
	}()
	all := func(string) bool { return true }
	got, err := ReadFile(p, all)
	if err != nil {
		t.Fatal(err)
	}
	want, err := ReadFile(src, all)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) || len(want.Topics) == 0 {
		t.Errorf("from the pipe %v, from the file %v", got.Names(), want.Names())
	}
}
