package fleet

import (
	"encoding/json"
	"io"
	"math"
	"sort"
)

// How σ is taken in the drift test (Config.Sigma).
const (
	SigmaReport = "report" // the fits' σ as reported
	SigmaFleet  = "fleet"  // scaled up by the fleet's own spread (FlagDrift)
)

// minChanges is the fewest day-to-day changes of a model's parameter
// from which the fleet's spread is estimated (fewer: scale 1).
const minChanges = 8

// Scale is the σ scale of one model's parameter: the fleet's robust
// spread of its day-to-day changes in units of the reports' σ,
// median(|Δ/σ|)/0.6745 (1 for a normal z), and the number of changes
// it comes from.
type Scale struct {
	Model   string  `json:"model"`
	Param   string  `json:"param"`
	Spread  float64 `json:"spread"` // median(|Δ/σ|)/0.6745
	Scale   float64 `json:"scale"`  // what σ was multiplied by: max(1, Spread), or 1
	Changes int     `json:"changes"`
}

// DriftTest is how FlagDrift judged the fleet: the k used, how σ was
// taken, and the scales (drift.json).
type DriftTest struct {
	K           float64 `json:"k"`
	KAuto       bool    `json:"k_auto"`
	Comparisons int     `json:"comparisons"`
	Sigma       string  `json:"sigma"`
	FitDrop     float64 `json:"fit_drop"`
	Scales      []Scale `json:"scales"`
}

// BonferroniK is the two-sided normal quantile at which n independent
// tests of steady parameters together raise a false alarm with
// probability alpha: Φ⁻¹(1 − alpha/(2n)). A fleet's day-to-day
// comparisons are many (robots × days × parameters): at k = 3 a steady
// fleet of 2,000 comparisons raises about 5 alarms.
func BonferroniK(n int, alpha float64) float64 {
	if n < 1 {
		n = 1
	}
	return math.Sqrt2 * math.Erfinv(1-alpha/float64(n))
}

// FlagDrift sets the drift flags of the fleet's robot-days (outs, every
// robot-day of the fleet): a parameter drifts when |Δ| > k·s·σ, s its
// model's Scale (Config.Sigma); a robot-day drifts when a parameter does
// or its fit drops by more than Config.FitDrop points. The fits' σ often
// understate the error of a real log (noise in the inputs, a model a
// little wrong); the day-to-day changes of a fleet, most of whose robots
// are steady on most days, measure the real spread: SigmaFleet scales σ up
// to it (never down), robust to a minority of drifting robots (a median).
func FlagDrift(outs []Outcome, cfg Config) DriftTest {
	cfg = cfg.withDefaults()
	type key struct{ model, name string }
	zs := map[key][]float64{}
	n := 0
	for _, o := range outs {
		for _, c := range o.Changes {
			k := key{o.Report.Model, c.Name}
			zs[k] = append(zs[k], math.Abs(c.Delta/c.Sigma))
			n++
		}
	}
	t := DriftTest{K: cfg.K, KAuto: cfg.KAuto, Comparisons: n, Sigma: cfg.Sigma, FitDrop: cfg.FitDrop, Scales: []Scale{}}
	if cfg.KAuto {
		t.K = BonferroniK(n, 0.05)
	}
	scale := map[key]float64{}
	for k, z := range zs {
		sort.Float64s(z)
		m := z[len(z)/2]
		if len(z)%2 == 0 {
			m = (z[len(z)/2-1] + z[len(z)/2]) / 2
		}
		s := Scale{Model: k.model, Param: k.name, Spread: m / 0.6745, Scale: 1, Changes: len(z)}
		if cfg.Sigma == SigmaFleet && len(z) >= minChanges && s.Spread > 1 {
			s.Scale = s.Spread
		}
		scale[k] = s.Scale
		t.Scales = append(t.Scales, s)
	}
	sort.Slice(t.Scales, func(i, j int) bool {
		a, b := t.Scales[i], t.Scales[j]
		if a.Model != b.Model {
			return a.Model < b.Model
		}
		return a.Param < b.Param
	})
	for i := range outs {
		o := &outs[i]
		o.Report.DriftParams = []string{}
		for _, c := range o.Changes {
			if math.Abs(c.Delta) > t.K*scale[key{o.Report.Model, c.Name}]*c.Sigma {
				o.Report.DriftParams = append(o.Report.DriftParams, c.Name)
			}
		}
		dropped := o.Report.FitDrop != nil && *o.Report.FitDrop > cfg.FitDrop
		o.Report.Drift = len(o.Report.DriftParams) > 0 || dropped
	}
	return t
}

func writeDriftTest(w io.Writer, t DriftTest) error {
	b, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
