package dataset

import (
	"bytes"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteCSVRoundTrip(t *testing.T) {
	special := []float64{
		0, math.Copysign(0, -1), 1, -1, 0.1, 1.0 / 3, 2.0 / 3, 1e-3, 123456789.123456789,
		math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, 2.2250738585072014e-308, // denormal, smallest normal
		math.MaxFloat64, -math.MaxFloat64, 1e308, 1e-300, 9007199254740993, math.Pi, math.Nextafter(1, 2),
	}
	rng := rand.New(rand.NewPCG(1, 2))
	n := len(special) + 500
	t0 := make([]float64, n)
	a := make([]float64, n)
	b := make([]float64, n) // sparse: NaN every third row
	for i := range n {
		t0[i] = float64(i) * (1.0 / 240)
		if i < len(special) {
			a[i] = special[i]
		} else {
			// Random bit patterns cover every exponent; skip non-finite ones.
			for a[i] = math.Inf(1); math.IsInf(a[i], 0) || math.IsNaN(a[i]); {
				a[i] = math.Float64frombits(rng.Uint64())
			}
		}
		b[i] = rng.NormFloat64()
		if i%3 == 0 {
			b[i] = math.NaN()
		}
	}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, []string{"t", "a", "b"}, [][]float64{t0, a, b}); err != nil {
		t.Fatal(err)
	}
	spec := Spec{Columns: []Column{{Name: "t"}, {Name: "a"}, {Name: "b", Sparse: true}}, Time: "t"}
	tab, err := Read(&buf, "rt.csv", spec)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]float64{"t": t0, "a": a, "b": b} {
		got := tab.Col(name)
		if len(got) != n {
			t.Fatalf("column %s has %d rows, want %d", name, len(got), n)
		}
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Errorf("column %s row %d: read %v (%#x), wrote %v (%#x)", name, i, got[i], math.Float64bits(got[i]), want[i], math.Float64bits(want[i]))
			}
		}
	}
}

func TestWriteCSVFormat(t *testing.T) {
	var buf bytes.Buffer
	err := WriteCSV(&buf, []string{"t", "x"}, [][]float64{{0, 0.5}, {math.Copysign(0, -1), math.NaN()}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := buf.String(), "t,x\n0,-0\n0.5,\n"; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
}

func TestWriteCSVErrors(t *testing.T) {
	for name, tt := range map[string]struct {
		header []string
		cols   [][]float64
		has    string
	}{
		"names and columns differ": {[]string{"t"}, [][]float64{{1}, {2}}, "1 name for 2 columns"},
		"ragged":                   {[]string{"t", "x"}, [][]float64{{1, 2}, {2}}, `column "x" has 1 rows`},
		"no columns":               {nil, nil, "no columns"},
		"Inf":                      {[]string{"t", "x"}, [][]float64{{1, 2}, {2, math.Inf(-1)}}, `row 2, column "x": cannot write -Inf`},
		"duplicate names":          {[]string{"t", "T"}, [][]float64{{1}, {2}}, `columns 1 and 2 are both named "T"`},
		"empty name":               {[]string{"t", ""}, [][]float64{{1}, {2}}, "empty"},
		"spaced name":              {[]string{"t", " x"}, [][]float64{{1}, {2}}, "surrounding spaces"},
		"one column, NaN":          {[]string{"x"}, [][]float64{{1, math.NaN()}}, "one-column"},
	} {
		err := WriteCSV(io.Discard, tt.header, tt.cols)
		if err == nil || !strings.Contains(err.Error(), tt.has) {
			t.Errorf("%s: error %v, want one containing %q", name, err, tt.has)
		}
	}
	err := WriteCSV(io.Discard, []string{"x"}, [][]float64{{math.Inf(1)}})
	if !errors.Is(err, ErrNotFinite) {
		t.Errorf("Inf: %v is not ErrNotFinite", err)
	}
}

func TestWriterText(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	w.WriteHeader("traj", "t", "x", "note")
	rows := [][]Cell{
		{Text("#1"), Num(0), Num(1.5), Text("plain")},
		{Text("#1"), Num(0.25), Num(math.NaN()), Text(`a "quoted", text`)},
		{Text("b,c"), Num(0), Num(-2), Text("")},
		{Text("ünïcode"), Num(0), Num(3), Text("#not a comment here")},
	}
	for _, r := range rows {
		if err := w.WriteRow(r...); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	want := "traj,t,x,note\n" +
		"\"#1\",0,1.5,plain\n" +
		"\"#1\",0.25,,\"a \"\"quoted\"\", text\"\n" +
		"\"b,c\",0,-2,\n" +
		"ünïcode,0,3,#not a comment here\n"
	if buf.String() != want {
		t.Errorf("wrote\n%s\nwant\n%s", buf.String(), want)
	}
	spec := Spec{
		Columns: []Column{{Name: "t"}, {Name: "x", Sparse: true}, {Name: "traj", Text: true}, {Name: "note", Text: true, Sparse: true}},
		Time:    "t", Group: "traj",
	}
	tab, err := Read(&buf, "w.csv", spec)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		if tab.TextCol("traj")[i] != r[0].text || tab.TextCol("note")[i] != r[3].text ||
			tab.Col("t")[i] != r[1].num || math.Float64bits(tab.Col("x")[i]) != math.Float64bits(r[2].num) {
			t.Errorf("row %d read back as %q %v %v %q", i, tab.TextCol("traj")[i], tab.Col("t")[i], tab.Col("x")[i], tab.TextCol("note")[i])
		}
	}
}

func TestWriterErrors(t *testing.T) {
	w := NewWriter(io.Discard)
	if err := w.WriteFloats(1); err == nil || !strings.Contains(err.Error(), "before the header") {
		t.Errorf("row before header: %v", err)
	}
	if err := w.WriteHeader("a"); err == nil {
		t.Error("the first error did not stick")
	}

	for name, tt := range map[string]struct {
		row []Cell
		has string
	}{
		"count":     {[]Cell{Num(1)}, "row 1 has 1 cell, header has 2"},
		"spaces":    {[]Cell{Num(1), Text(" a")}, `row 1, column "id": text " a" has surrounding spaces`},
		"newline":   {[]Cell{Num(1), Text("a\nb")}, "line break"},
		"bad UTF-8": {[]Cell{Num(1), Text("\xff")}, "UTF-8"},
	} {
		w := NewWriter(io.Discard)
		if err := w.WriteHeader("t", "id"); err != nil {
			t.Fatal(err)
		}
		err := w.WriteRow(tt.row...)
		if err == nil || !strings.Contains(err.Error(), tt.has) {
			t.Errorf("%s: error %v, want one containing %q", name, err, tt.has)
		}
		if w.Flush() != err {
			t.Errorf("%s: Flush does not return the first error", name)
		}
	}
	if err := NewWriter(io.Discard).WriteHeader("a", "b\r"); err == nil {
		t.Error("a name with a line break was accepted")
	}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.csv")
	write := func(w io.Writer) error {
		return WriteCSV(w, []string{"t"}, [][]float64{{1, 2}})
	}
	if err := WriteFileAtomic(path, write); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "t\n1\n2\n" {
		t.Fatalf("file holds %q (%v)", b, err)
	}

	// Replacing keeps the file's permissions.
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(path, func(w io.Writer) error { _, err := io.WriteString(w, "new\n"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new\n" {
		t.Errorf("replaced file holds %q", b)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("replaced file has mode %v (%v), want 0640", fi.Mode(), err)
	}
	assertOnly(t, dir, "out.csv")
}

func TestWriteFileAtomicFailure(t *testing.T) {
	broken := errors.New("model diverged")
	// Writes far more than any buffer holds, so that some of it reaches
	// the temporary file before the failure.
	failMidway := func(w io.Writer) error {
		for range 10000 {
			if _, err := io.WriteString(w, "0.123456789,0.123456789\n"); err != nil {
				return err
			}
		}
		return broken
	}
	dir := t.TempDir()

	// No file before: none after.
	path := filepath.Join(dir, "new.csv")
	err := WriteFileAtomic(path, failMidway)
	if !errors.Is(err, broken) || !strings.Contains(err.Error(), path) {
		t.Errorf("error %v, want one naming %s and wrapping the write error", err, path)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed write left %s (%v)", path, err)
	}
	assertOnly(t, dir)

	// An existing file is left as it was.
	old := filepath.Join(dir, "old.csv")
	if err := os.WriteFile(old, []byte("t\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(old, failMidway); !errors.Is(err, broken) {
		t.Errorf("error %v, want %v", err, broken)
	}
	if b, err := os.ReadFile(old); err != nil || string(b) != "t\n1\n" {
		t.Errorf("a failed write changed %s to %q (%v)", old, b, err)
	}
	assertOnly(t, dir, "old.csv")

	// Errors before writing: a directory as target, a missing directory.
	if err := WriteFileAtomic(dir, failMidway); err == nil || errors.Is(err, broken) {
		t.Errorf("writing over a directory: %v", err)
	}
	if err := WriteFileAtomic(filepath.Join(dir, "no", "such.csv"), failMidway); err == nil || errors.Is(err, broken) {
		t.Errorf("writing into a missing directory: %v", err)
	}
	assertOnly(t, dir, "old.csv")
}

// assertOnly checks that dir holds exactly the named files: no temporary
// files left behind.
func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, " ") != strings.Join(names, " ") {
		t.Errorf("directory holds %q, want %q", got, names)
	}
}

func TestWriteFileAtomicStdout(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	err = WriteFileAtomic("-", func(w io.Writer) error { return WriteCSV(w, []string{"t"}, [][]float64{{3}}) })
	os.Stdout = stdout
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(r); string(b) != "t\n3\n" {
		t.Errorf("stdout got %q", b)
	}
}

// An output path that is a symbolic link replaces the link's target, never
// the link; a device is written directly; errors name the path, not the
// hidden temporary file (issue 17).
func TestWriteFileAtomicFollowsLinksAndDevices(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "data", "target.csv")
	if err := os.Mkdir(filepath.Dir(target), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(target, []byte("old\n"), 0o600)
	link := filepath.Join(dir, "link.csv")
	if err := os.Symlink(filepath.Join("data", "target.csv"), link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	put := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	if err := WriteFileAtomic(link, put("new\n")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi.Mode(), err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new\n" {
		t.Errorf("target holds %q", b)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o600 {
		t.Errorf("target's mode %v, want 0600 kept", fi.Mode().Perm())
	}
	// A dangling link creates its target.
	dangling := filepath.Join(dir, "dangling.csv")
	os.Symlink("made.csv", dangling)
	if err := WriteFileAtomic(dangling, put("x\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "made.csv")); string(b) != "x\n" {
		t.Errorf("dangling link's target holds %q", b)
	}
	// A device is written, not replaced.
	if _, err := os.Stat("/dev/null"); err == nil {
		if err := WriteFileAtomic("/dev/null", put("gone\n")); err != nil {
			t.Errorf("/dev/null: %v", err)
		}
		if fi, err := os.Lstat("/dev/null"); err != nil || fi.Mode()&os.ModeDevice == 0 {
			t.Errorf("/dev/null is no longer a device: %v", err)
		}
	}
	// A missing directory: the error names the path given.
	bad := filepath.Join(dir, "nodir", "out.csv")
	err := WriteFileAtomic(bad, put("x"))
	if err == nil || !strings.HasPrefix(err.Error(), bad+":") || strings.Contains(err.Error(), ".tmp") {
		t.Errorf("missing directory: %v", err)
	}
	// No temporary file is left anywhere.
	for _, d := range []string{dir, filepath.Dir(target)} {
		es, _ := os.ReadDir(d)
		for _, e := range es {
			if strings.Contains(e.Name(), ".tmp") {
				t.Errorf("left %s", e.Name())
			}
		}
	}
}

func TestRemoveTempFiles(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "big.csv")
	err := WriteFileAtomic(out, func(w io.Writer) error {
		io.WriteString(w, "partial")
		RemoveTempFiles() // what the signal handler does mid-write
		es, _ := os.ReadDir(dir)
		if len(es) != 0 {
			t.Errorf("left %v", es)
		}
		return nil
	})
	if err == nil {
		t.Errorf("a write whose temporary file was removed succeeded")
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("output exists")
	}
}

func TestReadRefusesTextWithLineBreak(t *testing.T) {
	_, err := Read(strings.NewReader("t,traj\n0,\"a\nb\"\n"), "log.csv", Spec{Time: "t", Columns: []Column{{Name: "t"}, {Name: "traj", Text: true}}})
	var pe *ParseError
	if !errors.As(err, &pe) || !errors.Is(err, ErrInvalidText) || pe.Column != "traj" {
		t.Errorf("err = %v", err)
	}
}
