package mecanum_test

import (
	"fmt"
	"log"
	"math"

	"github.com/wheelgrad/wheelgrad/models/mecanum"
)

// A log in two streams (testdata/gen.go: 8 s of commands at 240 Hz, an
// overhead camera at 60 fps in a file of its own with the heading in
// degrees, time-stamp jitter and camera noise; true μ = 0.62, 0.48, 0.71,
// 0.55): ReadLog merges the camera by time and converts theta_deg, Identify
// fits the four friction coefficients (Luo et al. eq. 8), and Simulate
// predicts the path from the first (noisy) camera pose.
func Example() {
	runs, err := mecanum.ReadLog("testdata/commands.csv", mecanum.LogOptions{NeedPose: true, Sensors: "testdata/camera.csv"})
	if err != nil {
		log.Fatal(err)
	}
	r := &runs[0]
	fmt.Printf("%d run, %d rows, %d camera poses\n", len(runs), r.Len(), len(r.Camera()))

	f, err := mecanum.NewFit(mecanum.DefaultParams(), runs, mecanum.DefaultConfig())
	if err != nil {
		log.Fatal(err)
	}
	res, err := mecanum.Identify(f, mecanum.IdentifyOptions{Init: [4]float64{0.5, 0.5, 0.5, 0.5}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("μ = %.2f, %.2f, %.2f, %.2f\n", res.Mu[0], res.Mu[1], res.Mu[2], res.Mu[3])

	p := mecanum.DefaultParams()
	p.Mu = res.Mu[:]
	x, y, _ := mecanum.Simulate(p, r)
	var s float64
	cam := r.Camera()
	for _, k := range cam {
		s += (x[k]-r.X[k])*(x[k]-r.X[k]) + (y[k]-r.Y[k])*(y[k]-r.Y[k])
	}
	fmt.Printf("path within %.1f mm of the camera (RMS)\n", 1e3*math.Sqrt(s/float64(len(cam))))
	// Output:
	// 1 run, 2400 rows, 481 camera poses
	// μ = 0.62, 0.48, 0.71, 0.55
	// path within 5.8 mm of the camera (RMS)
}
