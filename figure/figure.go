package figure

import (
	"bufio"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Series is one curve of a figure: a line, or markers when Points is set.
// An empty Name adds no legend entry (for repeated runs of one kind).
type Series struct {
	Name   string
	X, Y   []float64
	Points bool
	Color  color.Color // nil: the next colour of Palette
	Dashed bool
	// Segments draws separate segments (X[2i],Y[2i])–(X[2i+1],Y[2i+1]),
	// e.g. a robot's forward axis at intervals along its path.
	Segments bool
	Width    float64 // line width in points (default 1.5)
	// Shape of Points markers: "" or "circle", "triangle", "square",
	// "ring"; Size is their radius in points (default 1.2).
	Shape string
	Size  float64
}

// glyph returns the marker shape of s.
func (s Series) glyph() draw.GlyphDrawer {
	switch s.Shape {
	case "triangle":
		return draw.TriangleGlyph{}
	case "square":
		return draw.SquareGlyph{}
	case "ring":
		return draw.RingGlyph{}
	}
	return draw.CircleGlyph{}
}

// Format is the image format of a figure path, from its extension: "svg"
// or "pdf" when it ends so (any case), else "png".
func Format(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".svg":
		return "svg"
	case ".pdf":
		return "pdf"
	}
	return "png"
}

// Palette is colour-blind safe (Okabe–Ito).
var Palette = []color.Color{
	color.RGBA{0, 114, 178, 255},   // blue
	color.RGBA{213, 94, 0, 255},    // vermillion
	color.RGBA{0, 158, 115, 255},   // green
	color.RGBA{230, 159, 0, 255},   // orange
	color.RGBA{204, 121, 167, 255}, // purple
	color.RGBA{86, 180, 233, 255},  // sky
}

// XY draws curves into a file, PNG, SVG or PDF by the path's extension
// (Format), written through a temporary file beside it (writeFile). With
// equal, one unit is as long on both axes (paths in metres); otherwise the
// axes scale freely (time series, loss curves).
func XY(path, title, xlabel, ylabel string, equal bool, ss []Series) error {
	return writeFile(path, func(w io.Writer) error { return WriteXY(w, Format(path), title, xlabel, ylabel, equal, ss) })
}

// WriteXY is XY rendered to w in format ("png", "svg" or "pdf"): a caller
// that stages its outputs (the command line) writes the file itself.
func WriteXY(w io.Writer, format, title, xlabel, ylabel string, equal bool, ss []Series) error {
	p, err := build(title, xlabel, ylabel, ss)
	if err != nil {
		return err
	}
	if equal {
		equalAxes(p)
	}
	finiteAxes(p)
	wt, err := p.WriterTo(6*vg.Inch, 6*vg.Inch, format)
	if err != nil {
		return err
	}
	_, err = wt.WriteTo(w)
	return err
}

// writeFile writes a figure to path through a new temporary file in its
// directory, renamed onto path once complete: a drawing that fails leaves
// path as it was. Errors name path.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	bw := bufio.NewWriter(f)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Chmod(0o644)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// build makes the plot of XY.
func build(title, xlabel, ylabel string, ss []Series) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	for i, s := range ss {
		// Non-finite points are left out (gonum/plot refuses a NaN and
		// cannot range an Inf): a line is broken where they were, so that
		// a prediction that left its range shows as a gap, never as a
		// failed or hung figure (issue 28).
		var xys plotter.XYs
		var breaks []int // indices of xys after which a line breaks
		for k := range min(len(s.X), len(s.Y)) {
			x, y := s.X[k], s.Y[k]
			if math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) {
				if len(xys) > 0 && (len(breaks) == 0 || breaks[len(breaks)-1] != len(xys)) {
					breaks = append(breaks, len(xys))
				}
				continue
			}
			xys = append(xys, plotter.XY{X: x, Y: y})
		}
		c := s.Color
		if c == nil {
			c = Palette[i%len(Palette)]
		}
		if s.Points {
			sc, err := plotter.NewScatter(xys)
			if err != nil {
				return nil, err
			}
			sc.GlyphStyle.Color = c
			sc.GlyphStyle.Radius = vg.Points(1.2)
			if s.Size > 0 {
				sc.GlyphStyle.Radius = vg.Points(s.Size)
			}
			sc.GlyphStyle.Shape = s.glyph()
			p.Add(sc)
			if s.Name != "" {
				p.Legend.Add(s.Name, sc)
			}
			continue
		}
		width := s.Width
		if width == 0 {
			width = 1.5
		}
		var parts []plotter.XYs
		from := 0
		for _, b := range append(breaks, len(xys)) {
			if b > from {
				parts = append(parts, xys[from:b])
			}
			from = b
		}
		if len(parts) == 0 {
			parts = []plotter.XYs{nil}
		}
		if s.Segments { // pairs of the series' own points, a pair with a non-finite point left out
			parts = nil
			fin := func(v ...float64) bool {
				for _, x := range v {
					if math.IsNaN(x) || math.IsInf(x, 0) {
						return false
					}
				}
				return true
			}
			for k := 0; k+1 < min(len(s.X), len(s.Y)); k += 2 {
				if fin(s.X[k], s.Y[k], s.X[k+1], s.Y[k+1]) {
					parts = append(parts, plotter.XYs{{X: s.X[k], Y: s.Y[k]}, {X: s.X[k+1], Y: s.Y[k+1]}})
				}
			}
		}
		for k, part := range parts {
			l, err := plotter.NewLine(part)
			if err != nil {
				return nil, err
			}
			l.LineStyle.Color = c
			l.LineStyle.Width = vg.Points(width)
			if s.Dashed {
				l.LineStyle.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
			}
			p.Add(l)
			if s.Name != "" && k == 0 {
				p.Legend.Add(s.Name, l)
			}
		}
	}
	// Headroom above the data for the legend.
	p.Y.Max += 0.25 * (p.Y.Max - p.Y.Min)
	return p, nil
}

// Panel is one plot of a Panels figure.
type Panel struct {
	Title, XLabel, YLabel string
	Series                []Series
}

// Panels draws plots on a grid of cols columns (rows as needed), e.g.
// x, y, θ against time above their residuals, into one file, PNG, SVG or
// PDF by the path's extension (Format), written as XY writes.
func Panels(path, title string, cols int, ps []Panel) error {
	return writeFile(path, func(w io.Writer) error { return WritePanels(w, Format(path), title, cols, ps) })
}

// WritePanels is Panels rendered to w in format ("png", "svg" or "pdf").
func WritePanels(w io.Writer, format, title string, cols int, ps []Panel) error {
	if cols < 1 || len(ps) == 0 {
		return fmt.Errorf("no panels")
	}
	rows := (len(ps) + cols - 1) / cols
	grid := make([][]*plot.Plot, rows)
	for r := range grid {
		grid[r] = make([]*plot.Plot, cols)
	}
	for i, q := range ps {
		p, err := build(q.Title, q.XLabel, q.YLabel, q.Series)
		if err != nil {
			return err
		}
		if i == 0 && title != "" {
			p.Title.Text = title + "\n" + q.Title
		}
		finiteAxes(p)
		grid[i/cols][i%cols] = p
	}
	cw, ch := vg.Length(cols)*5*vg.Inch, vg.Length(rows)*2.4*vg.Inch
	var c vg.CanvasWriterTo
	switch format {
	case "svg":
		c = vgsvg.New(cw, ch)
	case "pdf":
		c = vgpdf.New(cw, ch)
	default:
		c = vgimg.PngCanvas{Canvas: vgimg.New(cw, ch)}
	}
	dc := draw.New(c)
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(8), PadX: vg.Points(16), PadY: vg.Points(12)}
	cs := plot.Align(grid, tiles, dc)
	for r := range grid {
		for k, p := range grid[r] {
			if p != nil {
				p.Draw(cs[r][k])
			}
		}
	}
	_, err := c.WriteTo(w)
	return err
}

// finiteAxes gives every axis a finite range of positive width before
// drawing. A plot with no data keeps gonum/plot's empty range (Min = +Inf,
// Max = −Inf), and equalAxes turns that into NaN; gonum/plot's default tick
// marker then never finishes (issue 28: a skid-steer -plot ran for 13
// minutes at 100 % CPU). A constant series gets a unit-width (or 5 %) range,
// and a range too wide to subdivide in float64 is narrowed to ±1e300.
func finiteAxes(p *plot.Plot) {
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		lo, hi := a.Min, a.Max
		if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) && math.IsInf(hi, 0) || lo > hi {
			lo, hi = 0, 1
		}
		lo, hi = math.Max(lo, -1e300), math.Min(hi, 1e300)
		if !(hi-lo > 1e-12*math.Max(math.Abs(lo), math.Abs(hi))) || hi == lo {
			c, d := (lo+hi)/2, math.Max(1, 0.05*math.Abs(lo+hi)/2)
			lo, hi = c-d, c+d
		}
		a.Min, a.Max = lo, hi
	}
}

// equalAxes widens the shorter axis so one metre is as long on both.
func equalAxes(p *plot.Plot) {
	dx := 1.05 * (p.X.Max - p.X.Min)
	dy := 1.05 * (p.Y.Max - p.Y.Min)
	if dx > dy {
		c := (p.Y.Max + p.Y.Min) / 2
		p.Y.Min, p.Y.Max = c-dx/2, c+dx/2
		dy = dx
	} else {
		c := (p.X.Max + p.X.Min) / 2
		p.X.Min, p.X.Max = c-dy/2, c+dy/2
		dx = dy
	}
	cx, cy := (p.X.Max+p.X.Min)/2, (p.Y.Max+p.Y.Min)/2
	p.X.Min, p.X.Max = cx-dx/2, cx+dx/2
	p.Y.Min, p.Y.Max = cy-dy/2, cy+dy/2
}

// Cloud is a set of points drawn with a closed curve around it, such as a
// 3σ ellipse of prediction errors (Ordonez et al. Figs. 12–14).
type Cloud struct {
	Name           string
	X, Y           []float64
	CurveX, CurveY []float64 // nil: no curve
	Dashed         bool      // dash the curve
}

// Clouds draws point clouds with their curves, one colour each, with equal
// axis scales.
func Clouds(path, title, xlabel, ylabel string, cs []Cloud) error {
	var ss []Series
	for i, c := range cs {
		col := Palette[i%len(Palette)]
		ss = append(ss, Series{Name: c.Name, X: c.X, Y: c.Y, Points: true, Color: col})
		if c.CurveX != nil {
			ss = append(ss, Series{Name: c.Name + " 3σ", X: c.CurveX, Y: c.CurveY, Color: col, Dashed: c.Dashed})
		}
	}
	return XY(path, title, xlabel, ylabel, true, ss)
}
