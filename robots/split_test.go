package robots_test

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/wheelgrad/wheelgrad/models/pioneer"
	"github.com/wheelgrad/wheelgrad/models/tire"
	"github.com/wheelgrad/wheelgrad/robots"
)

// splitCSV writes the columns cmd and sensor of a log (each with t and,
// when the log has it, traj) to files of their own; sensor rows with an
// empty first sensor cell are left out.
func splitCSV(t *testing.T, log string, cmd, sensor []string) (string, string) {
	t.Helper()
	f, err := os.Open(log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := func(n string) int { return slices.Index(recs[0], n) }
	dir := t.TempDir()
	write := func(name string, cols []string, skipEmpty bool) string {
		cols = append([]string{"t"}, cols...)
		if col("traj") >= 0 {
			cols = append(cols, "traj")
		}
		out := [][]string{cols}
		for _, r := range recs[1:] {
			if skipEmpty && r[col(cols[1])] == "" {
				continue
			}
			var row []string
			for _, c := range cols {
				row = append(row, r[col(c)])
			}
			out = append(out, row)
		}
		p := filepath.Join(dir, name)
		g, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		w := csv.NewWriter(g)
		w.WriteAll(out)
		if err := g.Close(); err != nil {
			t.Fatal(err)
		}
		return p
	}
	return write("cmd.csv", cmd, false), write("sensor.csv", sensor, true)
}

// validate with the sensors in a file of their own (-poses) scores as the
// one table does, for the tyre and the Pioneer models.
func TestValidateSplitEqualsOneTable(t *testing.T) {
	tp, tps := tire.Jackal(), pioneer.Default(pioneer.FormExperimental)
	tp.Mu, tp.Kx, tp.Ky = 0.45, 220, 160
	for _, c := range []struct {
		m           robots.Validator
		p           robots.Params
		log         string
		cmd, sensor []string
	}{
		{robots.Tire{}, tp, tireLog, []string{"wl", "wr"}, []string{"x", "y", "psi"}},
		{robots.Pioneer{}, tps, pioneerLog, []string{"v_ref", "w_ref"}, []string{"v", "w"}},
	} {
		cmd, sensor := splitCSV(t, c.log, c.cmd, c.sensor)
		one, err := c.m.Validate(robots.ValidateRequest{Params: c.p, Sources: []robots.Source{{Path: c.log}}, X0: robots.X0First})
		if err != nil {
			t.Fatal(err)
		}
		two, err := c.m.Validate(robots.ValidateRequest{Params: c.p, Sources: []robots.Source{{Path: cmd, Poses: sensor}}, X0: robots.X0First})
		if err != nil {
			t.Fatalf("%T split: %v", c.m, err)
		}
		if len(one) != len(two) || len(one) == 0 {
			t.Fatalf("%T: %d runs vs %d", c.m, len(one), len(two))
		}
		for i := range one {
			for k := range one[i].Channels {
				a, _, _ := one[i].Channels[k].Fit()
				b, _, _ := two[i].Channels[k].Fit()
				if a != b || len(one[i].Channels[k].T) != len(two[i].Channels[k].T) {
					t.Errorf("%T run %s %s: fit %v %% one table, %v %% split (%d vs %d samples)", c.m, one[i].ID, one[i].Channels[k].Name, a, b, len(one[i].Channels[k].T), len(two[i].Channels[k].T))
				}
			}
		}
	}
}
