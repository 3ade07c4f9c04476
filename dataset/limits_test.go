package dataset

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A device that never ends (/dev/zero: one endless line) is refused at the
// line bound, with bounded memory, not read until the process dies.
func TestEndlessLineRefused(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := ReadFile("/dev/zero", Spec{Columns: []Column{{Name: "t"}}})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("ReadFile(/dev/zero): %v, want ErrLineTooLong", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "/dev/zero: line 1") || len(msg) > 300 {
		t.Errorf("message %q: want the file and line, on one short line", msg)
	}
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 64<<20 {
		t.Errorf("allocated %d MiB reading /dev/zero", grown>>20)
	}
	if _, err := ReadHeader("/dev/zero"); !errors.Is(err, ErrLineTooLong) {
		t.Errorf("ReadHeader(/dev/zero): %v, want ErrLineTooLong", err)
	}
}

// The byte bound holds for streams that are not regular files.
func TestByteBound(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	_, err := ReadAll("/dev/zero", 1<<16)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "64 KiB") {
		t.Fatalf("ReadAll(/dev/zero, 64 KiB): %v, want ErrTooLarge naming the limit", err)
	}
	// A file of exactly the bound is read whole.
	p := filepath.Join(t.TempDir(), "f")
	os.WriteFile(p, make([]byte, 1<<10), 0o644)
	if b, err := ReadAll(p, 1<<10); err != nil || len(b) != 1<<10 {
		t.Errorf("a file of exactly the bound: %d bytes, %v", len(b), err)
	}
	if _, err := ReadAll(p, 1<<10-1); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a file one byte over the bound: %v", err)
	}
	if err := ReadJSON("/dev/zero", &struct{}{}, JSONOptions{}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadJSON(/dev/zero): %v, want ErrTooLarge", err)
	}
}

// A column name of a megabyte is not echoed whole.
func TestLongHeaderNotEchoed(t *testing.T) {
	hdr := "t," + strings.Repeat("x", 500_000)
	_, err := Read(strings.NewReader(hdr+"\n1,abc\n"), "big.csv", Spec{Columns: []Column{{Name: "t"}, {Name: hdr[2:]}}})
	if err == nil {
		t.Fatal("no error for a text cell in a number column")
	}
	if n := len(err.Error()); n > 300 {
		t.Errorf("message of %d bytes: %.200s", n, err.Error())
	}
}

// Deeply nested JSON is refused at MaxJSONDepth, in memory linear in the depth.
func TestJSONDepth(t *testing.T) {
	for _, depth := range []int{10_000, 40_000} {
		b := []byte(`{"a":` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}`)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		err := DecodeJSON(b, "deep.json", &map[string]any{}, false)
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), "nested deeper than") {
			t.Fatalf("depth %d: %v", depth, err)
		}
		if grown := after.TotalAlloc - before.TotalAlloc; grown > 16<<20 {
			t.Errorf("depth %d: allocated %d MiB", depth, grown>>20)
		}
	}
	ok := []byte(`{"a": [[1, 2], [3, 4]], "b": {"c": {"d": 1}}}`)
	if err := DecodeJSON(ok, "ok.json", &map[string]any{}, false); err != nil {
		t.Errorf("shallow file: %v", err)
	}
}

// null is not a default.
func TestJSONNull(t *testing.T) {
	type P struct {
		Mu  []float64  `json:"mu"`
		R   float64    `json:"r"`
		Opt *float64   `json:"opt"`
		Fix [2]float64 `json:"fix"`
	}
	for _, c := range []struct {
		doc, want string
	}{
		{`null`, "null where an object is wanted"},
		{`{"r": null}`, `key "r"`},
		{`{"mu": [1, null]}`, "null where a value is wanted"},
		{`{"fix": null}`, `key "fix"`},
	} {
		var p P
		err := DecodeJSON([]byte(c.doc), "p.json", &p, true)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.doc, err, c.want)
		}
	}
	var p P
	if err := DecodeJSON([]byte(`{"r": 1, "opt": null, "mu": null}`), "p.json", &p, true); err != nil || p.Opt != nil || p.Mu != nil {
		t.Errorf("null for an optional field: %v", err)
	}
}

// Files whose total size is above MaxInputBytes are refused before
// reading, naming the file that crosses the limit.
func TestCheckInputSize(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.csv")
	big := filepath.Join(dir, "big.csv")
	if err := os.WriteFile(small, []byte("t\n0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxInputBytes); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	f.Close()
	if err := CheckInputSize(small, filepath.Join(dir, "missing.csv")); err != nil {
		t.Errorf("small: %v", err)
	}
	if err := CheckInputSize(big); err != nil {
		t.Errorf("exactly the limit: %v", err)
	}
	if err := CheckInputSize(small, big); err == nil || !strings.HasPrefix(err.Error(), big+" (with the files before it): ") {
		t.Errorf("above the limit: %v", err)
	}
}
