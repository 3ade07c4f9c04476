// Command cli is wheelgrad with one more model: the own model of
// experiments/own-model (unicycle.Robot, a velocity lag against Coulomb
// friction driving a unicycle), registered as -model unicycle beside the
// built-in ones. It takes every command and flag of wheelgrad:
//
//	go run ./experiments/own-model/cli identify -model unicycle -data log.csv -out p.json
//	go run ./experiments/own-model/cli validate -model unicycle -params p.json -data held-out.csv
//	go run ./experiments/own-model/cli simulate -model unicycle -params p.json -controls log.csv
//
// The log has columns t, u, w (the commands), x, y (the tracker, empty
// where it took no sample) and optionally traj (docs/own-model.md).
package main

import (
	"fmt"
	"os"

	"github.com/wheelgrad/wheelgrad/cli"
	"github.com/wheelgrad/wheelgrad/experiments/own-model/unicycle"
	"github.com/wheelgrad/wheelgrad/fit"
	"github.com/wheelgrad/wheelgrad/robots"
)

// Unicycle is the own model as the toolkit sees it: what the step does not
// say itself (units, start values, bounds, which setting is the step).
var Unicycle = robots.StepModel{
	Name:    "unicycle",
	Summary: "a user's own model: velocity lag (tau, k) against Coulomb friction c, driving a unicycle",
	Model:   unicycle.Robot,
	Params: []fit.Param{
		{Name: "tau", Unit: "s", Value: 0.5, Lower: 0.02, Upper: 5},
		{Name: "k", Unit: "1", Value: 1, Lower: 0.2, Upper: 5},
		{Name: "c", Unit: "m/s²", Value: 0.3, Lower: 0, Upper: 5},
	},
	Dt:        "dt", // the log's step goes into the setting dt
	Outputs:   []robots.Output{{Name: "x", Unit: "m"}, {Name: "y", Unit: "m"}},
	AfterStep: true,                      // x, y are the pose after the step
	Pose:      [3]string{"x", "y", "th"}, // the planar pose lanes
}

func main() {
	m, err := robots.NewStepModel(Unicycle)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(cli.Main(os.Args[1:], robots.Default().With(m)))
}
