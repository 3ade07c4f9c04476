package robots

import "github.com/wheelgrad/wheelgrad/models/tire"

var _ Inspector = Tire{}

// Inspect checks which logged channels are the wheel speeds wl, wr: the
// eight signed orders of the two channels ranked by the start model's
// (the parameters given, else the Jackal's) 2-s prediction error
// (pairInspect).
func (Tire) Inspect(req InspectRequest) (*Inspection, error) {
	p := tire.Jackal()
	if req.Params != nil {
		var err error
		if p, err = tireParams(req.Params); err != nil {
			return nil, err
		}
	}
	return pairInspect("tire", Tire{}, p, [2]string{tire.Commands[0], tire.Commands[1]}, req)
}
