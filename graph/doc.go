// Package graph is the op vocabulary of wheelgrad: pure functions on
// *gorgonia.Node from which the robot models (models/*) and the losses are
// built, so that the gradient of a trajectory loss reaches friction
// coefficients, motor constants or control signals.
//
// Gorgonia 0.9.17 has no clamp, no elementwise min or max and no cumulative
// sum; this package supplies them in the forms the wheeled-robot papers need:
//
//   - Clamp, ClampSym: the exact Kikuuwe friction clamp of Park, Lee,
//     Kuipers eq. 4, built from comparison masks, with the gradient sent to
//     the limits where the wheel slips.
//
//   - Softplus, SoftClamp, TanhClampSym: smooth friction surrogates with an
//     explicit temperature T that tend to the exact clamp as T → 0 and whose
//     gradients stay finite for any T > 0.
//
//   - SmoothAbs, Rotate2D (the rotation of Luo et al. eq. 5), Bounded and
//     BoundedInverse (the sigmoid reparametrisation of Luo et al. eq. 14).
//
//   - CumSum, ReverseCumSum: custom gorgonia ops integrating rates over the
//     last axis ([T] or a batch [B, T]) in one node, so that thousands of
//     Euler steps do not become thousands of nodes.
//
//   - Repeat / SumBlocks and Pick / Place: piecewise-constant segments to
//     steps and back, and sampling every n-th step (a 60-Hz camera among
//     240-Hz rows, waypoints) and back; Take / Put: gather and scatter-add
//     by index.
//
//   - PlanarPath: the rotation and cumulative sums of Luo et al. eq. 5 for
//     a batch of trajectories in one node; SumDist / SumDistTo: Σ|p − q|
//     over points with the subgradient 0 at zero distance (eqs. 6–7);
//     MatVecConst: a constant matrix times a vector without gorgonia
//     building a gradient for the matrix.
//
//   - Concat, Stack and Reshape: use them, not gorgonia's G.Concat (whose
//     gradient is wrong for some sizes) or G.Reshape (whose view of its
//     input a later in-place op overwrites); both pinned by tests.
//
// Conventions. Everything is float64. Parameters such as lo, hi, mu, T and
// eps are nodes that are either scalars or have exactly the shape of x;
// temperatures and widths are nodes, not constants baked into the graph, so
// that a compiled program can anneal them with G.Let. Every graph op has a
// native twin with the suffix Float (ClampFloat, SoftClampFloat,
// CumSumFloat, …) computing the same formula in the same order, for the
// native Simulate functions and for the tests that pin graph and native
// forms equal. Invalid shapes, dtypes and known-invalid parameter values
// are returned as errors naming the function and the argument.
//
// Gradients. Comparison masks (G.Lt, G.Gt, … with retSame) and G.Sign carry
// no gradient: gorgonia declares them non-differentiable and G.Grad leaves
// them out of the backward pass, which is the right subgradient for a
// piecewise function (a mask is locally constant). Where a smooth function
// is assembled from pieces, the masks also fix the subgradient on the
// seams, so the derivative there is the true one.
//
// Two properties of gorgonia 0.9.17 matter to callers. A TapeMachine may
// reuse the memory of an intermediate node for a later result, so read the
// values you need after RunAll through G.Read (or G.TraceExec) rather than
// from node.Value(). And calling G.Grad on a graph that already holds
// gradient nodes (for a Hessian) returns wrong numbers; second derivatives
// must be built from explicit gradient expressions instead, which this
// package's ops support (the gradient of ReverseCumSum is CumSum).
package graph
