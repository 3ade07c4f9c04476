package fit

import (
	"fmt"
	"strconv"
)

// Warning is a finding about a log or a fit that does not stop it: the
// numbers may still be right, but the user should look. File and Row say
// where when the finding is about one place (Row 0: the file as a whole).
type Warning struct {
	File string // "" when not about one file (several files are joined by commas)
	Row  int    // 1-based line of File, 0 when not about one row
	Msg  string // what was found and what probably causes it
}

// Warnf is a Warning about file (may be "") with a formatted message.
func Warnf(file string, format string, a ...any) Warning {
	return Warning{File: file, Msg: fmt.Sprintf(format, a...)}
}

// String is the warning as one line: "file: line N: msg", "file: msg" or msg.
func (w Warning) String() string {
	s := w.Msg
	if w.Row > 0 {
		s = "line " + strconv.Itoa(w.Row) + ": " + s
	}
	if w.File != "" {
		s = w.File + ": " + s
	}
	return s
}
