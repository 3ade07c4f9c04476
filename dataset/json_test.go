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
		{"{\n \"Mu\": [1,2,3,4],\n \"mass\": 3}", `key "mass": unknown key`, true},
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
