package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/fit"
)

// validate -plot with many runs: no legend entry per run past a handful;
// the runs drawn as two groups and the worst three labelled by their traj
// and endpoint error (issue 28, Deliver 5).
func TestValidatePlotLegendScales(t *testing.T) {
	for _, n := range []int{3, 180} {
		var ch fit.Channel
		ch.Name, ch.Unit = "x", "m"
		var runs []fit.RunMetrics
		for r := range n {
			for k := range 5 {
				ch.T = append(ch.T, float64(k))
				ch.Meas = append(ch.Meas, float64(k+r))
				ch.Pred = append(ch.Pred, float64(k))
				ch.Run = append(ch.Run, r)
			}
			runs = append(runs, fit.RunMetrics{ID: fmt.Sprint(1000 + r), Endpoint: float64(r % 97)})
		}
		ps := channelPanels([]fit.Channel{ch}, runs)
		var names []string
		for _, s := range ps[0].Series {
			if s.Name != "" {
				names = append(names, s.Name)
			}
		}
		for _, s := range ps[1].Series {
			if s.Name != "" {
				t.Errorf("%d runs: a residual series in the legend: %q", n, s.Name)
			}
		}
		switch n {
		case 3:
			if len(names) != 6 || names[0] != "run 1000 measured" {
				t.Errorf("3 runs: legend %q, want each run by its id", names)
			}
		default:
			want := []string{"measured (180 runs)", "model", "run 1096 (endpoint 96 m)", "run 1095 (endpoint 95 m)", "run 1094 (endpoint 94 m)"}
			if strings.Join(names, "|") != strings.Join(want, "|") {
				t.Errorf("180 runs: legend %q,\nwant %q", names, want)
			}
		}
	}
}

// A figure that still fails to draw names the figure, and says that
// nothing was written and that the results are there without -plot
// (issue 28, Deliver 1).
func TestPlotFailureNamesTheFigure(t *testing.T) {
	ch := fit.Channel{Name: "x", Unit: "m", T: []float64{0, 1}, Meas: []float64{0, 1}, Pred: []float64{0, 1}, Run: []int{0, 0}}
	err := plotChannels(failWriter{}, "png", "skidsteer: w.csv predicted", []fit.Channel{ch}, nil)
	if err == nil || !strings.Contains(err.Error(), `figure "skidsteer: w.csv predicted"`) || !strings.Contains(err.Error(), "nothing written") || !strings.Contains(err.Error(), "without -plot") {
		t.Errorf("error %v", err)
	}
}
