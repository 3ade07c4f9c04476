package pioneer_test

import (
	"fmt"
	"log"
	"math"

	"github.com/wheelgrad/wheelgrad/models/pioneer"
)

// A Pioneer 3DX log (testdata/gen.go: the independent true robot of package
// p3dx through a reversal and a minute of navigation, 100-ms rows with
// time-stamp jitter, one traj per drive): ReadLog splits it into runs,
// Identify fits the experimental form (Ivanjko et al.) with its delay, and
// Simulate predicts the measured velocities.
func Example() {
	runs, err := pioneer.ReadLog("testdata/p3dx.csv", pioneer.LogOptions{NeedMeasured: true})
	if err != nil {
		log.Fatal(err)
	}
	p := pioneer.Default(pioneer.FormExperimental)
	var rs []*pioneer.Run
	for i := range runs {
		r := &runs[i]
		if err := r.Check(p.Ts); err != nil {
			log.Fatal(r.Err(err)) // names the file and line of a bad row
		}
		rs = append(rs, r)
		fmt.Printf("run %s: %d rows\n", r.ID, len(r.T))
	}
	res, err := pioneer.Identify(p, rs, pioneer.IdentifyOptions{Delays: []int{1, 2, 3}, Temps: []float64{0.02, 0.002}, MaxIter: 60})
	if err != nil {
		log.Fatal(err)
	}
	dv, dw := res.Params.DelaySeconds()
	fmt.Printf("delay in all: v %.2f s, w %.2f s\n", dv, dw)
	fmt.Printf("loss %.2g, at the start %.2g\n", res.Loss, res.Start)

	for _, r := range rs {
		v, _, err := pioneer.Simulate(res.Params, r)
		if err != nil {
			log.Fatal(r.Err(err))
		}
		var s float64
		for k := range v {
			s += (v[k] - r.V[k]) * (v[k] - r.V[k])
		}
		fmt.Printf("run %s: v predicted within %.3f m/s (RMS)\n", r.ID, math.Sqrt(s/float64(len(v))))
	}
	// Output:
	// run reversal: 465 rows
	// run navigation: 600 rows
	// delay in all: v 0.27 s, w 0.26 s
	// loss 0.0021, at the start 0.0044
	// run reversal: v predicted within 0.006 m/s (RMS)
	// run navigation: v predicted within 0.007 m/s (RMS)
}
