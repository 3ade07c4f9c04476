package synth

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/robots"
)

// readTree returns every file under dir by its relative path.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// The same Config writes the same bytes; another seed writes other logs.
func TestDeterministic(t *testing.T) {
	cfg := Config{Robots: 6, Days: 3, Seed: 7, Models: DefaultModels}
	a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
	ta, err := Write(a, cfg)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := Write(b, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ta.Manifest, tb.Manifest = "", ""
	if !reflect.DeepEqual(ta, tb) {
		t.Error("two runs of the same Config return different truths")
	}
	cfg.Seed = 8
	if _, err := Write(c, cfg); err != nil {
		t.Fatal(err)
	}
	fa, fb, fc := readTree(t, a), readTree(t, b), readTree(t, c)
	if len(fa) != 1+6+6*3 {
		t.Fatalf("%d files, want a manifest, 6 init files and 18 logs", len(fa))
	}
	same := 0
	for p, x := range fa {
		if !bytes.Equal(x, fb[p]) {
			t.Errorf("%s differs between two runs of the same Config", p)
		}
		if bytes.Equal(x, fc[p]) && filepath.Ext(p) == ".csv" && filepath.Base(p) == "log.csv" && len(x) > 0 {
			same++
		}
	}
	if same > 0 {
		t.Errorf("%d logs are the same under another seed", same)
	}
	// every robot-day's log is its own
	seen := map[string]string{}
	for p, x := range fa {
		if filepath.Base(p) != "log.csv" || len(x) == 0 {
			continue
		}
		if q, ok := seen[string(x)]; ok {
			t.Errorf("%s and %s are the same log", p, q)
		}
		seen[string(x)] = p
	}
}

// The manifest names every log once, relative to the fleet's folder, with
// the robot's model and init file; the truth's robot-days are its rows.
func TestManifest(t *testing.T) {
	dir := t.TempDir()
	tr, err := Write(dir, Config{Robots: 5, Days: 2, Logs: 2, Seed: 3, Models: []string{"mecanum", "skidsteer", "pioneer"}})
	if err != nil {
		t.Fatal(err)
	}
	tab, err := dataset.ReadFile(tr.Manifest, dataset.Spec{Columns: []dataset.Column{
		{Name: "robot", Text: true}, {Name: "model", Text: true}, {Name: "day"}, {Name: "data", Text: true},
		{Name: "poses", Text: true, Sparse: true}, {Name: "map", Text: true, Sparse: true},
		{Name: "offset", Text: true, Sparse: true}, {Name: "init", Text: true}}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{} // log → robot/model/day/init
	for _, r := range tr.Robots {
		for _, d := range r.Days {
			for _, l := range d.Logs {
				want[l] = fmt.Sprintf("%s/%s/%d/%s", r.ID, r.Model, d.Day, r.Init)
			}
		}
	}
	if tab.Len() != 5*2*2 || len(want) != tab.Len() {
		t.Fatalf("%d manifest rows, %d logs in the truth; want 20", tab.Len(), len(want))
	}
	for i := range tab.Len() {
		l := tab.TextCol("data")[i]
		got := fmt.Sprintf("%s/%s/%g/%s", tab.TextCol("robot")[i], tab.TextCol("model")[i], tab.Col("day")[i], tab.TextCol("init")[i])
		if want[l] != got {
			t.Errorf("row %d: %s is %s, truth says %s", i+1, l, got, want[l])
		}
		delete(want, l)
		for _, f := range []string{l, tab.TextCol("init")[i]} {
			if filepath.IsAbs(f) {
				t.Errorf("row %d: %s is not relative", i+1, f)
			}
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
				t.Errorf("row %d: %v", i+1, err)
			}
		}
	}
}

func TestUnknownModel(t *testing.T) {
	_, err := Write(t.TempDir(), Config{Robots: 2, Models: []string{"hovercraft"}})
	if err == nil || !strings.Contains(err.Error(), `"hovercraft"`) {
		t.Errorf("Write with an unknown model: %v", err)
	}
}

// BenchmarkWrite is the default fleet, 40 robots × 5 days.
func BenchmarkWrite(b *testing.B) {
	for b.Loop() {
		if _, err := Write(b.TempDir(), Config{Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// A log is not the exact model's output: its outputs differ from the
// registry's simulation of its logged commands with the true parameters
// by at least the sensor noise, and its clock jitters.
func TestLogsDepartFromTheModel(t *testing.T) {
	for _, model := range DefaultModels {
		dir, tmp := t.TempDir(), t.TempDir()
		tr, err := Write(dir, Config{Robots: 1, Days: 1, Seed: 11, Models: []string{model}, BrokenFraction: -1})
		if err != nil {
			t.Fatal(err)
		}
		n, err := loadNominal(robots.Default(), model, tmp)
		if err != nil {
			t.Fatal(err)
		}
		d := tr.Robots[0].Days[0]
		pv := clone(n.value).(map[string]any)
		for _, p := range n.spec.params {
			setParam(pv, p, d.Params[p.name])
		}
		pb, _ := json.Marshal(pv)
		pf := filepath.Join(tmp, "true.json")
		if err := os.WriteFile(pf, pb, 0o644); err != nil {
			t.Fatal(err)
		}
		p, _, err := n.model.(robots.ParamReader).ReadParams(pf, robots.ForPrediction)
		if err != nil {
			t.Fatal(err)
		}
		log := filepath.Join(dir, d.Data)
		sim, err := n.model.(robots.Simulator).Simulate(robots.SimulateRequest{Params: p, Source: robots.Source{Path: log}})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := sim.Write(&buf); err != nil {
			t.Fatal(err)
		}
		cols := []dataset.Column{{Name: "t"}}
		for _, o := range n.spec.outputs {
			cols = append(cols, dataset.Column{Name: o.name, Sparse: true})
		}
		spec := dataset.Spec{Columns: cols, Time: "t"}
		lt, err := dataset.ReadFile(log, spec)
		if err != nil {
			t.Fatal(err)
		}
		st, err := dataset.Read(&buf, "simulation", spec)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range n.spec.outputs {
			var ss float64
			m := 0
			for k, v := range lt.Col(o.name) {
				if !math.IsNaN(v) {
					e := v - st.Col(o.name)[k]
					ss += e * e
					m++
				}
			}
			rms := math.Sqrt(ss / float64(m))
			t.Logf("%s %s: log − model RMS %.3g over %d samples (sensor σ %.3g)", model, o.name, rms, m, o.noise)
			if !(rms > 0.8*o.noise) {
				t.Errorf("%s %s: the log departs from the model by %.3g RMS, less than its sensor noise %.3g", model, o.name, rms, o.noise)
			}
		}
		tc := lt.Col("t")
		steps := map[float64]bool{}
		for k := 1; k < len(tc); k++ {
			steps[math.Round((tc[k]-tc[k-1])*1e6)] = true
		}
		if len(steps) < 10 {
			t.Errorf("%s: %d distinct time steps: no clock jitter", model, len(steps))
		}
	}
}
