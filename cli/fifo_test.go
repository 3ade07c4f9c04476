//go:build unix

package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wheelgrad/wheelgrad/internal/fifotest"
)

// A log or parameter file that is a FIFO fed without end (one endless
// line) is a one-line error and exit 1 on every command that reads it, not
// a read until the process dies (issue 26.1).
func TestFIFOInputs(t *testing.T) {
	dir := t.TempDir()
	fifo := func(name, head string) string {
		return fifotest.Fed(t, filepath.Join(dir, name), func(w *os.File) {
			w.Write([]byte(head))
			chunk := []byte(strings.Repeat("7", 4096))
			for {
				if _, err := w.Write(chunk); err != nil {
					return // the reader closed it
				}
			}
		})
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"identify", "-model", "tire", "-data", fifo("log.csv", "t,wl,wr,x,y,psi\n0,"), "-out", filepath.Join(dir, "p.json")}, "log.csv: line 2: line longer than 1 MiB"},
		{[]string{"simulate", "-model", "skidsteer", "-params", fifo("p.json", `{"model": "skidsteer", "a": [`), "-controls", "../models/skidsteer/testdata/commands.csv"}, "p.json"},
	} {
		st, _, errOut := runCLI(c.args...)
		lines := strings.Split(strings.TrimSpace(errOut), "\n")
		if st != 1 || !strings.Contains(errOut, c.want) || len(lines) != 1 || len(errOut) > 400 {
			t.Errorf("%s: status %d, stderr %q: want exit 1 and one line with %q", c.args[0], st, errOut, c.want)
		}
	}
}

// A log that is a FIFO fed once is read once: identify, which reads its
// logs again for the worse-than-start check (robots.WorseThanStart), hung
// there, opening the FIFO a second time with no writer left; a column map
// (-columns, a parameter file's "columns"), which reads the header before
// the log, read the log from where the header's read had stopped ("missing
// columns … (header has "", "", 1)"). With the command's dataset.ReadCache
// identify ends with the parameter file that the same log as a regular
// file gives.
func TestFIFOLogReadOnce(t *testing.T) {
	dir := t.TempDir()
	warthog := filepath.Join(dir, "warthog.json")
	os.WriteFile(warthog, []byte(`{"model": "skidsteer", "r": 0.3, "track": 1.08,
  "columns": {"traj": "window", "wl": "meas_left", "wr": "meas_right", "psi": "yaw"}}`), 0o644)
	for i, c := range []struct {
		model, log string
		extra      []string
	}{
		{"mecanum", "../models/mecanum/testdata/commands.csv", []string{"-poses", "../models/mecanum/testdata/camera.csv"}},
		{"mecanum", "../models/mecanum/testdata/commands.csv", []string{"-poses", "../models/mecanum/testdata/camera.csv", "-columns", "w1=w1"}},
		{"tire", "../models/tire/testdata/jackal.csv", nil},
		{"skidsteer", "../experiments/real-warthog/testdata/windows-sample.csv", []string{"-init", warthog, "-where", "calib_step%2=0"}},
	} {
		b, err := os.ReadFile(c.log)
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("%d-%s", i, c.model)
		p := fifotest.FedBytes(t, filepath.Join(dir, name+".csv"), b)
		args := func(data, out string) []string {
			return append([]string{"identify", "-model", c.model, "-data", data, "-out", out}, c.extra...)
		}
		gst, _, gerr := runCLIEnds(t, args(p, filepath.Join(dir, name+"-fifo.json"))...)
		st, _, errOut := runCLI(args(c.log, filepath.Join(dir, name+"-file.json"))...)
		if gst != st || st != 0 {
			t.Errorf("%s: status %d on the FIFO (%s), %d on the file (%s)", name, gst, gerr, st, errOut)
		}
		a, _ := os.ReadFile(filepath.Join(dir, name+"-fifo.json"))
		f, _ := os.ReadFile(filepath.Join(dir, name+"-file.json"))
		if len(a) == 0 || string(a) != string(f) {
			t.Errorf("%s: parameter file from the FIFO %q, from the file %q", name, a, f)
		}
	}
}

// validate -offset auto reads a log twice (the streams for the onset
// estimate, then the log; it waited on the FIFO's second open): from a
// FIFO it prints what the same log as a regular file gives.
func TestFIFOValidateAutoOffset(t *testing.T) {
	dir := t.TempDir()
	const log, poses = "../models/mecanum/testdata/commands.csv", "../models/mecanum/testdata/camera.csv"
	params := filepath.Join(dir, "mu.json")
	if st, _, errOut := runCLI("identify", "-model", "mecanum", "-data", log, "-poses", poses, "-out", params); st != 0 {
		t.Fatalf("identify: %d %s", st, errOut)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	p := fifotest.FedBytes(t, filepath.Join(dir, "log.csv"), b)
	args := func(data string) []string {
		return []string{"validate", "-model", "mecanum", "-params", params, "-data", data, "-poses", poses, "-offset", "auto"}
	}
	gst, gout, gerr := runCLIEnds(t, args(p)...)
	st, out, errOut := runCLI(args(log)...)
	if st != 0 || !strings.Contains(out, "RMS error") || gst != st || strings.ReplaceAll(gout, p, log) != out {
		t.Errorf("FIFO: status %d, %s%s\nfile: status %d, %s%s", gst, gout, gerr, st, out, errOut)
	}
}

// Every input given as a FIFO fed once (a shell's <(…) is one too) gives
// what the same file gives, within one command that opens it more than
// once (dataset.ReadPipesOnce in Run): a parameter file, read for its
// values and again for its "columns", hung; inspect, which reads a log's
// header first, reported its columns missing; pioneer identify hung.
func TestFIFOEveryInput(t *testing.T) {
	dir := t.TempDir()
	const (
		mlog  = "../models/mecanum/testdata/commands.csv"
		mcam  = "../models/mecanum/testdata/camera.csv"
		plog  = "../models/pioneer/testdata/p3dx.csv"
		ctrls = "../models/mecanum/testdata/commands.csv"
	)
	params := filepath.Join(dir, "mu.json")
	if st, _, errOut := runCLI("identify", "-model", "mecanum", "-data", mlog, "-poses", mcam, "-out", params); st != 0 {
		t.Fatalf("identify: %d %s", st, errOut)
	}
	for i, c := range []struct {
		feed string
		args []string // "@" is the input
	}{
		{params, []string{"validate", "-model", "mecanum", "-params", "@", "-data", mlog, "-poses", mcam}},
		{params, []string{"simulate", "-model", "mecanum", "-params", "@", "-controls", ctrls}},
		{params, []string{"identify", "-model", "mecanum", "-data", mlog, "-poses", mcam, "-init", "@", "-loss", "squared", "-json"}},
		{mlog, []string{"inspect", "-model", "mecanum", "-data", "@", "-poses", mcam}},
		{plog, []string{"identify", "-model", "pioneer", "-data", "@", "-json"}},
	} {
		b, err := os.ReadFile(c.feed)
		if err != nil {
			t.Fatal(err)
		}
		p := fifotest.FedBytes(t, filepath.Join(dir, fmt.Sprintf("in%d", i)), b)
		args := func(in string) []string {
			a := slices.Clone(c.args)
			a[slices.Index(a, "@")] = in
			return a
		}
		gst, gout, gerr := runCLIEnds(t, args(p)...)
		st, out, errOut := runCLI(args(c.feed)...)
		fifoOut := strings.ReplaceAll(gout, p, c.feed)
		fifoOut = regexp.MustCompile(`"(wall_s|elapsed_s|time_s)": [0-9.e-]+`).ReplaceAllString(fifoOut, "")
		out = regexp.MustCompile(`"(wall_s|elapsed_s|time_s)": [0-9.e-]+`).ReplaceAllString(out, "")
		if st != 0 || gst != st || len(out) == 0 || fifoOut != out {
			t.Errorf("%v: FIFO: status %d, stdout %q, stderr %s\nfile: status %d, stdout %q, stderr %s", c.args, gst, gout, gerr, st, out, errOut)
		}
	}
}

// runCLIEnds is runCLI, failing the test if the command has not ended
// within two minutes (a liveness guard for inputs that are pipes, not a
// speed test).
func runCLIEnds(t *testing.T, args ...string) (status int, stdout, stderr string) {
	t.Helper()
	type result struct {
		st       int
		out, err string
	}
	done := make(chan result, 1)
	go func() {
		st, out, errOut := runCLI(args...)
		done <- result{st, out, errOut}
	}()
	select {
	case r := <-done:
		return r.st, r.out, r.err
	case <-time.After(2 * time.Minute):
		t.Fatalf("%v did not end", args)
	}
	return
}
