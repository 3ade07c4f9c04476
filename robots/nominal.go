package robots

import (
	"fmt"
	"math"
	"strings"

	"github.com/wheelgrad/wheelgrad/fit"
)

// worseMargin is how much worse than the start (relative) a calibration
// must predict its own data before it is warned of: a synthetic log made
// with the start parameters themselves is predicted by any fit a little
// worse on a measure that is not its objective.
const worseMargin = 0.05

// predictionRMS is the pooled RMS (m) of the k-step position errors of
// the runs' predictions with p (the model's own Validate from each run's
// first measured state, fit.NewValidation at a 2-s horizon clipped to the
// longest run), with the horizon used and whether the poses were
// dead-reckoned from speeds; ok false when no run has a k-step error.
func predictionRMS(v Validator, p Params, srcs []Source, gaps fit.GapPolicy) (rms, h float64, dead, ok bool) {
	runs, err := v.Validate(ValidateRequest{Params: p, Sources: srcs, X0: X0First, Gaps: gaps})
	if err != nil {
		return 0, 0, false, false
	}
	val, err := fit.NewValidation("", X0First, runs, 2)
	if err != nil {
		return 0, 0, false, false
	}
	var ss float64
	n := 0
	for _, m := range val.Runs {
		if m.KStepN > 0 {
			ss += m.KStep * m.KStep * float64(m.KStepN)
			n += m.KStepN
		}
	}
	if n == 0 {
		return 0, 0, false, false
	}
	return math.Sqrt(ss / float64(n)), val.Horizon, val.DeadReckoned, true
}

// WorseThanStart warns when the calibrated parameters predict the logs
// they were fitted to worse than the start parameters did (issue 28: a
// calibration worse than nominal on its own data, fit.WorseThanNominal),
// by the k-step position error of the model's own validation at a 2-s
// horizon (clipped to the runs' length), more than 5 % worse. A model that
// cannot validate these logs (no measured motion) says nothing.
func WorseThanStart(m Model, srcs []Source, start, calibrated Params, gaps fit.GapPolicy) []fit.Warning {
	v, ok := m.(Validator)
	if !ok || start == nil || calibrated == nil {
		return nil
	}
	nom, h, dead, ok1 := predictionRMS(v, start, srcs, gaps)
	cal, _, _, ok2 := predictionRMS(v, calibrated, srcs, gaps)
	if !ok1 || !ok2 || !(cal > (1+worseMargin)*nom) {
		return nil
	}
	what := fmt.Sprintf("%.3g-s prediction error (RMS", h)
	if dead {
		what += ", positions dead-reckoned from the speeds"
	}
	var files []string
	for _, s := range srcs {
		files = append(files, s.Path)
	}
	return fit.WorseThanNominal(strings.Join(files, ","), what+")", nom, cal, "m")
}
