package tire_test

import (
	"fmt"
	"log"
	"math"

	"github.com/wheelgrad/wheelgrad/models/tire"
)

// A Jackal's log (testdata/gen.go: a U-turn and a paperclip on carpet,
// Westerhout et al. Table I, with encoder and motion-capture noise and
// time-stamp jitter; one traj per maneuver): ReadLog splits it into runs,
// Identify fits μ, Kx, Ky of the Dugoff tyres (truth 0.45, 220, 160) from
// the Jackal defaults, and
// Simulate rolls the identified model out.
func Example() {
	runs, err := tire.ReadLog("testdata/jackal.csv", tire.LogOptions{})
	if err != nil {
		log.Fatal(err)
	}
	var rs []*tire.Run
	for i := range runs {
		rs = append(rs, &runs[i])
		fmt.Printf("run %s: %d rows, %.1f s\n", runs[i].ID, len(runs[i].T), runs[i].T[len(runs[i].T)-1]-runs[i].T[0])
	}
	res, err := tire.Identify(tire.Jackal(), rs, tire.IdentifyOptions{})
	if err != nil {
		log.Fatal(err)
	}
	for k, name := range res.Free {
		fmt.Printf("%s = %.3g\n", name, res.Value[k])
	}
	fmt.Printf("position RMS %.1f mm\n", 1e3*res.PoseRMS)

	// the identified model, open loop from the first run's first pose
	r := rs[0]
	st, err := tire.Simulate(res.Params, r)
	if err != nil {
		log.Fatal(r.Err(err)) // names the file and line of a bad row
	}
	k := len(r.T) - 1
	for math.IsNaN(r.X[k]) { // the last row with a pose
		k--
	}
	fmt.Printf("end of %s: %.0f mm from the measured pose\n", r.ID, 1e3*math.Hypot(st[k][0]-r.X[k], st[k][1]-r.Y[k]))
	// Output:
	// run u-turn-left-2: 794 rows, 7.9 s
	// run paperclip-4: 1201 rows, 12.0 s
	// mu = 0.452
	// Kx = 223
	// Ky = 162
	// position RMS 1.4 mm
	// end of u-turn-left-2: 2 mm from the measured pose
}
