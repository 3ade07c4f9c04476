package figure

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestXYWritesPNG(t *testing.T) {
	dir := t.TempDir()
	for _, equal := range []bool{true, false} {
		path := filepath.Join(dir, "f.png")
		err := XY(path, "title", "x (m)", "y (m)", equal, []Series{
			{Name: "line", X: []float64{0, 1, 2}, Y: []float64{0, 1, 0}},
			{Name: "points", X: []float64{0, 1}, Y: []float64{1, 0}, Points: true},
			{X: []float64{0, 2}, Y: []float64{0.5, 0.5}, Dashed: true},
		})
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) || len(b) < 1000 {
			t.Fatalf("not a PNG: %d bytes", len(b))
		}
	}
	// An unwritable path is an error and leaves nothing behind.
	if err := XY(filepath.Join(dir, "no", "such", "dir", "f.png"), "", "", "", false, nil); err == nil {
		t.Error("write into a missing directory succeeded")
	}
}
