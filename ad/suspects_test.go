package ad

import (
	"strings"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestSuspectsNameOnlyWhatTheGraphHolds: the self-check's failure message
// blames G.Concat only in a graph that has one (issue 21: it blamed it for
// a graph of a dyn rollout at a friction kink).
func TestSuspectsNameOnlyWhatTheGraphHolds(t *testing.T) {
	g := G.NewGraph()
	a := G.NewVector(g, tensor.Float64, G.WithShape(2), G.WithName("a"))
	b := G.Must(G.Abs(a))
	if s := suspects(g); strings.Contains(s, "Concat") || !strings.Contains(s, "kink") {
		t.Errorf("no Concat in the graph: %s", s)
	}
	G.Must(G.Concat(0, a, b))
	if s := suspects(g); !strings.Contains(s, "G.Concat") {
		t.Errorf("a Concat in the graph: %s", s)
	}
}
