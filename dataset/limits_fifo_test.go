//go:build unix

package dataset

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// feedFIFO makes a FIFO at dir/name and writes head once, then tail
// repeated without end (or until the reader closes), from a goroutine;
// stop ends the writer.
func feedFIFO(t testing.TB, dir, name string, head, tail []byte) (path string, stop func()) {
	t.Helper()
	path = filepath.Join(dir, name)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan struct{})
	go func() {
		w, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		if _, err := w.Write(head); err != nil {
			return
		}
		for len(tail) > 0 {
			select {
			case <-done:
				return
			default:
			}
			if _, err := w.Write(tail); err != nil {
				return // the reader closed: EPIPE
			}
		}
	}()
	return path, func() {
		close(done)
		// unblock a writer still waiting for a reader
		if f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	}
}

// A FIFO fed without end is refused with a one-line error naming it, in
// bounded memory and time, whatever it is fed: one endless line (the line
// bound), lines of binary garbage (the first bad cell), or comments and
// blank lines that are no rows (the byte bound: here 8 MiB through the same
// bounded reader as ReadFile's 1 GiB, which takes ~50 s through a FIFO
// on a loaded machine). Issue 26.1: the byte and line bounds hold for
// pipes, FIFOs and devices as for regular files.
func TestFIFOEndless(t *testing.T) {
	dir := t.TempDir()
	garbage := make([]byte, 4096)
	for i := range garbage {
		garbage[i] = byte(i*7919 + i/13)
		if i%61 == 60 {
			garbage[i] = '\n'
		}
	}
	cases := []struct {
		name       string
		head, tail []byte
		want       error  // errors.Is, or nil for any *ParseError
		msg        string // in the message
		max        int64  // the byte bound (0: ReadFile's)
	}{
		{"line", []byte("t,w1,w2,w3,w4\n0,1,2,3,"), []byte(strings.Repeat("1", 4096)), ErrLineTooLong, "fifo-line: line 2: line longer than 1 MiB", 0},
		{"garbage", []byte("t,w1,w2,w3,w4\n"), garbage, nil, "fifo-garbage: line 2", 0},
		{"comments", []byte("t,w1,w2,w3,w4\n"), []byte(strings.Repeat("# no row\n\n", 400)), ErrTooLarge, "fifo-comments: more than 8 MiB read", 8 << 20},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path, stop := feedFIFO(t, dir, "fifo-"+c.name, c.head, c.tail)
			defer stop()
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			var err error
			if c.max == 0 {
				_, err = ReadFile(path, logSpec)
			} else {
				var r io.ReadCloser
				if r, err = openLimit(path, c.max); err == nil {
					_, err = Read(r, path, logSpec)
					r.Close()
				}
			}
			took := time.Since(start)
			runtime.ReadMemStats(&after)
			var pe *ParseError
			if err == nil || !errors.As(err, &pe) || (c.want != nil && !errors.Is(err, c.want)) {
				t.Fatalf("ReadFile(FIFO fed %s): %v, want a *ParseError (%v)", c.name, err, c.want)
			}
			if msg := err.Error(); !strings.Contains(msg, c.msg) || len(msg) > 300 || strings.ContainsAny(msg, "\r\n") {
				t.Errorf("message %q: want %q on one short line", msg, c.msg)
			}
			// Memory: what the reader holds, not what it read (TotalAlloc
			// counts bufio's and csv's reused buffers once).
			if grown := after.TotalAlloc - before.TotalAlloc; grown > 64<<20 {
				t.Errorf("allocated %d MiB reading the FIFO", grown>>20)
			}
			t.Logf("%s: %v after %v", c.name, err, took.Round(time.Millisecond))
		})
	}
}

// A parameter file that is a FIFO fed without end (blanks after an open
// object) is refused at the JSON byte bound, 16 MiB, naming it.
func TestFIFOEndlessJSON(t *testing.T) {
	path, stop := feedFIFO(t, t.TempDir(), "params.json", []byte(`{"model": "tire", `), []byte(strings.Repeat(" ", 4096)))
	defer stop()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	err := ReadJSON(path, &map[string]any{}, JSONOptions{})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "params.json: more than 16 MiB read") {
		t.Fatalf("ReadJSON(FIFO): %v, want ErrTooLarge naming the file", err)
	}
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 128<<20 {
		t.Errorf("allocated %d MiB", grown>>20)
	}
}
