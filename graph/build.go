package graph

import (
	"fmt"

	G "gorgonia.org/gorgonia"
)

// builder threads the first error through a chain of gorgonia calls, so that
// a formula reads as a formula instead of a ladder of if err != nil. After an
// error every further call is skipped and returns nil.
type builder struct{ err error }

func (b *builder) do(n *G.Node, err error) *G.Node {
	if b.err != nil {
		return nil
	}
	if err != nil {
		b.err = err
		return nil
	}
	return n
}

// result returns n, or the first error met while building it, naming fn.
func (b *builder) result(fn string, n *G.Node) (*G.Node, error) {
	if b.err != nil {
		return nil, wrap(fn, b.err)
	}
	return n, nil
}

func wrap(fn string, err error) error { return fmt.Errorf("graph.%s: %w", fn, err) }

// one, half: scalar float64 constants. Gorgonia deduplicates constants by name
// within a graph, so repeated calls add no nodes.
func one() *G.Node  { return G.NewConstant(1.0) }
func half() *G.Node { return G.NewConstant(0.5) }
