package robots

// Figure is a plot as data: an adapter describes its figures and a face
// draws them (the command line with package figure); robots draws nothing
// itself.
type Figure struct {
	Title, XLabel, YLabel string
	// Equal: one unit as long on both axes (paths, error clouds in metres).
	Equal  bool
	Series []Series
}

// Series is one curve of a Figure: a line, or markers when Points is set.
// An empty Name adds no legend entry.
type Series struct {
	Name   string
	X, Y   []float64
	Points bool
	Dashed bool
	// Color is 1 + an index into the face's palette (figure.Palette); 0
	// takes the palette's next colour.
	Color int
}
