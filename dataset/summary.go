package dataset

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"strconv"
)

// TrajectorySummary sums up a trajectory CSV (a simulation's output): its
// columns, its data rows, its runs (distinct traj values; 1 without a
// traj column) and its last row, the last run's end state: each cell a
// float64, nil where it is NaN or ±Inf, or the text of a cell that is not
// a number and of the traj column.
type TrajectorySummary struct {
	Columns []string
	Rows    int
	Runs    int
	Final   map[string]any
}

// SummarizeTrajectory reads a trajectory CSV from data.
func SummarizeTrajectory(data []byte) (*TrajectorySummary, error) {
	rd := csv.NewReader(bytes.NewReader(data))
	rd.FieldsPerRecord = -1
	recs, err := rd.ReadAll()
	if err != nil || len(recs) == 0 {
		return nil, fmt.Errorf("the trajectory CSV cannot be read back (%v)", err)
	}
	s := &TrajectorySummary{Columns: recs[0], Rows: len(recs) - 1, Final: map[string]any{}}
	ti := -1
	for i, c := range recs[0] {
		if c == "traj" {
			ti = i
		}
	}
	seen := map[string]bool{}
	for _, r := range recs[1:] {
		if ti >= 0 && ti < len(r) {
			seen[r[ti]] = true
		}
	}
	s.Runs = len(seen)
	if ti < 0 && s.Rows > 0 {
		s.Runs = 1
	}
	if s.Rows > 0 {
		last := recs[len(recs)-1]
		for i, c := range recs[0] {
			if i >= len(last) {
				break
			}
			if v, err := strconv.ParseFloat(last[i], 64); err == nil && i != ti {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					s.Final[c] = nil
				} else {
					s.Final[c] = v
				}
				continue
			}
			s.Final[c] = last[i]
		}
	}
	return s, nil
}
