package mecanum

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every out-of-range value is an error naming the file and the key; legal
// but unusual values pass with a warning naming the key.
func TestParamRanges(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		json, key, want string
	}{
		{`{"mu": [-0.1, 0.5, 0.5, 0.5]}`, "mu", "must be ≥ 0"},
		{`{"mu": [0.5, 2.1, 0.5, 0.5]}`, "mu", "friction factor"},             // 1 − 2.1·0.49 < 0
		{`{"mu": [0.5, 0.5, 0.5, 0.5], "Ts": 1e-6}`, "mu", "friction factor"}, // Ts near 0: K huge
		{`{"mu": [0.5, 0.5, 0.5, 0.5], "Ts": 0}`, "Ts", "positive"},
		{`{"mu": [0.5, 0.5, 0.5, 0.5], "Ts": -0.6}`, "Ts", "positive"},
		{`{"mu": [0.5, 0.5, 0.5, 0.5], "M": -4}`, "M", "positive"},
		{`{"mu": [0.5, 0.5, 0.5, 0.5], "r": 0}`, "r", "positive"},
		{`{"mu": [0.5, 0.5, 0.5, 0.5], "lab": -0.2}`, "lab", "positive"},
		{`{"mu": [0.5, 0.5, 0.5, 0.5], "g": 0}`, "g", "positive"},
		{`{"mu": [0.5, 0.5, 0.5, 0.5], "Ts": 1e-320}`, "Ts", "overflows"},
		{`{"mu": [0.5, 0.5, 0.5]}`, "mu", "want 4"},
		{`{"mu": [0.5, 0.5, 0.5, 0.5], "mu_bounds": [-1, 1]}`, "mu_bounds", "≥ 0"},
		{`{"mu": [0.5, 0.5, 0.5, 0.5], "mu_bounds": [0, 3]}`, "mu_bounds", "friction factor"},
		{`{"mu": [0.5, 0.5, 0.5, 0.5], "mu_bounds": [1, 0.5]}`, "mu_bounds", "lo < hi"},
	} {
		path := filepath.Join(dir, "p.json")
		if err := os.WriteFile(path, []byte(tc.json), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := ReadParams(path, true)
		if err == nil {
			t.Errorf("%s: accepted", tc.json)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, path) || !strings.Contains(msg, `key "`+tc.key+`"`) || !strings.Contains(msg, tc.want) {
			t.Errorf("%s: error %q, want the file, key %q and %q", tc.json, msg, tc.key, tc.want)
		}
	}
	for _, tc := range []struct {
		json, key string
	}{
		{`{"mu": [0.5, 1.99, 0.5, 0.5]}`, "mu"},
		{`{"mu": [0.5, 0.5, 0.5, 0.5], "g": 3.71}`, "g"},
		{`{"mu": [0.5, 0.5, 0.5, 0.5], "M": 4000, "Ts": 600}`, "M"},
		{`{"mu": [0.5, 0.5, 0.5, 0.5], "r": 30, "Ts": 600, "lab": 4}`, "r"},
		{`{"mu": [0.5, 0.5, 0.5, 0.5], "lab": 200}`, "lab"},
	} {
		path := filepath.Join(dir, "w.json")
		if err := os.WriteFile(path, []byte(tc.json), 0o644); err != nil {
			t.Fatal(err)
		}
		p, _, err := ReadParams(path, true)
		if err != nil {
			t.Errorf("%s: %v", tc.json, err)
			continue
		}
		w := p.Warnings()
		if len(w) != 1 || !strings.HasPrefix(w[0], tc.key+":") {
			t.Errorf("%s: warnings %q, want one about %s", tc.json, w, tc.key)
		}
	}
	if w := DefaultParams().Warnings(); len(w) != 0 {
		t.Errorf("the paper's constants warn: %q", w)
	}
	// identify's default box keeps the friction factor positive
	p := DefaultParams()
	p.Ts = 0.2
	if _, hi := p.Bounds(); 1-hi*p.K() < 0.009 {
		t.Errorf("Ts = 0.2: default upper bound %v leaves factor %v", hi, 1-hi*p.K())
	}
}
