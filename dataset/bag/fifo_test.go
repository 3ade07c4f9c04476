//go:build unix

package bag

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/wheelgrad/wheelgrad/internal/fifotest"
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
	p := fifotest.FedBytes(t, filepath.Join(t.TempDir(), "run.bag"), b)
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
