package cli

import (
	"fmt"
	"io"

	"github.com/wheelgrad/wheelgrad/cli/stage"
	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/fit"
)

// Output files of a command, all or nothing (issue 17; package cli/stage):
// a command declares its input and output paths before any work
// (declareFiles), writes its outputs through env.writeOut or env.stagePath,
// and run commits them all once the command has succeeded.

// flagPath is a file of the command line: the flag that names it and its
// path.
type flagPath struct{ flag, path string }

// declareFiles declares a command's inputs and outputs and checks them
// (stage.Set.Declare).
func (e env) declareFiles(inputs, outputs []flagPath) error {
	if e.outs == nil {
		return nil
	}
	files := func(fps []flagPath) []stage.File {
		out := make([]stage.File, len(fps))
		for i, f := range fps {
			out[i] = stage.File{Flag: f.flag, Path: f.path}
		}
		return out
	}
	return e.outs.Declare(files(inputs), files(outputs))
}

// writeOut renders an output (path "-" or "" is stdout). It reaches its real
// name only when the command succeeds.
func (e env) writeOut(path string, write func(io.Writer) error) error {
	if path == "" {
		path = "-"
	}
	if e.outs == nil { // not run through run(): write at once
		if path == "-" {
			return write(e.stdout)
		}
		return stage.WriteFileAtomic(path, write)
	}
	return e.outs.Write(path, write)
}

// stagePath returns the name a writer that takes a path (a figure) should
// write path's content to now; the content reaches path when the command
// succeeds. The staged name keeps path's extension.
func (e env) stagePath(path string) (string, error) {
	if e.outs == nil {
		return path, nil
	}
	return e.outs.Path(path)
}

// discardParams as the path of writeParams checks the parameters and
// writes them nowhere (identify -json without -out: stdout holds the
// report).
const discardParams = "\x00none"

// writeParams writes a parameter file (path "-": stdout;
// dataset.ParamsJSON) with the record of the fit that produced it under
// dataset.FitKey when st is non-nil. A value JSON cannot hold (NaN, ±Inf)
// is a failure of the computation, reported as such, not as a problem of
// the file.
//
// Parameters with a Validate method are validated first: a fit that its own
// simulate would refuse (out of the model's range) is a failure, never a
// file.
func (e env) writeParams(path string, params any, st *fit.Status) error {
	if v, ok := params.(interface{ Validate() error }); ok {
		if err := v.Validate(); err != nil {
			return fmt.Errorf("the fit gives parameters out of the model's range, %v (the log's units or scale?); no parameters written", err)
		}
	}
	var rec any
	if st != nil {
		rec = st
	}
	b, err := dataset.ParamsJSON(params, rec)
	if err != nil {
		return fmt.Errorf("%w: the fit failed", err)
	}
	if path == discardParams {
		return nil
	}
	return e.writeOut(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}
