package fit

import (
	"encoding/json"
	"fmt"
	"math"
	"time"
)

// Residual is the one residual figure of a fit, with what it measures
// (e.g. "camera position", unit "m").
type Residual struct {
	Name, Unit string
	RMS        float64 // NaN (or the zero Residual): none computed
}

// Report is the outcome of one identification, whatever the model.
type Report struct {
	Model string
	// What was fitted and how, as a summary names them: Data e.g. "3
	// run(s), 5040 rows", Method e.g. "lbfgsb (analytic)" (the optimiser's
	// own name is Status.Method).
	Data, Method string
	Params       []Param
	Residual     Residual
	// Status is the optimiser's; nil for a fit that is not an optimiser's
	// (a filter, a closed form).
	Status   *Status
	Warnings []Warning
	// Null are the parameter combinations the data do not determine (from
	// Identifiability, where the model provides JᵀJ).
	Null []Direction
	// Evaluations of the objective (0: not counted) and the wall time.
	Evaluations int
	Elapsed     time.Duration
	// Lines about the fit (loss, residuals, prediction errors, how σ was
	// obtained) and the model's own notes (identifiability, ...), as text
	// for a summary.
	Lines, Notes []string
	// HeldOut is a cross-validation of the fit, where the model makes one
	// (nil otherwise).
	HeldOut *HeldOut
}

// HeldOut is a cross-validation: each group of runs (e.g. the repeats of
// one command) left out in turn and predicted by the model fitted without
// it and by a baseline fitted the same way, as residual RMS figures.
type HeldOut struct {
	Method          string // e.g. "leave-one-command-out"
	Model, Baseline string // what is compared, e.g. "friction network", "constant μ"
	Unit            string
	Groups          []HeldOutGroup
}

// HeldOutGroup is one group left out: its name, its runs and the two RMS.
type HeldOutGroup struct {
	Name            string
	Runs            []string
	Model, Baseline float64
}

// Means returns the mean over the groups of the model's and the
// baseline's RMS, and in how many groups the model is the better.
func (h *HeldOut) Means() (model, baseline float64, wins int) {
	for _, g := range h.Groups {
		model += g.Model
		baseline += g.Baseline
		if g.Model < g.Baseline {
			wins++
		}
	}
	if n := float64(len(h.Groups)); n > 0 {
		model, baseline = model/n, baseline/n
	}
	return model, baseline, wins
}

type jsonHeldOutGroup struct {
	Name        string   `json:"name"`
	Runs        []string `json:"runs"`
	ModelRMS    *float64 `json:"model_rms"`
	BaselineRMS *float64 `json:"baseline_rms"`
}

type jsonHeldOut struct {
	Method       string             `json:"method"`
	Model        string             `json:"model"`
	Baseline     string             `json:"baseline"`
	Unit         string             `json:"unit"`
	Groups       []jsonHeldOutGroup `json:"groups"`
	ModelMean    *float64           `json:"model_mean_rms"`
	BaselineMean *float64           `json:"baseline_mean_rms"`
	ModelBetter  int                `json:"model_better"`
}

type jsonParam struct {
	Name       string   `json:"name"`
	Unit       string   `json:"unit,omitempty"`
	Value      float64  `json:"value"`
	Std        *float64 `json:"std"`
	StdReason  string   `json:"std_reason,omitempty"`
	Lower      *float64 `json:"lower"`
	Upper      *float64 `json:"upper"`
	Held       bool     `json:"held"`
	Determined bool     `json:"determined"`
	Verdict    string   `json:"verdict,omitempty"`
}

type jsonWarning struct {
	Message string `json:"message"`
	File    string `json:"file,omitempty"`
	Row     int    `json:"row,omitempty"`
}

type jsonNull struct {
	Text string    `json:"text"`
	Coef []float64 `json:"coef"`
}

type jsonReport struct {
	Model        string        `json:"model"`
	Status       *string       `json:"status"`
	Converged    *bool         `json:"converged"`
	Params       []jsonParam   `json:"params"`
	ResidualRMS  *float64      `json:"residual_rms"`
	ResidualName string        `json:"residual,omitempty"`
	ResidualUnit string        `json:"residual_unit,omitempty"`
	Warnings     []jsonWarning `json:"warnings"`
	Null         []jsonNull    `json:"null_directions,omitempty"`
	HeldOut      *jsonHeldOut  `json:"held_out,omitempty"`
}

// finite returns &v, or nil (JSON null) when v is NaN or ±Inf.
func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// JSON is the report as one JSON object:
//
//	{"model", "status", "converged",
//	 "params": [{"name", "unit", "value", "std", "std_reason", "lower", "upper", "held", "determined", "verdict"}],
//	 "residual_rms", "residual", "residual_unit", "warnings": [{"message", "file", "row"}], "null_directions",
//	 "held_out": {"method", "model", "baseline", "unit", "groups": [{"name", "runs", "model_rms", "baseline_rms"}],
//	              "model_mean_rms", "baseline_mean_rms", "model_better"}}
//
// held_out is present only for a fit with a cross-validation (HeldOut).
// A σ that cannot be computed is null with a "std_reason"; a missing bound
// is null; status and converged are null for a fit without an optimiser;
// residual_rms is null when none was computed (NaN or the zero Residual).
// A parameter value that is not finite is an error (the fit failed).
func (r Report) JSON() ([]byte, error) {
	out := jsonReport{Model: r.Model, Params: []jsonParam{}, Warnings: []jsonWarning{},
		ResidualRMS: finite(r.Residual.RMS), ResidualName: r.Residual.Name, ResidualUnit: r.Residual.Unit}
	if r.Residual == (Residual{}) {
		out.ResidualRMS = nil
	}
	if r.Status != nil {
		out.Status, out.Converged = &r.Status.Status, &r.Status.Converged
	}
	for _, p := range r.Params {
		if math.IsNaN(p.Value) || math.IsInf(p.Value, 0) {
			return nil, fmt.Errorf("fit: %s = %g: the fit gave no finite value", p.Name, p.Value)
		}
		jp := jsonParam{Name: p.Name, Unit: p.Unit, Value: p.Value, Std: finite(p.Std),
			Lower: finite(p.Lower), Upper: finite(p.Upper), Held: p.Held, Determined: p.Determined(), Verdict: p.Verdict().String()}
		if jp.Std == nil {
			jp.StdReason = p.StdReason
			if jp.StdReason == "" {
				switch {
				case p.Held:
					jp.StdReason = "held at its start value"
				case math.IsInf(p.Std, 1):
					jp.StdReason = "the data do not determine it"
				default:
					jp.StdReason = "not computed for this model or method"
				}
			}
		}
		out.Params = append(out.Params, jp)
	}
	for _, w := range r.Warnings {
		out.Warnings = append(out.Warnings, jsonWarning{Message: w.String(), File: w.File, Row: w.Row})
	}
	for _, d := range r.Null {
		out.Null = append(out.Null, jsonNull{Text: d.Text, Coef: d.Coef})
	}
	if h := r.HeldOut; h != nil {
		m, b, wins := h.Means()
		jh := &jsonHeldOut{Method: h.Method, Model: h.Model, Baseline: h.Baseline, Unit: h.Unit, Groups: []jsonHeldOutGroup{},
			ModelMean: finite(m), BaselineMean: finite(b), ModelBetter: wins}
		for _, g := range h.Groups {
			jh.Groups = append(jh.Groups, jsonHeldOutGroup{Name: g.Name, Runs: g.Runs, ModelRMS: finite(g.Model), BaselineRMS: finite(g.Baseline)})
		}
		out.HeldOut = jh
	}
	return json.Marshal(out)
}
