// Package dyn is wheelgrad's step language: a robot model's discrete step
// state' = f(state, input, params) is written once, in Go, and the
// simulation, the gradient, the Jacobians and the gorgonia op all come from
// that one definition (DESIGN.md, "A model is written once").
//
// A definition is a Go function over scalar expressions (X) of named lanes:
//
//	var Robot = dyn.MustDefine(dyn.Spec{
//		State: []string{"x", "v"}, Input: []string{"u"},
//		Params: []string{"tau"}, Settings: []string{"dt"},
//	}, func(s *dyn.Step) {
//		x, v, dt := s.State("x"), s.State("v"), s.Setting("dt")
//		a := s.Input("u").Sub(v).Div(s.Param("tau"))
//		s.Next("x", x.Add(dt.Mul(v)))
//		s.Next("v", v.Add(dt.Mul(a)))
//	})
//
// The function runs once, at definition, and records its operations (it is
// traced, as JAX traces a Python function); the record is compiled to a
// short list of instructions with common subexpressions shared, constants
// folded and dead code removed. From it come:
//
//   - Sim: the native float64 rollout of B lanes (runs, segments: the batch
//     is the lane, as in Brax) over T steps, allocation-free, and its
//     reverse pass — gradients to the parameters, the initial states and
//     every input (controls) — derived instruction by instruction from the
//     same record (generated, not hand-written).
//   - Stepper: one step of one lane and its Jacobians with respect to state,
//     input and parameters, for EKFs and sensitivity reports; its Filter
//     is the model opt.EKF takes (the step as the process, the outputs as
//     the measurement).
//   - Rollout: a gorgonia op that advances all lanes over all steps in one
//     node, with the generated reverse pass as its backward, so that losses
//     stay ordinary gorgonia graphs around it and long horizons cost one
//     node, not thousands. Final() chains chunks with their adjoints
//     stitched by gorgonia.
//   - A built-in check: the first backward run of a model's Sim or op
//     compares the generated gradient with finite differences of the native
//     rollout at the actual values, along a random direction, and fails the
//     run if they disagree (on by default; WithoutSelfCheck for hot loops).
//     It is right at kinks: the branch of every switch (clamp limits, |·|,
//     min, max, Where) is recorded at the point and at the stencil's
//     points; a side where a switch changes branch is left out (a one-sided
//     difference, the derivative the reverse pass takes at a kink), and
//     where switches lie on both sides the check goes along the parameters
//     alone, lane by lane, or at a point moved off the switches. A failure
//     names the lane, the step and the kernel or instruction that disagree
//     (Model.LastSelfCheck).
//   - Generate: Go source for a Kernel of the model, straight-line forward
//     and reverse code with the time loop inside (the state and its adjoint
//     in registers); registered by the package that defines the model, it
//     runs at the speed of hand-written Go. Its value kernels (Forward,
//     Roll, RollFinal) compute only the taken branch of a Where: the
//     instructions that one branch alone reads sit inside an if on the
//     condition (the diffdrive exact/smoothed friction switch rolls out
//     1.4–7× faster than with both branches computed, medians 1.6–4.7×
//     over Forward and Value, exact and smoothed, in alternated runs on a
//     loaded machine: BenchmarkPoseSwitch); the reverse and tangent
//     kernels, which read
//     the values of both branches, compute both. Without it, an interpreter runs
//     the instructions, each as a loop over the lanes (fast for wide
//     batches, a few nanoseconds per instruction for narrow ones).
//
// Ops: + − × ÷ (methods of X, and with constants: AddC, MulC, …), Sin, Cos,
// Tan, Atan, Atan2, Exp, Log, Log1p, Sqrt, Tanh, Abs, Sign, Copysign, Min,
// Max, Clamp (graph.Clamp's subgradients), Where with the comparisons Gt,
// Ge, Lt, Le, and the friction surrogates of package graph with an explicit
// temperature: Softplus, SoftClamp, TanhClampSym, SmoothAbs. Tables whose
// values (and slopes) can be parameters, held constant beyond their knots,
// with gradients to the inputs and to every table entry: Interp1
// (piecewise linear), Interp2 (bilinear over a grid, a power or friction
// map) and Hermite1 (cubic Hermite, C¹, with given slopes or
// finite-difference ones, as gonum/interp's PiecewiseCubic); they are
// compositions of the ops above (Where and Min per segment), so the
// interpreter, the generated kernels, forward mode and the self-check at
// the knots need nothing of their own. Vector
// parameters and inputs: Spec{Params: dyn.Vec("w", 99)} and s.ParamVec("w",
// 99) (s.InputVec likewise).
//
// Input dynamics (lag.go): Lag (a first-order lag discretised exactly, with
// its mean over the step), DeadTime (a delay continuous in its length, kept
// as a shift register of state lanes) and LagDeadTime (the two together,
// exact over a held step and smooth in the delay) are helpers a definition
// calls in front of a model whose inputs are commands; their parameters are
// the model's, identified with the rest. LagValue and LagDeadTimeValue
// (lagvalue.go) are the same lags on float64 values, the one native form a
// model's own simulator or preprocessing calls (skidsteer.SimulateCommanded,
// mecanum.Run.Lagged), tested against the step language's to 1e-14.
//
// NaN safety. Where selects, it does not multiply by masks, so a NaN or Inf
// in the branch not taken never reaches the value; and the reverse step of
// every op that multiplies its adjoint by a partial derivative (× ÷ √ log
// log1p exp sin cos tan atan atan2 tanh |·| copysign) skips lanes whose
// adjoint is exactly zero, so the untaken branch, whose adjoint is zero,
// cannot turn 0·Inf or 0·NaN into a NaN gradient — the failure that makes
// other differentiable simulators return NaN gradients at rest, at a
// friction limit or at a surrogate's temperature 0 ("double where"). Users
// need no trick: Where(Gt(T, 0), TanhClampSym(x, mu, T), Clamp(x, −mu, mu))
// has a finite gradient at T = 0.
//
// Why a package beside ad rather than in it: ad runs gorgonia graphs
// (compile once, run many, shards, chunked scans); dyn is a language whose
// programs become graph nodes among other things, and most of its users
// (Sim, Stepper, generated kernels) never touch a graph.
//
// Forward mode and value only. Sim.Jacobian rolls the model once carrying,
// beside every value, its tangents with respect to D chosen directions (a
// subset of the parameters, and optionally each lane's initial states),
// and returns the outputs with their Jacobian as an m×D row-major block: the
// residuals and Jacobian a least-squares solver (Gauss–Newton,
// Levenberg–Marquardt) uses directly, as Ceres' AutoDiffCostFunction gives
// them with its Jets. The tangents use the reverse pass's partial
// derivatives (the same subgradients at Clamp, Min, Max, Abs and Where), so
// every row of the Jacobian dotted with a vector equals the reverse pass's
// vector–Jacobian product. Generate writes the tangent kernel beside the
// reverse one (RollTangent: all parameters, each tangent a scalar
// variable in registers, none where no parameter reaches a value); without
// it the interpreter carries them. Wrt.Rows stores the Jacobian at chosen
// steps only (camera samples among command rows): a kernel generated with
// the ObservedRows option skips the others in its loop (RollTangentAt),
// others store every row into a scratch block and gather. Sim.Value is the
// rollout without the trajectory the reverse pass reads (RollFinal), for
// line searches, validation and MPC rollouts.
//
// Least squares in the pass. A Jac with a Fit (measured outputs m, weights
// w) makes the forward-mode rollout a weighted least-squares evaluation:
// it forms the residuals r = w·(y − m) where it forms y, the residuals'
// Jacobian rows w·∂y/∂z, and each lane's ‖r‖², Jᵀr and JᵀJ, so that a
// Gauss–Newton or Levenberg–Marquardt step needs no m×D matrix at all
// (opt.LSProblem.Normal; Jac.Normal assembles the lanes' blocks, the
// initial-state columns spread as Expand spreads them), and the value and
// gradient of ½‖r‖² come from one forward pass. A kernel generated with the
// FitKernel option does it in its own code (FitRoller: residuals and rows
// in the step loop; with the normal equations, each lane's outputs and
// tangents into a scratch block and its sums formed after the lane, since
// sums carried through the step loop spill the state's registers); other
// kernels and the interpreter form the same numbers by the same operations
// in the same order from the stored rows.
//
// Forward or reverse. The reverse pass gives one gradient for 2–4 native
// rollouts whatever the number of parameters P (it rolls forward storing
// the states, then back); the forward mode costs about 1 + c·P rollouts
// and gives the whole Jacobian. Measured (paired with the native rollout,
// minimum of many runs, 2 shared cores): the own model's Jacobian for 3
// parameters over 4 × 20,000 steps, the 160,000 × 3 block written, costs
// 1.5 native rollouts (1.6 with the residuals formed from its outputs)
// against 2.8 for the reverse pass's value and gradient; Mecanum's for 4 coefficients over 3 × 1,680 steps 2.5 against
// 3.8; the diffdrive calibration's cost gradient for 6 parameters over
// 3,800 × 50 steps 2.1 against 3.0. BenchmarkCrossover (a model whose P
// parameters each weigh their own tanh term, gradient of a squared loss
// via Jᵀr) puts the crossover at P ≈ 16 at 8 × 150 and at 4 × 20,000 steps
// alike (P = 16: forward 1.9–2.0, reverse 2.0–2.1 native rollouts; P = 32:
// forward 4.6–5.1, reverse 1.7–2.1): the cost of both grows with the
// horizon alike, so the horizon moves the crossover little. The rule:
// least squares (the Jacobian itself is wanted; a few dozen columns at
// most) → forward; a scalar loss with P ≤ 16 → forward, else reverse;
// controls (a direction per input and step) → reverse.
//
// Misuse is an error, not a wrong number: a Sim or Stepper called from two
// goroutines at once returns ErrConcurrentUse (a Model is immutable and safe
// for concurrent use; Sim, Stepper, the interpreter and the ops hold scratch
// memory: one per goroutine); a kernel of another model is refused by
// NewSimWith and NewStepperWith; a stale generated kernel makes the model's
// Sims, Steppers and ops fail with ErrStaleKernel unless they opt into the
// interpreter (Value and Jacobian are guarded as Forward is); a parameter or input that reaches no result is an error of
// the definition unless Spec.AllowUnused.
package dyn
