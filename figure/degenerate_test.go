package figure

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestDegenerateDataNeverHangs draws every figure function on data that
// leaves an axis without a finite, positive-width range: no data, one
// point, a constant series, values near the float64 limit. Each must finish
// (a file or an error, never a hang: issue 28's -plot ran for 13 minutes
// on an empty cloud). The time limit is a hang guard, far above a draw's
// normal ~0.1 s.
func TestDegenerateDataNeverHangs(t *testing.T) {
	const hangLimit = 60 * time.Second
	dir := t.TempDir()
	cases := map[string]func(path string) error{
		"empty XY": func(p string) error { return XY(p, "t", "x", "y", false, nil) },
		"empty series, equal axes": func(p string) error {
			return XY(p, "t", "x", "y", true, []Series{{Name: "a"}})
		},
		"one point, equal axes": func(p string) error {
			return XY(p, "t", "x", "y", true, []Series{{Name: "a", X: []float64{2}, Y: []float64{3}, Points: true}})
		},
		"constant series": func(p string) error {
			return XY(p, "t", "x", "y", false, []Series{{Name: "a", X: []float64{0, 1, 2}, Y: []float64{5, 5, 5}}})
		},
		"near the float64 limit": func(p string) error {
			return XY(p, "t", "x", "y", false, []Series{{Name: "a", X: []float64{0, 1}, Y: []float64{-1.7e308, 1.7e308}}})
		},
		"empty clouds": func(p string) error {
			return Clouds(p, "t", "x", "y", []Cloud{{Name: "nominal"}, {Name: "calibrated"}})
		},
		"NaN and Inf values": func(p string) error {
			nan, inf := math.NaN(), math.Inf(1)
			return XY(p, "t", "x", "y", false, []Series{{Name: "a", X: []float64{0, 1, 2, 3}, Y: []float64{nan, 1, inf, 2}}, {Name: "b", X: []float64{nan}, Y: []float64{nan}, Points: true}})
		},
		"only NaN, equal axes": func(p string) error {
			return XY(p, "t", "x", "y", true, []Series{{Name: "a", X: []float64{math.NaN(), math.NaN()}, Y: []float64{math.NaN(), 1}, Points: true}})
		},
		"NaN cloud": func(p string) error {
			return Clouds(p, "t", "x", "y", []Cloud{{Name: "nominal", X: []float64{math.NaN()}, Y: []float64{1}, CurveX: []float64{math.NaN(), 0}, CurveY: []float64{0, math.Inf(-1)}}})
		},
		"NaN panel": func(p string) error {
			return Panels(p, "t", 2, []Panel{{Title: "a", Series: []Series{{X: []float64{0, 1}, Y: []float64{math.NaN(), math.NaN()}}}}, {Title: "b", Series: []Series{{X: []float64{1}, Y: []float64{1}, Points: true}}}})
		},
		"NaN segments": func(p string) error {
			return XY(p, "t", "x", "y", true, []Series{{Name: "axis", Segments: true, X: []float64{0, 1, math.NaN(), 2, 3, 4}, Y: []float64{0, 1, 2, 2, 3, 4}}})
		},
		"empty panel": func(p string) error {
			return Panels(p, "t", 2, []Panel{{Title: "a"}, {Title: "b", Series: []Series{{X: []float64{1}, Y: []float64{1}}}}})
		},
	}
	for name, draw := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name+".png")
			done := make(chan error, 1)
			go func() { done <- draw(path) }()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
					t.Fatalf("%s: no figure written (%v)", name, err)
				}
			case <-time.After(hangLimit):
				t.Fatalf("%s: still drawing after %v (a hang)", name, hangLimit)
			}
		})
	}
}
