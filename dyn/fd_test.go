package dyn_test

import (
	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"
)

// centralJacobian is ∂f/∂z (m×len(z), row major) at z by gonum's central
// differences (diff/fd), the reference the Jacobian tests compare with.
func centralJacobian(m int, z []float64, f func(z []float64) []float64) []float64 {
	J := mat.NewDense(m, len(z), nil)
	fd.Jacobian(J, func(y, z []float64) { copy(y, f(z)) }, z, &fd.JacobianSettings{Formula: fd.Central})
	return J.RawMatrix().Data
}

// centralGradient is ∇f at z by gonum's central differences.
func centralGradient(z []float64, f func(z []float64) float64) []float64 {
	return fd.Gradient(nil, f, z, &fd.Settings{Formula: fd.Central})
}
