package stage

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func put(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

// A Set's outputs reach their names only at Commit, stdout last; Discard
// leaves every file as it was and nothing hidden.
func TestSetCommitAndDiscard(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.csv")
	out := filepath.Join(dir, "out.csv")
	if err := os.WriteFile(in, []byte("in\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	s := New(&stdout)
	var ue UsageError
	if err := s.Declare([]File{{"data", in}}, []File{{"out", in}}); !errors.As(err, &ue) || !strings.Contains(err.Error(), "-out "+in+" is the same file as -data "+in) {
		t.Fatalf("output = input: %v", err)
	}
	s = New(&stdout)
	if err := s.Declare([]File{{"data", in}}, []File{{"out", out}, {"log", "-"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Write(out, put("new\n")); err != nil {
		t.Fatal(err)
	}
	if err := s.Write("-", put("report\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) || stdout.Len() != 0 {
		t.Fatalf("written before Commit: %v, stdout %q", err, stdout.String())
	}
	if b, err := s.Take(out); err != nil || string(b) != "new\n" {
		t.Errorf("Take: %q %v", b, err)
	}
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); string(b) != "new\n" || stdout.String() != "report\n" {
		t.Errorf("committed %q, stdout %q", b, stdout.String())
	}

	s = New(&stdout)
	if err := s.Declare(nil, []File{{"out", out}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Write(out, put("newer\n")); err != nil {
		t.Fatal(err)
	}
	s.Discard()
	if b, _ := os.ReadFile(out); string(b) != "new\n" {
		t.Errorf("discarded output replaced the file: %q", b)
	}
	assertOnly(t, dir, "in.csv", "out.csv")
}
