package fit

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Param is one identified parameter. Std is its standard deviation: NaN
// when it cannot be computed (StdReason says why), +Inf when the data do
// not determine it at all. Lower and Upper are its bounds, ±Inf for none
// (an empty range, such as the zero value's, counts as none for the
// verdict).
type Param struct {
	Name, Unit   string
	Value        float64
	Lower, Upper float64
	Std          float64
	StdReason    string // why Std is NaN or +Inf, for a reader ("" when it is finite)
	// Held: kept at its start value (not identified).
	Held bool
	// Undetermined: the model's own analysis says the data do not
	// determine it (e.g. it lies in a null direction of the Jacobian).
	Undetermined bool
}

// Verdict is how well the data determine a parameter.
type Verdict int

const (
	Unknown      Verdict = iota // σ not known and nothing says it is undetermined
	Determined                  // σ small against the bound range (or the value)
	Poor                        // σ between 1/20 and 1/4 of the bound range (or large against the value)
	Undetermined                // the model's analysis or σ = ∞ or σ against the value says so
	SpansBounds                 // σ wider than a quarter of the bound range: ±2σ spans it
	Held                        // held at its start value
)

// String is the verdict as the summary prints it ("" for Unknown).
func (v Verdict) String() string {
	switch v {
	case Determined:
		return "determined"
	case Poor:
		return "poorly determined"
	case Undetermined:
		return "NOT determined by these logs"
	case SpansBounds:
		return "NOT determined by these logs (σ spans the bound range)"
	case Held:
		return "fixed at -init"
	}
	return ""
}

// Verdict says how well the data determine p. It never says Determined
// when σ is flagged, infinite, NaN, or wider than a quarter of the bound
// range (±2σ would span the whole range). Without bounds, σ is judged
// against the value: over half of |value| (and over 0.1) is Undetermined,
// over a fifth (and over 0.02) Poor.
func (p Param) Verdict() Verdict {
	switch {
	case p.Held:
		return Held
	case p.Undetermined || math.IsInf(p.Std, 0):
		return Undetermined
	case math.IsNaN(p.Std):
		return Unknown
	}
	rng := p.Upper - p.Lower
	if !math.IsInf(rng, 0) && !math.IsNaN(rng) && rng > 0 {
		switch {
		case p.Std > rng/4:
			return SpansBounds
		case p.Std > rng/20:
			return Poor
		}
		return Determined
	}
	switch {
	case p.Std > 0.5*math.Abs(p.Value) && p.Std > 0.1:
		return Undetermined
	case p.Std > 0.2*math.Abs(p.Value) && p.Std > 0.02:
		return Poor
	}
	return Determined
}

// Determined reports whether nothing says the data fail to determine p:
// true for Determined, Poor, Held and Unknown.
func (p Param) Determined() bool {
	v := p.Verdict()
	return v != Undetermined && v != SpansBounds
}

// OnBound warns about free parameters that ended on a bound of their range
// (within 1e-3 of it): the optimum lies outside, which real data rarely put
// there.
func OnBound(ps []Param) []Warning {
	var out []Warning
	for _, p := range ps {
		if p.Held || math.IsInf(p.Lower, 0) || math.IsInf(p.Upper, 0) {
			continue
		}
		tol := 1e-3 * (p.Upper - p.Lower)
		b := ""
		switch {
		case p.Value-p.Lower <= tol:
			b = fmt.Sprintf("lower bound %g", p.Lower)
		case p.Upper-p.Value <= tol:
			b = fmt.Sprintf("upper bound %g", p.Upper)
		}
		if b != "" {
			out = append(out, Warnf("", "%s ended on its %s: the data pull it beyond its plausible range — wrong units (positions in mm, speeds in rpm or deg/s, time in ms), a time gap, or a wrong constant in -init?", p.Name, b))
		}
	}
	return out
}

// CheckDetermined refuses a result with undetermined parameters unless
// allow (then it is a warning): a value the data do not determine is the
// start value or the optimiser's drift, not a calibration. remedy says what
// helps (e.g. which parameters to hold); "" for the generic advice.
func CheckDetermined(ps []Param, allow bool, remedy string) ([]Warning, error) {
	var bad []string
	for _, p := range ps {
		if !p.Determined() {
			bad = append(bad, p.Name)
		}
	}
	if len(bad) == 0 {
		return nil, nil
	}
	if allow {
		return []Warning{Warnf("", "%s not determined by these logs; written anyway (-allow-undetermined)", strings.Join(bad, ", "))}, nil
	}
	if remedy == "" {
		remedy = "add logs that excite them, or hold them with -fix " + strings.Join(bad, ",")
	}
	return nil, fmt.Errorf("%s not determined by these logs (σ wider than the plausible range, or no excitation): parameters not written; %s, or pass -allow-undetermined to write them anyway", strings.Join(bad, ", "), remedy)
}

// HeldSet is the set of held parameters from a list to hold (fix) or a
// list to identify (free; the rest are held), given the names the model
// identifies. The lists exclude each other, name only known parameters and
// must leave one free. Empty: nothing held.
func HeldSet(names, fix, free []string) (map[string]bool, error) {
	if len(fix) > 0 && len(free) > 0 {
		return nil, fmt.Errorf("-fix and -free exclude each other")
	}
	check := func(flag string, l []string) error {
		for _, n := range l {
			if !slices.Contains(names, n) {
				return fmt.Errorf("-%s %s: unknown parameter (this model identifies %s)", flag, n, strings.Join(names, ", "))
			}
		}
		return nil
	}
	if err := check("fix", fix); err != nil {
		return nil, err
	}
	if err := check("free", free); err != nil {
		return nil, err
	}
	held := map[string]bool{}
	for _, n := range fix {
		held[n] = true
	}
	if len(free) > 0 {
		for _, n := range names {
			held[n] = !slices.Contains(free, n)
		}
	}
	if len(held) > 0 {
		all := true
		for _, n := range names {
			all = all && held[n]
		}
		if all {
			return nil, fmt.Errorf("-fix/-free leave no parameter to identify")
		}
	}
	return held, nil
}

// SplitList splits a comma-separated list, trimming spaces and dropping
// empty entries.
func SplitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
