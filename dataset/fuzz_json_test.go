package dataset

import (
	"errors"
	"strings"
	"testing"
)

// fuzzParams is a parameter file's shape: numbers, a fixed array, a slice,
// an optional pointer, a nested object and a map.
type fuzzParams struct {
	Model string             `json:"model"`
	R     float64            `json:"r"`
	Mu    []float64          `json:"mu"`
	Pose  [3]float64         `json:"pose"`
	Opt   *float64           `json:"opt"`
	Map   *fuzzMap           `json:"command_map"`
	Extra map[string]float64 `json:"extra"`
}

type fuzzMap struct {
	Columns []string  `json:"columns"`
	Sign    []float64 `json:"sign"`
}

// FuzzJSON feeds arbitrary bytes to the parameter-file reader (strict) and
// checks the contract: no panic, and an error is one *JSONError line that
// names the file; nesting past MaxJSONDepth and null where a value is
// wanted are errors (issue 26).
func FuzzJSON(f *testing.F) {
	for _, s := range []string{
		`{"model": "m", "r": 0.1, "mu": [0.5, 0.6], "pose": [0, 0, 1]}`,
		`{"r": null}`,
		`null`,
		`{"pose": [1, 2]}`,
		`{"r": 1, "r": 2}`,
		`{"command_map": {"columns": ["a"], "sign": [1]}, "extra": {"k": 1}}`,
		`{"extra": ` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `}`,
		`{"fit": {"status": "converged"}, "r": 1}`,
		"\uFEFF{\"R\": 1}",
		`{"r": 1} {}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var p fuzzParams
		err := DecodeJSONOptions(data, "fuzz.json", &p, JSONOptions{Strict: true, Model: "m"})
		if err == nil {
			if strings.Count(string(data), "[")+strings.Count(string(data), "{") > 0 && depthOf(data) > MaxJSONDepth+1 {
				t.Fatalf("nesting %d accepted", depthOf(data))
			}
			return
		}
		var je *JSONError
		if !errors.As(err, &je) {
			t.Fatalf("error %v is a %T, not a *JSONError", err, err)
		}
		if msg := err.Error(); strings.ContainsAny(msg, "\r\n") || !strings.HasPrefix(msg, "fuzz.json") {
			t.Fatalf("message %q is not one line starting with the file name", msg)
		}
	})
}

// depthOf is the deepest nesting of brackets and braces outside strings.
func depthOf(b []byte) int {
	d, most, inStr, esc := 0, 0, false, false
	for _, c := range b {
		switch {
		case inStr && esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			inStr = !inStr
		case !inStr && (c == '[' || c == '{'):
			d++
			most = max(most, d)
		case !inStr && (c == ']' || c == '}'):
			d--
		}
	}
	return most
}
