package skidsteer

import "math"

// TrackError is the error of one open-loop prediction (measured − predicted
// end position), resolved along and across the predicted heading at the end
// (Figs. 12–14).
type TrackError struct {
	Along, Cross float64
	Start        int // row the prediction starts from
}

// PredictionErrors predicts from every pose sample at least every seconds
// apart the pose horizon seconds later, open loop from the measured pose with
// coefficients a, and compares it with the pose measured then (Ordonez et al.
// §4.2: 2-s horizon).
func PredictionErrors(l *Log, a []float64, horizon, every float64) []TrackError {
	rows := l.PoseRows()
	var out []TrackError
	next := math.Inf(-1)
	j := 0
	for k, i := range rows {
		if l.T[i] < next {
			continue
		}
		if j < k {
			j = k
		}
		for j < len(rows) && l.T[rows[j]] < l.T[i]+horizon-1e-9 {
			j++
		}
		if j == len(rows) {
			break
		}
		end := rows[j]
		p := l.Pose[i]
		for r := i; r < end; r++ {
			p = Step(a, p, l.Vc[r], l.Wc[r], l.T[r+1]-l.T[r])
		}
		m := l.Pose[end]
		ex, ey := m.X-p.X, m.Y-p.Y
		c, s := math.Cos(p.Psi), math.Sin(p.Psi)
		out = append(out, TrackError{Along: c*ex + s*ey, Cross: -s*ex + c*ey, Start: i})
		next = l.T[i] + every
	}
	return out
}

// RMS returns the root mean square of the error distances; NaN when there
// are none (no run as long as the horizon), never 0 for "nothing".
func RMS(e []TrackError) float64 {
	if len(e) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, v := range e {
		s += v.Along*v.Along + v.Cross*v.Cross
	}
	return math.Sqrt(s / float64(len(e)))
}

// Ellipse returns the points of the nsigma ellipse of the sample covariance
// of the errors (along on x, cross on y), centred on their mean, and its
// semi-axes.
func Ellipse(e []TrackError, nsigma float64, npts int) (xs, ys []float64, semi [2]float64) {
	n := float64(len(e))
	if n < 2 {
		return nil, nil, semi
	}
	var mx, my float64
	for _, v := range e {
		mx += v.Along
		my += v.Cross
	}
	mx, my = mx/n, my/n
	var sxx, sxy, syy float64
	for _, v := range e {
		dx, dy := v.Along-mx, v.Cross-my
		sxx += dx * dx
		sxy += dx * dy
		syy += dy * dy
	}
	sxx, sxy, syy = sxx/(n-1), sxy/(n-1), syy/(n-1)
	// Eigen-decomposition of the 2×2 covariance.
	tr, det := sxx+syy, sxx*syy-sxy*sxy
	d := math.Sqrt(math.Max(tr*tr/4-det, 0))
	l1, l2 := tr/2+d, math.Max(tr/2-d, 0)
	th := 0.5 * math.Atan2(2*sxy, sxx-syy)
	semi = [2]float64{nsigma * math.Sqrt(l1), nsigma * math.Sqrt(l2)}
	for k := 0; k <= npts; k++ {
		u := 2 * math.Pi * float64(k) / float64(npts)
		a, b := semi[0]*math.Cos(u), semi[1]*math.Sin(u)
		xs = append(xs, mx+a*math.Cos(th)-b*math.Sin(th))
		ys = append(ys, my+a*math.Sin(th)+b*math.Cos(th))
	}
	return xs, ys, semi
}

// ErrorCloud splits prediction errors into along-track and cross-track
// coordinates and returns them with their nsigma ellipse (nil when there
// are too few errors for a covariance): the data of a Figs. 12–14 panel.
func ErrorCloud(e []TrackError, nsigma float64) (along, cross, ex, ey []float64) {
	along, cross = make([]float64, len(e)), make([]float64, len(e))
	for k, v := range e {
		along[k], cross[k] = v.Along, v.Cross
	}
	ex, ey, _ = Ellipse(e, nsigma, 90)
	return along, cross, ex, ey
}
