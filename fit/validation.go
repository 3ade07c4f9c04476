package fit

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// ValidationRun is one run a model predicted for a validation: its output
// channels (every sample's run index 0), its measured and predicted poses
// for the endpoint and k-step errors (an empty Track where it has none),
// and the start state the rollout used, named by StartNames.
type ValidationRun struct {
	ID         string // "" for none: the run is numbered from 1
	Channels   []Channel
	Track      Track
	Start      []float64
	StartNames []string
}

// RunMetrics are one run's prediction errors.
type RunMetrics struct {
	ID       string  // the run's ID, or its number from 1
	Samples  int     // measured poses (Track samples)
	Duration float64 // s, first to last measured pose
	Endpoint float64 // m (Track.Endpoint); NaN: no measured pose
	// KStep is the RMS (m) of the KStepN k-step position errors at the
	// validation's horizon (Track.KStep); NaN, KStepN 0 and Note saying
	// why when there are none.
	KStep  float64
	KStepN int
	Note   string
	// Start is the start state the rollout used, named by StartNames.
	Start      []float64
	StartNames []string
}

// Validation is how well a model's predictions match held-out logs, as
// MATLAB's compare reports it: per output channel over every run, the fit
// % = 100·(1 − NRMSE), the NRMSE and the RMS error (Channel.Fit); per run,
// the endpoint and k-step position errors (Track). Model and X0 (how each
// run's start state was chosen, e.g. "estimate" or "first") only label the
// JSON object.
type Validation struct {
	Model, X0 string
	// Channels are the runs' channels merged, each sample with its run's
	// index.
	Channels []Channel
	Runs     []RunMetrics
	// Horizon (s) of the k-step errors: the one asked for, clipped to the
	// longest run (Clipped) when it was longer; Longest is that run's
	// duration.
	Horizon, Longest float64
	Clipped          bool
	// Asked is the horizon asked for (s), before any clipping.
	Asked float64
	// DeadReckoned says that some run's poses were dead-reckoned from
	// speeds (DeadReckon): its position errors are of integrated speeds.
	DeadReckoned bool
}

// NewValidation merges the runs' channels and computes their metrics, with
// the k-step errors at horizon h (s; clipped to the longest run). A
// prediction that is not finite (a command of 1e308, a model driven out of
// its range) is an error naming the run, the output and the time, never a
// fit % of −Inf.
func NewValidation(model, x0 string, runs []ValidationRun, h float64) (*Validation, error) {
	v := &Validation{Model: model, X0: x0, Horizon: h, Asked: h}
	for i, r := range runs {
		for _, ch := range r.Channels {
			for k, p := range ch.Pred {
				if math.IsNaN(p) || math.IsInf(p, 0) {
					return nil, fmt.Errorf("run %s: the predicted %s is %v at t = %.6g s: the model left its range (a command or parameter out of range?); no metrics", runName(r.ID, i), ch.Name, p, ch.T[k])
				}
			}
		}
		for c := range r.Channels {
			ch := &r.Channels[c]
			if c >= len(v.Channels) {
				v.Channels = append(v.Channels, Channel{Name: ch.Name, Unit: ch.Unit, Angle: ch.Angle})
			}
			for k := range ch.T {
				v.Channels[c].Add(i, ch.T[k], ch.Meas[k], ch.Pred[k])
			}
		}
		v.Longest = max(v.Longest, r.Track.Duration())
		v.DeadReckoned = v.DeadReckoned || r.Track.DeadReckoned
	}
	for _, ch := range v.Channels {
		if f, n, r := ch.Fit(); math.IsInf(f, 0) || math.IsInf(n, 0) || math.IsInf(r, 0) {
			return nil, fmt.Errorf("the %s prediction error overflows (predicted values up to %.3g %s): the model left its range (a command or parameter out of range?); no metrics", ch.Name, MaxAbs(ch.Pred), ch.Unit)
		}
	}
	if v.Longest > 0 && v.Horizon > v.Longest {
		v.Horizon, v.Clipped = v.Longest, true
	}
	for i, r := range runs {
		m := RunMetrics{ID: runName(r.ID, i), Samples: len(r.Track.T), Duration: r.Track.Duration(), Endpoint: r.Track.Endpoint(),
			KStep: math.NaN(), Start: r.Start, StartNames: r.StartNames}
		switch ks := r.Track.KStep(v.Horizon); {
		case len(r.Track.T) < 2:
			m.Note = "fewer than two measured poses"
		case len(ks) == 0:
			m.Note = fmt.Sprintf("run %.3g s shorter than the %.3g-s horizon", m.Duration, v.Horizon)
		default:
			m.KStep, m.KStepN = RMS(ks), len(ks)
		}
		v.Runs = append(v.Runs, m)
	}
	return v, nil
}

func runName(id string, i int) string {
	if id == "" {
		return strconv.Itoa(i + 1)
	}
	return id
}

// jsonNum is a float that is null in JSON where it is not finite, and
// otherwise strconv's shortest 'g' form.
type jsonNum float64

func (f jsonNum) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
		return []byte("null"), nil
	}
	return []byte(strconv.FormatFloat(float64(f), 'g', -1, 64)), nil
}

// JSON is the validation as one indented JSON object, with the warnings
// of the validation's face (a log's gaps, dropped rows):
//
//	{"model", "x0", "horizon", "horizon_clipped",
//	 "channels": [{"name", "unit", "fit_percent", "nrmse", "rms", "samples"}],
//	 "runs": [{"run", "samples", "duration", "endpoint_error", "kstep_error", "kstep_predictions", "note", "x0": {NAME: value}}],
//	 "warnings": ["..."]}
//
// A figure that is not finite (no samples, no k-step prediction) is null.
func (v *Validation) JSON(warnings []Warning) ([]byte, error) {
	type channel struct {
		Name    string  `json:"name"`
		Unit    string  `json:"unit"`
		Fit     jsonNum `json:"fit_percent"`
		NRMSE   jsonNum `json:"nrmse"`
		RMS     jsonNum `json:"rms"`
		Samples int     `json:"samples"`
	}
	type run struct {
		Run      string             `json:"run"`
		Samples  int                `json:"samples"`
		Duration jsonNum            `json:"duration"`
		Endpoint jsonNum            `json:"endpoint_error"`
		KStep    jsonNum            `json:"kstep_error"`
		KStepN   int                `json:"kstep_predictions"`
		Note     string             `json:"note,omitempty"`
		Start    map[string]jsonNum `json:"x0"`
	}
	out := struct {
		Model    string    `json:"model"`
		X0       string    `json:"x0"`
		Horizon  jsonNum   `json:"horizon"`
		Clipped  bool      `json:"horizon_clipped"`
		Channels []channel `json:"channels"`
		Runs     []run     `json:"runs"`
		Warnings []string  `json:"warnings"`
	}{Model: v.Model, X0: v.X0, Horizon: jsonNum(v.Horizon), Clipped: v.Clipped, Channels: []channel{}, Runs: []run{}, Warnings: []string{}}
	for i := range v.Channels {
		c := &v.Channels[i]
		f, n, r := c.Fit()
		out.Channels = append(out.Channels, channel{c.Name, c.Unit, jsonNum(f), jsonNum(n), jsonNum(r), len(c.Meas)})
	}
	for _, m := range v.Runs {
		st := map[string]jsonNum{}
		for j, s := range m.Start {
			st[m.StartNames[j]] = jsonNum(s)
		}
		out.Runs = append(out.Runs, run{m.ID, m.Samples, jsonNum(m.Duration), jsonNum(m.Endpoint), jsonNum(m.KStep), m.KStepN, m.Note, st})
	}
	for _, x := range warnings {
		out.Warnings = append(out.Warnings, x.String())
	}
	return json.MarshalIndent(out, "", "  ")
}

// WriteRuns writes the per-run metrics as CSV: run, samples, duration,
// endpoint_error, horizon, kstep_error, kstep_predictions, note, then the
// start states' entries as x0_NAME (6 significant digits); a figure that
// is not finite is an empty cell.
func (v *Validation) WriteRuns(w io.Writer) error {
	var names []string
	for _, m := range v.Runs {
		for _, n := range m.StartNames {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	var b strings.Builder
	b.WriteString("run,samples,duration,endpoint_error,horizon,kstep_error,kstep_predictions,note")
	for _, n := range names {
		b.WriteString(",x0_" + n)
	}
	b.WriteString("\n")
	num := func(f float64) string {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return ""
		}
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	for _, m := range v.Runs {
		fmt.Fprintf(&b, "%s,%d,%s,%s,%s,%s,%d,%s", csvCell(m.ID), m.Samples, num(m.Duration), num(m.Endpoint), num(v.Horizon), num(m.KStep), m.KStepN, csvCell(m.Note))
		for _, n := range names {
			b.WriteString(",")
			if j := slices.Index(m.StartNames, n); j >= 0 {
				b.WriteString(strconv.FormatFloat(m.Start[j], 'g', 6, 64))
			}
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// csvCell quotes a cell that needs it.
func csvCell(s string) string {
	if strings.ContainsAny(s, ",\"\n") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}
