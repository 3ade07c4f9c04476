package fleet

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/robots"
)

// Entry is one log of one robot on one day: a manifest row, or a file of
// the directory layout. Paths are as the pipeline opens them (a manifest's
// relative paths already joined to the manifest's folder).
type Entry struct {
	Robot, Model, Day string
	Data              string // the log (CSV or MCAP/bag)
	Poses             string // a separate sensor file merged by time, "" for none
	// Map is a column map in -columns syntax (dataset.ParseColumnMap), ""
	// for none.
	Map string
	// Offset (s) is added to the sensor stream's times; "" is 0, "auto"
	// asks the model to estimate it.
	Offset string
	// Init is the parameter template (identify's -init), "" for the model's
	// defaults.
	Init string
	// Where names the entry in messages: "manifest.csv line 3", or the log's
	// path for the directory layout.
	Where string
}

// Manifest columns (FORMATS.md style: names matched case-insensitively,
// order free, extra columns ignored, # lines are comments).
var manifestSpec = dataset.Spec{Columns: []dataset.Column{
	{Name: "robot", Text: true}, {Name: "model", Text: true}, {Name: "day", Text: true}, {Name: "data", Text: true},
	{Name: "poses", Text: true, Optional: true, Sparse: true},
	{Name: "map", Text: true, Optional: true, Sparse: true},
	{Name: "offset", Text: true, Optional: true, Sparse: true},
	{Name: "init", Text: true, Optional: true, Sparse: true},
}}

// ReadManifest reads a fleet manifest, robot,model,day,data[,poses,map,
// offset,init]: one row per log, several rows of one (robot, day) being
// that day's logs, identified together. Relative paths are relative to the
// manifest's folder. reg checks the model names (nil: robots.Default()).
// Errors name the file, the line and the column.
func ReadManifest(path string, reg *robots.Registry) ([]Entry, error) {
	if reg == nil {
		reg = robots.Default()
	}
	t, err := dataset.ReadFile(path, manifestSpec)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(path)
	rel := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	col := func(name string, i int) string {
		if c, ok := t.Text[name]; ok {
			return strings.TrimSpace(c[i])
		}
		return ""
	}
	var out []Entry
	for i := range t.Len() {
		e := Entry{Robot: col("robot", i), Model: strings.ToLower(col("model", i)), Day: col("day", i),
			Data: rel(col("data", i)), Poses: rel(col("poses", i)), Map: col("map", i), Offset: col("offset", i),
			Init: rel(col("init", i)), Where: fmt.Sprintf("%s line %d", path, t.Line[i])}
		for _, c := range []struct{ name, v string }{{"robot", e.Robot}, {"day", e.Day}} {
			if err := checkName(c.v); err != nil {
				return nil, t.Errorf(i, c.name, "%s %q: %v", c.name, c.v, err)
			}
		}
		if e.Data == "" {
			return nil, t.Errorf(i, "data", "empty: want the log's path")
		}
		if err := checkModel(reg, e.Model); err != nil {
			return nil, t.Errorf(i, "model", "%v", err)
		}
		if _, err := dataset.ParseColumnMap(e.Map); err != nil {
			return nil, t.Errorf(i, "map", "%v", err)
		}
		if _, _, err := parseOffset(e.Offset); err != nil {
			return nil, t.Errorf(i, "offset", "%v", err)
		}
		out = append(out, e)
	}
	if err := checkEntries(out); err != nil {
		return nil, err
	}
	return out, nil
}

// ReadLayout reads the directory layout ROOT/ROBOT/DAY/*.csv|*.mcap|*.bag:
// every log file of a day folder is one log of that robot-day, all of model
// (one model for the whole layout). The parameter template of a robot is
// ROOT/ROBOT/init.json when that file exists, else init ("" for the model's
// defaults). Files and folders whose names start with "." or "_" are
// skipped, as are *.json files in day folders.
func ReadLayout(root, model, init string, reg *robots.Registry) ([]Entry, error) {
	if reg == nil {
		reg = robots.Default()
	}
	model = strings.ToLower(strings.TrimSpace(model))
	if err := checkModel(reg, model); err != nil {
		return nil, fmt.Errorf("%s: %v", root, err)
	}
	robotDirs, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, rd := range robotDirs {
		if !rd.IsDir() || skipped(rd.Name()) {
			continue
		}
		robot := rd.Name()
		if err := checkName(robot); err != nil {
			return nil, fmt.Errorf("%s: robot folder %q: %v", root, robot, err)
		}
		tmpl := init
		if p := filepath.Join(root, robot, "init.json"); fileExists(p) {
			tmpl = p
		}
		days, err := os.ReadDir(filepath.Join(root, robot))
		if err != nil {
			return nil, err
		}
		for _, dd := range days {
			if !dd.IsDir() || skipped(dd.Name()) {
				continue
			}
			if err := checkName(dd.Name()); err != nil {
				return nil, fmt.Errorf("%s: day folder %q: %v", filepath.Join(root, robot), dd.Name(), err)
			}
			logs, err := os.ReadDir(filepath.Join(root, robot, dd.Name()))
			if err != nil {
				return nil, err
			}
			for _, lf := range logs {
				ext := strings.ToLower(filepath.Ext(lf.Name()))
				if lf.IsDir() || skipped(lf.Name()) || (ext != ".csv" && ext != ".mcap" && ext != ".bag") {
					continue
				}
				p := filepath.Join(root, robot, dd.Name(), lf.Name())
				out = append(out, Entry{Robot: robot, Model: model, Day: dd.Name(), Data: p, Init: tmpl, Where: p})
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no logs (want ROBOT/DAY/*.csv, *.mcap or *.bag)", root)
	}
	if err := checkEntries(out); err != nil {
		return nil, err
	}
	return out, nil
}

func skipped(name string) bool { return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") }

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// checkName refuses a robot or day name that cannot name a folder and a
// file of the output tree (params/ROBOT/DAY.json).
func checkName(s string) error {
	switch {
	case s == "":
		return fmt.Errorf("empty")
	case s == "." || s == "..":
		return fmt.Errorf("not a name")
	case strings.ContainsAny(s, `/\:*?"<>|`) || strings.ContainsFunc(s, func(r rune) bool { return r < ' ' }):
		return fmt.Errorf(`want letters, digits, '-', '_' or '.' (it names a folder and a file)`)
	case strings.HasPrefix(s, "-"):
		return fmt.Errorf("starts with '-'")
	}
	return nil
}

func checkModel(reg *robots.Registry, name string) error {
	m, ok := reg.Get(name)
	if !ok {
		return fmt.Errorf("unknown model %q (one of %s)", name, strings.Join(reg.Names(), ", "))
	}
	if _, ok := m.(robots.Identifier); !ok {
		return fmt.Errorf("model %q cannot identify", name)
	}
	return nil
}

// parseOffset reads an offset cell: "" (0), seconds, or "auto".
func parseOffset(s string) (v float64, auto bool, err error) {
	switch s {
	case "":
		return 0, false, nil
	case "auto":
		return 0, true, nil
	}
	v, err = strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false, fmt.Errorf("%q: want seconds or auto", s)
	}
	return v, false, nil
}

// checkEntries refuses what would make a robot-day ambiguous: a robot
// under two models, one log named twice in a robot-day (its runs would
// count twice, halving σ), or two templates for one robot-day.
func checkEntries(es []Entry) error {
	model := map[string]Entry{}
	type rd struct{ robot, day string }
	logs := map[rd]map[string]Entry{}
	init := map[rd]Entry{}
	for _, e := range es {
		if f, ok := model[e.Robot]; ok && f.Model != e.Model {
			return fmt.Errorf("%s: robot %s is model %s here but %s at %s: one model per robot", e.Where, e.Robot, e.Model, f.Model, f.Where)
		}
		model[e.Robot] = e
		k := rd{e.Robot, e.Day}
		if logs[k] == nil {
			logs[k] = map[string]Entry{}
		}
		if f, ok := logs[k][filepath.Clean(e.Data)]; ok {
			return fmt.Errorf("%s: %s names log %s again (first at %s): each log counts once", e.Where, e.Robot+"/"+e.Day, e.Data, f.Where)
		}
		logs[k][filepath.Clean(e.Data)] = e
		if f, ok := init[k]; ok && f.Init != e.Init {
			return fmt.Errorf("%s: robot-day %s/%s has init %q here but %q at %s: one template per robot-day", e.Where, e.Robot, e.Day, e.Init, f.Init, f.Where)
		}
		init[k] = e
	}
	return nil
}

// lessDay orders days: numerically when both are whole numbers, else as
// text (ISO dates, 2026-11-20, sort right as text).
func lessDay(a, b string) bool {
	x, ex := strconv.ParseUint(a, 10, 64)
	y, ey := strconv.ParseUint(b, 10, 64)
	if ex == nil && ey == nil && x != y {
		return x < y
	}
	return a < b
}

// sortEntries orders entries by robot and day (lessDay), a robot-day's
// logs staying in their given order (identify's -data order).
func sortEntries(es []Entry) {
	sort.SliceStable(es, func(i, j int) bool {
		a, b := es[i], es[j]
		if a.Robot != b.Robot {
			return a.Robot < b.Robot
		}
		return a.Day != b.Day && lessDay(a.Day, b.Day)
	})
}

// RobotDays counts the robot-days of es.
func RobotDays(es []Entry) int {
	type rd struct{ robot, day string }
	seen := map[rd]bool{}
	for _, e := range es {
		seen[rd{e.Robot, e.Day}] = true
	}
	return len(seen)
}
