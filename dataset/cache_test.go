package dataset

import (
	"bytes"
	"os"
	"reflect"
	"slices"
	"testing"
	"time"
)

// A log read twice through one ReadCache is parsed once: the second read
// returns the first's table even after the file's bytes change in place
// (same size, same modification time), each read gets its own copy (a
// change to one does not reach the next), the notes are written on every
// read, and other columns, another file, a file rewritten with another
// size or modification time, and a read without the cache parse afresh.
func TestReadCache(t *testing.T) {
	const text = "t,w1,w2,x,theta\n0,,,0.5,0\n0.02,1,2,,\n0.025,,,0.7,0.1\n0.03,3,4,,\n"
	p := writeTemp(t, "log.csv", text)
	o := LogOptions{Commands: []string{"w1", "w2"}, Cache: NewReadCache()}
	read := func(o LogOptions, spec Spec) (*Table, string) {
		t.Helper()
		var note bytes.Buffer
		o.Note = &note
		tab, err := ReadLog(p, spec, o)
		if err != nil {
			t.Fatal(err)
		}
		return tab, note.String()
	}
	first, note1 := read(o, testSpec)
	if note1 == "" {
		t.Fatal("no note for the row before the first command")
	}
	first.Columns["w1"][0] = 99 // the caller's own copy
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	changed := []byte(text)
	changed[len(changed)-4] = '5' // 3,4 → 3,5: same size
	if err := os.WriteFile(p, changed, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	second, note2 := read(o, testSpec)
	if got := second.Col("w2"); got[len(got)-1] != 4 {
		t.Errorf("w2 = %v through the cache: the file was parsed again", got)
	}
	if second.Col("w1")[0] != 1 {
		t.Errorf("w1 = %v: the first read's change reached the second", second.Col("w1"))
	}
	if note2 != note1 {
		t.Errorf("notes %q, then %q", note1, note2)
	}
	fresh, _ := read(LogOptions{Commands: o.Commands}, testSpec)
	if got := fresh.Col("w2"); got[len(got)-1] != 5 {
		t.Errorf("w2 = %v without the cache", got)
	}
	spec := testSpec
	spec.Columns = slices.DeleteFunc(slices.Clone(spec.Columns), func(c Column) bool { return c.Name == "theta" })
	if other, _ := read(o, spec); other.Has("theta") || other.Col("w2")[len(other.Col("w2"))-1] != 5 {
		t.Errorf("other columns served from the cache: %v", other.Columns)
	}
	later := st.ModTime().Add(time.Second)
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
	if again, _ := read(o, testSpec); again.Col("w2")[len(again.Col("w2"))-1] != 5 {
		t.Errorf("a file modified later served from the cache")
	}
	// with the file as it was, the cache's copy and a fresh parse agree
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	c, _ := read(o, testSpec)
	d, _ := read(o, testSpec)
	f, _ := read(LogOptions{Commands: o.Commands}, testSpec)
	if !sameTable(c, f) || !sameTable(d, f) {
		t.Errorf("cached table %+v, parsed %+v", d, f)
	}
}

// sameTable: the same rows, lines and cells (NaN equal to NaN).
func sameTable(a, b *Table) bool {
	eq := func(x, y float64) bool { return x == y || x != x && y != y }
	if !slices.Equal(a.Line, b.Line) || !reflect.DeepEqual(a.Text, b.Text) || !reflect.DeepEqual(a.header, b.header) ||
		len(a.Columns) != len(b.Columns) || a.Len() != b.Len() {
		return false
	}
	for k, v := range a.Columns {
		if !slices.EqualFunc(v, b.Columns[k], eq) {
			return false
		}
	}
	for i := range a.Len() {
		if a.Held(i) != b.Held(i) {
			return false
		}
	}
	return true
}
