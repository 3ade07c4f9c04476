package robots

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/models/skidsteer"
)

// A skid-steer log whose commands were logged as a = −wc, b = vc (a
// swapped and sign-flipped wiring): inspect finds the map back, and a
// declared map that reads them as vc = a, wc = b contradicts the motion.
func TestSkidSteerInspectFindsTheWiring(t *testing.T) {
	n := 400
	tt, vc, wc := make([]float64, n), make([]float64, n), make([]float64, n)
	for k := range n {
		tt[k] = 0.05 * float64(k)
		vc[k] = 0.6 + 0.4*math.Sin(0.3*tt[k])
		wc[k] = 0.5 * math.Sin(0.7*tt[k]+0.4)
	}
	poses, err := skidsteer.Simulate(skidsteer.Params{}, skidsteer.Pose{}, tt, vc, wc)
	if err != nil {
		t.Fatal(err)
	}
	var s strings.Builder
	s.WriteString("t,a,b,x,y,psi\n")
	for k := range n {
		fmt.Fprintf(&s, "%.2f,%.6f,%.6f,%.6f,%.6f,%.6f\n", tt[k], -wc[k], vc[k], poses[k].X, poses[k].Y, poses[k].Psi)
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "log.csv")
	if err := os.WriteFile(log, []byte(s.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	declared := skidsteer.Params{CommandMap: &dataset.CommandMap{Columns: []string{"a", "b"}}}
	r, err := SkidSteer{}.Inspect(InspectRequest{Sources: []Source{{Path: log}}, Params: declared, ParamsPath: "p.json", Top: 3})
	if err != nil {
		t.Fatal(err)
	}
	if r.Tried != 8 || len(r.Best) != 3 {
		t.Fatalf("%d maps tried, %d reported", r.Tried, len(r.Best))
	}
	b := r.Best[0]
	if b.Map.Columns[0] != "b" || b.Map.Columns[1] != "a" || b.Map.Scale[0] != 1 || b.Map.Scale[1] != -1 || b.RMS > 1e-6 {
		t.Errorf("best map %+v RMS %g, want vc = b, wc = −a exactly", b.Map, b.RMS)
	}
	if r.Declared == nil || r.DeclaredRank == 1 || !r.Contradicts {
		t.Errorf("the declared map a, b: rank %d, contradicts %v", r.DeclaredRank, r.Contradicts)
	}
	if _, err := (SkidSteer{}).Inspect(InspectRequest{Sources: []Source{{Path: log}}, Channels: []string{"a", "c"}, Top: 1}); err == nil || !strings.Contains(err.Error(), `"c"`) {
		t.Errorf("an absent channel: %v", err)
	}
}
