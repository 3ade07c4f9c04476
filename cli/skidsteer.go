package cli

import "github.com/wheelgrad/wheelgrad/robots"

// Model skidsteer runs through its robots adapter (robots.SkidSteer:
// simulate, validate, identify, plan). What is left here is follow's.

// readSkidsteerParams reads a skid-steer parameter file through the
// adapter (its warnings printed), for followSkidSteer until follow runs
// through robots.Driver.
func readSkidsteerParams(e env, path string, needA bool) (robots.SkidSteerParams, error) {
	use := robots.ForStart
	if needA {
		use = robots.ForPrediction
	}
	p, err := readParams(e, robots.SkidSteer{}, path, use)
	if err != nil {
		return robots.SkidSteerParams{}, err
	}
	return p.(robots.SkidSteerParams), nil
}
