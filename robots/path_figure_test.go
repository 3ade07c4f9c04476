package robots

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// simulate -plot for the skid-steer: the predicted path over the measured
// poses, with the RMS at the measured poses, and a legend that stays short
// for many runs (issue 28, Deliver 5).
func TestSkidSteerSimulatePlot(t *testing.T) {
	var s strings.Builder
	s.WriteString("traj,t,vc,wc,x,y,psi\n")
	for r := range 8 {
		for k := range 5 {
			// measured 0.1 m ahead of the nominal model at the end
			x := 0.5 * 0.1 * float64(k) * (1 + 0.05*float64(k))
			s.WriteString(strings.Join([]string{string(rune('a' + r)), ftoa(0.1 * float64(k)), "0.5", "0", ftoa(x), "0", "0"}, ",") + "\n")
		}
	}
	log := filepath.Join(t.TempDir(), "log.csv")
	os.WriteFile(log, []byte(s.String()), 0o644)
	sim, err := SkidSteer{}.Simulate(SimulateRequest{Params: SkidSteerParams{}, Source: Source{Path: log}, Plot: true})
	if err != nil {
		t.Fatal(err)
	}
	f := sim.Figure
	if f == nil || !f.Equal || !strings.Contains(f.Title, "over 40 measured poses") {
		t.Fatalf("figure %+v", f)
	}
	var named []string
	for _, x := range f.Series {
		if x.Name != "" {
			named = append(named, x.Name)
		}
	}
	if len(f.Series) != 16 || strings.Join(named, "|") != "measured (8 runs)|prediction" {
		t.Errorf("%d series, legend %q", len(f.Series), named)
	}
	few := PathFigure("p", []PathRun{{ID: "a", PredX: []float64{0}, PredY: []float64{0}}, {ID: "b", PredX: []float64{0}, PredY: []float64{0}}})
	if few.Series[0].Name != "run a prediction" || few.Series[1].Name != "run b prediction" {
		t.Errorf("two runs: %q, %q", few.Series[0].Name, few.Series[1].Name)
	}
}

func ftoa(v float64) string { return strings.TrimRight(strings.TrimRight(strconvF(v), "0"), ".") }

func strconvF(v float64) string { return strconv.FormatFloat(v, 'f', 6, 64) }
