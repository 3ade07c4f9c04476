package cli

import (
	"fmt"
	"path/filepath"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/fit"
	"github.com/wheelgrad/wheelgrad/models/mecanum"
	"github.com/wheelgrad/wheelgrad/robots"
)

// readMecanumLogs reads every -data file; with several files, a run's id is
// prefixed by its file name. Gaps follow the -gaps policy (a split run's
// pieces are runs of their own, ids suffixed "#2", "#3", ...).
func readMecanumLogs(e env, srcs []logSource, m *dataset.CommandMap, d *diag, gaps string) ([]mecanum.Run, error) {
	var runs []mecanum.Run
	for _, src := range srcs {
		f := src.Path
		rs, err := mecanum.ReadLog(src.Path, mecanum.LogOptions{NeedPose: true, Map: m, Sensors: src.Poses, Offset: src.Offset, Note: e.stderr, Columns: src.Columns, HoldLast: src.HoldLast})
		if err != nil {
			return nil, err
		}
		t := rs[0].Table
		d.add(fit.TimeUnits(f, t.Col("t"))...)
		for i := range rs {
			switch {
			case len(srcs) > 1 && rs[i].ID == "":
				rs[i].ID = filepath.Base(f)
			case len(srcs) > 1:
				rs[i].ID = filepath.Base(f) + ":" + rs[i].ID
			}
			r := rs[i]
			pieces, err := checkGaps(d, gaps, r.T, r.CommandRows(), true, func(row int, msg string) error { return r.Errorf(row, "t", "%s", msg) })
			if err != nil {
				return nil, err
			}
			if pieces == nil {
				runs = append(runs, r)
				continue
			}
			for pi, pc := range pieces {
				q := r
				q.T, q.W = r.T[pc[0]:pc[1]], r.W[pc[0]:pc[1]]
				if r.X != nil {
					q.X, q.Y, q.Theta = r.X[pc[0]:pc[1]], r.Y[pc[0]:pc[1]], r.Theta[pc[0]:pc[1]]
				}
				q.Row = r.Row + pc[0]
				if pi > 0 {
					q.ID = fmt.Sprintf("%s#%d", r.ID, pi+1)
				}
				if len(q.Camera()) < 3 {
					d.add(fit.Warnf(f, "the piece of run %q from line %d has fewer than three camera poses after the gap split: left out", r.ID, t.Line[q.Row]))
					continue
				}
				runs = append(runs, q)
			}
			d.add(fit.Warnf(f, "run %q split at %d time gap(s) into %d runs (-gaps split)", r.ID, len(pieces)-1, len(pieces)))
		}
	}
	return runs, nil
}

// plotMecanum stages path and draws an identification into it
// (robots.PlotMecanumFit), for demo.go.
func plotMecanum(e env, path string, f *mecanum.Fit, runs []mecanum.Run, res *mecanum.Result, p mecanum.Params) error {
	stage, err := e.stagePath(path)
	if err != nil {
		return err
	}
	return robots.PlotMecanumFit(stage, f, runs, res, p)
}
