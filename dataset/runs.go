package dataset

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// RowError is bad input that a model finds in one row of a run after the
// file was read (a command out of range, a pose with a cell missing, a time
// step the model cannot take): Row is 0-based within the run, Column the
// column as FORMATS.md names it. A model knows no file; Origin.Err turns the
// error into a *ParseError naming the file, the line and the column as
// spelled in the file.
type RowError struct {
	Row    int
	Column string
	Msg    string
}

func (e *RowError) Error() string {
	return fmt.Sprintf("row %d, column %q: %s", e.Row, e.Column, e.Msg)
}

// Origin locates a run's rows in the table it was read from, for errors
// that name the file and line: row i of the run is row Row+i of Table. The
// zero value is a run that came from no file (synthetic).
type Origin struct {
	Table *Table // nil: not from a file
	Row   int    // the run's first row in Table
	ID    string // the run's group value (traj), "" without
}

// Line is the file's line of row i of the run (i + 1 for a run from no
// file).
func (o Origin) Line(i int) int {
	if o.Table != nil && o.Row+i < len(o.Table.Line) {
		return o.Table.Line[o.Row+i]
	}
	return i + 1
}

// Errorf returns an error about row i of the run: a *ParseError naming the
// file, line and column when the run came from a file, else one naming the
// run and row.
func (o Origin) Errorf(i int, column, format string, args ...any) error {
	if o.Table != nil {
		return o.Table.Errorf(o.Row+i, column, format, args...)
	}
	msg := strings.TrimSpace(fmt.Sprintf(format, args...))
	if o.ID != "" {
		return fmt.Errorf("run %q, row %d: %s", o.ID, i, msg)
	}
	return fmt.Errorf("row %d: %s", i, msg)
}

// Err positions a model's error about the run: a *RowError becomes a
// *ParseError naming the file, line and column; another error is prefixed
// with the file name (returned as it is for a run from no file). nil stays
// nil.
func (o Origin) Err(err error) error {
	if err == nil {
		return nil
	}
	var re *RowError
	if errors.As(err, &re) {
		if o.Table == nil {
			return err
		}
		return o.Errorf(re.Row, re.Column, "%s", re.Msg)
	}
	if o.Table == nil {
		return err
	}
	return fmt.Errorf("%s: %w", o.Table.File, err)
}

// CommandRows tells the rows of the run that carry commands (not held from a
// previous row by HoldCommands), for finding gaps in the command stream;
// nil when every row does (a synchronous log, or a run from no file).
func (o Origin) CommandRows() func(i int) bool {
	if o.Table == nil || !o.Table.AnyHeld() {
		return nil
	}
	t, row := o.Table, o.Row
	return func(i int) bool { return !t.Held(row + i) }
}

// Runs returns the [first, end) rows of each run of the table: consecutive
// rows with one value of the group column (e.g. "traj"), or the whole table
// as one run when the table has no such column.
func (t *Table) Runs(group string) [][2]int {
	ids := t.TextCol(group)
	n := t.Len()
	var out [][2]int
	for i := 0; i < n; {
		j := n
		if ids != nil {
			for j = i + 1; j < n && ids[j] == ids[i]; j++ {
			}
		}
		out = append(out, [2]int{i, j})
		i = j
	}
	return out
}

// MapFor returns the command map m to read the log at path with, or nil
// when the file gives the model's own commands instead of the columns m
// reads (e.g. a controls file written by follow): such a file needs no map.
// An unreadable file keeps m (the reader then says why).
func MapFor(path string, m *CommandMap, commands []string) *CommandMap {
	return mapFor(Open, path, m, commands)
}

// MapFor is the package's MapFor through c (a pipe read once for this and
// the operation's later reads through c); a nil c reads as the package's
// does.
func (c *ReadCache) MapFor(path string, m *CommandMap, commands []string) *CommandMap {
	if c == nil {
		return MapFor(path, m, commands)
	}
	return mapFor(c.open, path, m, commands)
}

func mapFor(open opener, path string, m *CommandMap, commands []string) *CommandMap {
	if m == nil {
		return nil
	}
	h, err := readHeader(open, path)
	if err != nil {
		return m
	}
	has := func(cols []string) bool {
		for _, c := range cols {
			if !slices.Contains(h, key(c)) {
				return false
			}
		}
		return true
	}
	if !has(m.Columns) && has(commands) {
		return nil
	}
	return m
}
