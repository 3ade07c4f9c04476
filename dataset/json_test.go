package dataset

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type testParams struct {
	Model string     `json:"model"`
	Mu    [4]float64 `json:"mu"`
	M     float64    `json:"M"`
}

func TestReadJSONFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var p testParams
	good := write("good.json", `{"model": "mecanum", "mu": [0.6, 0.7, 0.8, 0.9], "M": 4}`)
	if err := ReadJSONFile(good, &p, true); err != nil || p.Mu[3] != 0.9 || p.M != 4 {
		t.Fatalf("good file: %v %+v", err, p)
	}
	cases := []struct {
		body, want string
		strict     bool
	}{
		{"", "empty file", true},
		{"{\n  \"mu\": [0.6, 0.7,\n  0.8, x]}", "line 3, column", true},
		{"{\n \"M\": \"four\"}", `line 2, column 13, key "M": string is not a valid float64`, true},
		{"{\n \"mu\": [1,2,3,4],\n \"mass\": 3}", `key "mass": unknown key`, true},
		{`{"M": 4`, "unexpected end of file", true},
		{`{"M": 4} {"M": 5}`, "data after the JSON object", false},
	}
	for i, c := range cases {
		path := write("bad.json", c.body)
		err := ReadJSONFile(path, &testParams{}, c.strict)
		var je *JSONError
		if !errors.As(err, &je) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "bad.json") || strings.Contains(err.Error(), "\n") {
			t.Errorf("case %d: err = %v, want one line with %q", i, err, c.want)
		}
	}
	// Unknown keys pass when not strict.
	if err := ReadJSONFile(write("extra.json", `{"M": 4, "comment": "x"}`), &testParams{}, false); err != nil {
		t.Errorf("non-strict: %v", err)
	}
	if err := ReadJSONFile(filepath.Join(dir, "missing.json"), &p, true); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("missing file: %v", err)
	}
	out := filepath.Join(dir, "out.json")
	if err := WriteJSONFile(out, p); err != nil {
		t.Fatal(err)
	}
	var back testParams
	if err := ReadJSONFile(out, &back, true); err != nil || back != p {
		t.Errorf("round trip: %v %+v", err, back)
	}
}

// What encoding/json would silently read as other numbers than the file
// says is an error naming the key (issue 17).
func TestReadJSONRefusesAmbiguity(t *testing.T) {
	dir := t.TempDir()
	type nested struct {
		A [3][3]float64 `json:"a"`
		H float64       `json:"h"`
		N *struct {
			W []float64 `json:"w"`
		} `json:"net,omitempty"`
	}
	cases := []struct {
		body, want string
		o          JSONOptions
	}{
		{`{"h": 0.06, "h": 0.1}`, `line 1, column 14, key "h": key given twice`, JSONOptions{Strict: true}},
		{`{"h": 0.06, "H": 0.1}`, `key "H": differs in case from the key "h"`, JSONOptions{}},
		{`{"net": {"w": [1], "W": [2]}}`, `key "net.W": differs in case`, JSONOptions{Strict: true}},
		{`{"a": [[1,2,3],[4,5,6]]}`, `key "a": has 2 values, want 3`, JSONOptions{Strict: true}},
		{"{\n\"a\": [[1,2,3],[4,5,6,7],[7,8,9]]}", `line 2, column 15, key "a[1]": has 4 values, want 3`, JSONOptions{Strict: true}},
		{`{"h": 1}`, `key "a": missing`, JSONOptions{Strict: true, Required: []string{"h", "a"}}},
		{`{"model": "mecanum", "a": 4}`, `key "model": the file is for model "mecanum", not "skidsteer"`, JSONOptions{Strict: true, Model: "skidsteer"}},
	}
	for i, c := range cases {
		path := filepath.Join(dir, "p.json")
		if err := os.WriteFile(path, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		var v struct {
			Model string `json:"model"`
			nested
		}
		err := ReadJSON(path, &v, c.o)
		var je *JSONError
		if !errors.As(err, &je) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "p.json") {
			t.Errorf("case %d %s: err = %v, want %q", i, c.body, err, c.want)
		}
	}
	// A byte order mark is skipped; a matching model and exact keys pass.
	path := filepath.Join(dir, "bom.json")
	os.WriteFile(path, []byte("\uFEFF{\"model\": \"skidsteer\", \"a\": [[1,2,3],[4,5,6],[7,8,9]], \"h\": 2}"), 0o644)
	var v struct {
		Model string `json:"model"`
		nested
	}
	if err := ReadJSON(path, &v, JSONOptions{Strict: true, Model: "skidsteer", Required: []string{"a"}}); err != nil || v.A[2][2] != 9 || v.H != 2 {
		t.Errorf("BOM file: %v %+v", err, v)
	}
}

// The record of a fit in an identified file is skipped by readers, and the
// positions of later errors stay right.
func TestReadJSONSkipsFitRecord(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "p.json")
	for _, body := range []string{
		"{\"fit\": {\"status\": \"converged\", \"iterations\": 3}, \"M\": 4}",
		"{\"M\": 4,\n \"fit\": {\"status\": \"converged\"}\n}",
	} {
		os.WriteFile(path, []byte(body), 0o644)
		var p testParams
		if err := ReadJSONFile(path, &p, true); err != nil || p.M != 4 {
			t.Errorf("%s: %v %+v", body, err, p)
		}
	}
	os.WriteFile(path, []byte("{\"fit\": {\"a\": 1},\n \"M\": \"x\"}"), 0o644)
	err := ReadJSONFile(path, &testParams{}, true)
	if err == nil || !strings.Contains(err.Error(), `line 2, column 10, key "M"`) {
		t.Errorf("error after a fit record: %v", err)
	}
	os.WriteFile(path, []byte(`{"fit": 3, "M": 4}`), 0o644)
	if err := ReadJSONFile(path, &testParams{}, true); err == nil || !strings.Contains(err.Error(), `key "fit": want an object`) {
		t.Errorf("fit not an object: %v", err)
	}
}
