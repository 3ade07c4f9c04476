package cli

import (
	"io"

	"github.com/wheelgrad/wheelgrad/cli/stage"
	"github.com/wheelgrad/wheelgrad/fit"
	"github.com/wheelgrad/wheelgrad/robots"
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

// writeParams writes a parameter file (path "-": stdout), the bytes of
// robots.ParamsFile: validated, with the record of the fit that produced it
// when st is non-nil.
func (e env) writeParams(path string, params any, st *fit.Status) error {
	b, err := robots.ParamsFile(params, st)
	if err != nil {
		return err
	}
	if path == discardParams {
		return nil
	}
	return e.writeOut(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}
