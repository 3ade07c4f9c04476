package robots_test

import (
	"fmt"
	"path/filepath"

	"github.com/wheelgrad/wheelgrad/robots"
)

// Identify a Mecanum robot's wheel friction from a log of commands and a
// separate camera file (generated with μ = 0.62, 0.48, 0.71, 0.55), then
// validate the identified parameters on the same log, as a library user
// (or the command line) does through the adapter.
func ExampleMecanum_IdentifyWith() {
	src := robots.Source{
		Path:  filepath.Join("..", "models", "mecanum", "testdata", "commands.csv"),
		Poses: filepath.Join("..", "models", "mecanum", "testdata", "camera.csv"),
	}
	m := robots.Mecanum{}
	id, err := m.IdentifyWith(robots.IdentifyRequest{Sources: []robots.Source{src}}, robots.DefaultMecanumOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range id.Report.Params {
		fmt.Printf("%s = %.2f (%v)\n", p.Name, p.Value, p.Verdict())
	}
	runs, err := m.Validate(robots.ValidateRequest{Params: id.Params, Sources: []robots.Source{src}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range runs[0].Channels[:2] {
		f, _, _ := c.Fit()
		fmt.Printf("%s: fit above 95 %%: %v\n", c.Name, f > 95)
	}
	// Output:
	// mu1 = 0.62 (determined)
	// mu2 = 0.48 (determined)
	// mu3 = 0.71 (determined)
	// mu4 = 0.55 (determined)
	// x: fit above 95 %: true
	// y: fit above 95 %: true
}
