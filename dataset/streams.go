package dataset

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
)

// Real logs come as asynchronous streams: commands at the controller's rate,
// camera or odometry samples at their own times, often in separate files, in
// the robot's own channel order and units. The functions here turn such a
// recording into the one-table form every model reads (FORMATS.md), so that
// the models need not know:
//
//   - HoldCommands: a row whose command cells are all empty carries sensor
//     values only, at its own time; the previous row's commands hold.
//   - MergeSensors: a separate sensor file (t plus its columns) merged by time.
//   - DegreesToRadians: theta_deg-style columns converted and unwrapped.
//   - CommandMap: the logged channels mapped to the model's commands (order,
//     sign, scale).
//
// ReadLog does all of it for one log.

// ErrPartialCommand is a row with some command cells empty and others not.
var ErrPartialCommand = errors.New("partial command row")

// ErrNoCommands is a run without a single row that carries commands.
var ErrNoCommands = errors.New("no command rows")

// HoldCommands applies the asynchronous-stream rule to a table whose command
// columns were read Sparse: a row with every command cell empty takes the
// previous row's commands (it is a sensor sample at its own time, during which
// the previous command still acts); a row with some but not all empty is an
// error naming the row and the first empty column. Within each run of group
// (when the table has that column), rows before the first row with commands
// are removed: there is no command to hold yet. It returns how many rows were
// removed. Rows whose commands were held are reported by Held.
func HoldCommands(t *Table, commands []string, group string) (dropped int, err error) {
	cols := make([][]float64, len(commands))
	for j, c := range commands {
		if cols[j] = t.Col(c); cols[j] == nil {
			return 0, fmt.Errorf("dataset.HoldCommands: the table has no column %q", c)
		}
	}
	ids := t.TextCol(group)
	n := t.Len()
	keep := make([]bool, n)
	held := make([]bool, n)
	have := false
	for i := range n {
		if i > 0 && ids != nil && ids[i] != ids[i-1] {
			if !have {
				return 0, t.Errorf(i-1, group, "%w: run %s has no row with commands", ErrNoCommands, quoteCell(ids[i-1]))
			}
			have = false
		}
		empty := 0
		first := ""
		for j, c := range cols {
			if math.IsNaN(c[i]) {
				if empty == 0 {
					first = commands[j]
				}
				empty++
			}
		}
		switch {
		case empty == 0:
			have = true
			keep[i] = true
		case empty < len(cols):
			return 0, t.Errorf(i, first, "%w: empty cell among the commands %s (leave all of them empty on a sensor-only row, or fill all)",
				ErrPartialCommand, strings.Join(commands, ", "))
		case have:
			for _, c := range cols {
				c[i] = c[i-1]
			}
			keep[i], held[i] = true, true
		default:
			dropped++
		}
	}
	if !have {
		what := "the log has no row with commands"
		if ids != nil {
			what = fmt.Sprintf("run %s has no row with commands", quoteCell(ids[n-1]))
		}
		return 0, t.Errorf(n-1, commands[0], "%w: %s", ErrNoCommands, what)
	}
	t.held = held
	if dropped > 0 {
		t.keepRows(keep)
	}
	return dropped, nil
}

// Held reports whether row i's commands were held from the previous row by
// HoldCommands (a sensor-only row).
func (t *Table) Held(i int) bool { return t.held != nil && t.held[i] }

// AnyHeld reports whether HoldCommands held any row.
func (t *Table) AnyHeld() bool { return slices.Contains(t.held, true) }

// keepRows removes the rows where keep is false from every column.
func (t *Table) keepRows(keep []bool) {
	pick := func(n int, f func(src, dst int)) int {
		k := 0
		for i := range n {
			if keep[i] {
				f(i, k)
				k++
			}
		}
		return k
	}
	n := len(t.Line)
	for name, c := range t.Columns {
		k := pick(n, func(i, j int) { c[j] = c[i] })
		t.Columns[name] = c[:k]
	}
	for name, c := range t.Text {
		k := pick(n, func(i, j int) { c[j] = c[i] })
		t.Text[name] = c[:k]
	}
	k := pick(n, func(i, j int) { t.Line[j] = t.Line[i] })
	t.Line = t.Line[:k]
	if t.rowFile != nil {
		k := pick(n, func(i, j int) { t.rowFile[j] = t.rowFile[i] })
		t.rowFile = t.rowFile[:k]
	}
	if t.held != nil {
		k := pick(n, func(i, j int) { t.held[j] = t.held[i] })
		t.held = t.held[:k]
	}
}

// DegreesToRadians replaces a degree column (such as theta_deg) by the
// radian column rad (theta): converted, and unwrapped within each run of
// group so that the angle is continuous across ±180° (empty cells are
// skipped). Having both columns is an error; having neither leaves the table
// alone. Errors about the new column name the degree column of the file.
func DegreesToRadians(t *Table, deg, rad, group string) error {
	d := t.Col(deg)
	if d == nil {
		return nil
	}
	if t.Has(rad) {
		return &ParseError{File: t.File, Line: headerLine(t), Column: t.header[key(deg)],
			Err: because(ErrDuplicateColumn, "columns %s and %s both give the angle: keep one", showName(t.header[key(rad)]), showName(t.header[key(deg)]))}
	}
	out := make([]float64, len(d))
	for i, v := range d {
		out[i] = v * math.Pi / 180
	}
	unwrap(out, t.TextCol(group))
	k := key(rad)
	t.Columns[k] = out
	t.header[k] = t.header[key(deg)]
	delete(t.Columns, key(deg))
	return nil
}

// headerLine is the line of the header as far as a table knows it (the line
// before the first data row; comments in between are not counted).
func headerLine(t *Table) int {
	if len(t.Line) > 0 && t.Line[0] > 1 {
		return t.Line[0] - 1
	}
	return 1
}

// CommandMap maps the channels a robot logged to the model's commands
// (parameter key "command_map"): command j of the model is
// Scale[j] × column Columns[j] of the log. A negative scale flips a sign, a
// scale converts units (PWM counts to rad/s).
type CommandMap struct {
	Columns []string  `json:"columns"`
	Scale   []float64 `json:"scale,omitempty"` // default 1 for every command
}

// Check validates the map for a model with the given command columns.
func (m *CommandMap) Check(commands []string) error {
	if len(m.Columns) != len(commands) {
		return fmt.Errorf("command_map: columns names %d columns, the model has %d commands (%s)", len(m.Columns), len(commands), strings.Join(commands, ", "))
	}
	seen := map[string]bool{}
	for _, c := range m.Columns {
		k := key(c)
		if k == "" {
			return errors.New("command_map: a column name is empty")
		}
		if seen[k] {
			return fmt.Errorf("command_map: column %q is named twice", c)
		}
		seen[k] = true
	}
	if m.Scale != nil && len(m.Scale) != len(commands) {
		return fmt.Errorf("command_map: scale has %d values, want %d", len(m.Scale), len(commands))
	}
	for j, s := range m.Scale {
		if s == 0 || math.IsNaN(s) || math.IsInf(s, 0) {
			return fmt.Errorf("command_map: scale[%d] = %v must be finite and non-zero", j, s)
		}
	}
	return nil
}

// scale returns the scale of command j.
func (m *CommandMap) scale(j int) float64 {
	if m.Scale == nil {
		return 1
	}
	return m.Scale[j]
}

// apply replaces the mapped columns of t by the model's commands. Errors
// about a command name the logged column it came from.
func (m *CommandMap) apply(t *Table, commands []string) {
	out := make([][]float64, len(commands))
	for j := range commands {
		src := t.Col(m.Columns[j])
		c := make([]float64, len(src))
		for i, v := range src {
			c[i] = m.scale(j) * v
		}
		out[j] = c
	}
	hdr := make([]string, len(commands))
	for j := range commands {
		hdr[j] = t.header[key(m.Columns[j])]
		delete(t.Columns, key(m.Columns[j]))
	}
	for j, c := range commands {
		t.Columns[key(c)] = out[j]
		t.header[key(c)] = hdr[j]
	}
}

// MergeSensors merges the sensor table s (read with its own time column t) into
// the command table c by time: every sensor row becomes a row of its own at its
// time with empty command cells (or fills the sensor cells of a command row at
// the same time), so that HoldCommands can then hold the commands over it.
// When c has the group column, s must have it too and rows are merged within
// each run. The sensor columns must not be in c. Errors name the file and line
// each row came from.
func MergeSensors(c, s *Table, group string) (*Table, error) {
	for name := range s.Columns {
		if name == "t" {
			continue
		}
		if _, dup := c.Columns[name]; dup {
			return nil, &ParseError{File: c.File, Line: headerLine(c), Column: c.header[name],
				Err: because(ErrDuplicateColumn, "column %s is in the commands file and in the sensor file %s: keep one", showName(c.header[name]), showFile(s.File))}
		}
	}
	cid, sid := c.TextCol(group), s.TextCol(group)
	if cid != nil && sid == nil {
		return nil, &ParseError{File: s.File, Line: headerLine(s), Err: because(ErrMissingColumn, "missing column %s: the commands file %s splits runs by it", showName(group), showFile(c.File))}
	}
	ct, st := c.Col("t"), s.Col("t")
	if ct == nil || st == nil {
		return nil, errors.New("dataset.MergeSensors: both tables need a time column t")
	}
	// runs of each table by id, in order
	type span struct{ a, b int }
	runs := func(ids []string, n int) (order []string, by map[string]span) {
		by = map[string]span{}
		for i := 0; i < n; {
			j := i + 1
			for ids != nil && j < n && ids[j] == ids[i] {
				j++
			}
			if ids == nil {
				j = n
			}
			id := ""
			if ids != nil {
				id = ids[i]
			}
			order, by[id] = append(order, id), span{i, j}
			i = j
		}
		return order, by
	}
	corder, cby := runs(cid, c.Len())
	sorder, sby := runs(sid, s.Len())
	if cid == nil && sid != nil && len(sorder) > 1 {
		return nil, s.Errorf(sby[sorder[1]].a, group, "the sensor file has several runs (%s) but the commands file has no %s column", showName(group), showName(group))
	}
	if cid != nil {
		for _, id := range sorder {
			if _, ok := cby[id]; !ok {
				return nil, s.Errorf(sby[id].a, group, "run %s is not in the commands file %s", quoteCell(id), showFile(c.File))
			}
		}
	}
	m := &Table{File: c.File, Columns: map[string][]float64{}, Text: map[string][]string{}, header: map[string]string{}}
	for k, h := range s.header {
		m.header[k] = h
	}
	for k, h := range c.header {
		m.header[k] = h
	}
	var names []string
	for k := range c.Columns {
		names = append(names, k)
	}
	for k := range s.Columns {
		if _, ok := c.Columns[k]; !ok {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	add := func(from *Table, file string, i int, other *Table, j int) {
		for _, k := range names {
			v := math.NaN()
			if col := from.Columns[k]; col != nil {
				v = col[i]
			}
			if other != nil {
				if col := other.Columns[k]; col != nil && k != "t" {
					v = col[j]
				}
			}
			m.Columns[k] = append(m.Columns[k], v)
		}
		m.Line = append(m.Line, from.Line[i])
		m.rowFile = append(m.rowFile, file)
		if cid != nil {
			m.Text[key(group)] = append(m.Text[key(group)], cid[0]) // replaced below
		}
	}
	for _, id := range corder {
		ca := cby[id]
		var sa span
		if cid == nil {
			sa = span{0, s.Len()}
		} else if sp, ok := sby[id]; ok {
			sa = sp
		}
		i, j := ca.a, sa.a
		for i < ca.b || j < sa.b {
			switch {
			case j >= sa.b || (i < ca.b && ct[i] < st[j]):
				add(c, c.File, i, nil, 0)
				i++
			case i >= ca.b || st[j] < ct[i]:
				add(s, s.File, j, nil, 0)
				j++
			default: // same time: one row with both
				add(c, c.File, i, s, j)
				i++
				j++
			}
			if cid != nil {
				g := m.Text[key(group)]
				g[len(g)-1] = id
			}
		}
	}
	return m, nil
}

// LogOptions say how ReadLog turns a recording into a model's log table.
type LogOptions struct {
	// Commands are the model's command columns (in the Spec). Their cells
	// may be empty on sensor-only rows (HoldCommands).
	Commands []string
	// Map, when not nil, reads the commands from the logged columns it names.
	Map *CommandMap
	// Angles are angle columns of the Spec that may come in degrees as
	// NAME_deg (converted and unwrapped).
	Angles []string
	// Sensors is a separate file of sensor samples (t and the Spec's
	// non-command columns, e.g. x, y, theta), merged by time; "" for none.
	// The commands file's own sensor columns are then not read.
	Sensors string
	// Offset (s) is added to the times of the sensor samples (the Sensors
	// file's, or the sensor cells of the log itself) before they are merged
	// with the commands: a constant shift between two clocks.
	Offset float64
	// Note receives one-line notes (rows ignored before the first command).
	Note io.Writer
	// Columns, when not nil, computes the Spec's columns from differently
	// named, scaled or expressed logged ones, filters rows and cuts a time
	// range (ColumnMap); it applies to the log and the Sensors file alike.
	Columns *ColumnMap
	// HoldLast keeps the sensor rows more than one command period after
	// the last command row, simulated with the last command held (the
	// behaviour before issue 25.3); by default they are dropped with a
	// warning on Note (DropAfterCommands).
	HoldLast bool
	// Cache, when not nil, parses each file once for every read through
	// it with the same columns (ReadCache); nil parses on every read.
	Cache *ReadCache
}

// ReadLog reads a log with the asynchronous-stream rules of LogOptions and
// returns the table the model's Spec describes, every row with commands.
func ReadLog(path string, spec Spec, o LogOptions) (*Table, error) {
	t, s, err := readParts(path, spec, o)
	if err != nil {
		return nil, err
	}
	switch {
	case s != nil:
	case o.Offset != 0:
		t, s = splitSensors(t, o.Commands, spec.Group)
	}
	if s != nil {
		if o.Offset != 0 {
			for i, v := range s.Columns["t"] {
				s.Columns["t"][i] = v + o.Offset
			}
		}
		if t, err = MergeSensors(t, s, spec.Group); err != nil {
			return nil, err
		}
	}
	from, to := beforeCommands(t, o.Commands, spec.Time, spec.Group)
	dropped, err := HoldCommands(t, o.Commands, spec.Group)
	if err != nil {
		return nil, err
	}
	if dropped > 0 && o.Note != nil {
		span := ""
		if !math.IsNaN(from) {
			span = fmt.Sprintf(" (t = %.4g … %.4g s)", from, to)
		}
		fmt.Fprintf(o.Note, "%s: %s before the first row with commands ignored%s\n", showFile(path), plural(dropped, "row"), span)
	}
	if !o.HoldLast {
		if sp := DropAfterCommands(t, spec.Time, spec.Group); sp.Rows > 0 && o.Note != nil {
			fmt.Fprintf(o.Note, "warning: %s\n", sp.Warning(path))
		}
	}
	return t, nil
}

// splitSensors splits a one-table log into its command rows (time, group and
// commands) and its sensor rows (time, group and every other column), for
// shifting one stream against the other.
func splitSensors(t *Table, commands []string, group string) (c, s *Table) {
	isCmd := map[string]bool{"t": true}
	for _, x := range commands {
		isCmd[key(x)] = true
	}
	c = &Table{File: t.File, Columns: map[string][]float64{}, Text: map[string][]string{}, header: t.header, rowFile: nil}
	s = &Table{File: t.File, Columns: map[string][]float64{}, Text: map[string][]string{}, header: t.header}
	ids := t.TextCol(group)
	for i := range t.Len() {
		hasCmd, hasSen := false, false
		for k, col := range t.Columns {
			if k != "t" && !math.IsNaN(col[i]) {
				if isCmd[k] {
					hasCmd = true
				} else {
					hasSen = true
				}
			}
		}
		for _, x := range []struct {
			to  *Table
			has bool
			cmd bool
		}{{c, hasCmd, true}, {s, hasSen, false}} {
			if !x.has {
				continue
			}
			for k, col := range t.Columns {
				if k == "t" || isCmd[k] == x.cmd {
					x.to.Columns[k] = append(x.to.Columns[k], col[i])
				}
			}
			x.to.Line = append(x.to.Line, t.Line[i])
			if ids != nil {
				x.to.Text[key(group)] = append(x.to.Text[key(group)], ids[i])
			}
		}
	}
	// a column with no rows in a part still exists there, empty
	for k := range t.Columns {
		for _, x := range []struct {
			to  *Table
			cmd bool
		}{{c, true}, {s, false}} {
			if (k == "t" || isCmd[k] == x.cmd) && x.to.Columns[k] == nil {
				x.to.Columns[k] = []float64{}
			}
		}
	}
	return c, s
}

// ReadHeader returns the column names of a CSV file's header, lower case and
// trimmed, for choosing between a model's alternative forms (e.g. skid-steer
// vc, wc or wl, wr) before reading it.
func ReadHeader(path string) ([]string, error) { return readHeader(Open, path) }

func readHeader(open opener, path string) ([]string, error) {
	f, err := open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cr := csv.NewReader(&utf8Lines{br: bufio.NewReader(f), file: path})
	cr.Comment = '#'
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	rd := &reader{file: path, cr: cr}
	rec, err := rd.next()
	if err == io.EOF {
		return nil, &ParseError{File: path, Err: ErrEmpty}
	}
	if err != nil {
		return nil, err
	}
	out := make([]string, len(rec))
	for i, h := range rec {
		out[i] = key(strings.TrimPrefix(strings.TrimSpace(h), bom))
	}
	return out, nil
}

// Select returns a new table of the rows where keep is true, with the columns
// in replace taking the place of the table's own (same length as the table).
func (t *Table) Select(keep []bool, replace map[string][]float64) *Table {
	n := &Table{File: t.File, Columns: map[string][]float64{}, Text: map[string][]string{}, header: t.header}
	for k, c := range t.Columns {
		if r, ok := replace[k]; ok {
			c = r
		}
		n.Columns[k] = append([]float64(nil), c...)
	}
	for k, c := range t.Text {
		n.Text[k] = append([]string(nil), c...)
	}
	n.Line = append([]int(nil), t.Line...)
	if t.rowFile != nil {
		n.rowFile = append([]string(nil), t.rowFile...)
	}
	if t.held != nil {
		n.held = append([]bool(nil), t.held...)
	}
	n.keepRows(keep)
	return n
}

// ReadStreams reads a log as ReadLog does but returns its two streams
// unmerged: the command rows (time, group, commands) and the sensor rows
// (time, group, the rest), each on its own clock (Offset is not applied),
// for estimating the offset between them.
func ReadStreams(path string, spec Spec, o LogOptions) (cmd, sensors *Table, err error) {
	t, s, err := readParts(path, spec, o)
	if err != nil {
		return nil, nil, err
	}
	c, s2 := splitSensors(t, o.Commands, spec.Group)
	if s == nil {
		s = s2
	}
	return c, s, nil
}

// readParts reads the commands file (mapped, angles converted) and, when
// o.Sensors names one, the sensor file.
func readParts(path string, spec Spec, o LogOptions) (t, s *Table, err error) {
	isCmd := map[string]bool{}
	for _, c := range o.Commands {
		isCmd[key(c)] = true
	}
	isAngle := map[string]bool{}
	for _, a := range o.Angles {
		isAngle[key(a)] = true
	}
	var cmdCols, senCols []Column
	for _, c := range spec.Columns {
		k := key(c.Name)
		switch {
		case isCmd[k]:
			if o.Map != nil {
				continue
			}
			c.Sparse = true
			cmdCols = append(cmdCols, c)
		case k == key(spec.Time):
			cmdCols = append(cmdCols, c)
			senCols = append(senCols, c)
		case k == key(spec.Group):
			cmdCols = append(cmdCols, c)
			g := c
			g.Optional = true
			senCols = append(senCols, g)
		default:
			cols := []Column{c}
			if isAngle[k] {
				cols[0].Optional = true
				cols = append(cols, Column{Name: c.Name + "_deg", Optional: true, Sparse: c.Sparse})
			}
			if o.Sensors != "" {
				senCols = append(senCols, cols...)
			} else {
				cmdCols = append(cmdCols, cols...)
			}
		}
	}
	if o.Map != nil {
		if err := o.Map.Check(o.Commands); err != nil {
			return nil, nil, err
		}
		for _, c := range o.Map.Columns {
			cmdCols = append(cmdCols, Column{Name: c, Sparse: true})
		}
	}
	// a pipe is read once: a column map reads the header first, and a
	// cache serves every read of the operation
	open := Open
	if o.Cache != nil {
		open = o.Cache.open
	} else if o.Columns != nil {
		open = NewPipeCache().open
	}
	read := func(file string, cols []Column) (t *Table, err error) {
		sp := Spec{Columns: cols, Time: spec.Time, Group: spec.Group}
		if o.Cache != nil {
			// the columns converted from degrees depend on spec and Angles
			k := cacheKey(file, sp, o.Columns) + fmt.Sprintf("\x00%#v\x00%q", spec.Columns, o.Angles)
			if t := o.Cache.get(k); t != nil {
				return t, nil
			}
			defer func() {
				if err == nil {
					o.Cache.put(k, t)
				}
			}()
		}
		if o.Columns != nil {
			t, err = o.Columns.read(open, file, sp)
		} else {
			t, err = readFile(open, file, sp)
		}
		if err != nil {
			return nil, err
		}
		for _, c := range spec.Columns {
			if !isAngle[key(c.Name)] {
				continue
			}
			if !slices.ContainsFunc(cols, func(x Column) bool { return key(x.Name) == key(c.Name) }) {
				continue
			}
			if err := DegreesToRadians(t, c.Name+"_deg", c.Name, spec.Group); err != nil {
				return nil, err
			}
			if !c.Optional && !t.Has(c.Name) {
				return nil, &ParseError{File: file, Line: headerLine(t),
					Err: because(ErrMissingColumn, "missing column %s (or %s in degrees)", showName(c.Name), showName(c.Name+"_deg"))}
			}
		}
		return t, nil
	}
	if t, err = read(path, cmdCols); err != nil {
		return nil, nil, err
	}
	if o.Map != nil {
		o.Map.apply(t, o.Commands)
	}
	if o.Sensors != "" {
		if s, err = read(o.Sensors, senCols); err != nil {
			return nil, nil, err
		}
	}
	if o.Columns != nil && spec.Time != "" && t.Len() > 0 {
		lo, hi := o.Columns.window(t.Col(spec.Time)[0])
		if err := cut(t, spec.Time, lo, hi); err != nil {
			return nil, nil, err
		}
		if s != nil {
			if err := cut(s, spec.Time, lo-o.Offset, hi-o.Offset); err != nil {
				return nil, nil, err
			}
		}
	}
	return t, s, nil
}
