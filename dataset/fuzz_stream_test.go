package dataset

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// streamBound is FuzzStream's byte bound (ReadFile's is 1 GiB: too long a
// read for each of thousands of executions; the code path is the same).
const streamBound = 64 << 10

// FuzzStream feeds Read a pipe — a non-regular file, as a FIFO, a device
// or a shell's process substitution — that carries head once and then tail
// repeated without end (head alone when tail is empty), through the same
// bounded reader as ReadFile. The contract: Read returns (never hangs,
// never reads past the bound by more than a buffer); an endless stream is
// always an error, a one-line *ParseError naming the file; a finite one is
// an error of that kind or a table that passes checkTable. Issue 26.7.
func FuzzStream(f *testing.F) {
	for _, s := range [][2]string{
		{"", ""},
		{"t,w1,w2,w3,w4\n", "0,1,2,3,4\n"},
		{"t,w1,w2,w3,w4\n0,1,2,3,", "1"},
		{"t,w1,w2,w3,w4\n", "# comment\n\n"},
		{"t,w1,w2,w3,w4\n0,1,2,3,4\n", ""},
		{"t,w1,w2,w3,w4\n0,1,2,3,\"", "x"},
		{"", "\x00"},
		{"t,w1,w2,w3,w4\n", "\r\n"},
	} {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	f.Fuzz(func(t *testing.T, head, tail []byte) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Skip(err)
		}
		chunk := tail // written whole, a few KiB at a time
		for len(chunk) > 0 && len(chunk) < 4096 {
			chunk = append(chunk, tail...)
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			defer w.Close()
			if _, err := w.Write(head); err != nil {
				return
			}
			for len(chunk) > 0 {
				if _, err := w.Write(chunk); err != nil {
					return // the reader closed the pipe
				}
			}
		}()
		tab, err := Read(&bounded{f: r, file: "pipe", left: streamBound, max: streamBound}, "pipe", logSpec)
		r.Close()
		<-done
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is a %T, not a *ParseError", err, err)
			}
			if msg := err.Error(); strings.ContainsAny(msg, "\r\n") || !strings.HasPrefix(msg, "pipe: ") || len(msg) > 400 {
				t.Fatalf("message %q is not one short line starting with the file name", msg)
			}
			return
		}
		if len(tail) > 0 {
			t.Fatalf("an endless stream read as a table of %d rows", tab.Len())
		}
		checkTable(t, tab)
	})
}
