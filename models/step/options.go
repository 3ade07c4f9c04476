package step

import (
	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/fit"
)

// Source is one log: its file, a separate sensor file ("" for none) whose
// times are shifted by Offset (s), a column map (nil: the log's columns
// are the step's names) and whether the last command holds past the end.
type Source struct {
	Path, Poses string
	Offset      float64
	Columns     *dataset.ColumnMap
	HoldLast    bool
	// Cache, when not nil, parses the files once for every read through it
	// (dataset.ReadCache).
	Cache *dataset.ReadCache
}

// Sink takes what a model finds as it goes: warnings (also returned as
// values) and progress lines (Done clears the progress line). robots.Sink
// is one; nil discards both.
type Sink interface {
	Warn(fit.Warning)
	Progress(format string, a ...any)
	Done()
}

type discard struct{}

func (discard) Warn(fit.Warning)        {}
func (discard) Progress(string, ...any) {}
func (discard) Done()                   {}

// diag keeps the warnings of one call and passes them to its sink.
type diag struct {
	sink Sink
	ws   []fit.Warning
}

func newDiag(s Sink) *diag {
	if s == nil {
		s = discard{}
	}
	return &diag{sink: s}
}

func (d *diag) add(ws ...fit.Warning) {
	for _, w := range ws {
		d.ws = append(d.ws, w)
		d.sink.Warn(w)
	}
}

// IdentifyOptions say how Identify fits.
type IdentifyOptions struct {
	// Method is "lsq" (the default) or "lbfgsb" (Methods).
	Method string
	// Start is where the fit starts (zero value: the Config's values).
	Start Params
	// Held parameters (by name) keep their Start values.
	Held map[string]bool
	// Gaps is the gap policy ("": a gap is an error).
	Gaps fit.GapPolicy
	// Fit are the optimiser's settings and convergence checks.
	Fit fit.Settings
	// AllowUndetermined keeps a fit whose parameters the data do not
	// determine (otherwise Identified.Refused says so).
	AllowUndetermined bool
	Sink              Sink
}

// Identified is a fit: its report, the parameters, and two outcomes: Refused
// (fit.CheckDetermined: parameters the data do not determine) and Outcome
// (fit.Settings.Check: nil when the optimiser converged).
type Identified struct {
	Report           fit.Report
	Params           Params
	Refused, Outcome error
}
