package fleet

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeManifest(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "m.csv")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadManifest(t *testing.T) {
	p := writeManifest(t, "Robot,MODEL,day,data,poses,init,offset,map,notes\nr1,SkidSteer,2,a/log.csv,a/vo.csv,r1.json,auto,\"t=ts:ms,vc=v\",x\nr1,skidsteer,2,/abs/b.csv,,r1.json,0.5,,\n")
	es, err := ReadManifest(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(p)
	if len(es) != 2 || es[0].Model != "skidsteer" || es[0].Data != filepath.Join(dir, "a/log.csv") || es[0].Poses != filepath.Join(dir, "a/vo.csv") ||
		es[0].Init != filepath.Join(dir, "r1.json") || es[0].Offset != "auto" || es[0].Map != "t=ts:ms,vc=v" || es[1].Data != "/abs/b.csv" || es[1].Poses != "" {
		t.Fatalf("entries %+v", es)
	}
	if !strings.HasSuffix(es[1].Where, "m.csv line 3") {
		t.Errorf("where %q", es[1].Where)
	}
}

func TestReadManifestErrors(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"robot,model,day\nr1,skidsteer,1\n", `missing column "data"`},
		{"robot,model,day,data\nr1,hovercraft,1,a.csv\n", `line 2, column "model": unknown model "hovercraft"`},
		{"robot,model,day,data\nr/1,skidsteer,1,a.csv\n", `line 2, column "robot": robot "r/1"`},
		{"robot,model,day,data\nr1,skidsteer,..,a.csv\n", `line 2, column "day": day ".."`},
		{"robot,model,day,data,offset\nr1,skidsteer,1,a.csv,soon\n", `line 2, column "offset": "soon": want seconds or auto`},
		{"robot,model,day,data,map\nr1,skidsteer,1,a.csv,t=\n", `line 2, column "map"`},
		{"robot,model,day,data\nr1,skidsteer,1,\n", `line 2, column "data": empty`},
		{"robot,model,day,data\nr1,skidsteer,1,a.csv\nr1,mecanum,2,b.csv\n", "line 3: robot r1 is model mecanum here but skidsteer"},
		{"robot,model,day,data\nr1,skidsteer,1,a.csv\nr1,skidsteer,1,./a.csv\n", "line 3: r1/1 names log"},
		{"robot,model,day,data,init\nr1,skidsteer,1,a.csv,p.json\nr1,skidsteer,1,b.csv,q.json\n", "one template per robot-day"},
	} {
		_, err := ReadManifest(writeManifest(t, c.body), nil)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "m.csv") {
			t.Errorf("%q: error %v, want the file and %q", c.body, err, c.want)
		}
	}
}

func TestReadLayout(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"r1/init.json", "r1/1/b.csv", "r1/1/a.mcap", "r1/1/notes.txt", "r1/10/a.csv", "r1/2/a.csv", "r2/1/a.csv", "r2/_old/a.csv", ".git/x/a.csv"} {
		p := filepath.Join(root, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("t\n0\n"), 0o644)
	}
	es, err := ReadLayout(root, "SkidSteer", "tmpl.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	sortEntries(es)
	var got []string
	for _, e := range es {
		r, _ := filepath.Rel(root, e.Data)
		got = append(got, r+" "+filepath.Base(e.Init))
	}
	want := []string{"r1/1/a.mcap init.json", "r1/1/b.csv init.json", "r1/2/a.csv init.json", "r1/10/a.csv init.json", "r2/1/a.csv tmpl.json"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("layout %v, want %v", got, want)
	}
	if RobotDays(es) != 4 {
		t.Errorf("%d robot-days", RobotDays(es))
	}
	if _, err := ReadLayout(root, "hovercraft", "", nil); err == nil || !strings.Contains(err.Error(), "unknown model") {
		t.Errorf("unknown model: %v", err)
	}
	if _, err := ReadLayout(t.TempDir(), "skidsteer", "", nil); err == nil || !strings.Contains(err.Error(), "no logs") {
		t.Errorf("empty layout: %v", err)
	}
}

func TestLessDay(t *testing.T) {
	for _, c := range [][2]string{{"2", "10"}, {"1", "2"}, {"2026-11-09", "2026-11-10"}, {"a", "b"}} {
		if !lessDay(c[0], c[1]) || lessDay(c[1], c[0]) {
			t.Errorf("lessDay(%q, %q)", c[0], c[1])
		}
	}
}

func TestBonferroniK(t *testing.T) {
	if k := BonferroniK(1, 0.05); math.Abs(k-1.959964) > 1e-5 {
		t.Errorf("BonferroniK(1, 0.05) = %v, want 1.96", k)
	}
	if k := BonferroniK(1000, 0.05); math.Abs(k-4.055626) > 1e-4 {
		t.Errorf("BonferroniK(1000, 0.05) = %v, want 4.056", k)
	}
}

// FlagDrift: the fleet's spread scales σ up (never down); a parameter
// beyond k scaled σ drifts, a fit drop beyond the margin does too.
func TestFlagDrift(t *testing.T) {
	var outs []Outcome
	// 20 steady robot-days whose changes are up to 4.8 σ (σ understated)
	for i := range 20 {
		z := []float64{-3, -2.5, -2, -1.5, -1, 1, 1.5, 2, 2.5, 3}[i%10] * 1.6
		outs = append(outs, Outcome{Report: DayReport{Robot: "s", Model: "m"}, Changes: []Change{{Name: "p", Delta: z, Sigma: 1}, {Name: "q", Delta: 0.1 * z, Sigma: 1}}})
	}
	drop := 12.0
	outs = append(outs,
		Outcome{Report: DayReport{Robot: "d", Model: "m"}, Changes: []Change{{Name: "p", Delta: 30, Sigma: 1}}},
		Outcome{Report: DayReport{Robot: "f", Model: "m", FitDrop: &drop}})
	test := FlagDrift(outs, Config{Sigma: SigmaFleet})
	for _, s := range test.Scales {
		if s.Param == "p" && math.Abs(s.Scale-3.2/0.6745) > 1e-9 || s.Param == "q" && s.Scale != 1 {
			t.Errorf("scale %+v", s)
		}
	}
	for i, o := range outs[:20] {
		if o.Report.Drift {
			t.Errorf("steady robot-day %d flagged (%v) at the fleet's σ", i, o.Report.DriftParams)
		}
	}
	if o := outs[20].Report; !o.Drift || len(o.DriftParams) != 1 || o.DriftParams[0] != "p" {
		t.Errorf("drifting robot-day: %+v", o)
	}
	if o := outs[21].Report; !o.Drift || len(o.DriftParams) != 0 {
		t.Errorf("fit drop 12 > 10: %+v", o)
	}
	// the reports' σ as they are: the wide steady changes are flagged
	FlagDrift(outs, Config{Sigma: SigmaReport})
	n := 0
	for _, o := range outs[:20] {
		if o.Report.Drift {
			n++
		}
	}
	if n == 0 {
		t.Error("with the reports' σ no steady robot-day flagged: the test does not tell the two apart")
	}
}

// Config.X0: the validation starts each run from its first measured state
// instead of compare's estimate: another fit %, for the same robot-days.
func TestX0First(t *testing.T) {
	dir := t.TempDir()
	es, err := ReadManifest(fixture(t, dir), testRegistry())
	if err != nil {
		t.Fatal(err)
	}
	var ssb []Entry
	for _, e := range es {
		if e.Robot == "ss-b" {
			ssb = append(ssb, e)
		}
	}
	est := CalibrateRobot(testRegistry(), ssb, Config{Out: filepath.Join(dir, "est")})
	first := CalibrateRobot(testRegistry(), ssb, Config{Out: filepath.Join(dir, "first"), X0: "first"})
	for i := 1; i < 3; i++ {
		a, b := est[i].Report.FitPercent, first[i].Report.FitPercent
		if a == nil || b == nil || *a == *b {
			t.Errorf("day %s: fit %% %v (estimate) and %v (first): want two different values", est[i].Report.Day, a, b)
		}
		if string(est[i].Report.Params) != string(first[i].Report.Params) {
			t.Errorf("day %s: the parameters depend on the validation's start", est[i].Report.Day)
		}
	}
}
