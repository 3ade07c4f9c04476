package dataset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
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

// ReadJSONFile decodes a JSON parameter file into v. With strict, a key that v
// has no field for is an error (a misspelt "muu" must not silently leave μ at
// its default); FORMATS.md extends parameter files only by optional keys, so
// each model decides. Keys match field tags case-insensitively, as
// encoding/json does ("Mu" sets mu). Trailing data after the object is an
// error.
func ReadJSONFile(path string, v any, strict bool) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, unwrapPathError(err))
	}
	return DecodeJSON(b, path, v, strict)
}

// DecodeJSON is ReadJSONFile on bytes already read; file names them in errors.
func DecodeJSON(b []byte, file string, v any, strict bool) error {
	if len(bytes.TrimSpace(b)) == 0 {
		return &JSONError{File: file, Err: errors.New("empty file")}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if strict {
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
	return nil
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

// WriteJSONFile writes v as indented JSON, atomically (path "-" is stdout).
func WriteJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	b = append(b, '\n')
	return WriteFileAtomic(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
