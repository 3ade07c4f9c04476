//go:build unix

// Package fifotest makes FIFOs for the tests of inputs given as pipes (a
// FIFO, a shell's <(…)): a command or reader that opens a pipe twice waits
// for a writer that has gone, or reads on from where its first read
// stopped.
package fifotest

import (
	"os"
	"syscall"
	"testing"
)

// Fed makes a FIFO at path and a writer that opens it, calls write and
// closes it once a reader opens it; it skips the test where FIFOs cannot
// be made.
func Fed(t testing.TB, path string, write func(w *os.File)) string {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	go func() {
		w, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		write(w)
	}()
	return path
}

// FedBytes is Fed writing b once.
func FedBytes(t testing.TB, path string, b []byte) string {
	t.Helper()
	return Fed(t, path, func(w *os.File) { w.Write(b) })
}
