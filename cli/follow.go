package cli

import (
	"flag"
	"fmt"

	"github.com/wheelgrad/wheelgrad/robots"
)

// `wheelgrad follow` for every robots.Driver of the registry: the
// parameter file (and -mpc's), the model's Drive from the flags, then
// robots.Follow, whose report goes to stderr and whose outputs are
// staged. The true robot's file is read after the plan's Drive has checked
// the flags, as a usage mistake comes first.

func addFollowModelFlags(fs *flag.FlagSet, a *FollowArgs) {
	fs.Float64Var(&a.Umax, "umax", robots.DefaultJoystickMax, "diffdrive: bound on the joystick commands |uf| and |ul|")
	fs.Float64Var(&a.Vmax, "vmax", robots.DefaultSkidSteerVmax, "skidsteer: bound on the commanded speed |vc| (m/s)")
	fs.Float64Var(&a.Band, "band", 0, fmt.Sprintf("diffdrive: band T (m/s²) of the friction surrogate synthesis plans with (default %g·mu; 0: the exact clamp)", robots.DefaultFrictionBand))
}

// followHandler is the follow handler of model's robots.Driver.
func followHandler(reg *robots.Registry, model string) (func(env, FollowArgs) error, bool) {
	m, _ := reg.Get(model)
	dr, ok := m.(robots.Driver)
	if !ok {
		return nil, false
	}
	return func(e env, a FollowArgs) error {
		p, err := readParams(e, m, a.Params, robots.ForPrediction)
		if err != nil {
			return err
		}
		o := robots.DriveOptions{Wmax: a.Wmax, Umax: a.Umax, Vmax: a.Vmax, Band: a.Band, Set: a.Set, Dt: a.Dt, ParamsPath: a.Params}
		d, err := dr.Drive(p, o)
		if err != nil {
			return modelErr(err)
		}
		if a.MPC != "" {
			if o.Truth, err = readParams(e, m, a.MPC, robots.ForPrediction); err != nil {
				return err
			}
			o.TruthPath = a.MPC
			if d, err = dr.Drive(p, o); err != nil {
				return modelErr(err)
			}
		}
		f, err := robots.Follow(m.Name(), d, robots.FollowRequest{Path: a.Path, Duration: a.Duration, Heading: a.Heading,
			Theta0: a.Theta0, Rate: a.Rate, Options: o, Plot: a.Plot != "", Report: e.stderr, Sink: newSink(e, nil, a.Prog)})
		if err != nil {
			return modelErr(err)
		}
		if err := e.writeOut(a.Out, f.WriteControls); err != nil || a.Plot == "" {
			return err
		}
		if err := e.drawFigure(a.Plot, f.Figure); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "follow: wrote %s\n", a.Plot)
		return nil
	}, true
}
