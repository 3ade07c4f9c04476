package figure

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
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

func TestPanelsAndFormats(t *testing.T) {
	dir := t.TempDir()
	x := []float64{0, 1, 2, 3}
	ps := []Panel{
		{Title: "x", XLabel: "t (s)", YLabel: "x (m)", Series: []Series{{Name: "measured", X: x, Y: x, Points: true, Shape: "triangle", Size: 3}, {Name: "model", X: x, Y: x}}},
		{Title: "residual", XLabel: "t (s)", YLabel: "m", Series: []Series{{X: x, Y: []float64{0, 0.1, -0.1, 0}, Points: true}}},
		{Title: "y", Series: []Series{{X: x, Y: x}}},
	}
	for _, c := range []struct{ name, magic string }{{"p.png", "\x89PNG"}, {"p.SVG", "<?xml"}, {"p.pdf", "%PDF"}} {
		path := filepath.Join(dir, c.name)
		if err := Panels(path, "title", 2, ps); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil || !strings.HasPrefix(string(b), c.magic) {
			t.Errorf("%s: starts %q, want %q (%v)", c.name, string(b[:min(len(b), 8)]), c.magic, err)
		}
	}
	svg := filepath.Join(dir, "xy.svg")
	if err := XY(svg, "t", "x", "y", true, ps[0].Series); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(svg); !strings.Contains(string(b), "<svg") {
		t.Errorf("XY into .svg did not write SVG")
	}
	if err := Panels(filepath.Join(dir, "none.png"), "", 2, nil); err == nil {
		t.Error("no panels: no error")
	}
}
