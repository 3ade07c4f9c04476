package stage

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
)

// Output files of a command, all or nothing (issue 17). A command declares its
// input and output paths before any work (Declare), which checks them:
// an output that is the same file as an input or as another output, or that
// lies in a missing directory, is a UsageError before a second is spent.
// Each output is then staged: a handler writes it with Write, or gets
// a path to write to with Path (for writers that take a path),
// and nothing reaches the real name until the command
// has succeeded, when Commit moves every output at once (renames in the
// target's directory; devices, pipes and stdout copied last). A command that
// fails leaves every output as it was and no staged file behind; a signal
// removes the staged files (the command line's handler calls RemoveTempFiles).
//
// Set is the output files of one command.
type Set struct {
	stdout io.Writer
	inputs []File
	files  []*output
}

// New returns an empty Set whose outputs to "-" are copied to stdout at
// Commit.
func New(stdout io.Writer) *Set { return &Set{stdout: stdout} }

// File is one file of a command: the flag that names it and its path.
type File struct{ Flag, Path string }

// UsageError is a declared output the command cannot write (the same file
// as an input or as another output, a missing or read-only directory, a
// write-protected file): a mistake in the command line.
type UsageError struct{ Msg string }

func (u UsageError) Error() string { return u.Msg }

func usagef(format string, a ...any) error { return UsageError{fmt.Sprintf(format, a...)} }

// output is one declared output file.
type output struct {
	File
	target string        // path with its links resolved
	direct bool          // a device, pipe or descriptor: written, not replaced
	stage  string        // staged file beside target (or in the temp dir when direct), once written
	buf    *bytes.Buffer // stdout and direct targets written by writeOut
	used   bool
}

func (o *output) stdout() bool { return o.Path == "-" }

// Declare declares a command's inputs and outputs and checks them. Empty
// paths are skipped (an optional flag not given); "-" as an output is
// stdout. A mistake is a UsageError.
func (s *Set) Declare(inputs, outputs []File) error {
	for _, in := range inputs {
		if in.Path != "" && in.Path != "-" {
			s.inputs = append(s.inputs, in)
		}
	}
	for _, out := range outputs {
		if out.Path == "" {
			continue
		}
		if err := s.add(out); err != nil {
			return err
		}
	}
	return nil
}

func (s *Set) add(fp File) error {
	o := &output{File: fp}
	if o.stdout() {
		s.files = append(s.files, o)
		return nil
	}
	target, direct, err := Target(fp.Path)
	if err != nil {
		return usagef("-%s %s: %s", fp.Flag, fp.Path, strings.TrimPrefix(err.Error(), fp.Path+": "))
	}
	o.target, o.direct = target, direct
	if !direct {
		dir := filepath.Dir(target)
		fi, err := os.Stat(dir)
		if err != nil || !fi.IsDir() {
			return usagef("-%s %s: directory %s does not exist", fp.Flag, fp.Path, dir)
		}
	}
	// The same file as an input, by identity (links, hard links, other
	// spellings of the name); devices such as a terminal may well be both.
	if fo, err := os.Stat(target); err == nil && fo.Mode().IsRegular() {
		for _, in := range s.inputs {
			if fi, err := os.Stat(in.Path); err == nil && os.SameFile(fi, fo) {
				return usagef("-%s %s is the same file as -%s %s", fp.Flag, fp.Path, in.Flag, in.Path)
			}
		}
	}
	for _, p := range s.files {
		if p.stdout() || p.direct || o.direct {
			continue
		}
		if same, _ := sameTarget(p.target, target); same {
			return usagef("-%s %s is the same file as -%s %s", fp.Flag, fp.Path, p.Flag, p.Path)
		}
	}
	// A file the user may not write is not replaced (the shell's > refuses
	// it too): opened for writing, neither created nor truncated. A file
	// nobody may write (chmod a-w) is kept even from root, as rm asks
	// before removing one.
	if fi, err := os.Stat(target); err == nil && fi.Mode().IsRegular() {
		if fi.Mode().Perm()&0o222 == 0 {
			return usagef("-%s %s: cannot replace it: the file is write-protected (mode %v)", fp.Flag, fp.Path, fi.Mode().Perm())
		}
		f, err := os.OpenFile(target, os.O_WRONLY, 0)
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return usagef("-%s %s: cannot replace it: %v", fp.Flag, fp.Path, err)
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
	ForgetTemp(o.stage)
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
		f, err = CreateTemp(filepath.Join(os.TempDir(), "wheelgrad-"+filepath.Base(o.target)))
	} else {
		f, err = CreateTemp(o.target)
	}
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return usagef("-%s %s: cannot write there: %v", o.Flag, o.Path, err)
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
func (s *Set) find(path string) (*output, error) {
	for _, o := range s.files {
		if o.Path == path {
			return o, nil
		}
	}
	if err := s.add(File{"out", path}); err != nil {
		return nil, err
	}
	return s.files[len(s.files)-1], nil
}

// Write renders an output (path "-" is stdout). It reaches its real name
// only at Commit.
func (s *Set) Write(path string, write func(io.Writer) error) error {
	o, err := s.find(path)
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
	return WriteFileAtomic(o.stage, write)
}

// Path returns the name a writer that takes a path should write path's
// content to now; the content reaches path at Commit. The staged name keeps
// path's extension.
func (s *Set) Path(path string) (string, error) {
	o, err := s.find(path)
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

// Take returns what was written to the output path (nil when nothing was);
// an output to stdout is taken back: Commit writes none.
func (s *Set) Take(path string) ([]byte, error) {
	var data []byte
	for _, o := range s.files {
		if o.Path != path || !o.used {
			continue
		}
		switch {
		case o.buf != nil:
			data = o.buf.Bytes()
		case o.stage != "":
			var err error
			if data, err = os.ReadFile(o.stage); err != nil {
				return nil, err
			}
		}
		if o.stdout() {
			o.used = false
		}
	}
	return data, nil
}

// Commit moves every written output to its name: devices, pipes and stdout
// are written first (they cannot be taken back, and a failure there — a
// full disk behind /dev/stdout, /dev/full — must leave every file as it
// was), then the staged files are renamed (each atomic, all prepared
// before the first).
func (s *Set) Commit() error {
	for _, o := range s.files {
		if !o.used || !(o.stdout() || o.direct) {
			continue
		}
		var err error
		switch {
		case o.stdout() || (filepath.Clean(o.Path) == "/dev/stdout" && o.buf != nil):
			if _, err = io.Copy(s.stdout, o.buf); err != nil {
				err = fmt.Errorf("writing stdout: %w", err)
			}
		case o.buf != nil:
			err = WriteFileAtomic(o.Path, func(w io.Writer) error { _, err := w.Write(o.buf.Bytes()); return err })
		default: // staged by a path writer
			var b []byte
			if b, err = os.ReadFile(o.stage); err == nil {
				err = WriteFileAtomic(o.Path, func(w io.Writer) error { _, err := w.Write(b); return err })
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
			return fmt.Errorf("%s: %w", o.Path, err)
		}
		ForgetTemp(o.stage)
		o.stage = ""
	}
	return nil
}

// staleAfter is the age past which a hidden staged file of an output is
// left over from a run that was killed (SIGKILL, the out-of-memory killer,
// a power cut): a live run keeps its staged files for the moments between
// writing its outputs and renaming them.
const staleAfter = 10 * time.Minute

// sweepStale removes the staged files (".NAME.tmp*", CreateTemp's
// names) that a killed run left beside target.
func sweepStale(target string) {
	dir, base := filepath.Split(target)
	ext := filepath.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	matches, _ := filepath.Glob(filepath.Join(dir, "."+globEscape(stem)+".tmp*"+globEscape(ext)))
	for _, m := range matches {
		mid := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(m), "."+stem+".tmp"), ext)
		if mid == "" || strings.Trim(mid, "0123456789abcdefghijklmnopqrstuvwxyz") != "" {
			continue // not a name of CreateTemp
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

// Discard removes every staged file.
func (s *Set) Discard() {
	for _, o := range s.files {
		if o.stage != "" {
			os.Remove(o.stage)
			ForgetTemp(o.stage)
			o.stage = ""
		}
	}
}

// Explain replaces staged names in a message by the outputs' own names: an
// error is about -out, never about a hidden file.
func (s *Set) Explain(msg string) string {
	for _, o := range s.files {
		if o.stage != "" {
			msg = strings.ReplaceAll(msg, o.stage, o.Path)
		}
	}
	return msg
}
