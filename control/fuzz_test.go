package control

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzWaypoints feeds arbitrary REF.csv files to ReadWaypoints. It must
// never panic; a refusal names the file; an accepted path has a positive
// finite duration and no step between waypoints faster than
// MaxWaypointSpeed; unless CheckSteps refuses it as too long, its positions
// and velocities are finite along it and it plans within MaxSteps or is
// refused by the planner with an error.
func FuzzWaypoints(f *testing.F) {
	for _, s := range []string{
		"t,x,y\n0,0,0\n1,0.5,0\n2,1,0.5\n",
		"t,x,y,theta\n0,0,0,0\n1,0.1,0,0.1\n2,0.2,0.1,6.3\n",
		"# a comment\nT,X,Y\n0,0,0\n0.25,0.01,0.02\n",
		"t,x,y\n0,0,0\n1,0.5,0\n2,1000000,0\n",
		"t,x,y\n0,0,0\n1e9,1,1\n",
		"t,x,y\n0,0,0\n1e-300,0,0\n",
		"t,x,y\n-5,1e300,-1e300\n5,1e300,-1e300\n",
		"t,x,y\n0,0,0\n",
		"x,y,t\n1,2,3\n1,2,NaN\n",
	} {
		f.Add(s)
	}
	m := testDrive
	f.Fuzz(func(t *testing.T, csv string) {
		file := filepath.Join(t.TempDir(), "ref.csv")
		if err := os.WriteFile(file, []byte(csv), 0o644); err != nil {
			t.Fatal(err)
		}
		w, err := ReadWaypoints(file)
		if err != nil {
			if !strings.Contains(err.Error(), file) {
				t.Fatalf("%q: error %q does not name the file", csv, err)
			}
			return
		}
		d := w.Duration()
		if !(d > 0) || math.IsInf(d, 0) {
			t.Fatalf("%q: duration %v", csv, d)
		}
		for i := 1; i < len(w.t); i++ {
			if v := math.Hypot(w.x.y[i]-w.x.y[i-1], w.y.y[i]-w.y.y[i-1]) / (w.t[i] - w.t[i-1]); v > MaxWaypointSpeed {
				t.Fatalf("%q: %g m/s between waypoints %d and %d", csv, v, i-1, i)
			}
		}
		if err := CheckSteps(file, d, 1.0/240); err != nil {
			return // too long to plan: At is never asked for
		}
		for i := range 11 {
			x, y, vx, vy := w.At(d * float64(i) / 10)
			for _, v := range []float64{x, y, vx, vy} {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("%q: At(%g) = %v %v %v %v", csv, d*float64(i)/10, x, y, vx, vy)
				}
			}
		}
		p, err := NewPlan(m, w, Tangent, 0, 4, 1.0/240, 30)
		if err != nil {
			return
		}
		if p.K < 1 || float64(p.K*p.N) > MaxSteps {
			t.Fatalf("%q: plan of %d × %d steps", csv, p.K, p.N)
		}
	})
}
