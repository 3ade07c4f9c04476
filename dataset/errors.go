package dataset

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kinds of bad input, for errors.Is. A *ParseError wraps exactly one of them,
// or one of encoding/csv's ErrQuote and ErrBareQuote for malformed quoting.
var (
	ErrEmpty           = errors.New("empty file (no header)")
	ErrMissingColumn   = errors.New("missing column")
	ErrDuplicateColumn = errors.New("duplicate column")
	ErrNotNumber       = errors.New("not a number")
	ErrNotFinite       = errors.New("not a finite number")
	ErrEmptyCell       = errors.New("empty cell")
	ErrFieldCount      = errors.New("wrong number of fields")
	ErrNotIncreasing   = errors.New("time not strictly increasing")
	ErrGroupSplit      = errors.New("rows of one group are not contiguous")
	ErrInvalidUTF8     = errors.New("invalid UTF-8")
	ErrNoRows          = errors.New("no data rows")
	ErrInvalidText     = errors.New("invalid text")
)

// ParseError reports bad input, like csv.ParseError, with its position: the
// file, the physical line (1-based, comments and blank lines included) and
// the column as named in the file's header. Line is 0 when the error is about
// the file as a whole, Column is "" when it is not about one column.
//
// Err describes the problem; use errors.Is with the Err* variables to tell the
// kinds apart.
type ParseError struct {
	File   string
	Line   int
	Column string
	Err    error
}

// Error returns the error as one line, for example
//
//	log.csv: line 12, column "w3": "abc" is not a number
func (e *ParseError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(showFile(e.File))
		b.WriteString(": ")
	}
	switch {
	case e.Line > 0 && e.Column != "":
		fmt.Fprintf(&b, "line %d, column %s: ", e.Line, quoteCell(e.Column))
	case e.Line > 0:
		fmt.Fprintf(&b, "line %d: ", e.Line)
	case e.Column != "":
		fmt.Fprintf(&b, "column %s: ", quoteCell(e.Column))
	}
	msg := "<nil>"
	if e.Err != nil {
		msg = e.Err.Error()
	}
	b.WriteString(oneLine(msg))
	return b.String()
}

// Unwrap returns e.Err.
func (e *ParseError) Unwrap() error { return e.Err }

// reason is a specific message ("\"abc\" is not a number") that unwraps to
// its general kind (ErrNotNumber), so that ParseError.Error can say exactly
// what is wrong while errors.Is still works.
type reason struct {
	msg  string
	kind error
}

func (r *reason) Error() string { return r.msg }
func (r *reason) Unwrap() error { return r.kind }

func because(kind error, format string, args ...any) error {
	return &reason{msg: fmt.Sprintf(format, args...), kind: kind}
}

// maxShown bounds how much of a cell an error message repeats.
const maxShown = 40

// quoteCell quotes a cell's text for a message: escaped, so that the message
// stays on one line, and shortened when long.
func quoteCell(s string) string {
	if utf8.RuneCountInString(s) > maxShown {
		r := []rune(s)
		return strconv.Quote(string(r[:maxShown])) + "..."
	}
	return strconv.Quote(s)
}

// showName writes a column name as it is when that is unambiguous in a
// comma-separated list, else quoted.
// A name longer than maxShown runes is quoted and cut, as a cell is, so
// that a header of one endless name still gives a short line.
func showName(s string) string {
	if s == "" || strings.ContainsAny(s, `,"`) || s != strings.TrimSpace(s) || !isPrintable(s) ||
		utf8.RuneCountInString(s) > maxShown {
		return quoteCell(s)
	}
	return s
}

// showNames lists header names for a message: at most 20 of them, and
// none after the list has passed 160 bytes.
func showNames(names []string) string {
	const max, maxLen = 20, 160
	var b strings.Builder
	for i, n := range names {
		if i == max || b.Len() > maxLen {
			fmt.Fprintf(&b, ", ... (%d columns)", len(names))
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(showName(n))
	}
	return b.String()
}

// showFile keeps a file name as given unless it would break the line.
func showFile(s string) string {
	if isPrintable(s) {
		return s
	}
	return strconv.Quote(s)
}

func isPrintable(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// oneLine replaces line breaks in a message by spaces.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == '\r' || r == '\n' }), " ")
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
