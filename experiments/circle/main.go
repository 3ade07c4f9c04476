// Command circle reproduces Luo et al. §VII-B, Fig. 8: the robot drives a
// circle of radius 0.5 m in 40 s facing along the path. Same pipeline as
// the figure8 experiment.
//
//	go run ./experiments/circle [-out DIR]
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/wheelgrad/wheelgrad/control"
	"github.com/wheelgrad/wheelgrad/experiments/internal/pathexp"
)

func main() {
	out := flag.String("out", "out/circle", "directory for the PNGs")
	quick := flag.Bool("quick", false, "short MPC re-plans (smoke test)")
	flag.Parse()
	_, err := pathexp.Run(pathexp.Config{Name: "circle", Path: control.Circle{R: 0.5, T: 40},
		Heading: control.Tangent, Theta0: -1.5708, Out: *out, Quick: *quick}, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "circle:", err)
		os.Exit(1)
	}
}
