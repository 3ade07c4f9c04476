// Package rbf is the Gaussian radial basis function network of Ordonez et al.
// §3.1 (eqs. 16–17) and its online training by the Minimal Resource
// Allocation Network algorithm (MRAN; Lu, Sundararajan and Saratchandran,
// Neural Computation 9(2), 1997), which the paper uses to learn the wheel
// torque as a function of the commanded turn radius.
//
// A network maps x ∈ R^In to y ∈ R^Out,
//
//	y = α₀ + Σ_j α_j exp(−‖x − δ_j‖²/σ_j²)     (eqs. 16–17)
//
// with its parameters in one flat vector w laid out as in eq. 23:
// α₀, then per hidden unit α_j, δ_j, σ_j.
//
// There are two forms. Network is native float64: Eval, the gradient of the
// output with respect to w, and MRAN's per-sample update (growth by eqs.
// 18–22, otherwise an extended Kalman filter step on all of w, pruning of
// units whose normalised contribution stays small) run without allocating,
// because the update is a hot path (≤ 10 µs per sample with 30 units).
// BuildNetwork is the same network as a gorgonia graph over a batch of
// inputs, for batch evaluation, for gradients of batch losses (a fixed-size
// network trained by L-BFGS: NewBatchLoss) and for checking the native
// gradients.
package rbf
