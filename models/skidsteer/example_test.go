package skidsteer_test

import (
	"fmt"
	"log"
	"math"

	"github.com/wheelgrad/wheelgrad/models/skidsteer"
)

// A log in two streams, as robots record them: commands vc, wc at 20 Hz in
// one file, visual-odometry poses at 10 Hz with their own time stamps in
// another (testdata/gen.go: 150 s on grass, Ordonez et al. Table 2, with
// terrain disturbances and drifting odometry). ReadLog merges the poses by
// time; IPEM calibrates the slip coefficients; Simulate predicts.
func Example() {
	runs, err := skidsteer.ReadLog("testdata/commands.csv", skidsteer.LogOptions{Sensors: "testdata/vo.csv"})
	if err != nil {
		log.Fatal(err)
	}
	l := runs[0].Log
	fmt.Printf("%d run, %d rows, %d with a pose\n", len(runs), len(l.T), len(l.PoseRows()))

	cal, _, err := skidsteer.Calibrate(l, skidsteer.IPEMConfig{}, nil)
	if err != nil {
		log.Fatal(runs[0].Err(err)) // names the file and line of a bad row
	}
	p := cal.Params()
	grass, _ := skidsteer.SurfaceByName("grass")
	fmt.Printf("a11 = %.2f (truth %.2f), a32 = %.2f (truth %.2f)\n", p.A[0][0], grass.A[0], p.A[2][1], grass.A[7])

	// 2-s predictions from every pose: nominal (no slip) and calibrated
	nominal := skidsteer.RMS(skidsteer.PredictionErrors(l, make([]float64, skidsteer.NumCoeffs), 2, 1))
	calibrated := skidsteer.RMS(skidsteer.PredictionErrors(l, p.Coeffs(), 2, 1))
	fmt.Printf("2-s prediction error: nominal %.2f m, calibrated %.2f m\n", nominal, calibrated)

	// open loop from the first pose over the first 30 s
	k, end := l.PoseRows()[0], l.PoseRows()[300]
	for _, m := range []struct {
		name string
		p    skidsteer.Params
	}{{"nominal", skidsteer.Params{}}, {"calibrated", p}} {
		tr, err := skidsteer.Simulate(m.p, l.Pose[k], l.T[k:end+1], l.Vc[k:end+1], l.Wc[k:end+1])
		if err != nil {
			log.Fatal(err)
		}
		last := tr[len(tr)-1]
		fmt.Printf("%s, %.0f s open loop: %.2f m from the measured pose\n", m.name, l.T[end]-l.T[k], math.Hypot(last.X-l.Pose[end].X, last.Y-l.Pose[end].Y))
	}
	// Output:
	// 1 run, 4478 rows, 1501 with a pose
	// a11 = 0.02 (truth 0.01), a32 = -0.33 (truth -0.34)
	// 2-s prediction error: nominal 0.07 m, calibrated 0.01 m
	// nominal, 30 s open loop: 1.49 m from the measured pose
	// calibrated, 30 s open loop: 0.03 m from the measured pose
}
