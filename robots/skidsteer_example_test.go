package robots_test

import (
	"fmt"
	"log"

	"github.com/wheelgrad/wheelgrad/models/skidsteer"
	"github.com/wheelgrad/wheelgrad/robots"
)

// The skid-steer as a library user reaches it: a log in two streams
// (commands at 20 Hz, visual odometry at 10 Hz, 150 s on grass),
// identified by IPEM and validated from an estimated start state.
func ExampleSkidSteer() {
	src := robots.Source{Path: "../models/skidsteer/testdata/commands.csv", Poses: "../models/skidsteer/testdata/vo.csv"}
	m := robots.SkidSteer{}
	out, err := m.Identify(robots.IdentifyRequest{Sources: []robots.Source{src}})
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range out.Report.Params {
		if p.Name == "a32" {
			fmt.Printf("a32 = %.2f ± %.2f (%s)\n", p.Value, p.Std, p.Verdict())
		}
	}
	fmt.Println(out.Report.Lines[0])
	runs, err := m.Validate(robots.ValidateRequest{Params: out.Params.(skidsteer.Params), Sources: []robots.Source{src}})
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range runs[0].Channels {
		f, _, _ := c.Fit()
		fmt.Printf("%s fit %.0f %%\n", c.Name, f)
	}
	// Output:
	// a32 = -0.33 ± 0.02 (determined)
	// 2-s prediction error (RMS): nominal 0.0657 m, calibrated 0.0149 m (140 predictions)
	// x fit 98 %
	// y fit 97 %
	// psi fit 97 %
}
