package robots_test

import (
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"

	"github.com/wheelgrad/wheelgrad/control"
	"github.com/wheelgrad/wheelgrad/robots"
)

// The Mecanum robot driven along a 10-s circle: read it from a parameter
// file, plan two control segments a second, synthesise the wheel commands,
// and write them as the controls CSV that simulate reads.
func ExamplePlanWheelFollow() {
	dir, err := os.MkdirTemp("", "follow")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	params := filepath.Join(dir, "p.json")
	if err := os.WriteFile(params, []byte(`{"model": "mecanum", "mu": [0.6, 0.7, 0.8, 0.9]}`), 0o644); err != nil {
		log.Fatal(err)
	}
	model, _, err := robots.Mecanum{}.ReadDrive(params)
	if err != nil {
		log.Fatal(err)
	}
	f, err := robots.PlanWheelFollow(robots.WheelFollowRequest{Model: model, Path: control.Circle{R: 0.5, T: 10},
		Mode: control.Tangent, Start: control.Pose{Theta: -math.Pi / 2}, Rate: 2, Dt: 1.0 / 240, Wmax: 30})
	if err != nil {
		log.Fatal(err)
	}
	if err := f.Synthesize(); err != nil {
		log.Fatal(err)
	}
	out, err := os.Create(filepath.Join(dir, "controls.csv"))
	if err != nil {
		log.Fatal(err)
	}
	defer out.Close()
	if err := f.WriteControls(out); err != nil {
		log.Fatal(err)
	}
	tr := f.Synthesis.Predicted.Tracking
	fmt.Printf("%d segments of %d steps; predicted within 1 mm of the circle: %v\n", f.Plan.K, f.Plan.N, tr.Max < 0.001)
	// Output: 20 segments of 120 steps; predicted within 1 mm of the circle: true
}
