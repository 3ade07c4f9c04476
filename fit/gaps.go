package fit

import (
	"fmt"
	"slices"
)

// GapFactor: a step longer than this many times the run's median step is a
// gap (rows missing). Jitter and the odd dropped message stay below it.
const GapFactor = 5

// GapPolicy says what a time gap in a run's commands does.
type GapPolicy string

const (
	GapsError  GapPolicy = "error"  // a gap is an error naming its row (the default)
	GapsSplit  GapPolicy = "split"  // a gap ends the run; the next command row starts a new one
	GapsBridge GapPolicy = "bridge" // hold the last command across the gap (on purpose)
)

// GapRows returns the rows k ≥ 1 whose step from row k−1 exceeds GapFactor
// times the median step, and the median step.
func GapRows(t []float64) (rows []int, med float64) {
	rows, _, med = CommandGaps(t, nil)
	return rows, med
}

// CommandGaps finds the gaps of a run's command stream: isCmd(i) tells the
// rows that carry commands (nil: every row, a synchronous log). In an
// asynchronous log (sensor-only rows hold the previous command) a gap is a
// step between consecutive command rows longer than GapFactor times their
// median step; sensor rows inside it do not bridge it, and sensor rows
// after the last command row are not a gap (the last command holds). rows
// are the command rows after each gap, prev the command rows before them.
func CommandGaps(t []float64, isCmd func(int) bool) (rows, prev []int, med float64) {
	var idx []int
	for i := range t {
		if isCmd == nil || isCmd(i) {
			idx = append(idx, i)
		}
	}
	if len(idx) < 2 {
		return nil, nil, 0
	}
	steps := make([]float64, len(idx)-1)
	for k := 1; k < len(idx); k++ {
		steps[k-1] = t[idx[k]] - t[idx[k-1]]
	}
	slices.Sort(steps)
	med = steps[len(steps)/2]
	if !(med > 0) {
		return nil, nil, med
	}
	for k := 1; k < len(idx); k++ {
		if t[idx[k]]-t[idx[k-1]] > GapFactor*med {
			rows, prev = append(rows, idx[k]), append(prev, idx[k-1])
		}
	}
	return rows, prev, med
}

// gapMessage says what a gap at row k (after command row p) is and what to
// do about it.
func gapMessage(t []float64, k, p int, med float64, canSplit bool) string {
	fix := "-gaps split to start a new run there, -gaps bridge to hold the last command across it, or cut the log"
	if !canSplit {
		fix = "-gaps bridge to hold the last command across it, or cut the log into pieces without gaps"
	}
	return fmt.Sprintf("time gap of %.4g s before this row (the log steps by %.4g s): the commands in the gap are unknown; pass %s", t[k]-t[p], med, fix)
}

// ApplyGaps applies a gap policy to one run's time column. pieces nil
// means "use the run whole"; with GapsSplit (and canSplit, the model can
// start a run anywhere), the [from, to) row ranges of the pieces
// (sensor-only rows inside a gap belong to neither). isCmd marks the
// command rows of an asynchronous log (nil: every row). errAt positions
// the error of GapsError (and of GapsSplit without canSplit) at a row of
// the run; GapsBridge returns a warning instead.
func ApplyGaps(policy GapPolicy, t []float64, isCmd func(int) bool, canSplit bool, errAt func(row int, msg string) error) (pieces [][2]int, warns []Warning, err error) {
	rows, prev, med := CommandGaps(t, isCmd)
	if len(rows) == 0 {
		return nil, nil, nil
	}
	switch policy {
	case GapsBridge:
		g := 0.0
		for i, k := range rows {
			g = max(g, t[k]-t[prev[i]])
		}
		return nil, []Warning{Warnf("", "bridged %d time gap(s) (the longest %.4g s) by holding the last command (-gaps bridge)", len(rows), g)}, nil
	case GapsSplit:
		if canSplit {
			var out [][2]int
			from := 0
			for i, k := range rows {
				out = append(out, [2]int{from, prev[i] + 1})
				from = k
			}
			return append(out, [2]int{from, len(t)}), nil, nil
		}
	}
	msg := gapMessage(t, rows[0], prev[0], med, canSplit)
	if errAt == nil {
		return nil, nil, fmt.Errorf("row %d of the run: %s", rows[0]+1, msg)
	}
	return nil, nil, errAt(rows[0], msg)
}
