package fit

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/opt"
)

// The JSON object has the keys of the contract; σ that cannot be computed
// is null with a reason; missing bounds are null.
func TestReportJSON(t *testing.T) {
	inf := math.Inf(1)
	r := Report{
		Model: "toy",
		Params: []Param{
			{Name: "mu1", Unit: "1", Value: 0.5, Std: 0.01, Lower: 0, Upper: 2},
			{Name: "c1", Value: 0.3, Std: math.NaN(), Lower: -inf, Upper: inf, StdReason: "the EKF gives no σ"},
			{Name: "c2", Value: 0.4, Std: math.NaN(), Lower: -inf, Upper: inf, Held: true},
			{Name: "a", Value: 2, Std: inf, Lower: 0, Upper: inf},
		},
		Residual: Residual{Name: "camera position", Unit: "m", RMS: 0.004},
		Status:   NewStatus("lbfgsb", &opt.Result{Status: opt.FunctionConverged, Iterations: 12, F: 1.5}),
		Warnings: []Warning{{File: "a.csv", Row: 3, Msg: "odd"}, Warnf("", "plain")},
		Null:     []Direction{{Coef: []float64{1, 0, 0, 0}, Text: "1·a"}},
	}
	b, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"model", "status", "converged", "params", "residual_rms", "warnings"} {
		if _, ok := m[k]; !ok {
			t.Errorf("no %q in %s", k, b)
		}
	}
	if m["model"] != "toy" || m["status"] != "converged" || m["converged"] != true || m["residual_rms"] != 0.004 {
		t.Errorf("header: %s", b)
	}
	ps := m["params"].([]any)
	if len(ps) != 4 {
		t.Fatalf("params: %s", b)
	}
	want := []map[string]any{
		{"name": "mu1", "unit": "1", "value": 0.5, "std": 0.01, "lower": 0.0, "upper": 2.0, "held": false, "determined": true, "verdict": "determined"},
		{"name": "c1", "value": 0.3, "std": nil, "std_reason": "the EKF gives no σ", "lower": nil, "upper": nil, "held": false, "determined": true},
		{"name": "c2", "value": 0.4, "std": nil, "std_reason": "held at its start value", "lower": nil, "upper": nil, "held": true, "determined": true, "verdict": "fixed at -init"},
		{"name": "a", "value": 2.0, "std": nil, "std_reason": "the data do not determine it", "lower": 0.0, "upper": nil, "held": false, "determined": false, "verdict": "NOT determined by these logs"},
	}
	for i := range want {
		if !reflect.DeepEqual(ps[i], any(want[i])) {
			t.Errorf("param %d: %v, want %v", i, ps[i], want[i])
		}
	}
	ws := m["warnings"].([]any)
	if len(ws) != 2 || ws[0].(map[string]any)["message"] != "a.csv: line 3: odd" || ws[0].(map[string]any)["row"] != 3.0 || ws[1].(map[string]any)["message"] != "plain" {
		t.Errorf("warnings: %v", ws)
	}
	if nd := m["null_directions"].([]any); len(nd) != 1 {
		t.Errorf("null directions: %v", nd)
	}

	// no optimiser, no warnings, no residual: nulls and an empty list
	b, err = Report{Model: "ekf"}.JSON()
	if err != nil || string(b) != `{"model":"ekf","status":null,"converged":null,"params":[],"residual_rms":null,"warnings":[]}` {
		t.Errorf("empty report: %s %v", b, err)
	}
	if _, err := (Report{Params: []Param{{Name: "mu1", Value: math.NaN()}}}).JSON(); err == nil || !strings.Contains(err.Error(), "mu1") {
		t.Errorf("NaN value: %v", err)
	}
}

// A failed run (no iteration completed) is an error unless accepted; a
// stall or a limit is an UnconvergedError, or a warning when accepted.
func TestSettingsCheck(t *testing.T) {
	for _, c := range []struct {
		st    opt.Status
		iters int
		allow bool
		kind  string // "", "warning", "unconverged", "failed"
	}{
		{opt.GradientConverged, 10, false, ""},
		{opt.FunctionConverged, 10, true, ""},
		{opt.IterationLimit, 1000, false, "unconverged"},
		{opt.IterationLimit, 1000, true, "warning"},
		{opt.Stalled, 40, false, "unconverged"},
		{opt.Failure, 0, false, "failed"},
		{opt.Failure, 0, true, "warning"},
	} {
		ws, err := Settings{AllowUnconverged: c.allow}.Check("fit", &opt.Result{Status: c.st, Iterations: c.iters})
		got := ""
		var uc UnconvergedError
		switch {
		case err == nil && len(ws) == 1:
			got = "warning"
		case err == nil && len(ws) == 0:
		case errorsAs(err, &uc):
			got = "unconverged"
		default:
			got = "failed"
		}
		if got != c.kind {
			t.Errorf("%v (allow %v): %v %v, want %q", c.st, c.allow, ws, err, c.kind)
		}
	}
	s := Settings{MaxIter: 7, Tol: 1e-3}.Apply(opt.Settings{MaxIterations: 100, GradientTol: 1e-5})
	if s.MaxIterations != 7 || s.FunctionTol != 1e-3 || s.GradientTol != 1e-5 {
		t.Errorf("Apply: %+v", s)
	}
	if s := (Settings{}).Apply(opt.Settings{MaxIterations: 100}); s.MaxIterations != 100 || s.FunctionTol != 0 {
		t.Errorf("Apply of defaults: %+v", s)
	}
	st := NewStatus("m", &opt.Result{Status: opt.IterationLimit, Iterations: 3, F: math.Inf(1)})
	if b, _ := json.Marshal(st); string(b) != `{"method":"m","status":"iteration limit","converged":false,"iterations":3,"loss":0,"reason":"iteration limit"}` {
		t.Errorf("status record %s", b)
	}
	if !(Settings{}).Settled(nil) || (Settings{}).Settled(&opt.Result{Status: opt.Stalled}) {
		t.Error("Settled")
	}
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }

// A cross-validation (HeldOut) adds "held_out" with each group's RMS, their
// means and how often the model beat the baseline; without one the object
// has no such key (the empty report above is byte-identical).
func TestReportJSONHeldOut(t *testing.T) {
	r := Report{Model: "toy", HeldOut: &HeldOut{Method: "leave-one-command-out", Model: "network", Baseline: "constant", Unit: "m",
		Groups: []HeldOutGroup{{Name: "a", Runs: []string{"a1", "a2"}, Model: 0.01, Baseline: 0.03}, {Name: "b", Runs: []string{"b1"}, Model: 0.05, Baseline: 0.03}}}}
	b, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		HeldOut struct {
			Method, Model, Baseline, Unit string
			Groups                        []struct {
				Name        string
				Runs        []string
				ModelRMS    float64 `json:"model_rms"`
				BaselineRMS float64 `json:"baseline_rms"`
			}
			ModelMean    float64 `json:"model_mean_rms"`
			BaselineMean float64 `json:"baseline_mean_rms"`
			ModelBetter  int     `json:"model_better"`
		} `json:"held_out"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	h := m.HeldOut
	if h.Method != "leave-one-command-out" || h.Unit != "m" || len(h.Groups) != 2 || h.Groups[0].Runs[1] != "a2" || h.Groups[1].ModelRMS != 0.05 ||
		math.Abs(h.ModelMean-0.03) > 1e-15 || math.Abs(h.BaselineMean-0.03) > 1e-15 || h.ModelBetter != 1 {
		t.Errorf("held_out: %s", b)
	}
}
