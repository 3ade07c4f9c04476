package robots

import (
	"fmt"

	"github.com/wheelgrad/wheelgrad/models/skidsteer"
)

// The skid-steer's follow (robots.Driver): commanded speed vc and yaw rate
// wc through the slip kinematics of Ordonez et al. (eqs. 2–3), at any step.

var _ Driver = SkidSteer{}

// skidSteerDriveParams is p as the model package's Params (a value or a
// pointer).
func skidSteerDriveParams(p Params) (skidsteer.Params, error) {
	switch q := p.(type) {
	case skidsteer.Params:
		return q, nil
	case *skidsteer.Params:
		if q != nil {
			return *q, nil
		}
	}
	return skidsteer.Params{}, fmt.Errorf("robots: skidsteer: parameters of type %T, want skidsteer.Params", p)
}

// DriveFlags: the command bounds -wmax and -vmax.
func (SkidSteer) DriveFlags() []string { return []string{"wmax", "vmax"} }

// Drive plans commands |vc| ≤ Vmax (default DefaultSkidSteerVmax) and
// |wc| ≤ Wmax (default DefaultSkidSteerWmax) at the step Dt, which must be
// positive; the plan's robot is also the exact one (the model has no
// friction surrogate). Truth, the simulated true robot of -mpc, takes the
// same bounds.
func (SkidSteer) Drive(params Params, o DriveOptions) (*Drive, error) {
	p, err := skidSteerDriveParams(params)
	if err != nil {
		return nil, err
	}
	wmax, vmax := DefaultSkidSteerWmax, DefaultSkidSteerVmax
	if o.Set["wmax"] {
		wmax = o.Wmax
	}
	if o.Set["vmax"] {
		vmax = o.Vmax
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"wmax", wmax}, {"vmax", vmax}} {
		if err := positiveFlag(f.name, f.v); err != nil {
			return nil, err
		}
	}
	if err := positiveFlag("dt", o.Dt); err != nil {
		return nil, err
	}
	r, err := NewSkidSteerRobot(p, vmax, wmax)
	if err != nil {
		return nil, inFile(o.ParamsPath, err)
	}
	d := &Drive{Plan: r, Exact: r, Dt: o.Dt, Columns: []string{"vc", "wc"}, Pose: []string{"x", "y", "psi"}}
	if o.Truth != nil {
		tp, err := skidSteerDriveParams(o.Truth)
		if err != nil {
			return nil, err
		}
		tr, err := NewSkidSteerRobot(tp, vmax, wmax)
		if err != nil {
			return nil, inFile(o.TruthPath, err)
		}
		d.Truth = &tr
	}
	return d, nil
}
