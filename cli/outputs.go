package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/fit"
)

// Output files of a command, all or nothing (issue 17). A command declares its
// input and output paths before any work (declareFiles), which checks them:
// an output that is the same file as an input or as another output, or that
// lies in a missing directory, is a usage error before a second is spent.
// Each output is then staged: a handler writes it with env.writeOut, or gets
// a path to write to with env.stagePath (for writers that take a path, such as
// the figure package), and nothing reaches the real name until the command
// has succeeded, when run commits every output at once (renames in the
// target's directory; devices, pipes and stdout copied last). A command that
// fails leaves every output as it was and no staged file behind; a signal
// removes the staged files (main's handler calls dataset.RemoveTempFiles).
//
// New handlers inherit this by writing through env.writeOut/env.stagePath
// and by naming their files in the command's declareFiles call.
type outputSet struct {
	stdout io.Writer
	inputs []flagPath
	files  []*output
}

type flagPath struct{ flag, path string }

// output is one declared output file.
type output struct {
	flagPath
	target string        // path with its links resolved
	direct bool          // a device, pipe or descriptor: written, not replaced
	stage  string        // staged file beside target (or in the temp dir when direct), once written
	buf    *bytes.Buffer // stdout and direct targets written by writeOut
	used   bool
}

func (o *output) stdout() bool { return o.path == "-" }

// declareFiles declares a command's inputs and outputs and checks them. Empty
// paths are skipped (an optional flag not given); "-" as an output is stdout.
func (e env) declareFiles(inputs, outputs []flagPath) error {
	s := e.outs
	if s == nil {
		return nil
	}
	for _, in := range inputs {
		if in.path != "" && in.path != "-" {
			s.inputs = append(s.inputs, in)
		}
	}
	for _, out := range outputs {
		if out.path == "" {
			continue
		}
		if err := s.add(out); err != nil {
			return err
		}
	}
	return nil
}

func (s *outputSet) add(fp flagPath) error {
	o := &output{flagPath: fp}
	if o.stdout() {
		s.files = append(s.files, o)
		return nil
	}
	target, direct, err := dataset.Target(fp.path)
	if err != nil {
		return usagef("-%s %s: %s", fp.flag, fp.path, strings.TrimPrefix(err.Error(), fp.path+": "))
	}
	o.target, o.direct = target, direct
	if !direct {
		dir := filepath.Dir(target)
		fi, err := os.Stat(dir)
		if err != nil || !fi.IsDir() {
			return usagef("-%s %s: directory %s does not exist", fp.flag, fp.path, dir)
		}
	}
	// The same file as an input, by identity (links, hard links, other
	// spellings of the name); devices such as a terminal may well be both.
	if fo, err := os.Stat(target); err == nil && fo.Mode().IsRegular() {
		for _, in := range s.inputs {
			if fi, err := os.Stat(in.path); err == nil && os.SameFile(fi, fo) {
				return usagef("-%s %s is the same file as -%s %s", fp.flag, fp.path, in.flag, in.path)
			}
		}
	}
	for _, p := range s.files {
		if p.stdout() || p.direct || o.direct {
			continue
		}
		if same, _ := sameTarget(p.target, target); same {
			return usagef("-%s %s is the same file as -%s %s", fp.flag, fp.path, p.flag, p.path)
		}
	}
	// A file the user may not write is not replaced (the shell's > refuses
	// it too): opened for writing, neither created nor truncated. A file
	// nobody may write (chmod a-w) is kept even from root, as rm asks
	// before removing one.
	if fi, err := os.Stat(target); err == nil && fi.Mode().IsRegular() {
		if fi.Mode().Perm()&0o222 == 0 {
			return usagef("-%s %s: cannot replace it: the file is write-protected (mode %v)", fp.flag, fp.path, fi.Mode().Perm())
		}
		f, err := os.OpenFile(target, os.O_WRONLY, 0)
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return usagef("-%s %s: cannot replace it: %v", fp.flag, fp.path, err)
		}
		f.Close()
	}
	sweepStale(target)
	// Probe the directory now (a file created and removed): one we may not
	// write to is found before the work. The stage itself is created when
	// the output is written, so that a kill (SIGKILL, the kernel's
	// out-of-memory killer) during a long computation leaves nothing.
	if err := o.makeStage(); err != nil {
		return err
	}
	os.Remove(o.stage)
	dataset.ForgetTemp(o.stage)
	o.stage = ""
	s.files = append(s.files, o)
	return nil
}

// makeStage creates the staged file of o: beside its target, or in the
// temporary directory for a direct output.
func (o *output) makeStage() error {
	if o.stage != "" {
		return nil
	}
	var f *os.File
	var err error
	if o.direct {
		f, err = dataset.CreateTemp(filepath.Join(os.TempDir(), "wheelgrad-"+filepath.Base(o.target)))
	} else {
		f, err = dataset.CreateTemp(o.target)
	}
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return usagef("-%s %s: cannot write there: %v", o.flag, o.path, err)
	}
	o.stage = f.Name()
	if fi, err := os.Stat(o.target); err == nil && fi.Mode().IsRegular() {
		f.Chmod(fi.Mode().Perm()) // the file replaced keeps its permissions
	}
	f.Close()
	return nil
}

// sameTarget compares two resolved output names: by identity when both
// exist, else by absolute name.
func sameTarget(a, b string) (bool, error) {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(fa, fb), nil
	}
	aa, err := filepath.Abs(a)
	if err != nil {
		return false, err
	}
	ab, err := filepath.Abs(b)
	if err != nil {
		return false, err
	}
	return aa == ab, nil
}

// find returns the declared output of path, declaring it (unchecked) if the
// handler writes a file its command did not declare.
func (s *outputSet) find(path string) (*output, error) {
	for _, o := range s.files {
		if o.path == path {
			return o, nil
		}
	}
	if err := s.add(flagPath{"out", path}); err != nil {
		return nil, err
	}
	return s.files[len(s.files)-1], nil
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
		return dataset.WriteFileAtomic(path, write)
	}
	o, err := e.outs.find(path)
	if err != nil {
		return err
	}
	o.used = true
	if o.stdout() || o.direct {
		o.buf = new(bytes.Buffer)
		if err := write(o.buf); err != nil {
			o.buf = nil
			return fmt.Errorf("%s: %w", path, err)
		}
		return nil
	}
	if err := o.makeStage(); err != nil {
		return err
	}
	return dataset.WriteFileAtomic(o.stage, write)
}

// stagePath returns the name a writer that takes a path (a figure) should
// write path's content to now; the content reaches path when the command
// succeeds. The staged name keeps path's extension.
func (e env) stagePath(path string) (string, error) {
	if e.outs == nil {
		return path, nil
	}
	o, err := e.outs.find(path)
	if err != nil {
		return "", err
	}
	if o.stdout() {
		return "", fmt.Errorf("a figure cannot be written to stdout")
	}
	o.used = true
	if err := o.makeStage(); err != nil {
		return "", err
	}
	return o.stage, nil
}

// commit moves every written output to its name: devices, pipes and stdout
// are written first (they cannot be taken back, and a failure there — a
// full disk behind /dev/stdout, /dev/full — must leave every file as it
// was), then the staged files are renamed (each atomic, all prepared
// before the first).
func (s *outputSet) commit() error {
	for _, o := range s.files {
		if !o.used || !(o.stdout() || o.direct) {
			continue
		}
		var err error
		switch {
		case o.stdout() || (filepath.Clean(o.path) == "/dev/stdout" && o.buf != nil):
			if _, err = io.Copy(s.stdout, o.buf); err != nil {
				err = fmt.Errorf("writing stdout: %w", err)
			}
		case o.buf != nil:
			err = dataset.WriteFileAtomic(o.path, func(w io.Writer) error { _, err := w.Write(o.buf.Bytes()); return err })
		default: // staged by a path writer
			var b []byte
			if b, err = os.ReadFile(o.stage); err == nil {
				err = dataset.WriteFileAtomic(o.path, func(w io.Writer) error { _, err := w.Write(b); return err })
			}
		}
		if err != nil {
			return err
		}
	}
	for _, o := range s.files {
		if !o.used || o.stdout() || o.direct {
			continue
		}
		if err := os.Rename(o.stage, o.target); err != nil {
			var le *os.LinkError
			if errors.As(err, &le) {
				err = le.Err
			}
			return fmt.Errorf("%s: %w", o.path, err)
		}
		dataset.ForgetTemp(o.stage)
		o.stage = ""
	}
	return nil
}

// staleAfter is the age past which a hidden staged file of an output is
// left over from a run that was killed (SIGKILL, the out-of-memory killer,
// a power cut): a live run keeps its staged files for the moments between
// writing its outputs and renaming them.
const staleAfter = 10 * time.Minute

// sweepStale removes the staged files (".NAME.tmp*", dataset.CreateTemp's
// names) that a killed run left beside target.
func sweepStale(target string) {
	dir, base := filepath.Split(target)
	ext := filepath.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	matches, _ := filepath.Glob(filepath.Join(dir, "."+globEscape(stem)+".tmp*"+globEscape(ext)))
	for _, m := range matches {
		mid := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(m), "."+stem+".tmp"), ext)
		if mid == "" || strings.Trim(mid, "0123456789abcdefghijklmnopqrstuvwxyz") != "" {
			continue // not a name of dataset.CreateTemp
		}
		if fi, err := os.Lstat(m); err == nil && fi.Mode().IsRegular() && time.Since(fi.ModTime()) > staleAfter {
			os.Remove(m)
		}
	}
}

// globEscape quotes the metacharacters of filepath.Match in s.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// discard removes every staged file.
func (s *outputSet) discard() {
	for _, o := range s.files {
		if o.stage != "" {
			os.Remove(o.stage)
			dataset.ForgetTemp(o.stage)
			o.stage = ""
		}
	}
}

// explain replaces staged names in a message by the outputs' own names: an
// error is about -out, never about a hidden file.
func (s *outputSet) explain(msg string) string {
	for _, o := range s.files {
		if o.stage != "" {
			msg = strings.ReplaceAll(msg, o.stage, o.path)
		}
	}
	return msg
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
