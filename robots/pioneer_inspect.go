package robots

import "github.com/wheelgrad/wheelgrad/models/pioneer"

var _ Inspector = Pioneer{}

// Inspect checks which logged channels are the references v_ref, w_ref:
// the eight signed orders of the two channels ranked by the start model's
// (the parameters given, else the experimental form's defaults) 2-s
// prediction error of the positions dead-reckoned from v, ω
// (pairInspect).
func (Pioneer) Inspect(req InspectRequest) (*Inspection, error) {
	p := pioneer.Default(pioneer.FormExperimental)
	if req.Params != nil {
		var err error
		if p, err = pioneerParams(req.Params); err != nil {
			return nil, err
		}
	}
	return pairInspect("pioneer", Pioneer{}, p, [2]string{pioneer.Commands[0], pioneer.Commands[1]}, req)
}
