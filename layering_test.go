package wheelgrad_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sort"
	"strings"
	"testing"
)

// module is the module path of go.mod; package names below are relative to it.
const module = "github.com/wheelgrad/wheelgrad"

// room is one row of DESIGN.md's package table: the packages it holds and
// what they may import.
type room struct {
	// pattern names the room's packages: "graph" is graph and its
	// subpackages (unless a longer pattern holds them); "models/*" is every
	// package under models/; "." is the module's root package alone.
	pattern string
	// allow lists the rooms (by pattern) and external groups (see externals)
	// the room's packages may import. "everything" allows any import.
	allow []string
}

// table is DESIGN.md's import table ("Packages (the rooms)"), row by row.
// Rules the table states in prose are in imports(): the standard library is
// always allowed; a package may import packages of its own room, but a
// model never imports another model (models/<robot>/... is one room per
// robot); importing graph or ad brings gorgonia (their API is
// *gorgonia.Node: a package building on them names gorgonia's types).
//
// The table is checked for non-test imports only: tests compare against
// references in other rooms on purpose (dyn's tests check against ad).
//
// fleet has its own go.mod and is not listed by go list ./... here; the
// notebooks are not Go packages.
var table = []room{
	{".", nil}, // this package: documentation and this test
	{"graph", []string{"gorgonia"}},
	{"ad", []string{"gorgonia", "graph"}},
	{"dyn", []string{"gorgonia", "graph"}},
	{"dyn/internal", []string{"dyn"}}, // models for dyn's own tests
	{"opt", []string{"gonum"}},
	{"dataset", nil},
	{"dataset/bag", []string{"dataset", "mcap"}},
	{"losses", []string{"graph", "gonum"}},
	{"fit", []string{"opt", "dataset", "gonum"}},
	{"models/*", []string{"dyn", "graph", "ad", "losses", "opt", "dataset", "fit", "gonum"}},
	{"control", []string{"dyn", "ad", "opt", "losses", "dataset"}},
	{"robots", []string{"models/*", "fit", "control", "dataset", "dataset/bag"}},
	{"figure", []string{"gonum/plot"}},
	{"cli", []string{"robots", "fit", "control", "figure", "dataset", "cli/stage"}},
	{"cli/stage", nil}, // the command line's all-or-nothing output files
	{"cmd/wheelgrad", []string{"cli", "robots"}},
	{"experiments/*", []string{"everything"}},
	{"internal/benchpair", nil}, // the speed tables' paired timing, for benchmarks only
	{"internal/fifotest", nil},  // FIFOs for the tests of inputs given as pipes, for tests only
}

// externals are the table's names for modules outside this one: each
// covers the import paths it lists and the paths below them.
var externals = map[string][]string{
	// github.com/chewxy/hm is gorgonia's type system: a custom op's Type
	// returns an hm.Type.
	"gorgonia":   {"gorgonia.org", "github.com/chewxy/hm"},
	"gonum":      {"gonum.org/v1/gonum"},
	"gonum/plot": {"gonum.org/v1/plot"},
	// github.com/pierrec/lz4/v4 is the lz4 of the mcap library, which the
	// ROS 1 bag reader needs for lz4 chunks as well.
	"mcap": {"github.com/foxglove/mcap/go/mcap", "github.com/pierrec/lz4/v4"},
}

// implied: importing the key's room allows the listed external groups.
var implied = map[string][]string{
	"graph": {"gorgonia"},
	"ad":    {"gorgonia"},
}

// arrow is one import: from imports to (both relative to the module, or
// an external import path).
type arrow struct{ from, to string }

// ratchet lists today's known violations of the table, each with the work
// that removes it. The test fails on any violation not listed here, and on
// any entry listed here that is no longer a violation: when you remove an
// arrow, remove its entry, so that this list only shrinks.
var ratchet = map[arrow]string{
	// control imports no model and holds no copy of a model's step; the
	// SBMPO planner moves to the skid-steer's room, the data-driven
	// baseline to experiments/internal, the Mecanum graph synthesis out of
	// control's graph building.
	{"control", "graph"}: "issue 23, Deliver 5 (control)",
}

// pkg is what go list says of one package.
type pkg struct {
	ImportPath string
	Imports    []string
}

// listPackages runs go list over the module.
func listPackages(t *testing.T) []pkg {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list the imports: %v", err)
	}
	cmd := exec.Command(gobin, "list", "-json=ImportPath,Imports", "./...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// rel is path relative to the module ("." for the root), and whether it is
// in the module.
func rel(path string) (string, bool) {
	if path == module {
		return ".", true
	}
	if r, ok := strings.CutPrefix(path, module+"/"); ok {
		return r, true
	}
	return "", false
}

// roomOf is the row holding a package (relative path): the longest
// matching pattern.
func roomOf(p string) (room, bool) {
	best, found := room{}, false
	for _, r := range table {
		if matches(r.pattern, p) && (!found || len(r.pattern) > len(best.pattern)) {
			best, found = r, true
		}
	}
	return best, found
}

func matches(pattern, p string) bool {
	switch {
	case pattern == ".":
		return p == "."
	case strings.HasSuffix(pattern, "/*"):
		return strings.HasPrefix(p, strings.TrimSuffix(pattern, "*"))
	default:
		return p == pattern || strings.HasPrefix(p, pattern+"/")
	}
}

// robotOf is models/<robot> for a package under models/.
func robotOf(p string) string {
	parts := strings.SplitN(p, "/", 3)
	if len(parts) < 2 {
		return p
	}
	return parts[0] + "/" + parts[1]
}

// allowed says whether package from (relative) may import path, and why
// not.
func allowed(from room, fromPkg, path string) (bool, string) {
	if contains(from.allow, "everything") {
		return true, ""
	}
	to, internal := rel(path)
	if !internal {
		if first, _, _ := strings.Cut(path, "/"); !strings.Contains(first, ".") {
			return true, "" // the standard library
		}
		groups := append([]string(nil), from.allow...)
		for _, a := range from.allow {
			groups = append(groups, implied[a]...)
		}
		for _, g := range groups {
			for _, prefix := range externals[g] {
				if path == prefix || strings.HasPrefix(path, prefix+"/") {
					return true, ""
				}
			}
		}
		return false, fmt.Sprintf("room %q may import %v; %s is outside them", from.pattern, from.allow, path)
	}
	toRoom, ok := roomOf(to)
	if !ok {
		return false, fmt.Sprintf("%s is in no room of the table", to)
	}
	if toRoom.pattern == from.pattern {
		if from.pattern == "models/*" && robotOf(fromPkg) != robotOf(to) {
			return false, "a model never imports another model"
		}
		return true, ""
	}
	if contains(from.allow, toRoom.pattern) {
		return true, ""
	}
	return false, fmt.Sprintf("room %q may import %v, not %q", from.pattern, from.allow, toRoom.pattern)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestLayering fails on any import against DESIGN.md's table that the
// ratchet does not list, and on any ratchet entry no longer violated.
func TestLayering(t *testing.T) {
	pkgs := listPackages(t)
	if len(pkgs) < 10 {
		t.Fatalf("go list found %d packages; expected the whole module", len(pkgs))
	}
	seen := map[arrow]bool{}
	var unexpected []string
	for _, p := range pkgs {
		from, ok := rel(p.ImportPath)
		if !ok {
			t.Errorf("%s is not in module %s", p.ImportPath, module)
			continue
		}
		r, ok := roomOf(from)
		if !ok {
			t.Errorf("package %s is in no row of DESIGN.md's import table: add its row to the table (DESIGN.md and this test) on purpose", from)
			continue
		}
		for _, imp := range p.Imports {
			ok, why := allowed(r, from, imp)
			if ok {
				continue
			}
			to := imp
			if r, internal := rel(imp); internal {
				to = r
			}
			a := arrow{from, to}
			if _, known := ratchet[a]; known {
				seen[a] = true
				continue
			}
			unexpected = append(unexpected, fmt.Sprintf("%s imports %s: %s", from, to, why))
		}
	}
	sort.Strings(unexpected)
	for _, u := range unexpected {
		t.Errorf("against DESIGN.md's import table: %s", u)
	}
	var stale []string
	for a, why := range ratchet {
		if !seen[a] {
			stale = append(stale, fmt.Sprintf("%s → %s (%s)", a.from, a.to, why))
		}
	}
	sort.Strings(stale)
	for _, s := range stale {
		t.Errorf("ratchet entry %s is no longer a violation: delete it from the ratchet in layering_test.go", s)
	}
}

// The table names only rooms and groups it defines, and the matching
// rules put each kind of package where DESIGN.md does.
func TestLayeringTable(t *testing.T) {
	patterns := map[string]bool{}
	for _, r := range table {
		if patterns[r.pattern] {
			t.Errorf("room %q twice", r.pattern)
		}
		patterns[r.pattern] = true
	}
	for _, r := range table {
		for _, a := range r.allow {
			if !patterns[a] && externals[a] == nil && a != "everything" {
				t.Errorf("room %q allows %q, which is neither a room nor an external group", r.pattern, a)
			}
		}
	}
	for a := range ratchet {
		if _, ok := roomOf(a.from); !ok {
			t.Errorf("ratchet entry %v: %s is in no room", a, a.from)
		}
	}
	for _, c := range []struct {
		pkg, room string
	}{
		{".", "."},
		{"dataset", "dataset"},
		{"dataset/bag", "dataset/bag"},
		{"models/skidsteer/terra", "models/*"},
		{"dyn/internal/testmodels", "dyn/internal"},
		{"experiments/internal/pathexp", "experiments/*"},
		{"cmd/wheelgrad", "cmd/wheelgrad"},
	} {
		if r, ok := roomOf(c.pkg); !ok || r.pattern != c.room {
			t.Errorf("room of %s = %q (found %v), want %q", c.pkg, r.pattern, ok, c.room)
		}
	}
	for _, c := range []struct {
		from, to string
		ok       bool
	}{
		{"models/diffdrive/calibrate", module + "/models/diffdrive", true}, // one robot
		{"models/mecanum", module + "/models/diffdrive", false},            // a model never imports another
		{"models/mecanum", "gorgonia.org/gorgonia", true},                  // through ad and graph
		{"control", module + "/models/mecanum", false},
		{"control", "gorgonia.org/tensor", true},
		{"opt", "gorgonia.org/gorgonia", false},
		{"opt", "gonum.org/v1/gonum/mat", true},
		{"dataset", "gonum.org/v1/gonum/mat", false},
		{"dataset", "encoding/csv", true},
		{"dataset", module + "/dataset/bag", false},
		{"figure", "gonum.org/v1/plot/vg", true},
		{"figure", "gonum.org/v1/gonum/mat", false},
		{"cli", module + "/models/tire", false},
		{"robots", module + "/models/tire", true},
		{"experiments/own-model", module + "/cli", true},
		{"dataset/bag", "github.com/foxglove/mcap/go/mcap", true},
		{"dataset/bag", "example.com/other", false},
	} {
		r, _ := roomOf(c.from)
		if ok, why := allowed(r, c.from, c.to); ok != c.ok {
			t.Errorf("%s → %s allowed = %v (%s), want %v", c.from, c.to, ok, why, c.ok)
		}
	}
}
