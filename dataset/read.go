package dataset

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Column describes one column a command needs.
type Column struct {
	// Name is matched case-insensitively against the header, with surrounding
	// spaces trimmed (and a UTF-8 byte order mark on the first header cell
	// stripped).
	Name string
	// Optional: the whole column may be absent from the file.
	Optional bool
	// Sparse: individual cells may be empty; they read as NaN (or "" in a
	// Text column). Otherwise an empty cell is an error.
	Sparse bool
	// Text: the cells are kept as text (such as a trajectory id), with
	// surrounding spaces trimmed, instead of being parsed as numbers.
	Text bool
}

// Spec says which columns to read from a file and how to check them.
//
// The zero Spec reads no columns: it still checks that the file is well
// formed and has data rows, and returns their line numbers.
type Spec struct {
	Columns []Column
	// Time names the time column, which must be one of Columns, numeric,
	// required and not Sparse. Its values must be strictly increasing within
	// each run (see Group). Empty: no time column.
	Time string
	// Group optionally names a Text column, such as "traj", that splits the
	// rows into runs of equal values: time may restart where the value
	// changes. The rows of one value must be contiguous. When the column is
	// Optional and absent, all rows are one run. Empty: no grouping.
	Group string
}

// Table holds the columns read from a file, row i of every column coming from
// file line Line[i]. Column names are the Spec's, in lower case; an Optional
// column absent from the file is in neither map.
type Table struct {
	File    string               // the file name given to Read, for later errors
	Columns map[string][]float64 // numeric columns; NaN where a Sparse cell was empty
	Text    map[string][]string  // Text columns
	Line    []int                // 1-based physical file line of each data row

	header map[string]string // lower-case name -> name as spelled in the header
	// rowFile, when not nil, names the file of each row of a table merged
	// from two files (MergeSensors); held marks the rows whose commands were
	// held from the previous row (HoldCommands).
	rowFile []string
	held    []bool
}

// Len returns the number of data rows.
func (t *Table) Len() int { return len(t.Line) }

// Has reports whether the file had the column (numeric or Text).
func (t *Table) Has(name string) bool {
	k := key(name)
	_, num := t.Columns[k]
	_, text := t.Text[k]
	return num || text
}

// Col returns the numeric column name (matched case-insensitively), or nil
// if the table does not have it.
func (t *Table) Col(name string) []float64 { return t.Columns[key(name)] }

// TextCol returns the Text column name (matched case-insensitively), or nil
// if the table does not have it.
func (t *Table) TextCol(name string) []string { return t.Text[key(name)] }

// Errorf returns a *ParseError about the given row (0-based) and column of
// the table, for problems found after reading, e.g. by a model: it names the
// file, the row's line and the column as spelled in the file. column may be
// "" and the format may use %w. A row out of range gives Line 0.
func (t *Table) Errorf(row int, column string, format string, args ...any) error {
	e := &ParseError{File: t.File, Column: column, Err: fmt.Errorf(format, args...)}
	if row >= 0 && row < len(t.Line) {
		e.Line = t.Line[row]
		if t.rowFile != nil {
			e.File = t.rowFile[row]
		}
	}
	if h, ok := t.header[key(column)]; ok && column != "" {
		e.Column = h
	}
	return e
}

// key is the map key of a column name.
func key(name string) string { return strings.ToLower(strings.TrimSpace(name)) }

// ReadFile reads the file at path with Read; errors name the path as given.
func ReadFile(path string, spec Spec) (*Table, error) { return readFile(Open, path, spec) }

// opener opens a file for reading: Open, or a ReadCache's (which reads a
// pipe once however often it is opened).
type opener func(path string) (io.ReadCloser, error)

func readFile(open opener, path string, spec Spec) (*Table, error) {
	f, err := open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path, spec)
}

// Read reads a CSV table from r according to spec. file names the input in
// errors (it may be ""). Bad input gives a *ParseError; an error from r is
// returned wrapped with the file name; an invalid spec gives a plain error.
func Read(r io.Reader, file string, spec Spec) (*Table, error) {
	fields, byKey, err := spec.plan()
	if err != nil {
		return nil, err
	}
	cr := csv.NewReader(&utf8Lines{br: bufio.NewReader(r), file: file})
	cr.Comment = '#'
	cr.FieldsPerRecord = -1 // counted here, to report it our way
	cr.TrimLeadingSpace = true
	cr.ReuseRecord = true
	rd := &reader{file: file, cr: cr}

	rec, err := rd.next()
	if err == io.EOF {
		return nil, &ParseError{File: file, Err: ErrEmpty}
	}
	if err != nil {
		return nil, err
	}
	if err := rd.header(rec, fields, byKey); err != nil {
		return nil, err
	}
	if spec.Time != "" {
		rd.time = byKey[key(spec.Time)]
	}
	if g := byKey[key(spec.Group)]; spec.Group != "" && g.index >= 0 {
		rd.group = g
	} else if spec.Group != "" {
		rd.groupName = spec.Group
	}
	for {
		rec, err := rd.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if err := rd.row(rec); err != nil {
			return nil, err
		}
	}
	if len(rd.lines) == 0 {
		return nil, &ParseError{File: file, Err: ErrNoRows}
	}

	t := &Table{
		File:    file,
		Columns: make(map[string][]float64),
		Text:    make(map[string][]string),
		Line:    rd.lines,
		header:  make(map[string]string),
	}
	for _, f := range rd.present {
		if f.col.Text {
			t.Text[f.key] = f.text
		} else {
			t.Columns[f.key] = f.num
		}
		t.header[f.key] = f.header
	}
	return t, nil
}

// reader holds the state of one Read.
type reader struct {
	file    string
	cr      *csv.Reader
	nfields int      // in the header
	present []*field // the Spec's columns found in the header, in header order
	time    *field   // nil: no time column
	group   *field   // nil: no grouping (none asked for, or absent)
	// groupName is the Spec's group column when the file lacks it (a time
	// that goes back then suggests runs concatenated without it).
	groupName string

	lines    []int          // of the data rows so far
	prevT    float64        // time on the previous row
	firstT   float64        // time on the first data row
	prevLine int            // line of the previous row
	run      string         // group value of the current run
	ended    map[string]int // group value -> last line of its finished run
}

// header finds the Spec's columns in the header record.
func (rd *reader) header(rec []string, fields []*field, byKey map[string]*field) error {
	line := rd.line(0)
	names := make([]string, len(rec))
	for i, h := range rec {
		if i == 0 {
			h = strings.TrimPrefix(strings.TrimSpace(h), bom)
		}
		names[i] = strings.TrimSpace(h)
	}
	for i, name := range names {
		f, ok := byKey[strings.ToLower(name)]
		if !ok {
			continue // not needed: ignored, even when empty or repeated
		}
		if f.index >= 0 {
			msg := fmt.Sprintf("duplicate column %s (columns %d and %d of the header", strconv.Quote(f.col.Name), f.index+1, i+1)
			if f.header != name {
				msg += fmt.Sprintf(": %s and %s", strconv.Quote(f.header), strconv.Quote(name))
			}
			return &ParseError{File: rd.file, Line: line, Err: because(ErrDuplicateColumn, "%s)", msg)}
		}
		f.index, f.header = i, name
	}
	var missing []string
	for _, f := range fields {
		if f.index < 0 && !f.col.Optional {
			missing = append(missing, strconv.Quote(f.col.Name))
		}
	}
	if len(missing) > 0 {
		what := "column " + missing[0]
		if len(missing) > 1 {
			what = "columns " + strings.Join(missing, ", ")
		}
		hint := ""
		if looksLikeData(names) {
			hint = "; is the header row missing?"
		}
		return &ParseError{File: rd.file, Line: line,
			Err: because(ErrMissingColumn, "missing %s (header has %s%s)", what, showNames(names), hint)}
	}

	rd.nfields = len(names)
	for _, f := range fields {
		if f.index >= 0 {
			rd.present = append(rd.present, f)
		}
	}
	// Header order, so that the leftmost bad cell of a row is reported.
	sort.Slice(rd.present, func(i, j int) bool { return rd.present[i].index < rd.present[j].index })
	return nil
}

// row checks and stores one data record.
func (rd *reader) row(rec []string) error {
	line := rd.line(0)
	if len(rec) != rd.nfields {
		return &ParseError{File: rd.file, Line: line,
			Err: because(ErrFieldCount, "%s, header has %d", plural(len(rec), "field"), rd.nfields)}
	}
	row := len(rd.lines)
	for _, f := range rd.present {
		cell := strings.TrimSpace(rec[f.index])
		if cell == "" && !f.col.Sparse {
			return rd.cellError(f, ErrEmptyCell, "empty cell (a value is needed on every row)")
		}
		if f.col.Text {
			if strings.ContainsAny(cell, "\r\n") {
				// A quoted cell may span lines; an id with a line break
				// could not be written back (Writer refuses it).
				return rd.cellError(f, ErrInvalidText, "text %s has a line break", quoteCell(cell))
			}
			if row > 0 && cell == f.text[row-1] {
				cell = f.text[row-1] // share the string of a repeated id
			} else {
				cell = strings.Clone(cell) // not pinning the whole record
			}
			f.text = append(f.text, cell)
			continue
		}
		v := math.NaN()
		if cell != "" {
			var err error
			if v, err = parseNumber(cell, f.col.Sparse); err != nil {
				return rd.cellErr(f, err)
			}
		}
		f.num = append(f.num, v)
	}

	newRun := row == 0
	if rd.group != nil {
		g := rd.group.text[row]
		if row > 0 && g != rd.run {
			newRun = true
			if rd.ended == nil {
				rd.ended = make(map[string]int)
			}
			rd.ended[rd.run] = rd.prevLine
			if last, ok := rd.ended[g]; ok {
				return rd.cellError(rd.group, ErrGroupSplit,
					"%s appears again after its run ended on line %d (the rows of one %s must be contiguous)",
					quoteCell(g), last, showName(rd.group.header))
			}
		}
		rd.run = g
	}
	if rd.time != nil {
		t := rd.time.num[row]
		if !newRun && !(t > rd.prevT) {
			within := ""
			if rd.group != nil {
				within = " within each " + showName(rd.group.header)
			} else if rd.groupName != "" && t < rd.prevT && t <= rd.firstT {
				// issue 28: windows concatenated, each restarting its clock
				within = fmt.Sprintf("; a time that goes back is where a new run starts: several runs in one file need a %s column naming each (or -columns %s=COLUMN)", rd.groupName, rd.groupName)
			}
			return rd.cellError(rd.time, ErrNotIncreasing,
				"time %s is not after %s on line %d (%s must be strictly increasing%s)",
				formatFloat(t), formatFloat(rd.prevT), rd.prevLine, showName(rd.time.header), within)
		}
		if len(rd.lines) == 0 {
			rd.firstT = t
		}
		rd.prevT = t
	}
	rd.prevLine = line
	rd.lines = append(rd.lines, line)
	return nil
}

// field is the reading state of one Spec column.
type field struct {
	col    Column
	key    string
	index  int    // in the header; -1 while not found
	header string // name as spelled in the header
	num    []float64
	text   []string
}

// plan checks the spec and returns its columns in Spec order and by key.
func (s Spec) plan() ([]*field, map[string]*field, error) {
	fields := make([]*field, len(s.Columns))
	byKey := make(map[string]*field, len(s.Columns))
	for i, c := range s.Columns {
		k := key(c.Name)
		if k == "" {
			return nil, nil, fmt.Errorf("dataset: Spec column %d has no name", i+1)
		}
		if _, dup := byKey[k]; dup {
			return nil, nil, fmt.Errorf("dataset: Spec has column %q twice", c.Name)
		}
		f := &field{col: c, key: k, index: -1}
		fields[i], byKey[k] = f, f
	}
	if s.Time != "" {
		f, ok := byKey[key(s.Time)]
		switch {
		case !ok:
			return nil, nil, fmt.Errorf("dataset: Spec.Time %q is not one of Spec.Columns", s.Time)
		case f.col.Text || f.col.Optional || f.col.Sparse:
			return nil, nil, fmt.Errorf("dataset: Spec.Time column %q must be numeric, required and not sparse", s.Time)
		}
	}
	if s.Group != "" {
		f, ok := byKey[key(s.Group)]
		switch {
		case !ok:
			return nil, nil, fmt.Errorf("dataset: Spec.Group %q is not one of Spec.Columns", s.Group)
		case !f.col.Text:
			return nil, nil, fmt.Errorf("dataset: Spec.Group column %q must be a Text column", s.Group)
		}
	}
	return fields, byKey, nil
}

// next returns the next record, skipping lines of only spaces as blank
// (csv.Reader skips only truly empty lines). At the end it returns io.EOF.
func (rd *reader) next() ([]string, error) {
	for {
		rec, err := rd.cr.Read()
		if err != nil {
			return nil, rd.convert(err)
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		return rec, nil
	}
}

// line returns the line where field i of the last record starts.
func (rd *reader) line(i int) int {
	line, _ := rd.cr.FieldPos(i)
	return line
}

// cellErr reports err about field f of the last record.
func (rd *reader) cellErr(f *field, err error) error {
	return &ParseError{File: rd.file, Line: rd.line(f.index), Column: f.header, Err: err}
}

// cellError reports a problem of the given kind with field f of the last record.
func (rd *reader) cellError(f *field, kind error, format string, args ...any) error {
	return rd.cellErr(f, because(kind, format, args...))
}

// convert turns errors from the csv.Reader into ours, leaving io.EOF alone.
func (rd *reader) convert(err error) error {
	var pe *ParseError
	var ce *csv.ParseError
	switch {
	case err == io.EOF:
		return err
	case errors.As(err, &pe): // from utf8Lines
		return pe
	case errors.As(err, &ce):
		var msg string
		switch ce.Err {
		case csv.ErrBareQuote:
			msg = fmt.Sprintf(`bare " in a field that is not quoted (byte %d of the line)`, ce.Column)
		case csv.ErrQuote:
			msg = fmt.Sprintf(`extraneous or missing " in a quoted field (byte %d of the line)`, ce.Column)
		default:
			msg = fmt.Sprintf("%v (byte %d of the line)", ce.Err, ce.Column)
		}
		if ce.StartLine != ce.Line {
			msg += fmt.Sprintf(" in the record that starts on line %d", ce.StartLine)
		}
		return &ParseError{File: rd.file, Line: ce.Line, Err: &reason{msg: msg, kind: ce.Err}}
	case rd.file == "":
		return err
	default:
		return fmt.Errorf("%s: %w", showFile(rd.file), err)
	}
}

// parseNumber parses a trimmed, non-empty cell as a finite decimal number.
func parseNumber(s string, sparse bool) (float64, error) {
	if !isDecimal(s) {
		word := s
		if s[0] == '+' || s[0] == '-' {
			word = s[1:]
		}
		switch word = strings.ToLower(word); {
		case word == "nan":
			hint := ""
			if sparse {
				hint = " (leave the cell empty where there is no value)"
			}
			return 0, because(ErrNotFinite, "NaN is not allowed%s", hint)
		case word == "inf" || word == "infinity":
			sign := "+"
			if s[0] == '-' {
				sign = "-"
			}
			return 0, because(ErrNotFinite, "%sInf is not allowed", sign)
		}
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			return 0, because(ErrNotNumber, "%s is not a number (write plain decimals such as -1.5e-3)", quoteCell(s))
		}
		return 0, because(ErrNotNumber, "%s is not a number", quoteCell(s))
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) { // only overflow is left
		return 0, because(ErrNotFinite, "%s is too large for a float64", quoteCell(s))
	}
	return v, nil
}

// isDecimal reports whether s is [+-]digits[.digits][(e|E)[+-]digits], with
// at least one digit before or after the point: the numbers a user means,
// without the hexadecimal floats, underscores, NaN and Inf of ParseFloat.
func isDecimal(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for ; i < len(s) && '0' <= s[i] && s[i] <= '9'; i++ {
		digits++
	}
	if i < len(s) && s[i] == '.' {
		for i++; i < len(s) && '0' <= s[i] && s[i] <= '9'; i++ {
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for ; i < len(s) && '0' <= s[i] && s[i] <= '9'; i++ {
			exp++
		}
		if exp == 0 {
			return false
		}
	}
	return i == len(s)
}

// looksLikeData reports whether every header cell is a number, the sign of a
// file written without a header.
func looksLikeData(names []string) bool {
	for _, n := range names {
		if !isDecimal(n) {
			return false
		}
	}
	return len(names) > 0
}

func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// utf8Lines passes its input through one physical line at a time, dropping a
// byte order mark at the start and stopping with a *ParseError at the first
// line that is not valid UTF-8. Checking whole lines here covers comments as
// well as cells, and gives the line number for free.
type utf8Lines struct {
	br   *bufio.Reader
	file string
	n    int    // lines passed on so far
	buf  []byte // rest of the current line
	long []byte // holds a line longer than br's buffer
	err  error  // returned once buf is drained
}

const bom = "\uFEFF"

func (u *utf8Lines) Read(p []byte) (int, error) {
	for len(u.buf) == 0 {
		if u.err != nil {
			return 0, u.err
		}
		u.fill()
	}
	n := copy(p, u.buf)
	u.buf = u.buf[n:]
	return n, nil
}

func (u *utf8Lines) fill() {
	line, err := u.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		u.long = append(u.long[:0], line...)
		for err == bufio.ErrBufferFull {
			if len(u.long) > MaxLineBytes {
				u.buf, u.err = nil, &ParseError{File: u.file, Line: u.n + 1,
					Err: because(ErrLineTooLong, "line longer than %s (not a text log: a binary file, a device, a stream without line ends?)", showBytes(MaxLineBytes))}
				return
			}
			line, err = u.br.ReadSlice('\n')
			u.long = append(u.long, line...)
		}
		line = u.long
	}
	if len(line) > 0 {
		u.n++
		if u.n == 1 {
			line = bytes.TrimPrefix(line, []byte(bom))
		}
		if i := invalidUTF8(line); i >= 0 {
			u.buf, u.err = nil, &ParseError{File: u.file, Line: u.n,
				Err: because(ErrInvalidUTF8, "invalid UTF-8 at byte %d of the line (files must be UTF-8)", i+1)}
			return
		}
	}
	u.buf, u.err = line, err
}

// invalidUTF8 returns the index of the first byte of b that is not valid
// UTF-8, or -1.
func invalidUTF8(b []byte) int {
	if utf8.Valid(b) {
		return -1
	}
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}
