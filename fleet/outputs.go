package fleet

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/wheelgrad/wheelgrad/cli/stage"
)

// The fleet's outputs under Config.Out, beside the per-robot-day parameter
// files (params/ROBOT/DAY.json, written by CalibrateRobot):
//
//	report.jsonl       one DayReport per robot-day, sorted by robot then day
//	report.csv         the same, one row per robot-day
//	dead_letters.jsonl one DeadLetter per failed robot-day, same order
//	history/ROBOT.csv  the robot's parameters (value and σ) day by day
//	params.png         the fleet's parameters over days (Figure)
//	drift.json         how drift was judged: k, σ scales (FlagDrift)
//
// Each file is written whole under a temporary name and renamed onto its
// own, so a reader never sees a part of one.

// ParamEntry is the part of an `identify -json` parameter entry the
// history and the figure use.
type ParamEntry struct {
	Name  string   `json:"name"`
	Value float64  `json:"value"`
	Std   *float64 `json:"std"`
	Held  bool     `json:"held"`
}

// Entries decodes a DayReport's params.
func (r DayReport) Entries() ([]ParamEntry, error) {
	var ps []ParamEntry
	err := json.Unmarshal(r.Params, &ps)
	return ps, err
}

// WriteOutputs flags the fleet's drift (FlagDrift) and writes its report
// files, histories and figure from the outcomes of every robot-day (any
// order).
func WriteOutputs(cfg Config, outs []Outcome) error {
	test := FlagDrift(outs, cfg)
	sort.SliceStable(outs, func(i, j int) bool {
		a, b := outs[i].Report, outs[j].Report
		return less(a.Robot, a.Day, b.Robot, b.Day)
	})
	files := map[string]func(io.Writer) error{
		"report.jsonl":       func(w io.Writer) error { return writeReportJSONL(w, outs) },
		"report.csv":         func(w io.Writer) error { return writeReportCSV(w, outs) },
		"dead_letters.jsonl": func(w io.Writer) error { return writeDeadLetters(w, outs) },
		"params.png":         func(w io.Writer) error { return WriteFigure(w, outs) },
		"drift.json":         func(w io.Writer) error { return writeDriftTest(w, test) },
	}
	byRobot := map[string][]Outcome{}
	for _, o := range outs {
		byRobot[o.Report.Robot] = append(byRobot[o.Report.Robot], o)
	}
	for r, ros := range byRobot {
		files[filepath.Join("history", r+".csv")] = func(w io.Writer) error { return writeHistory(w, ros) }
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := writeAtomic(filepath.Join(cfg.Out, n), files[n]); err != nil {
			return err
		}
	}
	return nil
}

// writeAtomic writes path all or nothing through the toolkit's staging
// (stage.WriteFileAtomic: a hidden temporary file beside it, synced and
// renamed), creating its folder first.
func writeAtomic(path string, write func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return stage.WriteFileAtomic(path, write)
}

func writeReportJSONL(w io.Writer, outs []Outcome) error {
	for _, o := range outs {
		b, err := json.Marshal(o.Report)
		if err != nil {
			return err
		}
		if _, err := w.Write(append(b, '\n')); err != nil {
			return err
		}
	}
	return nil
}

func writeDeadLetters(w io.Writer, outs []Outcome) error {
	for _, o := range outs {
		if o.Dead == nil {
			continue
		}
		b, err := json.Marshal(o.Dead)
		if err != nil {
			return err
		}
		if _, err := w.Write(append(b, '\n')); err != nil {
			return err
		}
	}
	return nil
}

func num(v *float64) string {
	if v == nil {
		return ""
	}
	return strconv.FormatFloat(*v, 'g', -1, 64)
}

// reportColumns are report.csv's: report.jsonl's keys, drift_params
// joined by ";" and params as "name=value" joined by ";".
var reportColumns = []string{"robot", "day", "model", "status", "params", "fit_percent", "drift", "drift_params", "nrmse", "fit_drop"}

func writeReportCSV(w io.Writer, outs []Outcome) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(reportColumns); err != nil {
		return err
	}
	for _, o := range outs {
		r := o.Report
		ps, err := r.Entries()
		if err != nil {
			return err
		}
		var kv []string
		for _, p := range ps {
			kv = append(kv, p.Name+"="+strconv.FormatFloat(p.Value, 'g', -1, 64))
		}
		if err := cw.Write([]string{r.Robot, r.Day, r.Model, r.Status, strings.Join(kv, ";"), num(r.FitPercent),
			strconv.FormatBool(r.Drift), strings.Join(r.DriftParams, ";"), num(r.NRMSE), num(r.FitDrop)}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// writeHistory writes one robot's parameters day by day:
// day,status,fit_percent,nrmse,fit_drop,drift,drift_params, then NAME and
// NAME_std for every parameter (empty cells on a failed day, or for a σ
// the fit could not give).
func writeHistory(w io.Writer, outs []Outcome) error {
	var names []string
	seen := map[string]bool{}
	rows := make([][]ParamEntry, len(outs))
	for i, o := range outs {
		ps, err := o.Report.Entries()
		if err != nil {
			return err
		}
		rows[i] = ps
		for _, p := range ps {
			if !seen[p.Name] {
				seen[p.Name] = true
				names = append(names, p.Name)
			}
		}
	}
	head := []string{"day", "status", "fit_percent", "nrmse", "fit_drop", "drift", "drift_params"}
	for _, n := range names {
		head = append(head, n, n+"_std")
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(head); err != nil {
		return err
	}
	for i, o := range outs {
		r := o.Report
		rec := []string{r.Day, r.Status, num(r.FitPercent), num(r.NRMSE), num(r.FitDrop), strconv.FormatBool(r.Drift), strings.Join(r.DriftParams, ";")}
		for _, n := range names {
			v, s := "", ""
			for _, p := range rows[i] {
				if p.Name == n {
					v, s = strconv.FormatFloat(p.Value, 'g', -1, 64), num(p.Std)
				}
			}
			rec = append(rec, v, s)
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
