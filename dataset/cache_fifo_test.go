//go:build unix

package dataset

import (
	"path/filepath"
	"testing"

	"github.com/wheelgrad/wheelgrad/internal/fifotest"
)

// A FIFO read through a column map (its header first, then the rows) is
// read once: ReadMapped and ReadLog with Columns and no cache see every
// row; through one ReadCache, a second ReadLog with other columns replays
// the same bytes.
func TestPipeReadOnce(t *testing.T) {
	const text = "time,a,b,x,theta\n0,,,0.5,0\n0.02,1,2,,\n0.025,,,0.7,0.1\n0.03,3,4,,\n"
	m, err := ParseColumnMap("t=time,w1=a,w2=b")
	if err != nil {
		t.Fatal(err)
	}
	fifo := func(name string) string {
		return fifotest.FedBytes(t, filepath.Join(t.TempDir(), name), []byte(text))
	}
	tab, err := ReadMapped(fifo("mapped.csv"), Spec{Columns: []Column{{Name: "t"}, {Name: "w1", Sparse: true}}, Time: "t"}, m)
	if err != nil || tab.Len() != 4 {
		t.Fatalf("ReadMapped: %v, %v", tab, err)
	}
	o := LogOptions{Commands: []string{"w1", "w2"}, Columns: m}
	p := fifo("log.csv")
	if tab, err := ReadLog(p, testSpec, o); err != nil || tab.Len() != 3 {
		t.Fatalf("ReadLog: %v, %v", tab, err)
	}
	p = fifo("cached.csv")
	o.Cache = NewReadCache()
	a, err := ReadLog(p, testSpec, o)
	if err != nil {
		t.Fatal(err)
	}
	spec := testSpec
	spec.Columns = append(spec.Columns[:3:3], Column{Name: "traj", Optional: true, Text: true}) // no x, theta: another parse
	b, err := ReadLog(p, spec, o)
	if err != nil || b.Len() != a.Len() || b.Has("x") {
		t.Fatalf("second read of the pipe: %v, %v", b, err)
	}
}

// Within ReadPipesOnce a FIFO read twice by ReadAll (and opened by a
// command's ReadCache) gives the same bytes each time; scopes nest, and
// the outermost end closes the scope.
func TestReadPipesOnce(t *testing.T) {
	const text = `{"model": "mecanum"}`
	p := fifotest.FedBytes(t, filepath.Join(t.TempDir(), "params.json"), []byte(text))
	end := ReadPipesOnce()
	inner := ReadPipesOnce()
	for i := range 2 {
		b, err := ReadAll(p, MaxJSONBytes)
		if err != nil || string(b) != text {
			t.Fatalf("read %d: %q, %v", i, b, err)
		}
	}
	r, err := NewReadCache().open(p)
	if err != nil {
		t.Fatal(err)
	}
	var buf [64]byte
	if n, _ := r.Read(buf[:]); string(buf[:n]) != text {
		t.Errorf("through a command's cache: %q", buf[:n])
	}
	inner()
	inner()
	if pipeScope.Load() == nil {
		t.Fatal("the inner end closed the scope")
	}
	end()
	if pipeScope.Load() != nil {
		t.Fatal("the scope is open after its end")
	}
}
