package opt

// Shared test problems. Helpers are prefixed tf; every objective fills grad
// when it is non-nil, so gradient-based and derivative-free methods can share
// them.

// tfSphere is f(x) = Σ x_i², minimum 0 at the origin.
func tfSphere(x, grad []float64) (float64, error) {
	var f float64
	for i, v := range x {
		f += v * v
		if grad != nil {
			grad[i] = 2 * v
		}
	}
	return f, nil
}

// tfRosenbrock is the extended Rosenbrock function
// Σ 100(x_{i+1} − x_i²)² + (1 − x_i)², minimum 0 at (1, …, 1).
func tfRosenbrock(x, grad []float64) (float64, error) {
	if grad != nil {
		clear(grad)
	}
	var f float64
	for i := 0; i+1 < len(x); i++ {
		a := x[i+1] - x[i]*x[i]
		b := 1 - x[i]
		f += 100*a*a + b*b
		if grad != nil {
			grad[i] += -400*a*x[i] - 2*b
			grad[i+1] += 200 * a
		}
	}
	return f, nil
}
