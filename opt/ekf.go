package opt

import (
	"errors"
	"fmt"
	"math"
)

// Process is the process model of a Kalman filter: a discrete step
// x' = f(x, u, p) with its Jacobians. dyn.Stepper gives one for any step
// definition ((*dyn.Stepper).Filter).
type Process interface {
	// Predict writes f(x, u, p) into xn (len(x)) and, where non-nil, ∂f/∂x
	// into fx (n×n) and ∂f/∂p into fp (n×len(p)), row major, n = len(x).
	Predict(x, u, p, xn, fx, fp []float64) error
}

// Observer is the measurement model of a Kalman filter: y = h(x, u, p) with
// its Jacobians.
type Observer interface {
	// Observe writes h(x, u, p) into y and, where non-nil, ∂h/∂x into hx
	// (m×n) and ∂h/∂p into hp (m×len(p)), row major, m = len(y).
	Observe(x, u, p, y, hx, hp []float64) error
}

// ErrSingularInnovation is returned by an update whose innovation
// covariance H·P·Hᵀ + R is singular or not finite.
var ErrSingularInnovation = errors.New("opt: EKF innovation covariance is singular or not finite")

// EKF is the extended Kalman filter (Simon, "Optimal State Estimation",
// §13.2): Predict propagates the estimate X and its covariance P through a
// Process, x ← f(x, u, p), P ← F·P·Fᵀ + Q with F = ∂f/∂x; Update corrects
// them with a measurement z of an Observer, ν = z − h(x, u, p),
// S = H·P·Hᵀ + R, K = P·Hᵀ·S⁻¹, x ← x + K·ν, P ← P − K·(P·Hᵀ)ᵀ with
// H = ∂h/∂x. Correct is the update from an innovation and H computed by
// the caller (IPEM's integrated prediction, MRAN's network gradient).
//
// Joint state and parameter estimation is the filter over the augmented
// state [x; p] (Joint). Parameter estimation alone (IPEM, MRAN) is the
// filter whose state is the parameters, with the random walk p' = p as its
// process (Predict with a nil Process).
//
// X and P are the filter's: a caller may read them, set them, or point them
// at its own memory of the right length (a filter whose state grows and
// shrinks, as MRAN's network does, reslices them before each call). Q and
// R are given per call, each as a full row-major matrix or as its
// diagonal; nil is zero. Once its scratch has grown to the largest state
// and measurement (Reserve), the filter does not allocate.
type EKF struct {
	X []float64 // the state estimate, n
	P []float64 // its covariance, n×n row major, symmetric

	// Params is the p given to the models (nil: none); it is not estimated
	// (see Joint for that).
	Params []float64

	// Upper keeps only the upper triangle of P (column ≥ row) up to date
	// in Correct and Update, and reads only that: an update then touches
	// half the matrix, which pays for a long state and a short
	// measurement (MRAN's network). The lower triangle is stale.
	Upper bool

	// Residual, if set, forms the innovation ν from the measurement z and
	// the prediction y (an angle's difference wrapped to (−π, π]);
	// default ν = z − y.
	Residual func(z, y, nu []float64)

	// NIS accumulates the normalised innovation squared νᵀS⁻¹ν of every
	// update (len(ν) degrees of freedom per update when the noise model
	// is right); Updates counts the updates.
	NIS     float64
	Updates int

	xn, fx, tmp      []float64 // n, n×n, n×n
	y, hx, nu        []float64 // m, m×n, m
	pht, kg, s, si   []float64 // n×m, n×m, m×m, m×m
	gj               []float64 // Gauss–Jordan, m×2m
	reservN, reservM int
}

// NewEKF returns a filter at x0 with covariance p0 (n×n, or its diagonal
// of length n). Both are copied.
func NewEKF(x0, p0 []float64) (*EKF, error) {
	n := len(x0)
	if n == 0 {
		return nil, errors.New("opt: EKF of an empty state")
	}
	P := make([]float64, n*n)
	if err := addMatrix(P, p0, n, "P0"); err != nil {
		return nil, err
	}
	f := &EKF{X: append([]float64(nil), x0...), P: P}
	f.Reserve(n, 0)
	return f, nil
}

// Reserve sizes the scratch for states up to n and measurements up to m,
// so that later calls within them do not allocate.
func (f *EKF) Reserve(n, m int) {
	n, m = max(n, f.reservN), max(m, f.reservM)
	if n == f.reservN && m == f.reservM {
		return
	}
	f.reservN, f.reservM = n, m
	f.xn, f.fx, f.tmp = make([]float64, n), make([]float64, n*n), make([]float64, n*n)
	f.y, f.hx, f.nu = make([]float64, m), make([]float64, m*n), make([]float64, m)
	f.pht, f.kg = make([]float64, n*m), make([]float64, n*m)
	f.s, f.si, f.gj = make([]float64, m*m), make([]float64, m*m), make([]float64, 2*m*m)
}

func (f *EKF) check() (int, error) {
	n := len(f.X)
	if n == 0 || len(f.P) != n*n {
		return 0, fmt.Errorf("opt: EKF state of %d and covariance of %d entries, want %d", n, len(f.P), n*n)
	}
	return n, nil
}

// addMatrix adds a (n×n, or its diagonal of length n, or nil) to dst.
func addMatrix(dst, a []float64, n int, name string) error {
	switch len(a) {
	case 0:
	case n * n:
		for i, v := range a {
			dst[i] += v
		}
	case n:
		for i, v := range a {
			dst[i*n+i] += v
		}
	default:
		return fmt.Errorf("opt: EKF %s of %d entries, want %d×%d or its diagonal %d", name, len(a), n, n, n)
	}
	return nil
}

// at is P[i, j] of the n×n covariance, read from the upper triangle in
// Upper mode.
func (f *EKF) at(i, j, n int) float64 {
	if f.Upper && j < i {
		i, j = j, i
	}
	return f.P[i*n+j]
}

// Predict is the time update through the process m with input u:
// x ← f(x, u, p), P ← F·P·Fᵀ + Q. A nil m is the random walk x' = x (F = I):
// P ← P + Q. P is written whole (both triangles), also in Upper mode.
func (f *EKF) Predict(m Process, u, Q []float64) error {
	n, err := f.check()
	if err != nil {
		return err
	}
	if m == nil {
		return addMatrix(f.P, Q, n, "Q")
	}
	f.Reserve(n, 0)
	xn, F, T := f.xn[:n], f.fx[:n*n], f.tmp[:n*n]
	if err := m.Predict(f.X, u, f.Params, xn, F, nil); err != nil {
		return err
	}
	for i, v := range xn {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("opt: EKF prediction of state %d is %g", i, v)
		}
	}
	// T = F·P, then P = T·Fᵀ + Q.
	for i := range n {
		for j := range n {
			s := 0.0
			for k := range n {
				s += F[i*n+k] * f.at(k, j, n)
			}
			T[i*n+j] = s
		}
	}
	for i := range n {
		for j := i; j < n; j++ {
			s := 0.0
			for k := range n {
				s += T[i*n+k] * F[j*n+k]
			}
			f.P[i*n+j], f.P[j*n+i] = s, s
		}
	}
	copy(f.X, xn)
	return addMatrix(f.P, Q, n, "Q")
}

// Update is the measurement update with the measurement z of the observer
// m at input u and noise covariance R. It returns the innovation ν (scratch
// of the filter, overwritten by the next update).
func (f *EKF) Update(m Observer, u, z, R []float64) ([]float64, error) {
	n, err := f.check()
	if err != nil {
		return nil, err
	}
	mm := len(z)
	f.Reserve(n, mm)
	y, H, nu := f.y[:mm], f.hx[:mm*n], f.nu[:mm]
	if err := m.Observe(f.X, u, f.Params, y, H, nil); err != nil {
		return nil, err
	}
	if f.Residual != nil {
		f.Residual(z, y, nu)
	} else {
		for c := range nu {
			nu[c] = z[c] - y[c]
		}
	}
	return nu, f.Correct(nu, H, R)
}

// Correct is the measurement update from an innovation ν (len m) and the
// measurement Jacobian H (m×n, row major) computed by the caller, with
// noise covariance R (m×m, or its diagonal). In Upper mode only the upper
// triangle of P is read and written; otherwise P is kept symmetric (each
// pair of entries set to the mean of its two updates).
func (f *EKF) Correct(nu, H, R []float64) error {
	n, err := f.check()
	if err != nil {
		return err
	}
	mm := len(nu)
	if len(H) != mm*n {
		return fmt.Errorf("opt: EKF measurement Jacobian of %d entries, want %d×%d", len(H), mm, n)
	}
	f.Reserve(n, mm)
	pht, K, S, Si := f.pht[:n*mm], f.kg[:n*mm], f.s[:mm*mm], f.si[:mm*mm]
	clear(S)
	if err := addMatrix(S, R, mm, "R"); err != nil {
		return err
	}
	P := f.P
	if mm == 1 && f.Upper {
		return f.correct1(nu[0], H, S[0])
	}
	// pht = P·Hᵀ (n×m), S = H·P·Hᵀ + R (m×m).
	for i := range n {
		row := P[i*n : i*n+n]
		for c := range mm {
			h := H[c*n : c*n+n]
			s := 0.0
			if f.Upper {
				for k := range h {
					s += f.at(i, k, n) * h[k]
				}
			} else {
				for k, v := range row {
					s += v * h[k]
				}
			}
			pht[i*mm+c] = s
		}
	}
	for c := range mm {
		h := H[c*n : c*n+n]
		for d := range mm {
			s := 0.0
			for k, v := range h {
				s += v * pht[k*mm+d]
			}
			S[c*mm+d] += s
		}
	}
	if !invert(S, Si, f.gj[:2*mm*mm], mm) {
		return ErrSingularInnovation
	}
	// K = pht·S⁻¹ (n×m); x ← x + K·ν.
	for i := range n {
		for d := range mm {
			s := 0.0
			for c := range mm {
				s += pht[i*mm+c] * Si[c*mm+d]
			}
			K[i*mm+d] = s
		}
	}
	for i := range n {
		s := 0.0
		for c := range mm {
			s += K[i*mm+c] * nu[c]
		}
		f.X[i] += s
	}
	// P ← P − K·phtᵀ: the upper triangle, mirrored (symmetrised) unless Upper.
	for i := range n {
		ki, pi := K[i*mm:i*mm+mm], pht[i*mm:i*mm+mm]
		for j := i; j < n; j++ {
			kj, pj := K[j*mm:j*mm+mm], pht[j*mm:j*mm+mm]
			s := 0.0
			for c, k := range ki {
				s += k * pj[c]
			}
			v := P[i*n+j] - s
			if f.Upper {
				P[i*n+j] = v
				continue
			}
			if i != j {
				s = 0
				for c, k := range kj {
					s += k * pi[c]
				}
				v = 0.5 * (v + P[j*n+i] - s)
			}
			P[i*n+j], P[j*n+i] = v, v
		}
	}
	for c := range mm {
		for d := range mm {
			f.NIS += nu[c] * Si[c*mm+d] * nu[d]
		}
	}
	f.Updates++
	return nil
}

// correct1 is Correct for one measurement in Upper mode, where P·Hᵀ is a
// vector and S a scalar: the hot path of MRAN, whose networks have one
// output and hundreds of parameters. P·Hᵀ reads the upper triangle only
// (symvUpper), and the update term K·(PHᵀ)ᵀ = PHᵀ·PHᵀᵀ/S, symmetric, is
// applied to the upper triangle only: half the memory traffic of the
// dense form for the same floating-point operations per entry.
func (f *EKF) correct1(nu float64, H []float64, r float64) error {
	n := len(f.X)
	P, PB := f.P[:n*n], f.pht[:n]
	symvUpper(P, n, H, PB)
	s := 0.0
	for i, b := range H[:n] {
		s += b * PB[i]
	}
	s += r
	if !(s > 0) || math.IsInf(s, 0) {
		return ErrSingularInnovation
	}
	si := 1 / s
	x := f.X[:n]
	for i := range n {
		ki := PB[i] * si
		x[i] += ki * nu
		row := P[i*n+i : i*n+n]
		pb := PB[i:n]
		pb = pb[:len(row)]
		j := 0
		for ; j+4 <= len(row); j += 4 {
			r, v := row[j:j+4:j+4], pb[j:j+4:j+4]
			r[0] -= ki * v[0]
			r[1] -= ki * v[1]
			r[2] -= ki * v[2]
			r[3] -= ki * v[3]
		}
		for ; j < len(row); j++ {
			row[j] -= ki * pb[j]
		}
	}
	f.NIS += nu * si * nu
	f.Updates++
	return nil
}

// symvUpper writes y = P·b for the symmetric z×z matrix P of which only the
// upper triangle (row-major, column ≥ row) is read. Each off-diagonal entry
// is loaded once and used for both y_i and y_j; the row sums use four
// accumulators so that they are not bound by the latency of one chain of
// additions.
func symvUpper(P []float64, z int, b, y []float64) {
	b, y = b[:z], y[:z]
	clear(y)
	for i := range z {
		row := P[i*z+i : i*z+z]
		bi := b[i]
		d := row[0] * bi
		row = row[1:]
		bb := b[i+1:]
		yy := y[i+1:]
		bb, yy = bb[:len(row)], yy[:len(row)]
		var s0, s1, s2, s3 float64
		t := 0
		for ; t+4 <= len(row); t += 4 {
			r, bq, yq := row[t:t+4:t+4], bb[t:t+4:t+4], yy[t:t+4:t+4]
			s0 += r[0] * bq[0]
			s1 += r[1] * bq[1]
			s2 += r[2] * bq[2]
			s3 += r[3] * bq[3]
			yq[0] += r[0] * bi
			yq[1] += r[1] * bi
			yq[2] += r[2] * bi
			yq[3] += r[3] * bi
		}
		for ; t < len(row); t++ {
			s0 += row[t] * bb[t]
			yy[t] += row[t] * bi
		}
		y[i] += d + ((s0 + s1) + (s2 + s3))
	}
}

// invert writes the inverse of the m×m matrix a into b by Gauss–Jordan
// elimination with partial pivoting (m is a measurement's length: small),
// using w (2m²) as scratch. It reports false for a singular or non-finite a.
func invert(a, b, w []float64, m int) bool {
	for _, v := range a {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	if m == 1 {
		if a[0] == 0 {
			return false
		}
		b[0] = 1 / a[0]
		return true
	}
	c2 := 2 * m
	for i := range m {
		for j := range m {
			w[i*c2+j] = a[i*m+j]
			w[i*c2+m+j] = 0
		}
		w[i*c2+m+i] = 1
	}
	for c := range m {
		p := c
		for r := c + 1; r < m; r++ {
			if math.Abs(w[r*c2+c]) > math.Abs(w[p*c2+c]) {
				p = r
			}
		}
		if w[p*c2+c] == 0 {
			return false
		}
		for j := range c2 {
			w[c*c2+j], w[p*c2+j] = w[p*c2+j], w[c*c2+j]
		}
		d := w[c*c2+c]
		for j := range c2 {
			w[c*c2+j] /= d
		}
		for r := range m {
			if r != c {
				g := w[r*c2+c]
				for j := range c2 {
					w[r*c2+j] -= g * w[c*c2+j]
				}
			}
		}
	}
	for i := range m {
		copy(b[i*m:i*m+m], w[i*c2+m:i*c2+c2])
	}
	return true
}

// Joint is a model over (x, u, p) seen as the model of joint state and
// parameter estimation: the filter's state is z = [x; p] (NX states, then
// the parameters), the parameters follow the random walk p' = p, so that
//
//	F = [∂f/∂x  ∂f/∂p]      H = [∂h/∂x  ∂h/∂p]
//	    [  0      I  ]
//
// (the augmented-state EKF, Simon §13.4). It is both a Process and an
// Observer; the filter's own Params are ignored (they are in z). Q given to
// Predict is over z: its last entries are the parameters' random walk (0
// for constant parameters).
type Joint struct {
	NX       int
	Process  Process
	Observer Observer

	fx, fp, hx, hp []float64
}

func (j *Joint) split(z []float64) (x, p []float64, err error) {
	if j.NX <= 0 || j.NX > len(z) {
		return nil, nil, fmt.Errorf("opt: Joint of %d states over an augmented state of %d", j.NX, len(z))
	}
	return z[:j.NX], z[j.NX:], nil
}

func grow(b []float64, n int) []float64 {
	if cap(b) < n {
		return make([]float64, n)
	}
	return b[:n]
}

// Predict is Process.Predict over z = [x; p]; fp must be nil.
func (j *Joint) Predict(z, u, _, zn, F, fp []float64) error {
	x, p, err := j.split(z)
	if err != nil {
		return err
	}
	if j.Process == nil {
		return errors.New("opt: Joint without a Process")
	}
	nx, np, n := len(x), len(p), len(z)
	if len(zn) != n || (F != nil && len(F) != n*n) {
		return fmt.Errorf("opt: Joint prediction into %d states and a Jacobian of %d entries, want %d and %d", len(zn), len(F), n, n*n)
	}
	copy(zn[nx:], p)
	if F == nil {
		return j.Process.Predict(x, u, p, zn[:nx], nil, nil)
	}
	j.fx, j.fp = grow(j.fx, nx*nx), grow(j.fp, nx*np)
	if err := j.Process.Predict(x, u, p, zn[:nx], j.fx, j.fp); err != nil {
		return err
	}
	clear(F)
	for i := range nx {
		copy(F[i*n:i*n+nx], j.fx[i*nx:(i+1)*nx])
		copy(F[i*n+nx:(i+1)*n], j.fp[i*np:(i+1)*np])
	}
	for i := nx; i < n; i++ {
		F[i*n+i] = 1
	}
	return nil
}

// Observe is Observer.Observe over z = [x; p]; hp must be nil.
func (j *Joint) Observe(z, u, _, y, H, hp []float64) error {
	x, p, err := j.split(z)
	if err != nil {
		return err
	}
	if j.Observer == nil {
		return errors.New("opt: Joint without an Observer")
	}
	nx, np, n, m := len(x), len(p), len(z), len(y)
	if H != nil && len(H) != m*n {
		return fmt.Errorf("opt: Joint measurement Jacobian of %d entries, want %d×%d", len(H), m, n)
	}
	if H == nil {
		return j.Observer.Observe(x, u, p, y, nil, nil)
	}
	j.hx, j.hp = grow(j.hx, m*nx), grow(j.hp, m*np)
	if err := j.Observer.Observe(x, u, p, y, j.hx, j.hp); err != nil {
		return err
	}
	for c := range m {
		copy(H[c*n:c*n+nx], j.hx[c*nx:(c+1)*nx])
		copy(H[c*n+nx:(c+1)*n], j.hp[c*np:(c+1)*np])
	}
	return nil
}
