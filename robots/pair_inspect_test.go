package robots_test

import (
	"strings"
	"testing"

	. "github.com/wheelgrad/wheelgrad/robots"
)

// inspect for the models with two command columns (issue 28, Deliver 3):
// a log whose two command channels are swapped and one reversed is
// detected (the log's own columns contradicted, the best map undoing the
// swap), and the log as recorded ranks its own columns first.
func TestPairInspectDetectsSwappedChannels(t *testing.T) {
	for _, c := range []struct {
		model, log string
		cmds       [2]string
	}{
		{"tire", "../models/tire/testdata/jackal.csv", [2]string{"wl", "wr"}},
		{"diffdrive", wheelchairLog, [2]string{"uf", "ul"}},
		{"pioneer", "../models/pioneer/testdata/p3dx.csv", [2]string{"v_ref", "w_ref"}},
	} {
		m, _ := Default().Get(c.model)
		in, ok := m.(Inspector)
		if !ok {
			t.Errorf("%s is not an Inspector", c.model)
			continue
		}
		r, err := in.Inspect(InspectRequest{Sources: []Source{{Path: c.log}}, Top: 3})
		if err != nil {
			t.Errorf("%s as logged: %v", c.model, err)
			continue
		}
		if r.Tried != 8 || r.DeclaredRank != 1 || r.Contradicts {
			t.Errorf("%s as logged: tried %d, its own columns rank %d (contradicted %v), best %v", c.model, r.Tried, r.DeclaredRank, r.Contradicts, r.Best[0].Map)
		}
		// the first command column now holds the second, the second the
		// first reversed
		swapped := ddWriteFile(t, c.model+".csv", layoutEdit(t, c.log, func(col map[string]int, row []string) []string {
			a, b := row[col[c.cmds[0]]], row[col[c.cmds[1]]]
			row[col[c.cmds[0]]] = b
			switch {
			case strings.HasPrefix(a, "-"):
				row[col[c.cmds[1]]] = a[1:]
			case a == "0" || a == "":
				row[col[c.cmds[1]]] = a
			default:
				row[col[c.cmds[1]]] = "-" + a
			}
			return row
		}))
		r, err = in.Inspect(InspectRequest{Sources: []Source{{Path: swapped}}, Top: 3})
		if err != nil {
			t.Errorf("%s swapped: %v", c.model, err)
			continue
		}
		best := r.Best[0].Map
		// target 0 reads channel 1 reversed, target 1 channel 0
		want := [2]string{c.cmds[1], c.cmds[0]}
		if !r.Contradicts || r.DeclaredRank == 1 || best.Columns[0] != want[0] || best.Columns[1] != want[1] || best.Scale[0] != -1 || best.Scale[1] != 1 {
			t.Errorf("%s swapped: contradicted %v, own columns rank %d, best %v %v (RMS %.4g), want columns %v scales [-1 1]",
				c.model, r.Contradicts, r.DeclaredRank, best.Columns, best.Scale, r.Best[0].RMS, want)
		}
		t.Logf("%s swapped: best RMS %.4g m, the log's own columns %.4g m (rank %d)", c.model, r.Best[0].RMS, r.Declared.RMS, r.DeclaredRank)
	}
}
