package sbmpo

import (
	"errors"
	"math"
	"time"

	"github.com/wheelgrad/wheelgrad/dyn"
	"github.com/wheelgrad/wheelgrad/models/skidsteer"
	"github.com/wheelgrad/wheelgrad/opt"
)

// RefineWeights are the penalties of the plan refinement (energy in J).
type RefineWeights struct {
	Goal      float64 // J/m² on the distance beyond half the goal radius [1e4]
	Clearance float64 // J/m² on intrusion into an obstacle's disc plus Margin [1e5]
	Margin    float64 // m kept clear beyond the robot radius [0.05]
	Smooth    float64 // J/(rad/s)² on yaw-rate changes between segments [5]
	MinDt     float64 // shortest segment (s) [0.05]
	MaxDt     float64 // longest segment, as a multiple of the planner's Dt [3]
}

func (w RefineWeights) defaults() RefineWeights {
	if w.Goal == 0 {
		w.Goal = 1e4
	}
	if w.Clearance == 0 {
		w.Clearance = 1e5
	}
	if w.Margin == 0 {
		w.Margin = 0.05
	}
	if w.Smooth == 0 {
		w.Smooth = 5
	}
	if w.MinDt == 0 {
		w.MinDt = 0.05
	}
	if w.MaxDt == 0 {
		w.MaxDt = 3
	}
	return w
}

// RefineInfo reports a refinement.
type RefineInfo struct {
	Accepted   bool    // the refined plan is collision-free, reaches the goal and costs less
	Before     float64 // SBMPO's energy (J)
	After      float64 // the refined plan's energy (J)
	Clearance  float64 // smallest clearance of the refined plan (m)
	Iterations int
	Elapsed    time.Duration
}

// refineObjective is the refinement's loss over x = [ω_c per segment, Δt per
// segment]: the plan's energy Σ P(ω_c,k)·Δt_k from the look-up table plus
// the penalties, and its gradient. The poses come from the skid-steer's own
// step (skidsteer.Model rolled out by dyn.Sim, SubSteps Euler steps per
// segment) and the gradient from its generated reverse pass, seeded with
// the penalties' adjoints on the poses. Not safe for concurrent use.
type refineObjective struct {
	q     EnergyPlanner
	w     RefineWeights
	start skidsteer.Pose
	goal  [2]float64
	vc    float64

	sim                     *dyn.Sim // of len(x)/2·SubSteps steps
	x0, u, ybar, xbar, ubar []float64
	pbar                    []float64
}

// pose is the pose after step i of the last rollout (0: the start).
func (o *refineObjective) pose(i int) skidsteer.Pose {
	x := o.sim.State(i)
	return skidsteer.Pose{X: x[0], Y: x[1], Psi: x[2]}
}

func (o *refineObjective) eval(x, grad []float64) (float64, error) {
	n := len(x) / 2
	q, w := &o.q, o.w
	wc, dt := x[:n], x[n:]
	S := q.SubSteps
	T := n * S
	m := skidsteer.Model
	if o.sim == nil || o.sim.T != T {
		o.sim = m.NewSim(1, T)
		o.u, o.ubar = make([]float64, m.NU()*T), make([]float64, m.NU()*T)
		o.ybar, o.xbar, o.pbar = make([]float64, m.NY()*T), make([]float64, m.NS()), make([]float64, m.NP())
	}
	o.x0 = append(o.x0[:0], o.start.X, o.start.Y, o.start.Psi)
	f := 0.0
	for k := range n {
		pw, _, _ := q.Table.Power(wc[k])
		f += pw * dt[k]
		for s := range S {
			t := k*S + s
			o.u[3*t], o.u[3*t+1], o.u[3*t+2] = o.vc, wc[k], dt[k]/float64(S)
		}
	}
	a := q.A[:]
	if _, err := o.sim.Forward(a, nil, o.x0, o.u, nil); err != nil {
		return 0, err
	}
	// penalties on the poses after each step, with their adjoints
	lx := make([]float64, T+1)
	ly := make([]float64, T+1)
	for i := 1; i <= T; i++ {
		p := o.pose(i)
		for _, ob := range q.Obstacles {
			dx, dy := p.X-ob.X, p.Y-ob.Y
			d := math.Hypot(dx, dy)
			c := ob.R + q.RobotRadius + w.Margin - d
			if c > 0 && d > 0 {
				f += w.Clearance * c * c
				lx[i] += -2 * w.Clearance * c * dx / d
				ly[i] += -2 * w.Clearance * c * dy / d
			}
		}
		if b := q.Bounds; b != [4]float64{} {
			m := q.RobotRadius
			for _, e := range [4]struct {
				v, s float64
				x    bool
			}{{b[0] + m - p.X, -1, true}, {p.X - (b[1] - m), 1, true}, {b[2] + m - p.Y, -1, false}, {p.Y - (b[3] - m), 1, false}} {
				if e.v > 0 {
					f += w.Clearance * e.v * e.v
					if e.x {
						lx[i] += 2 * w.Clearance * e.v * e.s
					} else {
						ly[i] += 2 * w.Clearance * e.v * e.s
					}
				}
			}
		}
	}
	end := o.pose(T)
	gx, gy := end.X-o.goal[0], end.Y-o.goal[1]
	if d := math.Hypot(gx, gy); d > q.GoalRadius/2 {
		e := d - q.GoalRadius/2
		f += w.Goal * e * e
		lx[T] += 2 * w.Goal * e * gx / d
		ly[T] += 2 * w.Goal * e * gy / d
	}
	for k := 0; k+1 < n; k++ {
		d := wc[k+1] - wc[k]
		f += w.Smooth * d * d
	}
	if grad == nil {
		return f, nil
	}
	clear(grad)
	for k := 0; k+1 < n; k++ {
		d := wc[k+1] - wc[k]
		grad[k+1] += 2 * w.Smooth * d
		grad[k] -= 2 * w.Smooth * d
	}
	// The model's outputs are the pose at the start of each step: the pose
	// after step i < T is output i, the last one the final state.
	for i := 1; i < T; i++ {
		o.ybar[i], o.ybar[T+i] = lx[i], ly[i] // outputs x, y over the steps
	}
	o.xbar[0], o.xbar[1] = lx[T], ly[T]
	o.sim.Backward(a, nil, o.u, o.ybar, 0, o.xbar, o.pbar, nil, o.ubar)
	for k := range n {
		pw, dpw, _ := q.Table.Power(wc[k])
		grad[k] += dpw * dt[k]
		grad[n+k] += pw
		for s := range S {
			t := k*S + s
			grad[k] += o.ubar[3*t+1]
			grad[n+k] += o.ubar[3*t+2] / float64(S)
		}
	}
	return f, nil
}

// Refine lowers the energy of an SBMPO plan by gradient: the yaw rate and
// the duration of every segment are optimised by L-BFGS-B (yaw rates within
// the MTR's bound) on the energy plus penalties for obstacle clearance,
// reaching the goal and unsmooth commands. The refined plan is accepted only
// if it is collision-free, ends within the goal radius and costs less than
// the input; otherwise the input plan is returned, with Accepted false.
func (p *EnergyPlanner) Refine(plan *EnergyPlan, goal [2]float64, w RefineWeights) (*EnergyPlan, RefineInfo, error) {
	t0 := time.Now()
	if err := p.check(); err != nil {
		return nil, RefineInfo{}, err
	}
	if plan == nil || len(plan.Wc) == 0 || len(plan.Poses) != len(plan.Wc)+1 {
		return nil, RefineInfo{}, errors.New("sbmpo: refine needs a plan of at least one segment")
	}
	q := p.defaults()
	w = w.defaults()
	n := len(plan.Wc)
	wmax := q.MaxYawRate()
	x := make([]float64, 2*n)
	lo := make([]float64, 2*n)
	hi := make([]float64, 2*n)
	for k := range n {
		x[k], x[n+k] = plan.Wc[k], plan.Dt[k]
		lo[k], hi[k] = -wmax, wmax
		lo[n+k], hi[n+k] = w.MinDt, w.MaxDt*q.Dt
	}
	obj := &refineObjective{q: q, w: w, start: plan.Poses[0], goal: goal, vc: plan.Vc}
	info := RefineInfo{Before: plan.Energy, After: plan.Energy}
	res, err := opt.LBFGSB{}.Minimize(opt.Problem{Objective: obj.eval, Lower: lo, Upper: hi}, x,
		opt.Settings{MaxIterations: 300, FunctionTol: 1e-9, GradientTol: 1e-6})
	if err != nil {
		return nil, info, err
	}
	info.Iterations = res.Iterations
	out := &EnergyPlan{Vc: plan.Vc, Wc: append([]float64(nil), res.X[:n]...), Dt: append([]float64(nil), res.X[n:]...),
		Poses: []skidsteer.Pose{plan.Poses[0]}, Expanded: plan.Expanded}
	q.evaluate(out)
	hit, clear := q.Collides(out)
	info.Clearance = clear
	end := out.Poses[len(out.Poses)-1]
	reached := math.Hypot(end.X-goal[0], end.Y-goal[1]) <= q.GoalRadius
	info.Elapsed = time.Since(t0)
	if hit || !reached || out.Energy >= plan.Energy {
		return plan, info, nil
	}
	info.Accepted, info.After = true, out.Energy
	out.Elapsed = plan.Elapsed + info.Elapsed
	return out, info, nil
}
