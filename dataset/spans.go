package dataset

import (
	"fmt"
	"math"
)

// Span is what DropAfterCommands removed: how many sensor rows, from which
// time to which, after the command stream ended at CommandsEnd (one command
// Period later, the last command no longer acts).
type Span struct {
	Rows           int
	From, To       float64 // times of the first and last dropped row
	CommandsEnd    float64 // time of the last command row (the run's, the latest over runs)
	Period         float64 // the command period (median interval between command rows)
	RunsConcerned  int
	firstDroppedID string
}

// DropAfterCommands removes, within each run of group, the sensor-only rows
// (commands held by HoldCommands) later than one command period after the
// run's last command row: the commands have ended there, and simulating
// them with the last command held would drive the robot on a command it
// may no longer have received (issue 25.3: a camera that keeps recording
// after the commands stop). The command period is the median interval
// between the run's command rows; a run with fewer than two command rows
// has none and keeps its rows. Call after HoldCommands. It returns what it
// removed (Rows 0: nothing).
func DropAfterCommands(t *Table, time, group string) Span {
	tc := t.Col(time)
	n := t.Len()
	if tc == nil || t.held == nil || n == 0 {
		return Span{}
	}
	ids := t.TextCol(group)
	keep := make([]bool, n)
	for i := range keep {
		keep[i] = true
	}
	var sp Span
	for a := 0; a < n; {
		b := a + 1
		for b < n && (ids == nil || ids[b] == ids[a]) {
			b++
		}
		var cmdT []float64
		for i := a; i < b; i++ {
			if !t.held[i] {
				cmdT = append(cmdT, tc[i])
			}
		}
		if len(cmdT) >= 2 {
			period := MedianStep(cmdT)
			end := cmdT[len(cmdT)-1]
			dropped := 0
			for i := a; i < b; i++ {
				if t.held[i] && tc[i] > end+period*(1+1e-9) {
					keep[i] = false
					if sp.Rows == 0 {
						sp.From = tc[i]
					}
					sp.From, sp.To = math.Min(sp.From, tc[i]), math.Max(sp.To, tc[i])
					sp.Rows++
					dropped++
				}
			}
			if dropped > 0 {
				if sp.RunsConcerned == 0 && ids != nil {
					sp.firstDroppedID = ids[a]
				}
				sp.RunsConcerned++
				sp.CommandsEnd, sp.Period = math.Max(sp.CommandsEnd, end), period
			}
		}
		a = b
	}
	if sp.Rows > 0 {
		t.keepRows(keep)
	}
	return sp
}

// Warning is the one-line warning for the dropped rows of file.
func (s Span) Warning(file string) string {
	where := ""
	if s.RunsConcerned > 1 {
		where = fmt.Sprintf(" in %d runs", s.RunsConcerned)
	} else if s.firstDroppedID != "" {
		where = " in run " + quoteCell(s.firstDroppedID)
	}
	return fmt.Sprintf("%s: %s after the last command row dropped%s (t = %.4g … %.4g s; the commands end at t = %.4g s, one command period %.3g s before): not simulated with a held command (-hold-last keeps them)",
		showFile(file), plural(s.Rows, "sensor row"), where, s.From, s.To, s.CommandsEnd, s.Period)
}

// beforeCommands returns the earliest and latest time of the rows that
// HoldCommands will remove (within each run of group, the rows before the
// first row with every command cell filled); NaN, NaN for none.
func beforeCommands(t *Table, commands []string, time, group string) (from, to float64) {
	from, to = math.NaN(), math.NaN()
	tc := t.Col(time)
	if tc == nil {
		return
	}
	cols := make([][]float64, 0, len(commands))
	for _, c := range commands {
		if col := t.Col(c); col != nil {
			cols = append(cols, col)
		}
	}
	if len(cols) != len(commands) {
		return
	}
	ids := t.TextCol(group)
	have := false
	for i := range t.Len() {
		if i > 0 && ids != nil && ids[i] != ids[i-1] {
			have = false
		}
		full := true
		for _, c := range cols {
			full = full && !math.IsNaN(c[i])
		}
		if full {
			have = true
			continue
		}
		if !have {
			if math.IsNaN(from) {
				from, to = tc[i], tc[i]
			}
			from, to = math.Min(from, tc[i]), math.Max(to, tc[i])
		}
	}
	return
}
