package figure

import (
	"fmt"
	"image/color"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/wheelgrad/wheelgrad/dataset"
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

// XY draws curves into a PNG file, written atomically. With equal, one unit
// is as long on both axes (paths in metres); otherwise the axes scale freely
// (time series, loss curves).
func XY(path, title, xlabel, ylabel string, equal bool, ss []Series) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	for i, s := range ss {
		xys := make(plotter.XYs, len(s.X))
		for k := range s.X {
			xys[k].X, xys[k].Y = s.X[k], s.Y[k]
		}
		c := s.Color
		if c == nil {
			c = Palette[i%len(Palette)]
		}
		if s.Points {
			sc, err := plotter.NewScatter(xys)
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			sc.GlyphStyle.Color = c
			sc.GlyphStyle.Radius = vg.Points(1.2)
			sc.GlyphStyle.Shape = draw.CircleGlyph{}
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
		parts := []plotter.XYs{xys}
		if s.Segments {
			parts = nil
			for k := 0; k+1 < len(xys); k += 2 {
				parts = append(parts, xys[k:k+2])
			}
		}
		for k, part := range parts {
			l, err := plotter.NewLine(part)
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
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
	if equal {
		equalAxes(p)
	}
	w, err := p.WriterTo(6*vg.Inch, 6*vg.Inch, "png")
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return dataset.WriteFileAtomic(path, func(out io.Writer) error {
		_, err := w.WriteTo(out)
		return err
	})
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
