package robots

import (
	"errors"
	"fmt"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/fit"
)

// What `wheelgrad identify` does around a model's Identify, for every face
// that must give the same result (the command line, the fleet pipeline):
// the options at their defaults, which outcome writes no parameters, and
// the parameter file's bytes.

// DefaultOptions are id's own options at their defaults, as the command
// line passes them when none of the model's flags is given (a Bool option:
// "false").
func DefaultOptions(id Identifier) map[string]string {
	out := map[string]string{}
	for _, o := range id.Options() {
		out[o.Name] = o.Default
		if o.Bool {
			out[o.Name] = "false"
		}
	}
	return out
}

// Failure is the error that stops an identification's outputs: the
// refusal of undetermined parameters (Refused), or an Outcome that is not
// a fit.UnconvergedError. An unconverged fit is no failure: its parameters
// are written with their status (the command line then exits with status
// 3 unless -allow-unconverged).
func (o *Identified) Failure() error {
	if o.Refused != nil {
		return o.Refused
	}
	var uc fit.UnconvergedError
	if o.Outcome != nil && !errors.As(o.Outcome, &uc) {
		return o.Outcome
	}
	return nil
}

// ParamsFile is the content of the parameter file `identify -out` writes:
// p checked by its Validate method when it has one (parameters the model's
// own simulate would refuse are a failure, never a file), then
// dataset.ParamsJSON with the fit's status (st; nil for none) under
// dataset.FitKey.
func ParamsFile(p Params, st *fit.Status) ([]byte, error) {
	if v, ok := p.(interface{ Validate() error }); ok {
		if err := v.Validate(); err != nil {
			return nil, fmt.Errorf("the fit gives parameters out of the model's range, %v (the log's units or scale?); no parameters written", err)
		}
	}
	var rec any
	if st != nil {
		rec = st
	}
	b, err := dataset.ParamsJSON(p, rec)
	if err != nil {
		return nil, fmt.Errorf("%w: the fit failed", err)
	}
	return b, nil
}
