package dataset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strings"
)

// JSONError is a bad parameter file: like ParseError it names the file and
// the position (line and column, 1-based; 0 when the error has none) and, where
// known, the key at fault.
type JSONError struct {
	File   string
	Line   int
	Column int
	Key    string
	Err    error
}

func (e *JSONError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ": line %d, column %d", e.Line, e.Column)
	}
	if e.Key != "" {
		fmt.Fprintf(&b, ", key %q", e.Key)
	}
	b.WriteString(": ")
	b.WriteString(strings.ReplaceAll(e.Err.Error(), "\n", " "))
	return b.String()
}

func (e *JSONError) Unwrap() error { return e.Err }

// JSONOptions say how strictly ReadJSON reads a parameter file.
type JSONOptions struct {
	// Strict makes a key that v has no field for an error (a misspelt "muu"
	// must not silently leave μ at its default); FORMATS.md extends
	// parameter files only by optional keys, so each model decides.
	Strict bool
	// Model, when set, is the model the file must be for: a "model" key
	// naming another model is reported as such, before any type error of
	// the other model's keys.
	Model string
	// Required lists top-level keys the file must have (those without a
	// default): a missing one is an error naming it.
	Required []string
}

// ReadJSONFile decodes a JSON parameter file into v: ReadJSON with only
// Strict set.
func ReadJSONFile(path string, v any, strict bool) error {
	return ReadJSON(path, v, JSONOptions{Strict: strict})
}

// ReadJSON decodes a JSON parameter file into v. Beyond encoding/json, and
// whatever the options, it refuses what would silently give other numbers
// than the file says: a key given twice (encoding/json keeps the last), a
// key that matches a field only in case ("m" would set "M"), and an array of
// the wrong length for a fixed-size field (encoding/json truncates or fills
// with zeros). A UTF-8 byte order mark is skipped. Trailing data after the
// object is an error. Errors are *JSONError values naming the file, the
// line and column and the key.
func ReadJSON(path string, v any, o JSONOptions) error {
	b, err := ReadAll(path, MaxJSONBytes)
	var pe *ParseError
	if errors.As(err, &pe) {
		return &JSONError{File: path, Err: pe.Err}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, unwrapPathError(err))
	}
	return DecodeJSONOptions(b, path, v, o)
}

// DecodeJSON is ReadJSONFile on bytes already read; file names them in errors.
func DecodeJSON(b []byte, file string, v any, strict bool) error {
	return DecodeJSONOptions(b, file, v, JSONOptions{Strict: strict})
}

// DecodeJSONOptions is ReadJSON on bytes already read.
func DecodeJSONOptions(b []byte, file string, v any, o JSONOptions) error {
	b = bytes.TrimPrefix(b, []byte(bom))
	if len(bytes.TrimSpace(b)) == 0 {
		return &JSONError{File: file, Err: errors.New("empty file")}
	}
	// The structural checks first: a syntax error found there is left to
	// the decoder below, which reports it with its position.
	chk := &jsonChecker{b: b, file: file, dec: json.NewDecoder(bytes.NewReader(b)), model: o.Model}
	keys, err := chk.value(reflect.TypeOf(v), "", 0)
	var je *JSONError
	if errors.As(err, &je) {
		return je
	}
	for _, r := range chk.skip {
		b = blankMember(b, r[0], r[1])
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if o.Strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		je := &JSONError{File: file, Err: err}
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			je.Line, je.Column = position(b, se.Offset)
			je.Err = errors.New(se.Error())
		case errors.As(err, &te):
			je.Line, je.Column = position(b, te.Offset)
			je.Key = te.Field
			je.Err = fmt.Errorf("%s is not a valid %s", te.Value, te.Type)
		case errors.Is(err, io.ErrUnexpectedEOF):
			je.Line, je.Column = position(b, int64(len(b)))
			je.Err = errors.New("unexpected end of file")
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			je.Key = strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
			je.Line, je.Column = position(b, int64(bytes.Index(b, []byte(`"`+je.Key+`"`))+1))
			je.Err = errors.New("unknown key")
		}
		return je
	}
	if dec.More() {
		line, col := position(b, dec.InputOffset())
		return &JSONError{File: file, Line: line, Column: col, Err: errors.New("data after the JSON object")}
	}
	// Missing keys last: a misspelt key is the better message.
	for _, k := range o.Required {
		if !keys[k] {
			return &JSONError{File: file, Key: k, Err: errors.New("missing (the file must give it)")}
		}
	}
	return nil
}

// jsonChecker walks the token stream of a file alongside the Go type it is
// decoded into.
type jsonChecker struct {
	b     []byte
	file  string
	dec   *json.Decoder
	model string
	// skip are the byte ranges of the top-level FitKey and ColumnsKey
	// members (from the key to the value's end) that the file's type has no
	// field for: blanked before decoding.
	skip [][2]int64
}

// FitKey is the top-level key of the record a command writes about the fit
// that produced a parameter file (method, status, iterations, loss). It is
// not a parameter: readers skip it, so that an identified file reads back
// unchanged.
const FitKey = "fit"

// ColumnsKey is the top-level key of a parameter file's column map: the
// log's columns as the model's, an object of TARGET: SOURCE strings in
// -columns' syntax ({"t": "ros_time:ns", "wl": "meas_left_vel"}; see
// ColumnMap). It describes the robot's recordings, not its parameters:
// parameter readers skip it and ReadColumnsKey reads it.
const ColumnsKey = "columns"

// ReadColumnsKey reads the ColumnsKey member of a parameter file as a
// column map, with its entries as written (to carry them into another
// parameter file): nil, nil when the file has none. Errors name the file,
// the line and the key (a source in error names its entry).
func ReadColumnsKey(path string) (*ColumnMap, map[string]string, error) {
	var v struct {
		Columns map[string]string `json:"columns"`
	}
	if err := ReadJSON(path, &v, JSONOptions{}); err != nil {
		return nil, nil, err
	}
	if v.Columns == nil {
		return nil, nil, nil
	}
	m, err := NewColumnMap(v.Columns)
	if err != nil {
		return nil, nil, &JSONError{File: path, Key: ColumnsKey, Err: err}
	}
	return m, v.Columns, nil
}

// Override returns the map m with over's choices on top (the command
// line's -columns over a parameter file's "columns"): an entry of over
// replaces m's entry for the same target, over's filters are added to m's,
// and over's time range replaces m's when it sets one. Either may be nil.
func (m *ColumnMap) Override(over *ColumnMap) *ColumnMap {
	if m == nil {
		return over
	}
	if over == nil {
		return m
	}
	out := &ColumnMap{Where: append(slices.Clone(m.Where), over.Where...), From: m.From, To: m.To}
	for _, e := range m.Entries {
		if _, ok := over.entry(e.Target); !ok {
			out.Entries = append(out.Entries, e)
		}
	}
	out.Entries = append(out.Entries, over.Entries...)
	if over.From != 0 || over.To != 0 {
		out.From, out.To = over.From, over.To
	}
	return out
}

// blankMember replaces the object member at [from, to) and one comma next
// to it by spaces, keeping every other byte's line and column.
func blankMember(b []byte, from, to int64) []byte {
	b = bytes.Clone(b)
	blank := func(i int64) {
		if b[i] != '\n' && b[i] != '\r' {
			b[i] = ' '
		}
	}
	for i := from; i < to; i++ {
		blank(i)
	}
	i := to
	for i < int64(len(b)) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	if i < int64(len(b)) && b[i] == ',' {
		blank(i)
		return b
	}
	for i = from - 1; i >= 0 && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r'); i-- {
	}
	if i >= 0 && b[i] == ',' {
		blank(i)
	}
	return b
}

func (c *jsonChecker) fail(off int64, key string, format string, a ...any) error {
	line, col := position(c.b, off)
	return &JSONError{File: c.file, Line: line, Column: col, Key: key, Err: fmt.Errorf(format, a...)}
}

// value checks the next value, decoded into type t (nil: unknown). For an
// object it returns the keys it had. key names the value in errors.
func (c *jsonChecker) value(t reflect.Type, key string, depth int) (map[string]bool, error) {
	if depth > MaxJSONDepth {
		return nil, c.fail(c.dec.InputOffset(), "", "arrays and objects nested deeper than %d levels (not a parameter file)", MaxJSONDepth)
	}
	// A pointer, slice or map may be null: absent (wheelgrad itself writes
	// a nil slice as null, e.g. "mu": null beside a friction network).
	optional := t != nil && (t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t != nil && t.Kind() == reflect.Interface {
		t = nil
	}
	start := c.dec.InputOffset()
	tok, err := c.dec.Token()
	if err != nil {
		return nil, err
	}
	// null would silently leave the value at its default (encoding/json
	// skips it): an error where a number, string, bool, array or object is
	// wanted; allowed for an optional field and where the type is not known.
	if tok == nil && (depth == 0 || (t != nil && !optional)) {
		what := "a value"
		if depth == 0 {
			what = "an object"
		}
		return nil, c.fail(start, key, "null where %s is wanted (remove the key to use its default)", what)
	}
	switch tok {
	case json.Delim('{'):
		var fields map[string]reflect.Type
		var elem reflect.Type
		if t != nil {
			switch t.Kind() {
			case reflect.Struct:
				fields = map[string]reflect.Type{}
				jsonFields(t, fields)
			case reflect.Map:
				elem = t.Elem()
			}
		}
		seen := map[string]bool{}
		for c.dec.More() {
			kt, err := c.dec.Token()
			if err != nil {
				return nil, err
			}
			k, _ := kt.(string)
			kq, _ := json.Marshal(k)
			koff := c.dec.InputOffset() - int64(len(kq)) + 1
			name := k
			if key != "" {
				name = key + "." + k
			}
			if seen[k] {
				return nil, c.fail(koff, name, "key given twice")
			}
			seen[k] = true
			ft := elem
			if fields != nil {
				var ok bool
				if ft, ok = fields[k]; !ok {
					for f := range fields {
						if strings.EqualFold(f, k) {
							return nil, c.fail(koff, name, "differs in case from the key %q (keys are case-sensitive)", f)
						}
					}
				}
			}
			if depth == 0 && k == "model" && c.model != "" {
				voff := c.dec.InputOffset()
				vt, err := c.dec.Token()
				if err != nil {
					return nil, err
				}
				if s, ok := vt.(string); ok && s != c.model {
					return nil, c.fail(voff, "model", "the file is for model %q, not %q", s, c.model)
				}
				if d, ok := vt.(json.Delim); ok && (d == '{' || d == '[') {
					return nil, c.fail(voff, "model", "want a model name, not an %s", map[json.Delim]string{'{': "object", '[': "array"}[d])
				}
				continue
			}
			if depth == 0 && k == FitKey {
				if _, known := fields[k]; !known {
					voff := c.dec.InputOffset()
					if _, err := c.value(nil, name, depth+1); err != nil {
						return nil, err
					}
					if open := bytes.IndexAny(c.b[voff:], "{[\"0123456789-tfn"); open < 0 || c.b[voff+int64(open)] != '{' {
						return nil, c.fail(voff, name, "want an object (the record of a fit)")
					}
					c.skip = append(c.skip, [2]int64{koff - 1, c.dec.InputOffset()})
					continue
				}
			}
			if depth == 0 && k == ColumnsKey {
				if _, known := fields[k]; !known && fields != nil {
					voff := c.dec.InputOffset()
					var cols map[string]string
					if _, err := c.value(reflect.TypeOf(cols), name, depth+1); err != nil {
						return nil, err
					}
					if open := bytes.IndexAny(c.b[voff:], "{[\"0123456789-tfn"); open < 0 || c.b[voff+int64(open)] != '{' {
						return nil, c.fail(voff, name, "want an object of TARGET: SOURCE strings (the log's column map)")
					}
					c.skip = append(c.skip, [2]int64{koff - 1, c.dec.InputOffset()})
					continue
				}
			}
			if _, err := c.value(ft, name, depth+1); err != nil {
				return nil, err
			}
		}
		if _, err := c.dec.Token(); err != nil { // '}'
			return nil, err
		}
		return seen, nil
	case json.Delim('['):
		var elem reflect.Type
		want := -1
		if t != nil && (t.Kind() == reflect.Array || t.Kind() == reflect.Slice) {
			elem = t.Elem()
			if t.Kind() == reflect.Array {
				want = t.Len()
			}
		}
		n := 0
		for c.dec.More() {
			if _, err := c.value(elem, fmt.Sprintf("%s[%d]", key, n), depth+1); err != nil {
				return nil, err
			}
			n++
		}
		if _, err := c.dec.Token(); err != nil { // ']'
			return nil, err
		}
		if want >= 0 && n != want {
			return nil, c.fail(start+1, key, "has %s, want %d", plural(n, "value"), want)
		}
	}
	return nil, nil
}

// jsonFields collects the JSON names of a struct's fields as encoding/json
// sees them (tags, untagged exported names, embedded structs).
func jsonFields(t reflect.Type, out map[string]reflect.Type) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				jsonFields(ft, out)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, dup := out[name]; !dup {
			out[name] = f.Type
		}
	}
}

// position converts a byte offset into a 1-based line and column.
func position(b []byte, off int64) (line, col int) {
	if off < 0 {
		off = 0
	}
	if off > int64(len(b)) {
		off = int64(len(b))
	}
	line, col = 1, 1
	for _, c := range b[:off] {
		if c == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}

// WriteJSONFile writes v as indented JSON and a newline to path
// (WriteFile). The command line stages its parameter files itself
// (package cli/stage).
func WriteJSONFile(path string, v any) error {
	return WriteFile(path, func(w io.Writer) error { return WriteJSON(w, v) })
}

// WriteJSON writes v as indented JSON and a newline.
func WriteJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
