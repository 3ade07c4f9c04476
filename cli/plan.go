package cli

import (
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/wheelgrad/wheelgrad/robots"
)

// `wheelgrad plan` (README, "Contract additions"): energy-efficient motion
// planning for the skid-steer (Ordonez et al. §4.3): SBMPO on the
// slip-calibrated kinematics and the terramechanic power look-up table,
// then a gradient refinement of the plan.
func init() {
	register(command{
		name:    "plan",
		usage:   "plan -model skidsteer -params P.json -start X,Y,PSI -goal X,Y [-obstacles OBS.csv] [-payload KG] [-speed V] [-area XMIN,XMAX,YMIN,YMAX] [-refine=false] [-out PLAN.csv] [-plot F.png]",
		summary: "Energy-efficient path of a skid-steer to a goal around circular obstacles (SBMPO, then gradient refinement); writes the plan CSV.",
		flags: func(fs *flag.FlagSet, reg *robots.Registry) func(env) error {
			var a planArgs
			fs.StringVar(&a.model, "model", "", "robot model: "+strings.Join(planners(reg), ", "))
			fs.StringVar(&a.params, "params", "", "parameter JSON: slip coefficients \"a\", optional \"surface\", \"vehicle\"")
			fs.StringVar(&a.start, "start", "", "start pose X,Y,PSI (m, m, rad)")
			fs.StringVar(&a.goal, "goal", "", "goal position X,Y (m)")
			fs.StringVar(&a.obstacles, "obstacles", "", "obstacles CSV: x,y,r (m)")
			fs.Float64Var(&a.payload, "payload", 0, "extra payload (kg) at the CG")
			fs.Float64Var(&a.speed, "speed", 0.6, "forward speed (m/s)")
			fs.StringVar(&a.area, "area", "", "bounding area XMIN,XMAX,YMIN,YMAX (m); default unbounded")
			fs.BoolVar(&a.refine, "refine", true, "refine the SBMPO plan by gradient")
			fs.StringVar(&a.out, "out", "-", "plan CSV file (- for stdout)")
			fs.StringVar(&a.plot, "plot", "", "PNG file: the planned path and the obstacles")
			return func(e env) error { return runPlan(e, reg, a) }
		},
	})
}

type planArgs struct {
	model, params, start, goal, obstacles, area, out, plot string
	payload, speed                                         float64
	refine                                                 bool
}

func parseFloats(flagName, s string, n int) ([]float64, error) {
	parts := strings.Split(s, ",")
	if len(parts) != n {
		return nil, usagef("-%s wants %d comma-separated numbers, got %q", flagName, n, s)
	}
	out := make([]float64, n)
	for i, p := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, usagef("-%s: %q is not a finite number", flagName, p)
		}
		out[i] = v
	}
	return out, nil
}

// planners lists the registry's models that plan (robots.Planner).
func planners(reg *robots.Registry) []string {
	var out []string
	for _, n := range reg.Names() {
		if m, _ := reg.Get(n); m != nil {
			if _, ok := m.(robots.Planner); ok {
				out = append(out, n)
			}
		}
	}
	return out
}

func runPlan(e env, reg *robots.Registry, a planArgs) error {
	names := strings.Join(planners(reg), ", ")
	if a.model == "" {
		return usagef("-model is required (%s)", names)
	}
	m, _ := reg.Get(a.model)
	pl, ok := m.(robots.Planner)
	if !ok {
		return usagef("plan supports -model %s only, not %q", names, a.model)
	}
	for _, r := range [][2]string{{"params", a.params}, {"start", a.start}, {"goal", a.goal}} {
		if err := required(r[0], r[1]); err != nil {
			return err
		}
	}
	if err := e.declareFiles([]flagPath{{"params", a.params}, {"obstacles", a.obstacles}}, []flagPath{{"out", a.out}, {"plot", a.plot}}); err != nil {
		return err
	}
	st, err := parseFloats("start", a.start, 3)
	if err != nil {
		return err
	}
	gl, err := parseFloats("goal", a.goal, 2)
	if err != nil {
		return err
	}
	req := robots.PlanRequest{ParamsPath: a.params, Start: [3]float64{st[0], st[1], st[2]}, Goal: [2]float64{gl[0], gl[1]},
		ObstaclesPath: a.obstacles, Payload: a.payload, Speed: a.speed, Refine: a.refine, Plot: a.plot != ""}
	if a.area != "" {
		b, err := parseFloats("area", a.area, 4)
		if err != nil {
			return err
		}
		if !(b[0] < b[1] && b[2] < b[3]) {
			return usagef("-area wants XMIN < XMAX and YMIN < YMAX")
		}
		copy(req.Area[:], b)
	}
	plan, err := pl.Plan(req)
	if err != nil {
		return modelErr(err)
	}
	for _, l := range plan.Lines {
		fmt.Fprintln(e.stderr, l)
	}
	if err := e.writeOut(a.out, plan.Write); err != nil {
		return err
	}
	if a.plot != "" && plan.Figure != nil {
		return e.drawFigure(a.plot, plan.Figure)
	}
	return nil
}
