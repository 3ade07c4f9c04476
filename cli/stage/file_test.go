package stage

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.csv")
	write := func(w io.Writer) error {
		_, err := io.WriteString(w, "t\n1\n2\n")
		return err
	}
	if err := WriteFileAtomic(path, write); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "t\n1\n2\n" {
		t.Fatalf("file holds %q (%v)", b, err)
	}

	// Replacing keeps the file's permissions.
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(path, func(w io.Writer) error { _, err := io.WriteString(w, "new\n"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new\n" {
		t.Errorf("replaced file holds %q", b)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("replaced file has mode %v (%v), want 0640", fi.Mode(), err)
	}
	assertOnly(t, dir, "out.csv")
}

func TestWriteFileAtomicFailure(t *testing.T) {
	broken := errors.New("model diverged")
	// Writes far more than any buffer holds, so that some of it reaches
	// the temporary file before the failure.
	failMidway := func(w io.Writer) error {
		for range 10000 {
			if _, err := io.WriteString(w, "0.123456789,0.123456789\n"); err != nil {
				return err
			}
		}
		return broken
	}
	dir := t.TempDir()

	// No file before: none after.
	path := filepath.Join(dir, "new.csv")
	err := WriteFileAtomic(path, failMidway)
	if !errors.Is(err, broken) || !strings.Contains(err.Error(), path) {
		t.Errorf("error %v, want one naming %s and wrapping the write error", err, path)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed write left %s (%v)", path, err)
	}
	assertOnly(t, dir)

	// An existing file is left as it was.
	old := filepath.Join(dir, "old.csv")
	if err := os.WriteFile(old, []byte("t\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(old, failMidway); !errors.Is(err, broken) {
		t.Errorf("error %v, want %v", err, broken)
	}
	if b, err := os.ReadFile(old); err != nil || string(b) != "t\n1\n" {
		t.Errorf("a failed write changed %s to %q (%v)", old, b, err)
	}
	assertOnly(t, dir, "old.csv")

	// Errors before writing: a directory as target, a missing directory.
	if err := WriteFileAtomic(dir, failMidway); err == nil || errors.Is(err, broken) {
		t.Errorf("writing over a directory: %v", err)
	}
	if err := WriteFileAtomic(filepath.Join(dir, "no", "such.csv"), failMidway); err == nil || errors.Is(err, broken) {
		t.Errorf("writing into a missing directory: %v", err)
	}
	assertOnly(t, dir, "old.csv")
}

// assertOnly checks that dir holds exactly the named files: no temporary
// files left behind.
func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, " ") != strings.Join(names, " ") {
		t.Errorf("directory holds %q, want %q", got, names)
	}
}

func TestWriteFileAtomicStdout(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	err = WriteFileAtomic("-", func(w io.Writer) error { _, err := io.WriteString(w, "t\n3\n"); return err })
	os.Stdout = stdout
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(r); string(b) != "t\n3\n" {
		t.Errorf("stdout got %q", b)
	}
}

// An output path that is a symbolic link replaces the link's target, never
// the link; a device is written directly; errors name the path, not the
// hidden temporary file (issue 17).
func TestWriteFileAtomicFollowsLinksAndDevices(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "data", "target.csv")
	if err := os.Mkdir(filepath.Dir(target), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(target, []byte("old\n"), 0o600)
	link := filepath.Join(dir, "link.csv")
	if err := os.Symlink(filepath.Join("data", "target.csv"), link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	put := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	if err := WriteFileAtomic(link, put("new\n")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi.Mode(), err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new\n" {
		t.Errorf("target holds %q", b)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o600 {
		t.Errorf("target's mode %v, want 0600 kept", fi.Mode().Perm())
	}
	// A dangling link creates its target.
	dangling := filepath.Join(dir, "dangling.csv")
	os.Symlink("made.csv", dangling)
	if err := WriteFileAtomic(dangling, put("x\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "made.csv")); string(b) != "x\n" {
		t.Errorf("dangling link's target holds %q", b)
	}
	// A device is written, not replaced.
	if _, err := os.Stat("/dev/null"); err == nil {
		if err := WriteFileAtomic("/dev/null", put("gone\n")); err != nil {
			t.Errorf("/dev/null: %v", err)
		}
		if fi, err := os.Lstat("/dev/null"); err != nil || fi.Mode()&os.ModeDevice == 0 {
			t.Errorf("/dev/null is no longer a device: %v", err)
		}
	}
	// A missing directory: the error names the path given.
	bad := filepath.Join(dir, "nodir", "out.csv")
	err := WriteFileAtomic(bad, put("x"))
	if err == nil || !strings.HasPrefix(err.Error(), bad+":") || strings.Contains(err.Error(), ".tmp") {
		t.Errorf("missing directory: %v", err)
	}
	// No temporary file is left anywhere.
	for _, d := range []string{dir, filepath.Dir(target)} {
		es, _ := os.ReadDir(d)
		for _, e := range es {
			if strings.Contains(e.Name(), ".tmp") {
				t.Errorf("left %s", e.Name())
			}
		}
	}
}

func TestRemoveTempFiles(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "big.csv")
	err := WriteFileAtomic(out, func(w io.Writer) error {
		io.WriteString(w, "partial")
		RemoveTempFiles() // what the signal handler does mid-write
		es, _ := os.ReadDir(dir)
		if len(es) != 0 {
			t.Errorf("left %v", es)
		}
		return nil
	})
	if err == nil {
		t.Errorf("a write whose temporary file was removed succeeded")
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("output exists")
	}
}
