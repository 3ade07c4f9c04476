package skidsteer

import (
	"math"

	"github.com/wheelgrad/wheelgrad/dataset"
)

// CommandedFrom predicts a run from its commanded wheel speeds wl_cmd,
// wr_cmd with p's lag and dead time (SimulateCommanded), anchored at row k0
// with pose0: the lag starts there from the measured wheel speeds wl, wr
// of row k0 (rest where the log has none), which are also the commands
// before k0 in the dead-time register. Rows before k0 are the Euler steps
// of the commanded speeds (no lag) taken backwards, as Simulate's anchoring
// does with the measured ones. It returns the pose at every row.
func CommandedFrom(l *Log, p Params, k0 int, pose0 Pose) ([]Pose, error) {
	if l.WlCmd == nil || l.WrCmd == nil {
		return nil, &dataset.RowError{Row: 0, Column: "wl_cmd", Msg: "the log has no commanded wheel speeds wl_cmd, wr_cmd (the parameters were identified from them: \"inputs\": \"commanded\")"}
	}
	var w0 [2]float64
	if l.Wl != nil && l.Wr != nil {
		w0 = [2]float64{l.Wl[k0], l.Wr[k0]}
	}
	fwd, err := SimulateCommanded(p, pose0, w0, l.T[k0:], l.WlCmd[k0:], l.WrCmd[k0:])
	if err != nil {
		return nil, err
	}
	out := make([]Pose, len(l.T))
	copy(out[k0:], fwd)
	a := p.Coeffs()
	for i := k0 - 1; i >= 0; i-- {
		vc := p.R * (l.WlCmd[i] + l.WrCmd[i]) / 2
		wc := p.R * (l.WrCmd[i] - l.WlCmd[i]) / p.Track
		f, lat, yaw := Velocity(a, vc, wc)
		dt := l.T[i+1] - l.T[i]
		psi := out[i+1].Psi - dt*yaw
		c, s := math.Cos(psi), math.Sin(psi)
		out[i] = Pose{X: out[i+1].X - dt*(c*f-s*lat), Y: out[i+1].Y - dt*(s*f+c*lat), Psi: psi}
	}
	return out, nil
}

// Slice is the log's rows a to b (b excluded), every column cut alike
// (absent columns stay nil).
func (l *Log) Slice(a, b int) *Log {
	cut := func(v []float64) []float64 {
		if v == nil {
			return nil
		}
		return v[a:b]
	}
	return &Log{T: l.T[a:b], Vc: l.Vc[a:b], Wc: l.Wc[a:b], Pose: l.Pose[a:b], HasPose: l.HasPose[a:b],
		Wl: cut(l.Wl), Wr: cut(l.Wr), WlCmd: cut(l.WlCmd), WrCmd: cut(l.WrCmd)}
}
