package dataset

import (
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"sync"
	"sync/atomic"
)

// ReadCache keeps the tables parsed from the files read through it
// (LogOptions.Cache), so that a file read again with the same columns is
// parsed once: each read gets a copy of its own, which it may change.
// `wheelgrad identify` reads each log three times (its fit, then two
// validations for the check that the calibrated parameters predict the
// logs no worse than the start did); with one cache per command it parses
// them once. A file is known by its path, and a regular file also by its
// size and modification time, so that one rewritten in between is read
// again; a pipe (a FIFO, a device) is read once, every later open
// replaying its bytes (a second open used to wait for a writer that had
// gone). Safe for concurrent use.
type ReadCache struct {
	mu        sync.Mutex
	m         map[string]*Table
	pipes     map[string]*replay
	pipesOnly bool // NewPipeCache: no tables kept
}

// NewReadCache returns an empty cache.
func NewReadCache() *ReadCache { return &ReadCache{m: map[string]*Table{}} }

// NewPipeCache returns a cache that keeps no tables (every read parses)
// but reads a pipe once however often it is opened through it: for one
// read that opens a file twice (its header first).
func NewPipeCache() *ReadCache { return &ReadCache{pipesOnly: true} }

// cacheKey is what a parse depends on: the file (as above), the columns
// asked for and the column map (plain values: %#v spells them out).
func cacheKey(file string, spec Spec, m *ColumnMap) string {
	id := file
	if st, err := os.Stat(file); err == nil && st.Mode().IsRegular() {
		id = fmt.Sprintf("%s\x00%d\x00%d", file, st.Size(), st.ModTime().UnixNano())
	}
	cm := "nil"
	if m != nil {
		cm = fmt.Sprintf("%#v", *m)
	}
	return fmt.Sprintf("%s\x00%#v\x00%s", id, spec, cm)
}

// get returns a copy of the table kept under key, nil if none.
func (c *ReadCache) get(key string) *Table {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pipesOnly {
		return nil
	}
	if t, ok := c.m[key]; ok {
		return t.clone()
	}
	return nil
}

// put keeps a copy of t under key.
func (c *ReadCache) put(key string, t *Table) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pipesOnly {
		return
	}
	if c.m == nil {
		c.m = map[string]*Table{}
	}
	c.m[key] = t.clone()
}

// clone is a deep copy of t.
func (t *Table) clone() *Table {
	u := &Table{File: t.File, Line: slices.Clone(t.Line), header: maps.Clone(t.header),
		rowFile: slices.Clone(t.rowFile), held: slices.Clone(t.held)}
	if t.Columns != nil {
		u.Columns = make(map[string][]float64, len(t.Columns))
		for k, v := range t.Columns {
			u.Columns[k] = slices.Clone(v)
		}
	}
	if t.Text != nil {
		u.Text = make(map[string][]string, len(t.Text))
		for k, v := range t.Text {
			u.Text[k] = slices.Clone(v)
		}
	}
	return u
}

// open opens path through c: a regular file as Open does, anything else
// (a FIFO, a device) once for the cache, each open replaying the bytes
// read so far before reading on (a column map reads a file's header, then
// the file; identify reads a log again to validate it). Each open is
// bounded by MaxFileBytes as Open's is.
func (c *ReadCache) open(path string) (io.ReadCloser, error) {
	if r, ok, err := c.openPipe(path, MaxFileBytes); ok {
		return r, err
	}
	return openFile(path, MaxFileBytes)
}

// openPipe opens path through c's replay of it, bounded by max, when path
// is not a regular file (ok false otherwise). Within ReadPipesOnce every
// cache's pipes are that scope's, so that no pipe is opened twice.
func (c *ReadCache) openPipe(path string, max int64) (_ io.ReadCloser, ok bool, _ error) {
	if st, err := os.Stat(path); err != nil || st.Mode().IsRegular() {
		return nil, false, nil
	}
	if g := pipeScope.Load(); g != nil && g != c {
		c = g
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.pipes[path]
	if r == nil {
		f, err := os.Open(path)
		if err != nil {
			return nil, true, err
		}
		r = &replay{f: f}
		if c.pipes == nil {
			c.pipes = map[string]*replay{}
		}
		c.pipes[path] = r
	}
	return &bounded{f: &replayReader{r: r}, file: path, left: max, max: max}, true, nil
}

// pipeScope is ReadPipesOnce's cache while a scope is open.
var (
	pipeScope atomic.Pointer[ReadCache]
	scopeMu   sync.Mutex
	scopes    int
)

// ReadPipesOnce makes every pipe that Open, ReadAll and the readers built
// on them open (a FIFO, the /dev/fd/N of a shell's <(zcat log.csv.gz), a
// device) be read once until the returned end is called: a later open of
// the same path replays the bytes read so far, then reads on. For a
// program that is one command (cli.Run opens a scope per command): its
// reads may open a file more than once (a header before the rows, a
// parameter file for its values and again for its "columns"), and a
// pipe's second open would wait for a writer that has gone, or read on
// from where the first stopped. Not for a program that reads a FIFO's path
// again for new data while the scope is open. Scopes nest (the outermost
// end closes it); end closes the pipes left open and lets their bytes go.
func ReadPipesOnce() (end func()) {
	scopeMu.Lock()
	defer scopeMu.Unlock()
	if scopes == 0 {
		pipeScope.Store(NewPipeCache())
	}
	scopes++
	var once sync.Once
	return func() {
		once.Do(func() {
			scopeMu.Lock()
			defer scopeMu.Unlock()
			if scopes--; scopes > 0 {
				return
			}
			c := pipeScope.Swap(nil)
			c.mu.Lock()
			defer c.mu.Unlock()
			for _, r := range c.pipes {
				r.mu.Lock()
				if r.f != nil {
					r.f.Close()
					r.f, r.err = nil, os.ErrClosed
				}
				r.mu.Unlock()
			}
		})
	}
}

// replay is a file that can be read once (a pipe), read on demand by its
// replayReaders: the bytes read so far are kept for the next reader.
type replay struct {
	mu  sync.Mutex
	f   *os.File // nil once it ended
	buf []byte
	err error // how it ended
}

// replayReader reads a replay from its start.
type replayReader struct {
	r   *replay
	off int
}

func (rr *replayReader) Read(p []byte) (int, error) {
	r := rr.r
	r.mu.Lock()
	defer r.mu.Unlock()
	if rr.off < len(r.buf) {
		n := copy(p, r.buf[rr.off:])
		rr.off += n
		return n, nil
	}
	if r.f == nil {
		return 0, r.err
	}
	n, err := r.f.Read(p)
	r.buf = append(r.buf, p[:n]...)
	rr.off += n
	if err != nil {
		r.err = err
		r.f.Close()
		r.f = nil
	}
	return n, err
}

// Close leaves the pipe open for the cache's next reader.
func (rr *replayReader) Close() error { return nil }
