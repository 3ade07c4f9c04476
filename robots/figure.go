package robots

import (
	"image/color"

	"github.com/wheelgrad/wheelgrad/fit"
)

// Figure is a plot as data: an adapter describes its figures and a face
// draws them (the command line with package figure); robots draws nothing
// itself.
type Figure struct {
	Title, XLabel, YLabel string
	// Equal: one unit as long on both axes (paths, error clouds in metres).
	Equal  bool
	Series []Series
	// Channels, when not empty, make the figure panels of outputs against
	// time, one per channel (measured samples as points, the prediction
	// as a line), as validate -plot draws them; Series and the labels are
	// then unused.
	Channels []fit.Channel
	// RunIDs name the Channels' runs (their traj values) in the legend,
	// nil to number them from 1.
	RunIDs []string
}

// Series is one curve of a Figure: a line, or markers when Points is set.
// An empty Name adds no legend entry.
type Series struct {
	Name   string
	X, Y   []float64
	Points bool
	Dashed bool
	// Segments draws separate segments (X[2i],Y[2i])–(X[2i+1],Y[2i+1]),
	// e.g. a robot's forward axis at intervals along its path.
	Segments bool
	// Color is 1 + an index into the face's palette (figure.Palette); 0
	// takes the palette's colour of the series' position. RGB, when not
	// nil, is an explicit colour instead (e.g. grey for a reference).
	Color int
	RGB   color.Color
	// Width is the line width in points, 0 the face's default.
	Width float64
	// Shape of Points markers: "" or "circle", "triangle", "square",
	// "ring"; Size is their radius in points (0: the face's default).
	Shape string
	Size  float64
}
