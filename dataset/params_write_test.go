package dataset

import (
	"math"
	"strings"
	"testing"
)

// The parameters keep their order, the fit's record comes last under
// FitKey, and a NaN is an error rather than a file.
func TestParamsJSON(t *testing.T) {
	p := struct {
		Mu float64 `json:"mu"`
		A  float64 `json:"a"`
	}{0.5, 2}
	b, err := ParamsJSON(p, map[string]string{"status": "converged"})
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"mu\": 0.5,\n  \"a\": 2,\n  \"fit\": {\n    \"status\": \"converged\"\n  }\n}\n"
	if string(b) != want {
		t.Errorf("got\n%s\nwant\n%s", b, want)
	}
	if b, err = ParamsJSON(p, nil); err != nil || string(b) != "{\n  \"mu\": 0.5,\n  \"a\": 2\n}\n" {
		t.Errorf("without a record: %q, %v", b, err)
	}
	p.Mu = math.NaN()
	if _, err := ParamsJSON(p, nil); err == nil || !strings.Contains(err.Error(), "cannot be written") {
		t.Errorf("NaN: err = %v", err)
	}
}
