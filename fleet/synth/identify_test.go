package synth

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/cli"
	"github.com/wheelgrad/wheelgrad/robots"
)

// identified is one parameter of `wheelgrad identify -json`.
type identified struct {
	Name  string
	Value float64
	Std   float64
}

// identify runs `wheelgrad identify -json` through cli.Run on one log with
// the robot's init file, as the pipeline does per robot-day.
func identify(dir, model, data, init string) (ps []identified, stderr string, rc int) {
	var out, errb bytes.Buffer
	rc = cli.Run([]string{"identify", "-model", model, "-data", filepath.Join(dir, data),
		"-init", filepath.Join(dir, init), "-json", "-quiet"}, robots.Default(), &out, &errb)
	var rep struct{ Params []identified }
	if rc == 0 {
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			return nil, err.Error(), -1
		}
	}
	return rep.Params, strings.TrimSpace(errb.String()), rc
}

// A small fleet of the default models through `wheelgrad identify`: every
// good log identifies, near the truth by the fit's σ (scaled by the
// model's measured SigmaScale); every broken log fails with its error; a
// drifting robot's parameters move by more than 3 σ on its drift day, a
// steady robot's by less.
func TestFleetThroughIdentify(t *testing.T) {
	dir := t.TempDir()
	tr, err := Write(dir, Config{Robots: 8, Days: 3, Seed: 1, DriftFraction: 0.25})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, b := range tr.Broken {
		kinds[b.Kind] = true
	}
	if len(kinds) != len(brokenKinds) {
		t.Errorf("broken kinds %v, want all %d", kinds, len(brokenKinds))
	}
	ids := map[string][][]identified{} // robot → per day (nil: broken)
	var sumZ2 = map[string]float64{}
	var nZ = map[string]int{}
	for _, r := range tr.Robots {
		s := SigmaScale(r.Model)
		for _, d := range r.Days {
			ps, msg, rc := identify(dir, r.Model, d.Data, r.Init)
			if d.Broken {
				var want string
				for _, b := range tr.Broken {
					if b.Data == d.Data {
						want = b.Error
					}
				}
				if rc != 1 || want == "" || !strings.Contains(msg, want) {
					t.Errorf("%s: broken log: exit %d, %q; want exit 1 with %q", d.Data, rc, msg, want)
				}
				ids[r.ID] = append(ids[r.ID], nil)
				continue
			}
			if rc != 0 {
				t.Errorf("%s: identify exit %d: %s", d.Data, rc, msg)
				ids[r.ID] = append(ids[r.ID], nil)
				continue
			}
			ids[r.ID] = append(ids[r.ID], ps)
			n := 0
			for _, p := range ps {
				truth, ok := d.Params[p.Name]
				if !ok {
					continue
				}
				n++
				z := (p.Value - truth) / p.Std
				sumZ2[r.Model] += z * z
				nZ[r.Model]++
				if !(math.Abs(z) <= 5*s) {
					t.Errorf("%s: %s = %.5g ± %.2g, true %.5g: %.1f σ off (tolerance 5 × SigmaScale %.1f)", d.Data, p.Name, p.Value, p.Std, truth, z, s)
				}
			}
			if n != len(d.Params) {
				t.Errorf("%s: identify reports %d of the %d true parameters", d.Data, n, len(d.Params))
			}
		}
	}
	for m, s2 := range sumZ2 {
		rms := math.Sqrt(s2 / float64(nZ[m]))
		t.Logf("%s: RMS (identified − true)/σ = %.2f over %d parameters", m, rms, nZ[m])
		if rms > SigmaScale(m) {
			t.Errorf("%s: RMS z %.2f above its SigmaScale %.2f", m, rms, SigmaScale(m))
		}
	}
	// drift: a robot-day against the day before, both identified
	drifting, steady := 0, 0
	for _, r := range tr.Robots {
		days := ids[r.ID]
		for i := 1; i < len(days); i++ {
			a, b := days[i-1], days[i]
			if a == nil || b == nil {
				continue
			}
			moved := map[string]float64{}
			for j := range b {
				moved[b[j].Name] = math.Abs(b[j].Value-a[j].Value) / math.Hypot(a[j].Std, b[j].Std)
			}
			day := r.Days[i].Day
			switch {
			case r.Drift != nil && r.Drift.Day == day:
				drifting++
				for _, p := range r.Drift.Params {
					t.Logf("%s (%s) day %d, %s: %s moved %.1f σ", r.ID, r.Model, day, r.Drift.Kind, p, moved[p])
					if !(moved[p] > 3*SigmaScale(r.Model)) {
						t.Errorf("%s day %d: drifting %s moved %.1f σ, want > 3 × SigmaScale", r.ID, day, p, moved[p])
					}
				}
			case r.Drift == nil:
				steady++
				for n, m := range moved {
					if !(m < 3*SigmaScale(r.Model)) {
						t.Errorf("%s day %d: steady robot's %s moved %.1f σ, want < 3 × SigmaScale %.1f", r.ID, day, n, m, SigmaScale(r.Model))
					}
				}
			}
		}
	}
	if drifting == 0 || steady == 0 {
		t.Errorf("%d drift days and %d steady robot-day pairs checked; want some of each", drifting, steady)
	}
}
