// Package ad runs differentiable programs built from gorgonia graphs.
//
// A robot model and its trajectory loss are written once as a graph; the
// optimiser then asks for f(x) and ∇f(x) hundreds of times. Building and
// compiling a gorgonia graph grows with the square of its node count, so this
// package builds once and runs many times:
//
//   - Program: build a graph from a BuildFunc, differentiate it, compile it to a
//     TapeMachine once, then ValueAndGrad(x) as often as needed. A parameter
//     that cannot reach the loss is an error naming it; a graph above the node
//     budget (DefaultMaxNodes) is refused, because gorgonia has produced wrong
//     gradients and panics past roughly 80k nodes.
//   - Sharded: one Program per core over slices of a batch dimension (the
//     segments of Park et al. §III-A, the trajectories of Luo et al. §VI), run
//     in goroutines, losses and gradients summed in a fixed order.
//   - Scan: a step function rolled over any number of steps through a chunk
//     graph of bounded size; the gradient is stitched across chunks with the
//     adjoint of each chunk's final state (checkpointing: forward chunk by
//     chunk, then backward from the last chunk).
//   - CheckGrad, FiniteDiff and WithSelfCheck: central differences, the check
//     every differentiable function in wheelgrad is tested with.
//
// Defaults that close traps: parameters are bound to valid values (WithX0,
// else 1) before the build function runs, so graph ops that check their
// arguments' values accept parameter nodes; every Compile runs a self-check
// of the gradient against central differences of the graph's own values
// (WithoutSelfCheck turns it off); NaN or Inf in x, in data or out of the
// graph is an error that says where; a loss of shape [1] is accepted.
//
// Concurrency: a Program (and a Scan) uses one core and is not safe for
// concurrent use; a second call while one runs returns ErrConcurrentUse
// instead of crashing inside gorgonia. Clone gives one copy per goroutine;
// parallelism over a batch goes into Sharded, one machine per shard.
package ad
