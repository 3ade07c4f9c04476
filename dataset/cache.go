package dataset

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"sync"
)

// ReadCache keeps the tables parsed from the files read through it
// (LogOptions.Cache), so that a file read again with the same columns is
// parsed once: each read gets a copy of its own, which it may change.
// `wheelgrad identify` reads each log three times (its fit, then two
// validations for the check that the calibrated parameters predict the
// logs no worse than the start did); with one cache per command it parses
// them once. A file is known by its path, and a regular file also by its
// size and modification time, so that one rewritten in between is read
// again; a pipe is read once and served from the cache after (where the
// second read used to find it empty). Safe for concurrent use.
type ReadCache struct {
	mu sync.Mutex
	m  map[string]*Table
}

// NewReadCache returns an empty cache.
func NewReadCache() *ReadCache { return &ReadCache{m: map[string]*Table{}} }

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
	if t, ok := c.m[key]; ok {
		return t.clone()
	}
	return nil
}

// put keeps a copy of t under key.
func (c *ReadCache) put(key string, t *Table) {
	c.mu.Lock()
	defer c.mu.Unlock()
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
