package robots

import (
	"github.com/wheelgrad/wheelgrad/models/diffdrive"
	"github.com/wheelgrad/wheelgrad/models/diffdrive/calibrate"
)

var _ Inspector = DiffDrive{}

// Inspect checks which logged channels are the commands uf, ul: the eight
// signed orders of the two channels ranked by the start model's (the
// parameters given, else Park et al.'s) 2-s prediction error of the
// positions dead-reckoned from v, ω (pairInspect). The log must be sampled
// uniformly at the model's h, as for validate.
func (DiffDrive) Inspect(req InspectRequest) (*Inspection, error) {
	p := diffdrive.Paper()
	if req.Params != nil {
		var err error
		if p, err = diffDriveParams(req.Params); err != nil {
			return nil, err
		}
	}
	return pairInspect("diffdrive", DiffDrive{}, p, [2]string{calibrate.Commands[0], calibrate.Commands[1]}, req)
}
