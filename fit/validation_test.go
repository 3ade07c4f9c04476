package fit

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// poseRun is a run at 1 m/s in x and 0.5 m/s in y, turning at 0.1 rad/s,
// sampled every 0.5 s for d seconds, predicted dx too far in x at every
// sample.
func poseRun(id string, d, dx float64) ValidationRun {
	chs := []Channel{{Name: "x", Unit: "m"}, {Name: "y", Unit: "m"}, {Name: "theta", Unit: "rad", Angle: true}}
	var tr Track
	for t := 0.0; t <= d+1e-9; t += 0.5 {
		meas := [3]float64{t, t / 2, t / 10}
		pred := [3]float64{t + dx, t / 2, t / 10}
		for c := range chs {
			chs[c].Add(0, t, meas[c], pred[c])
		}
		tr.Add(t, meas, pred)
	}
	return ValidationRun{ID: id, Channels: chs, Track: tr, Start: []float64{dx, 0, 0}, StartNames: []string{"x", "y", "theta"}}
}

// A constant offset is an endpoint error of its size and no k-step error
// (the model restarted from the measured pose moves as measured); the
// channels of both runs are merged with their run indices; a run shorter
// than the horizon has no k-step error and says why; an unnamed run is
// numbered.
func TestNewValidation(t *testing.T) {
	v, err := NewValidation("m", "first", []ValidationRun{poseRun("a", 4, 0.1), poseRun("", 1, 0.2)}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Channels) != 3 || len(v.Channels[0].Meas) != 9+3 || v.Channels[0].Run[9] != 1 {
		t.Fatalf("channels not merged: %+v", v.Channels)
	}
	_, _, rms := v.Channels[0].Fit()
	if want := math.Sqrt((9*0.01 + 3*0.04) / 12); math.Abs(rms-want) > 1e-12 {
		t.Errorf("x RMS %g, want %g", rms, want)
	}
	a, b := v.Runs[0], v.Runs[1]
	if a.ID != "a" || b.ID != "2" {
		t.Errorf("run IDs %q, %q", a.ID, b.ID)
	}
	if math.Abs(a.Endpoint-0.1) > 1e-12 || math.Abs(b.Endpoint-0.2) > 1e-12 {
		t.Errorf("endpoint errors %g, %g; want 0.1, 0.2", a.Endpoint, b.Endpoint)
	}
	if a.KStepN != 5 || math.Abs(a.KStep) > 1e-12 || a.Duration != 4 || a.Samples != 9 {
		t.Errorf("run a: %+v", a)
	}
	if b.KStepN != 0 || !math.IsNaN(b.KStep) || !strings.Contains(b.Note, "shorter than the 2-s horizon") {
		t.Errorf("run 2: %+v", b)
	}
	if v.Horizon != 2 || v.Clipped || v.DeadReckoned {
		t.Errorf("horizon %g clipped %v dead-reckoned %v", v.Horizon, v.Clipped, v.DeadReckoned)
	}
}

// A horizon longer than every run is clipped to the longest; velocity
// runs are said to be dead-reckoned.
func TestValidationClipsAndDeadReckons(t *testing.T) {
	ts := []float64{0, 1, 2, 3}
	vm, wm := []float64{1, 1, 1, 1}, []float64{0, 0, 0, 0}
	r := ValidationRun{Track: DeadReckon(ts, vm, wm, vm, wm)}
	v, err := NewValidation("m", "estimate", []ValidationRun{r}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if !v.Clipped || v.Horizon != 3 || !v.DeadReckoned || v.Runs[0].KStepN != 1 {
		t.Errorf("horizon %g clipped %v dead-reckoned %v runs %+v", v.Horizon, v.Clipped, v.DeadReckoned, v.Runs)
	}
}

// A prediction that is not finite is an error naming the run, the output
// and the time.
func TestValidationRefusesNonFinite(t *testing.T) {
	r := poseRun("lap", 2, 0)
	r.Channels[1].Pred[2] = math.Inf(1)
	_, err := NewValidation("m", "first", []ValidationRun{r}, 1)
	if err == nil || !strings.Contains(err.Error(), "run lap: the predicted y is +Inf at t = 1 s") {
		t.Errorf("err = %v", err)
	}
}

// The JSON object carries nulls for figures that do not exist and the
// warnings; the per-run CSV quotes a cell with a comma and leaves n/a
// cells empty.
func TestValidationJSONAndRuns(t *testing.T) {
	short := poseRun("", 0, 0.3) // one sample: no duration, no k-step error
	v, err := NewValidation("m", "first", []ValidationRun{poseRun("a,b", 1, 0.25), short}, 5)
	if err != nil {
		t.Fatal(err)
	}
	b, err := v.JSON([]Warning{{Msg: "a gap"}})
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Model    string
		Horizon  float64
		Clipped  bool `json:"horizon_clipped"`
		Channels []struct {
			Name string
			Fit  *float64 `json:"fit_percent"`
		}
		Runs []struct {
			Run   string
			KStep *float64 `json:"kstep_error"`
			X0    map[string]float64
		}
		Warnings []string
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if out.Model != "m" || out.Horizon != 1 || !out.Clipped || len(out.Channels) != 3 || out.Channels[0].Fit == nil ||
		len(out.Runs) != 2 || out.Runs[0].KStep == nil || out.Runs[1].KStep != nil || out.Runs[1].Run != "2" ||
		out.Runs[0].X0["x"] != 0.25 || len(out.Warnings) != 1 || out.Warnings[0] != "a gap" {
		t.Errorf("JSON: %s", b)
	}
	if !bytes.Contains(b, []byte(`"kstep_error": null`)) {
		t.Errorf("no k-step error should be null: %s", b)
	}
	var csv bytes.Buffer
	if err := v.WriteRuns(&csv); err != nil {
		t.Fatal(err)
	}
	want := "run,samples,duration,endpoint_error,horizon,kstep_error,kstep_predictions,note,x0_x,x0_y,x0_theta\n" +
		`"a,b",3,1,0.25,1,0,1,,0.25,0,0` + "\n" +
		`2,1,0,0.3,1,,0,fewer than two measured poses,0.3,0,0` + "\n"
	if csv.String() != want {
		t.Errorf("per-run CSV:\n%s\nwant\n%s", csv.String(), want)
	}
}
