package fleet

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
)

// The pipeline (Build): the entries, keyed by robot and grouped (a robot's
// days are calibrated in order by one worker: yesterday's calibration is
// validated on today's logs), robots in parallel (calibrateFn), then every
// outcome under one key to the writer (writeFn), which writes the fleet's
// report files, the histories and the figure.

func init() {
	beam.RegisterType(reflect.TypeOf((*Entry)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*Encoded)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*calibrateFn)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*writeFn)(nil)).Elem())
	register.Function2x0(keyByRobot)
	register.Function2x0(keyAll)
	register.Iter1[Entry]()
	register.Iter1[Encoded]()
	register.Emitter2[string, Entry]()
	register.Emitter2[int, Encoded]()
	register.Emitter1[Encoded]()
}

// Encoded is an Outcome as the pipeline carries it (JSON), with its robot
// and day.
type Encoded struct {
	Robot, Day string
	JSON       []byte
}

func keyByRobot(e Entry, emit func(string, Entry)) { emit(e.Robot, e) }

func keyAll(o Encoded, emit func(int, Encoded)) { emit(0, o) }

// Build adds the fleet pipeline over es to s and returns its outcomes
// (Encoded, one per robot-day), which it also writes (WriteOutputs).
func Build(s beam.Scope, es []Entry, cfg Config) beam.PCollection {
	s = s.Scope("fleet")
	cfg = cfg.withDefaults()
	rows := beam.CreateList(s, es)
	byRobot := beam.GroupByKey(s, beam.ParDo(s, keyByRobot, rows))
	outs := beam.ParDo(s, &calibrateFn{Cfg: cfg}, byRobot)
	all := beam.GroupByKey(s, beam.ParDo(s, keyAll, outs))
	beam.ParDo0(s, &writeFn{Cfg: cfg, Total: len(es)}, all)
	return outs
}

// calibrateFn calibrates the robots of a bundle, Cfg.Parallelism at once,
// and emits their outcomes when the bundle finishes (Prism runs a stage's
// bundle on one goroutine: the robots' parallelism is here).
type calibrateFn struct {
	Cfg Config

	wg   sync.WaitGroup
	sem  chan struct{}
	mu   sync.Mutex
	outs []Encoded
	err  error
}

func (f *calibrateFn) StartBundle(_ context.Context, _ func(Encoded)) {
	f.sem = make(chan struct{}, f.Cfg.Parallelism)
	f.outs, f.err = nil, nil
}

// ProcessElement starts a robot's calibration; its outcomes are emitted by
// FinishBundle (emit is unused here, Beam wants the emitters of both to
// match).
func (f *calibrateFn) ProcessElement(robot string, iter func(*Entry) bool, _ func(Encoded)) {
	var es []Entry
	var e Entry
	for iter(&e) {
		es = append(es, e)
	}
	reg, err := registry(f.Cfg.Registry)
	if err != nil {
		f.mu.Lock()
		f.err = err
		f.mu.Unlock()
		return
	}
	f.sem <- struct{}{}
	f.wg.Add(1)
	go func() {
		defer func() { <-f.sem; f.wg.Done() }()
		var enc []Encoded
		for _, o := range CalibrateRobot(reg, es, f.Cfg) {
			b, err := json.Marshal(o)
			if err != nil {
				f.mu.Lock()
				f.err = err
				f.mu.Unlock()
				return
			}
			enc = append(enc, Encoded{Robot: o.Report.Robot, Day: o.Report.Day, JSON: b})
		}
		f.mu.Lock()
		f.outs = append(f.outs, enc...)
		f.mu.Unlock()
	}()
}

func (f *calibrateFn) FinishBundle(_ context.Context, emit func(Encoded)) error {
	f.wg.Wait()
	if f.err != nil {
		return f.err
	}
	sort.Slice(f.outs, func(i, j int) bool { return less(f.outs[i].Robot, f.outs[i].Day, f.outs[j].Robot, f.outs[j].Day) })
	for _, o := range f.outs {
		emit(o)
	}
	f.outs = nil
	return nil
}

func less(r1, d1, r2, d2 string) bool {
	if r1 != r2 {
		return r1 < r2
	}
	return lessDay(d1, d2)
}

// writeFn writes the fleet's outputs from every outcome (WriteOutputs).
type writeFn struct {
	Cfg   Config
	Total int
}

func (f *writeFn) ProcessElement(_ int, iter func(*Encoded) bool) error {
	var os []Outcome
	var e Encoded
	for iter(&e) {
		var o Outcome
		if err := json.Unmarshal(e.JSON, &o); err != nil {
			return fmt.Errorf("fleet: outcome of %s/%s: %v", e.Robot, e.Day, err)
		}
		os = append(os, o)
	}
	return WriteOutputs(f.Cfg, os)
}
