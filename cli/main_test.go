package cli

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/robots"
)

// run is Run with the built-in models.
func run(args []string, stdout, stderr io.Writer) int {
	return Run(args, robots.Default(), stdout, stderr)
}

func runCLI(args ...string) (status int, stdout, stderr string) {
	var o, e bytes.Buffer
	status = run(args, &o, &e)
	return status, o.String(), e.String()
}

func TestHelpForEveryCommand(t *testing.T) {
	for _, name := range commandNames() {
		st, out, _ := runCLI(name, "-h")
		if st != 0 || !strings.Contains(out, "usage: wheelgrad "+name) {
			t.Errorf("%s -h: status %d, stdout %q", name, st, out)
		}
	}
	st, out, _ := runCLI("-h")
	if st != 0 || !strings.Contains(out, "wheelgrad demo") || !strings.Contains(out, "wheelgrad identify") {
		t.Errorf("-h: status %d, stdout %q", st, out)
	}
}

func TestUsageErrorsExitTwo(t *testing.T) {
	cases := [][]string{
		{},
		{"frobnicate"},
		{"simulate"}, // missing flags
		{"simulate", "-model", "tank", "-params", "p.json", "-controls", "c.csv"},
		{"identify", "-model", "mecanum"},
		{"identify", "-model", "mecanum", "-data", "a.csv", "-method", "newton"},
		{"follow", "-model", "mecanum", "-params", "p.json", "-path", "figure8", "-rate", "0"},
		{"follow", "-model", "mecanum", "-params", "p.json", "-path", "figure8", "-heading", "sideways"},
		{"demo", "-nosuchflag"},
		{"identify", "-model", "skidsteer", "-data", "a.csv", "-pose", "fixed"}, // a mecanum flag
		{"identify", "-model", "mecanum", "-data", "a.csv", "-cw", "2"},         // a diffdrive flag
		{"demo", "extra-argument"},
	}
	for _, args := range cases {
		st, _, errOut := runCLI(args...)
		if st != 2 {
			t.Errorf("%q: status %d, want 2 (stderr %q)", args, st, errOut)
		}
		if strings.Count(strings.TrimRight(errOut, "\n"), "\n") > 0 && len(args) > 0 {
			t.Errorf("%q: error is not one line: %q", args, errOut)
		}
	}
}

func TestNotYetImplementedModelIsRuntimeFailure(t *testing.T) {
	for _, model := range robots.Default().Names() {
		if _, ok := simulateHandler(robots.Default(), model); ok {
			continue
		}
		st, _, errOut := runCLI("simulate", "-model", model, "-params", "p.json", "-controls", "c.csv")
		if st != 1 || !strings.Contains(errOut, "not available") {
			t.Errorf("simulate -model %s: status %d, stderr %q", model, st, errOut)
		}
	}
}

func TestDemoWritesOutputs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the demo")
	}
	dir := t.TempDir()
	st, out, errOut := runCLI("demo", "-out", dir, "-quiet")
	if st != 0 {
		t.Fatalf("demo: status %d, stderr %q", st, errOut)
	}
	for _, want := range []string{"identified", "figure8.png", "diffdrive.png", "driven backwards"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}
