package dataset

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// ColumnMap reads a recording whose columns are not named, scaled or
// expressed as a model's log spec wants them (a ROS export with ros_time in
// nanoseconds, an orientation as a quaternion, wheel speeds in rpm): each
// entry says how one of the spec's columns is computed from the logged ones,
// rows can be filtered by a column's value, and a time range can be cut out.
// One implementation for every model: LogOptions.Columns applies it to the
// log and to a separate sensors file alike.
//
// The textual form (ParseColumnMap, the CLI's -columns) is a comma-separated
// list of TARGET=SOURCE entries:
//
//	t=ros_time:ns                    time in ns (also s, ms, us); the result is in s
//	wl=meas_left_vel                 a rename
//	wl=left_rpm*0.10472              a scale (rpm to rad/s)
//	x=pos_x*1+0.5, v=speed-0.02      a scale and/or a constant offset (value = k·source + c)
//	psi=heading:deg                  degrees to radians, unwrapped within each run
//	psi=yaw:rad                      radians unwrapped within each run (a recorder's ±π)
//	psi=quat(qx,qy,qz,qw)            yaw from a unit quaternion (x, y, z, w order), unwrapped
//
// A SOURCE that is itself a column of the file is always taken as a name,
// even if it looks like an expression ("wheel-2"). Columns of the spec that
// the map does not name, or whose sources a file lacks, are read under their
// own names as before.
type ColumnMap struct {
	Entries []ColumnEntry
	// Where keeps only the rows that satisfy every filter ("calib_state=calib",
	// "ros_time>0"; see ParseFilter). The filter's columns are read as text.
	Where []Filter
	// From and To (s) keep the rows of the log whose time lies in
	// [t0+From, t0+To], t0 being the log's first time after the Where filters;
	// a separate sensors file is cut to the same absolute window. To = 0 means
	// no upper limit.
	From, To float64
}

// ColumnEntry computes the spec's column Target from the logged Sources:
// Scale·source + Offset, then the unit conversion.
type ColumnEntry struct {
	Target  string
	Sources []string // one column, or four for a quaternion (x, y, z, w)
	Scale   float64  // 1 when not given
	Offset  float64
	Unit    string // "" or s, ms, us, ns (time); deg or rad (angles); quat
	// expr is the entry's source as written, for errors and for reading a
	// column whose name looks like an expression.
	expr string
}

// Filter keeps the rows whose Column compares to Value by Op (=, !=, <, <=,
// >, >=). = and != compare numbers as numbers when both sides are numbers,
// text otherwise; the ordering operators need numbers. Mod > 0 compares the
// cell's value modulo Mod instead ("calib_step%2=0": every other step, a
// train/test split by a column's parity); the cell must then be a number.
type Filter struct {
	Column, Op, Value string
	Mod               int64
}

var (
	entryRe  = regexp.MustCompile(`^(.+?)(?:\*(-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?))?([+-](?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)?(?::([a-zµ]+))?$`)
	quatRe   = regexp.MustCompile(`^quat\(([^()]*)\)$`)
	filterRe = regexp.MustCompile(`^\s*([^=!<>]+?)\s*(=|!=|<=|>=|<|>)\s*(.*?)\s*$`)
	modRe    = regexp.MustCompile(`^(.+?)\s*%\s*([0-9]+)$`)
	units    = map[string]float64{"s": 1, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}
)

// ParseColumnMap reads the textual form of a column map (see ColumnMap);
// an empty string is no map (nil).
func ParseColumnMap(s string) (*ColumnMap, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	m := &ColumnMap{}
	seen := map[string]bool{}
	for _, part := range splitTop(s) {
		target, src, ok := strings.Cut(part, "=")
		target, src = strings.TrimSpace(target), strings.TrimSpace(src)
		if !ok || target == "" || src == "" {
			return nil, fmt.Errorf("columns: %q is not TARGET=SOURCE (e.g. t=ros_time:ns, wl=meas_left_vel)", strings.TrimSpace(part))
		}
		e, err := parseEntry(target, src)
		if err != nil {
			return nil, err
		}
		if seen[key(target)] {
			return nil, fmt.Errorf("columns: %s is given twice", target)
		}
		seen[key(target)] = true
		m.Entries = append(m.Entries, e)
	}
	return m, nil
}

// NewColumnMap makes a map from target → source expressions (the parameter
// file's "columns" object), in the textual form's syntax.
func NewColumnMap(entries map[string]string) (*ColumnMap, error) {
	m := &ColumnMap{}
	keys := make([]string, 0, len(entries))
	for k := range entries {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		e, err := parseEntry(strings.TrimSpace(k), strings.TrimSpace(entries[k]))
		if err != nil {
			return nil, err
		}
		m.Entries = append(m.Entries, e)
	}
	return m, nil
}

// splitTop splits at commas outside parentheses.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

func parseEntry(target, src string) (ColumnEntry, error) {
	e := ColumnEntry{Target: target, Scale: 1, expr: src}
	if target == "" || src == "" {
		return e, fmt.Errorf("columns: %s=%s: an empty name", target, src)
	}
	if q := quatRe.FindStringSubmatch(src); q != nil {
		for _, c := range strings.Split(q[1], ",") {
			if c = strings.TrimSpace(c); c != "" {
				e.Sources = append(e.Sources, c)
			}
		}
		if len(e.Sources) != 4 {
			return e, fmt.Errorf("columns: %s=%s: a quaternion takes four columns, x, y, z, w", target, src)
		}
		e.Unit = "quat"
		return e, nil
	}
	g := entryRe.FindStringSubmatch(src)
	if g == nil {
		return e, fmt.Errorf("columns: %s=%s: cannot read the source", target, src)
	}
	e.Sources = []string{strings.TrimSpace(g[1])}
	if g[2] != "" {
		k, err := strconv.ParseFloat(g[2], 64)
		if err != nil || k == 0 || math.IsInf(k, 0) {
			return e, fmt.Errorf("columns: %s=%s: the scale %q must be a finite non-zero number", target, src, g[2])
		}
		e.Scale = k
	}
	if g[3] != "" {
		c, err := strconv.ParseFloat(g[3], 64)
		if err != nil || math.IsInf(c, 0) {
			return e, fmt.Errorf("columns: %s=%s: the offset %q must be a finite number", target, src, g[3])
		}
		e.Offset = c
	}
	switch u := g[4]; {
	case u == "":
	case units[u] != 0, u == "deg", u == "rad":
		e.Unit = u
	default:
		return e, fmt.Errorf("columns: %s=%s: unknown unit %q (time: s, ms, us, ns; angles: deg, rad)", target, src, u)
	}
	return e, nil
}

// ParseFilter reads a row filter such as "calib_state=calib", "ros_time>0".
func ParseFilter(s string) (Filter, error) {
	g := filterRe.FindStringSubmatch(s)
	if g == nil || g[1] == "" {
		return Filter{}, fmt.Errorf("where: %q is not COLUMN OP VALUE (OP one of = != < <= > >=)", s)
	}
	f := Filter{Column: g[1], Op: g[2], Value: g[3]}
	if m := modRe.FindStringSubmatch(f.Column); m != nil {
		k, err := strconv.ParseInt(m[2], 10, 64)
		if err != nil || k < 1 {
			return Filter{}, fmt.Errorf("where: %q: the modulus %s must be a whole number ≥ 1", s, m[2])
		}
		f.Column, f.Mod = m[1], k
		if _, err := strconv.ParseFloat(f.Value, 64); err != nil {
			return Filter{}, fmt.Errorf("where: %q: %s%%%d compares numbers, %q is not one", s, f.Column, k, f.Value)
		}
	}
	if f.Op != "=" && f.Op != "!=" {
		if _, err := strconv.ParseFloat(f.Value, 64); err != nil {
			return Filter{}, fmt.Errorf("where: %q: %s compares numbers, %q is not one", s, f.Op, f.Value)
		}
	}
	return f, nil
}

func (f Filter) String() string {
	if f.Mod > 0 {
		return fmt.Sprintf("%s%%%d%s%s", f.Column, f.Mod, f.Op, f.Value)
	}
	return f.Column + f.Op + f.Value
}

// keep reports whether the cell v passes the filter; an error for an
// ordering comparison on a cell that is not a number.
func (f Filter) keep(v string) (bool, error) {
	a, errA := strconv.ParseFloat(v, 64)
	b, errB := strconv.ParseFloat(f.Value, 64)
	if f.Mod > 0 {
		if errA != nil || a != math.Trunc(a) || math.Abs(a) > 1<<53 {
			return false, fmt.Errorf("%q is not a whole number (the filter %s takes it modulo %d)", v, f, f.Mod)
		}
		a = float64(int64(a) % f.Mod)
		if a < 0 {
			a += float64(f.Mod)
		}
	}
	numeric := errA == nil && errB == nil
	switch f.Op {
	case "=":
		if numeric {
			return a == b, nil
		}
		return v == f.Value, nil
	case "!=":
		if numeric {
			return a != b, nil
		}
		return v != f.Value, nil
	}
	if errA != nil {
		return false, fmt.Errorf("%q is not a number (the filter %s compares numbers)", v, f)
	}
	switch f.Op {
	case "<":
		return a < b, nil
	case "<=":
		return a <= b, nil
	case ">":
		return a > b, nil
	}
	return a >= b, nil
}

// entry returns the map's entry for a spec column.
func (m *ColumnMap) entry(name string) (ColumnEntry, bool) {
	for _, e := range m.Entries {
		if key(e.Target) == key(name) {
			return e, true
		}
	}
	return ColumnEntry{}, false
}

// binding is an entry resolved against one file's header.
type binding struct {
	ColumnEntry
	target string // the spec's column (lower case)
}

// read reads file for spec through the map: every spec column the map names
// and whose sources the file has is read from its sources and computed;
// the Where filters are applied. The time window is applied by the caller
// (cut), which knows the log's first time.
func (m *ColumnMap) read(open opener, file string, spec Spec) (*Table, error) {
	hdr, err := readHeader(open, file)
	if err != nil {
		return nil, err
	}
	has := map[string]bool{}
	for _, h := range hdr {
		has[h] = true
	}
	src := Spec{Time: spec.Time, Group: spec.Group}
	var binds []binding
	asked := map[string]bool{}
	add := func(c Column) {
		if !asked[key(c.Name)] {
			asked[key(c.Name)] = true
			src.Columns = append(src.Columns, c)
		}
	}
	for _, c := range spec.Columns {
		e, ok := m.entry(c.Name)
		if ok && len(e.Sources) == 1 && has[key(e.expr)] {
			e.Sources, e.Scale, e.Offset, e.Unit = []string{e.expr}, 1, 0, ""
		}
		if !ok || !allIn(e.Sources, has) {
			if ok && !has[key(c.Name)] {
				return nil, &ParseError{File: file, Line: 1, Err: because(ErrMissingColumn,
					"missing column %s for %s=%s (header has %s)", showNames(missing(e.Sources, has)), e.Target, e.expr, showNames(hdr))}
			}
			add(c)
			continue
		}
		for _, s := range e.Sources {
			add(Column{Name: s, Optional: c.Optional, Sparse: c.Sparse, Text: c.Text})
		}
		if key(c.Name) == key(spec.Time) {
			src.Time = e.Sources[0]
		}
		if key(c.Name) == key(spec.Group) {
			src.Group = e.Sources[0]
		}
		binds = append(binds, binding{ColumnEntry: e, target: key(c.Name)})
	}
	var filters []Filter
	for _, f := range m.Where {
		if !has[key(f.Column)] {
			return nil, &ParseError{File: file, Line: 1, Err: because(ErrMissingColumn,
				"missing column %s for the filter %s (header has %s)", showName(f.Column), f, showNames(hdr))}
		}
		filters = append(filters, f)
		if !asked[key(f.Column)] {
			asked[key(f.Column)] = true
			src.Columns = append(src.Columns, Column{Name: f.Column, Text: true, Sparse: true})
		}
	}
	t, err := readFile(open, file, src)
	if err != nil {
		return nil, err
	}
	// Filter values before the sources are replaced (a filter may read a
	// column that is also a source).
	keep := make([]bool, t.Len())
	for i := range keep {
		keep[i] = true
	}
	for _, f := range filters {
		cells := t.Text[key(f.Column)]
		if cells == nil { // the column is also read as numbers
			for _, v := range t.Columns[key(f.Column)] {
				cells = append(cells, formatFloat(v))
			}
		}
		for i, v := range cells {
			ok, err := f.keep(v)
			if err != nil {
				return nil, &ParseError{File: file, Line: t.Line[i], Column: t.header[key(f.Column)], Err: because(ErrNotNumber, "%v", err)}
			}
			keep[i] = keep[i] && ok
		}
	}
	if slices.Contains(keep, false) {
		t.keepRows(keep)
		if t.Len() == 0 {
			return nil, &ParseError{File: file, Err: because(ErrNoRows, "no row passes the filters %s", showFilters(filters))}
		}
	}
	out := map[string][]float64{}
	texts := map[string][]string{}
	for _, b := range binds {
		if b.Unit == "quat" {
			y, err := quatYaw(t, b.Sources, src.Group)
			if err != nil {
				return nil, err
			}
			out[b.target] = y
			continue
		}
		s := key(b.Sources[0])
		if tc, ok := t.Text[s]; ok {
			texts[b.target] = tc
			continue
		}
		v := slices.Clone(t.Col(s))
		k := b.Scale * unitScale(b.Unit)
		for i := range v {
			v[i] = k*v[i] + b.Offset*unitScale(b.Unit)
		}
		if b.Unit == "deg" || b.Unit == "rad" {
			unwrap(v, t.TextCol(src.Group))
		}
		out[b.target] = v
	}
	hdrOf := map[string]string{}
	for _, b := range binds {
		hdrOf[b.target] = strings.Join(b.headers(t), "/")
	}
	for _, b := range binds {
		for _, s := range b.Sources {
			delete(t.Columns, key(s))
			delete(t.Text, key(s))
		}
	}
	for _, f := range filters {
		if !slices.ContainsFunc(spec.Columns, func(c Column) bool { return key(c.Name) == key(f.Column) }) {
			delete(t.Text, key(f.Column))
		}
	}
	for k, v := range out {
		t.Columns[k] = v
		t.header[k] = hdrOf[k]
	}
	for k, v := range texts {
		t.Text[k] = v
		t.header[k] = hdrOf[k]
	}
	return t, nil
}

func (b binding) headers(t *Table) []string {
	out := make([]string, len(b.Sources))
	for i, s := range b.Sources {
		out[i] = t.header[key(s)]
	}
	return out
}

func showFilters(fs []Filter) string {
	s := make([]string, len(fs))
	for i, f := range fs {
		s[i] = f.String()
	}
	return strings.Join(s, ", ")
}

func unitScale(u string) float64 {
	switch u {
	case "deg":
		return math.Pi / 180
	case "", "rad":
		return 1
	}
	return units[u]
}

func allIn(names []string, has map[string]bool) bool {
	return len(missing(names, has)) == 0
}

func missing(names []string, has map[string]bool) []string {
	var out []string
	for _, n := range names {
		if !has[key(n)] {
			out = append(out, n)
		}
	}
	return out
}

// unwrap makes an angle continuous within each run of ids (NaN cells skipped).
func unwrap(v []float64, ids []string) {
	prev, have := 0.0, false
	for i, r := range v {
		if i > 0 && ids != nil && ids[i] != ids[i-1] {
			have = false
		}
		if math.IsNaN(r) {
			continue
		}
		if have {
			r += 2 * math.Pi * math.Round((prev-r)/(2*math.Pi))
		}
		v[i], prev, have = r, r, true
	}
}

// quatYaw computes the yaw (rotation about z, ZYX convention) of the
// quaternions in four columns, unwrapped within each run. A quaternion far
// from unit norm (|q| outside [0.9, 1.1], such as an all-zero placeholder row)
// is an error naming the row: it is no orientation.
func quatYaw(t *Table, cols []string, group string) ([]float64, error) {
	x, y, z, w := t.Col(cols[0]), t.Col(cols[1]), t.Col(cols[2]), t.Col(cols[3])
	out := make([]float64, t.Len())
	for i := range out {
		if math.IsNaN(x[i]) || math.IsNaN(y[i]) || math.IsNaN(z[i]) || math.IsNaN(w[i]) {
			out[i] = math.NaN()
			continue
		}
		n := math.Sqrt(x[i]*x[i] + y[i]*y[i] + z[i]*z[i] + w[i]*w[i])
		if n < 0.9 || n > 1.1 {
			return nil, &ParseError{File: t.File, Line: t.Line[i], Column: t.header[key(cols[3])], Err: because(ErrNotFinite,
				"the quaternion (%s) has norm %.3g, not an orientation (filter such rows out, e.g. with a time range)", strings.Join(cols, ", "), n)}
		}
		out[i] = math.Atan2(2*(w[i]*z[i]+x[i]*y[i]), 1-2*(y[i]*y[i]+z[i]*z[i]))
	}
	unwrap(out, t.TextCol(group))
	return out, nil
}

// window returns the absolute time window [lo, hi] of the map's From/To for a
// log whose first time is t0 (hi = +Inf when To is 0).
func (m *ColumnMap) window(t0 float64) (lo, hi float64) {
	lo, hi = math.Inf(-1), math.Inf(1)
	if m.From != 0 {
		lo = t0 + m.From
	}
	if m.To != 0 {
		hi = t0 + m.To
	}
	return lo, hi
}

// cut keeps the rows of t whose time lies in [lo, hi].
func cut(t *Table, time string, lo, hi float64) error {
	if math.IsInf(lo, -1) && math.IsInf(hi, 1) {
		return nil
	}
	tc := t.Col(time)
	keep := make([]bool, len(tc))
	any := false
	for i, v := range tc {
		keep[i] = v >= lo && v <= hi
		any = any || keep[i]
	}
	if !any {
		return &ParseError{File: t.File, Err: because(ErrNoRows, "no row in the time range (%.6g to %.6g s)", lo, hi)}
	}
	t.keepRows(keep)
	return nil
}

// ReadMapped reads a file for spec as ReadFile does, through the column map
// m when it is not nil (its entries, filters and time range).
func ReadMapped(path string, spec Spec, m *ColumnMap) (*Table, error) {
	if m == nil {
		return ReadFile(path, spec)
	}
	t, err := m.read(NewPipeCache().open, path, spec) // a pipe read once
	if err != nil {
		return nil, err
	}
	if spec.Time != "" && t.Len() > 0 {
		lo, hi := m.window(t.Col(spec.Time)[0])
		if err := cut(t, spec.Time, lo, hi); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// ReadHeaderMapped returns a file's column names as ReadHeader does, plus
// the targets of m whose sources the file has: the columns a model can
// read from it through the map (for choosing between a model's forms).
func ReadHeaderMapped(path string, m *ColumnMap) ([]string, error) {
	return readHeaderMapped(Open, path, m)
}

// ReadHeaderMapped is the package's ReadHeaderMapped through c (a pipe
// read once for this and the operation's later reads through c); a nil c
// reads as the package's does.
func (c *ReadCache) ReadHeaderMapped(path string, m *ColumnMap) ([]string, error) {
	if c == nil {
		return ReadHeaderMapped(path, m)
	}
	return readHeaderMapped(c.open, path, m)
}

func readHeaderMapped(open opener, path string, m *ColumnMap) ([]string, error) {
	h, err := readHeader(open, path)
	if err != nil || m == nil {
		return h, err
	}
	has := map[string]bool{}
	for _, c := range h {
		has[c] = true
	}
	for _, e := range m.Entries {
		if (len(e.Sources) == 1 && has[key(e.expr)]) || allIn(e.Sources, has) {
			if !has[key(e.Target)] {
				h = append(h, key(e.Target))
			}
		}
	}
	return h, nil
}
