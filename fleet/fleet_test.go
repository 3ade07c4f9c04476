package fleet

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	beamlog "github.com/apache/beam/sdks/v2/go/pkg/beam/log"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/wheelgrad/wheelgrad/cli"
	"github.com/wheelgrad/wheelgrad/robots"
)

func TestMain(m *testing.M) {
	beamlog.LogLevel = "warn" // Prism's job lines at INFO
	ptest.Main(m)
}

// panicky is the skid-steer model with an Identify that panics: a model's
// bug, which must become a dead letter.
type panicky struct{ robots.SkidSteer }

func (panicky) Name() string { return "panicky" }
func (panicky) Identify(req robots.IdentifyRequest) (*robots.Identified, error) {
	var runs []int
	_ = runs[len(req.Sources)] // a runtime panic, as a model's bug would be
	return nil, nil
}

func testRegistry() *robots.Registry { return robots.Default().With(panicky{}) }

func init() { RegisterRegistry("fleet-test", testRegistry) }

// copyFile copies a toolkit test log, editing its lines with edit (nil:
// none).
func copyFile(t *testing.T, src, dst string, edit func(i int, line string) string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if edit != nil {
		for i := range lines {
			lines[i] = edit(i, lines[i])
		}
	}
	if err := os.WriteFile(dst, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fixture builds a fleet of 5 robots × 1–3 days from the models' test logs
// in dir/logs with its manifest dir/manifest.csv: ss-a (skid-steer, steady:
// the same log each day), ss-b (skid-steer, day 3's headings scaled by 0.7:
// drifting), mec-a (Mecanum, day 2's log has "abc" on line 50), p3-a
// (Pioneer 3DX, steady), pk-a (a model that panics).
func fixture(t *testing.T, dir string) string {
	t.Helper()
	logs := filepath.Join(dir, "logs")
	if err := os.MkdirAll(logs, 0o755); err != nil {
		t.Fatal(err)
	}
	m := filepath.Join("..", "models")
	copyFile(t, filepath.Join(m, "skidsteer", "testdata", "commands.csv"), filepath.Join(logs, "ss_cmd.csv"), nil)
	copyFile(t, filepath.Join(m, "skidsteer", "testdata", "vo.csv"), filepath.Join(logs, "ss_vo.csv"), nil)
	copyFile(t, filepath.Join(m, "skidsteer", "testdata", "vo.csv"), filepath.Join(logs, "ss_vo_drift.csv"), func(i int, l string) string {
		if i == 0 {
			return l
		}
		f := strings.Split(l, ",")
		var psi float64
		fmt.Sscan(f[3], &psi)
		f[3] = fmt.Sprint(0.7 * psi)
		return strings.Join(f, ",")
	})
	copyFile(t, filepath.Join(m, "mecanum", "testdata", "commands.csv"), filepath.Join(logs, "mec_cmd.csv"), nil)
	copyFile(t, filepath.Join(m, "mecanum", "testdata", "camera.csv"), filepath.Join(logs, "mec_cam.csv"), nil)
	copyFile(t, filepath.Join(m, "mecanum", "testdata", "commands.csv"), filepath.Join(logs, "mec_bad.csv"), func(i int, l string) string {
		if i == 49 {
			return "0.2,10,abc,10,10"
		}
		return l
	})
	copyFile(t, filepath.Join(m, "pioneer", "testdata", "p3dx.csv"), filepath.Join(logs, "p3.csv"), nil)
	manifest := filepath.Join(dir, "manifest.csv")
	rows := `robot,model,day,data,poses
# steady skid-steer
ss-a,skidsteer,1,logs/ss_cmd.csv,logs/ss_vo.csv
ss-a,skidsteer,2,logs/ss_cmd.csv,logs/ss_vo.csv
ss-a,skidsteer,3,logs/ss_cmd.csv,logs/ss_vo.csv
ss-b,skidsteer,3,logs/ss_cmd.csv,logs/ss_vo_drift.csv
ss-b,skidsteer,1,logs/ss_cmd.csv,logs/ss_vo.csv
ss-b,skidsteer,2,logs/ss_cmd.csv,logs/ss_vo.csv
mec-a,mecanum,1,logs/mec_cmd.csv,logs/mec_cam.csv
mec-a,mecanum,2,logs/mec_bad.csv,logs/mec_cam.csv
mec-a,mecanum,3,logs/mec_cmd.csv,logs/mec_cam.csv
p3-a,pioneer,1,logs/p3.csv,
p3-a,pioneer,2,logs/p3.csv,
pk-a,panicky,1,logs/ss_cmd.csv,logs/ss_vo.csv
`
	if err := os.WriteFile(manifest, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	return manifest
}

// runFleet runs the pipeline on Prism (ptest) over the manifest into out,
// asserting with passert that it emitted one outcome per robot-day.
func runFleet(t *testing.T, manifest, out string, parallelism int) {
	t.Helper()
	es, err := ReadManifest(manifest, testRegistry())
	if err != nil {
		t.Fatal(err)
	}
	p, s := beam.NewPipelineWithRoot()
	outs := Build(s, es, Config{Out: out, Registry: "fleet-test", Parallelism: parallelism})
	passert.Count(s, outs, "outcomes", RobotDays(es))
	if err := ptest.Run(p); err != nil {
		t.Fatal(err)
	}
}

func readJSONL[T any](t *testing.T, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var v T
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, v)
	}
	return out
}

func TestFixtureFleet(t *testing.T) {
	dir := t.TempDir()
	manifest := fixture(t, dir)
	out := filepath.Join(dir, "out")
	runFleet(t, manifest, out, 2)

	reps := readJSONL[DayReport](t, filepath.Join(out, "report.jsonl"))
	var got []string
	for _, r := range reps {
		got = append(got, r.Robot+"/"+r.Day)
	}
	want := []string{"mec-a/1", "mec-a/2", "mec-a/3", "p3-a/1", "p3-a/2", "pk-a/1", "ss-a/1", "ss-a/2", "ss-a/3", "ss-b/1", "ss-b/2", "ss-b/3"}
	if !slices.Equal(got, want) {
		t.Fatalf("report rows %v, want %v", got, want)
	}
	// the keys of the issue, in its order (then nrmse, fit_drop)
	first, _ := os.ReadFile(filepath.Join(out, "report.jsonl"))
	line := strings.SplitN(string(first), "\n", 2)[0]
	var keys []string
	dec := json.NewDecoder(strings.NewReader(line))
	dec.Token()
	for dec.More() {
		k, _ := dec.Token()
		keys = append(keys, k.(string))
		var skip json.RawMessage
		dec.Decode(&skip)
	}
	if want := []string{"robot", "day", "model", "status", "params", "fit_percent", "drift", "drift_params", "nrmse", "fit_drop"}; !slices.Equal(keys, want) {
		t.Errorf("report keys %v, want %v", keys, want)
	}
	by := map[string]DayReport{}
	for _, r := range reps {
		by[r.Robot+"/"+r.Day] = r
	}
	for k, r := range by {
		if wantNull := r.Day == "1" || r.Status == "failed"; wantNull != (r.FitPercent == nil) {
			t.Errorf("%s: fit_percent %v (null exactly on a robot's first day)", k, r.FitPercent)
		}
		if r.Drift != (k == "ss-b/3") {
			t.Errorf("%s: drift %v %v (fit %v, drop %v)", k, r.Drift, r.DriftParams, r.FitPercent, r.FitDrop)
		}
	}
	if d := by["ss-b/3"].DriftParams; !slices.Contains(d, "a32") {
		t.Errorf("ss-b/3 drift params %v: want a32 (the yaw slip, headings scaled by 0.7)", d)
	}
	// mec-a/3 is compared with day 1, the last good calibration: the same log
	if f := by["mec-a/3"].FitPercent; f == nil || *f < 50 {
		t.Errorf("mec-a/3 fit %% %v: want the day-1 calibration's fit on the same log", f)
	}
	for _, k := range []string{"mec-a/2", "pk-a/1"} {
		if r := by[k]; r.Status != "failed" || string(r.Params) != "[]" {
			t.Errorf("%s: status %q params %s, want failed and []", k, r.Status, r.Params)
		}
	}

	dead := readJSONL[DeadLetter](t, filepath.Join(out, "dead_letters.jsonl"))
	if len(dead) != 2 {
		t.Fatalf("dead letters %+v, want mec-a/2 and pk-a/1", dead)
	}
	if d := dead[0]; d.Robot != "mec-a" || d.Day != "2" || d.Stage != "identify" || !strings.Contains(d.Error, `mec_bad.csv: line 50, column "w2": "abc" is not a number`) {
		t.Errorf("dead letter %+v: want the bad cell's file, line and column", d)
	}
	if d := dead[1]; d.Robot != "pk-a" || d.Stage != "panic" || !strings.Contains(d.Error, "index out of range") {
		t.Errorf("dead letter %+v: want the model's panic", d)
	}

	// params files exactly for the robot-days that succeeded
	var files []string
	filepath.WalkDir(filepath.Join(out, "params"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			r, _ := filepath.Rel(filepath.Join(out, "params"), p)
			files = append(files, filepath.ToSlash(strings.TrimSuffix(r, ".json")))
		}
		return nil
	})
	slices.Sort(files)
	var ok []string
	for _, k := range want {
		if by[k].Status != "failed" {
			ok = append(ok, k)
		}
	}
	if !slices.Equal(files, ok) {
		t.Errorf("params files %v, want %v", files, ok)
	}

	// the CSV report and the histories say the same
	csvb, _ := os.ReadFile(filepath.Join(out, "report.csv"))
	if n := strings.Count(string(csvb), "\n"); n != len(want)+1 {
		t.Errorf("report.csv has %d lines, want %d", n, len(want)+1)
	}
	if !strings.Contains(string(csvb), "\nss-b,3,skidsteer,identified,a11=") {
		t.Errorf("report.csv: no ss-b day 3 row:\n%s", csvb)
	}
	hist, _ := os.ReadFile(filepath.Join(out, "history", "mec-a.csv"))
	if lines := strings.Split(strings.TrimSpace(string(hist)), "\n"); len(lines) != 4 || !strings.HasPrefix(lines[0], "day,status,fit_percent,nrmse,fit_drop,drift,drift_params,mu1,mu1_std") || !strings.HasPrefix(lines[2], "2,failed,") {
		t.Errorf("history of mec-a:\n%s", hist)
	}

	f, err := os.Open(filepath.Join(out, "params.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil || img.Bounds().Dx() < 500 {
		t.Fatalf("params.png: %v", err)
	}
	// no staged file left behind
	filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if base := filepath.Base(p); strings.HasSuffix(p, ".partial") || strings.HasPrefix(base, ".") {
			t.Errorf("staged file left: %s", p)
		}
		return nil
	})
}

// identifyArgs are the command line of `wheelgrad identify` on a
// robot-day's entries.
func identifyArgs(day []Entry, out string) []string {
	var data, poses []string
	for _, e := range day {
		data, poses = append(data, e.Data), append(poses, e.Poses)
	}
	args := []string{"identify", "-model", day[0].Model, "-data", strings.Join(data, ","), "-out", out, "-quiet"}
	if strings.Join(poses, "") != "" {
		args = append(args, "-poses", strings.Join(poses, ","))
	}
	if day[0].Init != "" {
		args = append(args, "-init", day[0].Init)
	}
	return args
}

// TestParamsEqualIdentify: each robot-day's parameter file is the bytes
// `wheelgrad identify -out` writes from the same logs.
func TestParamsEqualIdentify(t *testing.T) {
	dir := t.TempDir()
	manifest := fixture(t, dir)
	es, err := ReadManifest(manifest, testRegistry())
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	reg := robots.Default()
	byRobot := map[string][]Entry{}
	for _, e := range es {
		if e.Model != "panicky" {
			byRobot[e.Robot] = append(byRobot[e.Robot], e)
		}
	}
	checked := 0
	for robot, res := range byRobot {
		outs := CalibrateRobot(reg, res, Config{Out: out})
		sortEntries(res)
		for i := 0; i < len(res); {
			j := i
			for j < len(res) && res[j].Day == res[i].Day {
				j++
			}
			day := res[i:j]
			i = j
			want := filepath.Join(dir, "cli", robot, day[0].Day+".json")
			os.MkdirAll(filepath.Dir(want), 0o755)
			var stderr bytes.Buffer
			code := cli.Run(identifyArgs(day, want), reg, io.Discard, &stderr)
			got, gerr := os.ReadFile(paramsPath(out, robot, day[0].Day))
			if code != 0 {
				if gerr == nil {
					t.Errorf("%s/%s: identify exits %d (%s) but the fleet wrote parameters", robot, day[0].Day, code, stderr.String())
				}
				// the dead letter's error is identify's
				for _, o := range outs {
					if o.Report.Day == day[0].Day && (o.Dead == nil || !strings.Contains(stderr.String(), o.Dead.Error)) {
						t.Errorf("%s/%s: dead letter %+v, identify says %q", robot, day[0].Day, o.Dead, stderr.String())
					}
				}
				continue
			}
			wb, err := os.ReadFile(want)
			if err != nil || gerr != nil {
				t.Fatalf("%s/%s: %v %v", robot, day[0].Day, err, gerr)
			}
			if !bytes.Equal(got, wb) {
				t.Errorf("%s/%s: fleet parameters differ from identify's:\n%s\nvs\n%s", robot, day[0].Day, got, wb)
			}
			checked++
		}
	}
	if checked != 10 { // 12 robot-days less mec-a/2 (bad cell) and pk-a/1 (panicky is not in cli's registry)
		t.Errorf("checked %d robot-days, want 10", checked)
	}
}

// TestDeterministic: two runs (one robot at a time, then three) give
// byte-identical output trees.
func TestDeterministic(t *testing.T) {
	if testing.Short() {
		t.Skip("two pipeline runs")
	}
	dir := t.TempDir()
	manifest := fixture(t, dir)
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	runFleet(t, manifest, a, 1)
	runFleet(t, manifest, b, 3)
	ta, tb := tree(t, a), tree(t, b)
	if len(ta) < 10 {
		t.Fatalf("only %d output files", len(ta))
	}
	for name, x := range ta {
		if y, ok := tb[name]; !ok || !bytes.Equal(x, y) {
			t.Errorf("%s differs between the two runs", name)
		}
	}
	if len(ta) != len(tb) {
		t.Errorf("%d files vs %d", len(ta), len(tb))
	}
}

func tree(t *testing.T, root string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		r, _ := filepath.Rel(root, p)
		out[r] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
