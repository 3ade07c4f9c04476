package robots_test

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/fit"
	"github.com/wheelgrad/wheelgrad/models/pioneer"
	"github.com/wheelgrad/wheelgrad/models/tire"
	. "github.com/wheelgrad/wheelgrad/robots"
)

// Issue 28 (Deliver 4): the layout checks of the shared diagnostics —
// poses jumping back to a start, motion with zero commands, standing while
// commanded — are said by every model that has poses or measured speeds,
// before any unit warning, and never on the sample logs as they are.

// layoutEdit rewrites a CSV: each data row's cells, with the header's
// column index, through edit (which may drop the row by returning nil).
func layoutEdit(t *testing.T, path string, edit func(col map[string]int, row []string) []string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	col := map[string]int{}
	for i, h := range strings.Split(lines[0], ",") {
		col[h] = i
	}
	out := []string{lines[0]}
	for _, l := range lines[1:] {
		if row := edit(col, strings.Split(l, ",")); row != nil {
			out = append(out, strings.Join(row, ","))
		}
	}
	return strings.Join(out, "\n") + "\n"
}

// zeroCommands sets the columns cmds to 0 on the rows of run traj (any
// run: "") whose time lies in [from, to).
func zeroCommands(cmds []string, traj string, from, to float64) func(map[string]int, []string) []string {
	return func(col map[string]int, row []string) []string {
		tt, _ := strconv.ParseFloat(row[col["t"]], 64)
		if i, ok := col["traj"]; (!ok || traj == "" || row[i] == traj) && tt >= from && tt < to {
			for _, c := range cmds {
				row[col[c]] = "0"
			}
		}
		return row
	}
}

// layoutWarnings identifies with model (3 iterations: the checks come
// before the fit) and returns the warnings said, as text.
func layoutWarnings(t *testing.T, model string, src Source) []string {
	t.Helper()
	m, ok := Default().Get(model)
	if !ok {
		t.Fatalf("no model %s", model)
	}
	s := &ddSink{}
	_, err := m.(Identifier).Identify(IdentifyRequest{Sources: []Source{src}, Sink: s, Fit: fit.Settings{MaxIter: 3}, AllowUndetermined: true})
	if err != nil {
		t.Logf("%s: %v", model, err)
	}
	return s.warnings()
}

// layoutFind returns the index of the first warning containing what, -1
// for none.
func layoutFind(ws []string, what string) int {
	for i, w := range ws {
		if strings.Contains(w, what) {
			return i
		}
	}
	return -1
}

const (
	layoutManual = "moves while every command is zero"
	layoutStands = "stands still while commanded"
	layoutJump   = "jump back to the run's start"
)

func TestLayoutWarningsEveryModel(t *testing.T) {
	tireLog := "../models/tire/testdata/jackal.csv"
	pioneerLog := "../models/pioneer/testdata/p3dx.csv"
	mecCmds, mecCam := "../models/mecanum/testdata/commands.csv", "../models/mecanum/testdata/camera.csv"
	cases := []struct {
		name, model string
		src         Source
		edit        func(map[string]int, []string) []string // nil: the log as it is
		editPath    string
		want        []string
	}{
		{name: "tire as logged", model: "tire", src: Source{Path: tireLog}},
		{name: "tire hand-driven", model: "tire", editPath: tireLog, edit: zeroCommands([]string{"wl", "wr"}, "paperclip-4", 4, 7), want: []string{layoutManual}},
		{name: "tire without traj", model: "tire", editPath: tireLog, edit: func(col map[string]int, row []string) []string {
			// the second run on the first one's clock, its poses restarting at 0
			if row[col["traj"]] == "paperclip-4" {
				tt, _ := strconv.ParseFloat(row[col["t"]], 64)
				row[col["t"]] = strconv.FormatFloat(tt+7.94, 'f', -1, 64)
			}
			return row[:col["traj"]]
		}, want: []string{layoutJump}},
		{name: "pioneer as logged", model: "pioneer", src: Source{Path: pioneerLog}},
		{name: "pioneer hand-driven", model: "pioneer", editPath: pioneerLog, edit: zeroCommands([]string{"v_ref", "w_ref"}, "navigation", 21, 27), want: []string{layoutManual}},
		{name: "diffdrive as logged", model: "diffdrive", src: Source{Path: wheelchairLog}},
		{name: "diffdrive hand-driven", model: "diffdrive", editPath: wheelchairLog, edit: zeroCommands([]string{"uf", "ul"}, "", 110, 116), want: []string{layoutManual}},
		{name: "mecanum as logged", model: "mecanum", src: Source{Path: mecCmds, Poses: mecCam}},
		{name: "mecanum hand-driven", model: "mecanum", src: Source{Poses: mecCam}, editPath: mecCmds, edit: zeroCommands([]string{"w1", "w2", "w3", "w4"}, "", 2, 4), want: []string{layoutManual}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := c.src
			if c.edit != nil {
				body := layoutEdit(t, c.editPath, c.edit)
				if c.want != nil && c.want[0] == layoutJump {
					body = strings.Replace(body, ",traj\n", "\n", 1)
				}
				src.Path = ddWriteFile(t, "log.csv", body)
			}
			ws := layoutWarnings(t, c.model, src)
			for _, what := range []string{layoutManual, layoutStands, layoutJump} {
				want := false
				for _, w := range c.want {
					want = want || w == what
				}
				i := layoutFind(ws, what)
				if (i >= 0) != want {
					t.Errorf("%q said: %v, want %v; warnings:\n%s", what, i >= 0, want, strings.Join(ws, "\n"))
				}
				// before any unit warning, which the stretch would mislead
				if u := layoutFind(ws, " in mm"); i >= 0 && u >= 0 && u < i {
					t.Errorf("the unit warning comes first:\n%s", strings.Join(ws, "\n"))
				}
			}
		})
	}
}

// A calibration that predicts its own data worse than its start is warned
// of (WorseThanStart, called by every model's Identify): the wheelchair
// log's truth as the start and a calibration with its gains off, and the
// Jackal log with its wheel radius 30 % off; the other way round, nothing.
func TestWorseThanStart(t *testing.T) {
	truthZ := wheelchairTruth.Zeta()
	off := truthZ
	off[3], off[4] = 0.5*off[3], 0.5*off[4]
	jackal := tire.Jackal()
	big := jackal
	big.R *= 1.3
	cases := []struct {
		model     string
		src       Source
		good, bad Params
	}{
		{"diffdrive", Source{Path: wheelchairLog}, wheelchairTruth, wheelchairTruth.WithZeta(off)},
		{"tire", Source{Path: "../models/tire/testdata/jackal.csv"}, jackal, big},
	}
	for _, c := range cases {
		m, _ := Default().Get(c.model)
		ws := WorseThanStart(m, []Source{c.src}, c.good, c.bad, fit.GapsError)
		if len(ws) != 1 || !strings.Contains(ws[0].Msg, "worse than the nominal model") || !strings.Contains(ws[0].Msg, "prediction error (RMS") {
			t.Errorf("%s: calibration worse than its start: warnings %v", c.model, ws)
		} else {
			t.Logf("%s: %s", c.model, ws[0])
		}
		if ws := WorseThanStart(m, []Source{c.src}, c.bad, c.good, fit.GapsError); len(ws) != 0 {
			t.Errorf("%s: calibration better than its start: warnings %v", c.model, ws)
		}
	}
}

// simulate -plot's figure of a velocity model names its runs by traj
// (issue 28: runs numbered 1…N instead of by traj).
func TestSimulateFigureNamesRuns(t *testing.T) {
	sim, err := Pioneer{}.Simulate(SimulateRequest{Params: pioneer.Default(pioneer.FormExperimental),
		Source: Source{Path: "../models/pioneer/testdata/p3dx.csv"}, Plot: true})
	if err != nil {
		t.Fatal(err)
	}
	f := sim.Figure
	if f == nil || len(f.Channels) != 2 || strings.Join(f.RunIDs, ",") != "reversal,navigation" {
		t.Fatalf("figure %+v", f)
	}
	if n := len(f.Channels[0].T); n != 1065 {
		t.Errorf("%d samples in the v panel, want the log's 1065 rows", n)
	}
}
