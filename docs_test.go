package wheelgrad_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const cliDoc = "docs/cli.md"

// TestCLIReference keeps docs/cli.md's synopsis and flag tables equal to
// what the command line prints for -h: two regions of the page, between
// "begin" and "end" comments, are rendered from `wheelgrad -h` and
// `wheelgrad COMMAND -h` of every command the synopsis lists. A flag added,
// removed or reworded fails here until the page is regenerated with
// DOCS_UPDATE=1 go test -run CLIReference . (and the change is recorded in
// docs/changes.md when it changes the contract).
func TestCLIReference(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/wheelgrad")
	}
	bin := buildCLI(t)

	main := runHelp(t, bin)
	var cmds []string
	for _, m := range regexp.MustCompile(`(?m)^  wheelgrad (\S+)`).FindAllStringSubmatch(main, -1) {
		cmds = append(cmds, m[1])
	}
	if len(cmds) < 8 {
		t.Fatalf("wheelgrad -h lists %d commands (%v); expected at least the 8 documented", len(cmds), cmds)
	}
	synopsis := "```\n" + strings.TrimRight(main, "\n") + "\n```\n"

	var tables strings.Builder
	for _, c := range cmds {
		out := runHelp(t, bin, c)
		md, err := flagTable(c, out)
		if err != nil {
			t.Fatalf("wheelgrad %s -h: %v", c, err)
		}
		tables.WriteString(md)
	}

	page, err := os.ReadFile(cliDoc)
	if err != nil {
		t.Fatal(err)
	}
	updated := page
	for _, r := range []struct{ name, body string }{
		{"wheelgrad -h", synopsis},
		{"wheelgrad COMMAND -h", tables.String()},
	} {
		updated, err = replaceRegion(updated, r.name, r.body)
		if err != nil {
			t.Fatal(err)
		}
	}
	if bytes.Equal(updated, page) {
		return
	}
	if os.Getenv("DOCS_UPDATE") == "1" {
		if err := os.WriteFile(cliDoc, updated, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s differs from the command line's -h output (first difference at line %d); regenerate it with DOCS_UPDATE=1 go test -run CLIReference . and record any change of the contract in docs/changes.md",
		cliDoc, firstDiffLine(page, updated))
}

// buildCLI builds cmd/wheelgrad into a temporary directory.
func buildCLI(t *testing.T) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to build cmd/wheelgrad: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "wheelgrad")
	cmd := exec.Command(gobin, "build", "-o", bin, "./cmd/wheelgrad")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/wheelgrad: %v\n%s", err, out)
	}
	return bin
}

// runHelp runs bin with args and -h; -h must succeed.
func runHelp(t *testing.T, bin string, args ...string) string {
	t.Helper()
	out, err := exec.Command(bin, append(args, "-h")...).CombinedOutput()
	if err != nil {
		t.Fatalf("wheelgrad %s -h: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

var flagLine = regexp.MustCompile(`^  -(\S+)(?: (\S+))?(?:\t(.*))?$`)

// flagTable renders one command's -h output (its usage line, description
// and the flag package's defaults) as a Markdown section.
func flagTable(cmd, help string) (string, error) {
	lines := strings.Split(help, "\n")
	start := -1
	for i, l := range lines {
		if l == "flags:" {
			start = i
			break
		}
	}
	if start < 1 {
		return "", fmt.Errorf("no usage line and \"flags:\" line in:\n%s", help)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "### %s\n\n```\n%s\n```\n\n%s\n\n", cmd, lines[0], strings.TrimSpace(strings.Join(lines[1:start], "\n")))
	b.WriteString("| flag | value | what it does (the `-h` text) |\n|---|---|---|\n")
	for i := start + 1; i < len(lines); {
		m := flagLine.FindStringSubmatch(lines[i])
		if m == nil {
			if strings.TrimSpace(lines[i]) != "" {
				return "", fmt.Errorf("line %q is not a flag", lines[i])
			}
			i++
			continue
		}
		typ := m[2]
		if typ == "" {
			typ = "switch"
		}
		var desc []string
		if m[3] != "" {
			desc = append(desc, m[3])
		}
		for i++; i < len(lines) && strings.HasPrefix(lines[i], "    \t"); i++ {
			desc = append(desc, strings.TrimSpace(lines[i]))
		}
		fmt.Fprintf(&b, "| `-%s` | %s | %s |\n", m[1], typ, strings.ReplaceAll(strings.Join(desc, " "), "|", `\|`))
	}
	b.WriteString("\n")
	return b.String(), nil
}

// replaceRegion replaces the text between the lines "<!-- NAME: begin ..."
// and "<!-- NAME: end -->" of page with body.
func replaceRegion(page []byte, name, body string) ([]byte, error) {
	begin := []byte("<!-- " + name + ": begin")
	end := []byte("<!-- " + name + ": end -->")
	i := bytes.Index(page, begin)
	j := bytes.Index(page, end)
	if i < 0 || j < i {
		return nil, fmt.Errorf("%s: no region %q (begin and end comments)", cliDoc, name)
	}
	k := bytes.IndexByte(page[i:], '\n')
	if k < 0 || i+k+1 > j {
		return nil, fmt.Errorf("%s: region %q: the begin comment takes a line of its own", cliDoc, name)
	}
	var out bytes.Buffer
	out.Write(page[:i+k+1])
	out.WriteString(body)
	out.Write(page[j:])
	return out.Bytes(), nil
}

func firstDiffLine(a, b []byte) int {
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := range la {
		if i >= len(lb) || !bytes.Equal(la[i], lb[i]) {
			return i + 1
		}
	}
	return len(la) + 1
}
