package dataset

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Cell is one value of an output row: a number (Num) or text (Text).
type Cell struct {
	num    float64
	text   string
	isText bool
}

// Num returns a numeric cell. NaN is written as an empty cell, which Read
// takes back as NaN in a Sparse column.
func Num(v float64) Cell { return Cell{num: v} }

// Text returns a text cell, such as a trajectory id.
func Text(s string) Cell { return Cell{text: s, isText: true} }

// Writer writes a CSV table that Read reads back exactly: a header, then rows
// of the same number of cells. Floats are written in the shortest form that
// parses back to the same bits (strconv 'g', -1). Like csv.Writer it buffers:
// call Flush at the end. Its first error sticks: every later call returns it.
//
// Whatever Read would reject or read differently is an error instead of
// being written: ±Inf, invalid UTF-8, text or names with surrounding spaces
// (Read trims them) or line breaks, duplicate names, and a one-column row
// whose cell is empty (it would read as a blank line). Fields are quoted where
// needed, including a first field that starts with '#', which would otherwise
// read as a comment.
type Writer struct {
	w     *bufio.Writer
	names []string
	rows  int // data rows written
	buf   []byte
	err   error
}

// NewWriter returns a Writer that writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: bufio.NewWriter(w)} }

// WriteHeader writes the header row; it must be called once, first.
func (w *Writer) WriteHeader(names ...string) error {
	if w.err != nil {
		return w.err
	}
	if w.names != nil {
		return w.fail(errors.New("dataset: WriteHeader called twice"))
	}
	if len(names) == 0 {
		return w.fail(errors.New("dataset: header has no columns"))
	}
	seen := make(map[string]int, len(names))
	w.buf = w.buf[:0]
	for i, n := range names {
		switch {
		case n == "" || n != strings.TrimSpace(n) || strings.HasPrefix(n, bom):
			return w.fail(fmt.Errorf("dataset: column name %q is empty or has surrounding spaces", n))
		case !utf8.ValidString(n) || strings.ContainsAny(n, "\r\n"):
			return w.fail(fmt.Errorf("dataset: column name %q is not valid UTF-8 or has a line break", n))
		}
		k := strings.ToLower(n)
		if j, dup := seen[k]; dup {
			return w.fail(fmt.Errorf("dataset: columns %d and %d are both named %q", j+1, i+1, n))
		}
		seen[k] = i
		if i > 0 {
			w.buf = append(w.buf, ',')
		}
		w.buf = appendField(w.buf, n, i == 0)
	}
	w.names = append([]string(nil), names...)
	return w.writeLine()
}

// WriteRow writes one data row.
func (w *Writer) WriteRow(cells ...Cell) error {
	if err := w.checkRow(len(cells)); err != nil {
		return err
	}
	w.buf = w.buf[:0]
	for i, c := range cells {
		if c.isText {
			if err := w.appendText(i, c.text); err != nil {
				return err
			}
		} else if err := w.appendNum(i, c.num); err != nil {
			return err
		}
	}
	return w.endRow()
}

// WriteFloats writes one data row of numbers.
func (w *Writer) WriteFloats(vals ...float64) error {
	if err := w.checkRow(len(vals)); err != nil {
		return err
	}
	w.buf = w.buf[:0]
	for i, v := range vals {
		if err := w.appendNum(i, v); err != nil {
			return err
		}
	}
	return w.endRow()
}

func (w *Writer) endRow() error {
	if err := w.writeLine(); err != nil {
		return err
	}
	w.rows++
	return nil
}

// Flush writes any buffered data to the underlying io.Writer and returns the
// Writer's first error, if any.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	if err := w.w.Flush(); err != nil {
		w.err = err
	}
	return w.err
}

func (w *Writer) fail(err error) error {
	w.err = err
	return err
}

func (w *Writer) checkRow(n int) error {
	switch {
	case w.err != nil:
		return w.err
	case w.names == nil:
		return w.fail(errors.New("dataset: row written before the header"))
	case n != len(w.names):
		return w.fail(fmt.Errorf("dataset: row %d has %s, header has %d", w.rows+1, plural(n, "cell"), len(w.names)))
	}
	return nil
}

func (w *Writer) appendNum(i int, v float64) error {
	switch {
	case math.IsInf(v, 0):
		return w.fail(fmt.Errorf("dataset: row %d, column %q: cannot write %v: %w", w.rows+1, w.names[i], v, ErrNotFinite))
	case math.IsNaN(v):
		return w.appendText(i, "")
	}
	if i > 0 {
		w.buf = append(w.buf, ',')
	}
	w.buf = strconv.AppendFloat(w.buf, v, 'g', -1, 64)
	return nil
}

func (w *Writer) appendText(i int, s string) error {
	switch {
	case s != strings.TrimSpace(s):
		return w.fail(fmt.Errorf("dataset: row %d, column %q: text %q has surrounding spaces", w.rows+1, w.names[i], s))
	case !utf8.ValidString(s) || strings.ContainsAny(s, "\r\n"):
		return w.fail(fmt.Errorf("dataset: row %d, column %q: text %q is not valid UTF-8 or has a line break", w.rows+1, w.names[i], s))
	case s == "" && len(w.names) == 1:
		return w.fail(fmt.Errorf("dataset: row %d: an empty cell cannot be written in a one-column table (it reads as a blank line)", w.rows+1))
	}
	if i > 0 {
		w.buf = append(w.buf, ',')
	}
	w.buf = appendField(w.buf, s, i == 0)
	return nil
}

func (w *Writer) writeLine() error {
	w.buf = append(w.buf, '\n')
	if _, err := w.w.Write(w.buf); err != nil {
		return w.fail(err)
	}
	return nil
}

// appendField appends s, quoted if the CSV reader would otherwise split or
// skip it.
func appendField(b []byte, s string, first bool) []byte {
	if !strings.ContainsAny(s, `,"`) && !(first && strings.HasPrefix(s, "#")) {
		return append(b, s...)
	}
	b = append(b, '"')
	b = append(b, strings.ReplaceAll(s, `"`, `""`)...)
	return append(b, '"')
}

// WriteCSV writes a header and columns of numbers, all of the same length,
// with a Writer.
func WriteCSV(w io.Writer, header []string, cols [][]float64) error {
	if len(header) != len(cols) {
		return fmt.Errorf("dataset: WriteCSV: %s for %s", plural(len(header), "name"), plural(len(cols), "column"))
	}
	for j := range cols {
		if len(cols[j]) != len(cols[0]) {
			return fmt.Errorf("dataset: WriteCSV: column %q has %d rows, column %q has %d",
				header[j], len(cols[j]), header[0], len(cols[0]))
		}
	}
	cw := NewWriter(w)
	if err := cw.WriteHeader(header...); err != nil {
		return err
	}
	row := make([]float64, len(cols))
	for i := range cols[0] {
		for j := range cols {
			row[j] = cols[j][i]
		}
		if err := cw.WriteFloats(row...); err != nil {
			return err
		}
	}
	return cw.Flush()
}

// WriteFile writes what write produces to path, all at once: write
// renders into memory, and only a complete rendering reaches the file
// (os.WriteFile, mode 0644 for a new file), so that a failing write leaves
// path as it was. It is for a library user's files (a notebook, a
// generator); the command line stages its outputs all or nothing
// (package cli/stage).
func WriteFile(path string, write func(io.Writer) error) error {
	var b bytes.Buffer
	if err := write(&b); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}
