package dataset

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// Bounds on what one input file may hold (issue 26: no input of any kind —
// a device such as /dev/zero, a pipe or FIFO that does not end, a
// binary file given as a CSV — may make a command read without end or hold
// more than its limit in memory). They hold for regular files and streams
// alike; a file past a bound is a *ParseError naming it (ErrTooLarge, or
// ErrLineTooLong with the line).
const (
	// MaxFileBytes bounds the bytes read from one CSV file or stream. Logs
	// are held in memory at 3–6 bytes per byte of CSV.
	MaxFileBytes int64 = 1 << 30
	// MaxLineBytes bounds one line of a CSV file: a longer line is not a
	// log's (a binary file, a device, a stream without line ends).
	MaxLineBytes = 1 << 20
	// MaxJSONBytes bounds a parameter or map JSON file.
	MaxJSONBytes int64 = 16 << 20
	// MaxJSONDepth bounds the nesting of arrays and objects in a JSON file
	// (parameter files nest three or four levels).
	MaxJSONDepth = 64
)

// Kinds of input past a bound, for errors.Is.
var (
	ErrTooLarge    = errors.New("input too large")
	ErrLineTooLong = errors.New("line too long")
)

// Open opens the file at path for reading through a reader that fails with
// a *ParseError (ErrTooLarge) after MaxFileBytes bytes, whatever the file
// is (a regular file, a device, a pipe).
func Open(path string) (io.ReadCloser, error) {
	return openLimit(path, MaxFileBytes)
}

func openLimit(path string, max int64) (io.ReadCloser, error) {
	if c := pipeScope.Load(); c != nil {
		if r, ok, err := c.openPipe(path, max); ok {
			return r, err
		}
	}
	return openFile(path, max)
}

// openFile opens path bounded by max bytes.
func openFile(path string, max int64) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return &bounded{f: f, file: path, left: max, max: max}, nil
}

// ReadAll reads the whole file at path, at most max bytes (a larger file or
// an endless stream is a *ParseError, ErrTooLarge, after max bytes read).
func ReadAll(path string, max int64) ([]byte, error) {
	r, err := openLimit(path, max)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// bounded is a file read through a byte limit.
type bounded struct {
	f         io.ReadCloser
	file      string
	left, max int64
}

func (b *bounded) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells a file of exactly max bytes from a longer one.
		var one [1]byte
		if n, _ := b.f.Read(one[:]); n == 0 {
			return 0, io.EOF
		}
		return 0, &ParseError{File: b.file, Err: because(ErrTooLarge,
			"more than %s read: above wheelgrad's limit for one input (a device, a stream that does not end, or a log to split into parts?)", showBytes(b.max))}
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.f.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *bounded) Close() error { return b.f.Close() }

// showBytes writes a byte count in binary units.
func showBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// MaxInputBytes bounds the CSV files one command reads (all -data files of
// identify, the -controls of simulate, a follow -path file): logs are held
// in memory, at about 3–6 bytes per byte of CSV for the mecanum, diffdrive
// and skidsteer commands (measured by experiments/scale; tire, which
// integrates many steps per row, has its own step limits), so 1 GiB of logs
// stays within a few GB rather than exhausting the machine. Larger logs are
// refused up front, before reading.
const MaxInputBytes = 1 << 30

// CheckInputSize refuses files whose total size is above MaxInputBytes,
// naming them. A file it cannot stat is left to the reader's own error.
func CheckInputSize(files ...string) error {
	var total int64
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		total += st.Size()
		if total > MaxInputBytes {
			what := f
			if len(files) > 1 {
				what = fmt.Sprintf("%s (with the files before it)", f)
			}
			return fmt.Errorf("%s: %.3g GB of CSV, above wheelgrad's limit of %.3g GB per command (logs are held in memory, 3–6 bytes per byte of CSV): split the log into parts (files or traj runs) and use a part", what, float64(total)/1e9, float64(MaxInputBytes)/1e9)
		}
	}
	return nil
}
