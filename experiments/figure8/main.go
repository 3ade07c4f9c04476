// Command figure8 reproduces Luo et al. §VII-B, Fig. 9: the robot drives a
// figure 8 of 40 s with the right lobe backwards and the left lobe forwards.
// It identifies μ from simulated logs of a robot whose friction depends on
// the command, plans with the identified model, and tabulates the tracking
// error of the open-loop plan, of MPC and of the paper's data-driven network,
// all executed on the "true" robot.
//
//	go run ./experiments/figure8 [-out DIR]
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/wheelgrad/wheelgrad/control"
	"github.com/wheelgrad/wheelgrad/experiments/internal/pathexp"
)

func main() {
	out := flag.String("out", "out/figure8", "directory for the PNGs")
	quick := flag.Bool("quick", false, "short MPC re-plans (smoke test)")
	flag.Parse()
	_, err := pathexp.Run(pathexp.Config{Name: "figure8", Path: control.Figure8{A: 1, T: 40},
		Heading: control.Figure8ReverseRight, Theta0: 2.35619, Out: *out, Quick: *quick}, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "figure8:", err)
		os.Exit(1)
	}
}
