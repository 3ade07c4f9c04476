package robots

import (
	"slices"
	"strings"
	"testing"
)

type named string

func (n named) Name() string    { return string(n) }
func (n named) Summary() string { return "a test model" }

func TestRegistry(t *testing.T) {
	d := Default()
	want := []string{"mecanum", "diffdrive", "skidsteer", "pioneer", "tire"}
	if got := d.Names(); !slices.Equal(got, want) {
		t.Fatalf("Default().Names() = %v, want %v", got, want)
	}
	r := d.With(named("bicycle"))
	if _, ok := r.Get("bicycle"); !ok {
		t.Error("With did not add bicycle")
	}
	if _, ok := d.Get("bicycle"); ok {
		t.Error("With changed the registry it copied")
	}
	if err := r.Register(named("tire")); err == nil {
		t.Error("a second tire was registered")
	}
	for _, bad := range []string{"", "Bicycle", "my robot", "a,b"} {
		if err := r.Register(named(bad)); err == nil {
			t.Errorf("name %q was accepted", bad)
		}
	}
	if got := r.Sorted(); !slices.IsSorted(got) || len(got) != 6 {
		t.Errorf("Sorted() = %v", got)
	}
}

func TestRunID(t *testing.T) {
	one := []Source{{Path: "a.csv"}}
	two := []Source{{Path: "logs/a.csv"}, {Path: "b.csv"}}
	for _, c := range []struct {
		srcs       []Source
		file, traj string
		want       string
	}{
		{one, "a.csv", "", ""},
		{one, "a.csv", "3", "3"},
		{two, "logs/a.csv", "", "a.csv"},
		{two, "logs/a.csv", "3", "a.csv:3"},
	} {
		if got := RunID(c.srcs, c.file, c.traj); got != c.want {
			t.Errorf("RunID(%d sources, %q, %q) = %q, want %q", len(c.srcs), c.file, c.traj, got, c.want)
		}
	}
}

// TestCapabilities pins what doc.go says each built-in model can do.
func TestCapabilities(t *testing.T) {
	want := map[string]string{
		"mecanum":   "params identify simulate validate driver inspector",
		"diffdrive": "params identify simulate validate driver inspector",
		"skidsteer": "params identify simulate validate driver planner inspector",
		"pioneer":   "params identify simulate validate inspector",
		"tire":      "params identify simulate validate inspector",
	}
	for _, n := range Default().Names() {
		m, _ := Default().Get(n)
		var caps []string
		for _, c := range []struct {
			name string
			ok   bool
		}{
			{"params", is[ParamReader](m)}, {"identify", is[Identifier](m)}, {"simulate", is[Simulator](m)},
			{"validate", is[Validator](m)}, {"driver", is[Driver](m)},
			{"planner", is[Planner](m)}, {"inspector", is[Inspector](m)},
		} {
			if c.ok {
				caps = append(caps, c.name)
			}
		}
		if got := strings.Join(caps, " "); got != want[n] {
			t.Errorf("%s: %q, doc.go says %q", n, got, want[n])
		}
	}
}

func is[T any](m Model) bool { _, ok := m.(T); return ok }
