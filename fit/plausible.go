package fit

import (
	"fmt"
	"math"
)

// Limits are what a model's robot can physically do, in the log's units:
// a log beyond them holds a corrupt value (a command of 1e308) or a column
// in the wrong unit. Each model gives its own (the robots adapters); the
// checks are written once, here.
type Limits struct {
	// Speed bounds the robot's body speed (m/s): pose outliers are judged
	// against the motion possible between samples (PoseOutlierWarnings).
	Speed float64
	// Columns bound the magnitude of the log's command and measurement
	// columns.
	Columns []ColumnLimit
}

// ColumnLimit is the largest plausible magnitude of a log column's values,
// in the column's unit.
type ColumnLimit struct {
	Name string
	Max  float64
	Unit string // "m/s", "rad/s", ...
}

// Column is the limit of the column name (false when there is none).
func (l Limits) Column(name string) (ColumnLimit, bool) {
	for _, c := range l.Columns {
		if c.Name == name {
			return c, true
		}
	}
	return ColumnLimit{}, false
}

// Implausible warns of the values of a column beyond its limit (|v| >
// c.Max, or ±Inf): the fit, the simulation or the validation follows them
// (a wheel command of 1e308 saturates the tyre forces and still "fits"
// 99 %). One warning per column, naming the file's line of the largest
// value (line maps a row index to it; nil: the row index + 1), the count
// and the first line. NaN cells are not values (empty cells); rows nil
// means every row.
func Implausible(file string, c ColumnLimit, v []float64, rows []int, line func(int) int) []Warning {
	if !(c.Max > 0) {
		return nil
	}
	if line == nil {
		line = func(r int) int { return r + 1 }
	}
	n, first, worst := 0, -1, -1
	each := func(r int) {
		a := math.Abs(v[r])
		if !(a > c.Max) {
			return
		}
		n++
		if first < 0 {
			first = r
		}
		if worst < 0 || a > math.Abs(v[worst]) {
			worst = r
		}
	}
	if rows == nil {
		for r := range v {
			each(r)
		}
	} else {
		for _, r := range rows {
			each(r)
		}
	}
	if n == 0 {
		return nil
	}
	more := ""
	if n > 1 {
		more = fmt.Sprintf(" (%d rows beyond it, the first at line %d)", n, line(first))
	}
	unit := ""
	if c.Unit != "" {
		unit = " " + c.Unit
	}
	return []Warning{{File: file, Row: line(worst), Msg: fmt.Sprintf(
		"column %s: %.4g%s is beyond what the robot can do (|%s| ≤ %g%s)%s: a corrupt value or the wrong unit? The model takes it as given (one that saturates its inputs can still fit well): fix or remove the row",
		c.Name, v[worst], unit, c.Name, c.Max, unit, more)}}
}
