package stage

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// WriteFileAtomic calls write with a buffered writer to a new temporary file
// in the directory of path's target, then flushes, syncs and renames it onto
// that target. On any error, including one returned by write, the temporary
// file is removed and the target is left as it was, so that no output is ever
// partial yet looks complete. A file replaced keeps its permissions; a new one
// gets 0666 less the umask, as with os.Create.
//
// A symbolic link is followed (a chain of them, even one that ends at a name
// not yet created): the file it points to is replaced, never the link. A
// target that exists and is not a regular file (a device such as /dev/null,
// a pipe, a socket, a terminal) is written directly, as is a name under
// /dev/fd, /dev/std* or /proc/*/fd (the process's own descriptors): those
// cannot be replaced and a failure there may leave partial output. Errors
// name path, never the temporary file.
//
// The path "-" means standard output, written directly.
func WriteFileAtomic(path string, write func(io.Writer) error) error {
	if path == "-" {
		return writeBuffered(os.Stdout, write)
	}
	return writeFileAtomic(path, write)
}

func writeBuffered(w io.Writer, write func(io.Writer) error) error {
	bw := bufio.NewWriter(w)
	if err := write(bw); err != nil {
		return err
	}
	return bw.Flush()
}

// Target resolves the symbolic links of path to the name an output file
// replaces, and reports whether that name must be written directly instead
// (it exists and is not a regular file, or it is one of the process's own
// descriptors). A link chain that ends at a missing name resolves to that
// name. A link loop is an error.
func Target(path string) (target string, direct bool, err error) {
	target = path
	for range 64 {
		if isDescriptorPath(target) {
			return target, true, nil
		}
		fi, err := os.Lstat(target)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return target, false, nil
		case err != nil:
			return target, false, fmt.Errorf("%s: %w", path, unwrapPathError(err))
		case fi.Mode()&os.ModeSymlink != 0:
			dest, err := os.Readlink(target)
			if err != nil {
				return target, false, fmt.Errorf("%s: %w", path, unwrapPathError(err))
			}
			if !filepath.IsAbs(dest) {
				dest = filepath.Join(filepath.Dir(target), dest)
			}
			target = dest
		case fi.IsDir():
			return target, false, fmt.Errorf("%s: is a directory", path)
		default:
			return target, !fi.Mode().IsRegular(), nil
		}
	}
	return target, false, fmt.Errorf("%s: too many levels of symbolic links", path)
}

// isDescriptorPath reports names that stand for an open descriptor of the
// process (the shell's redirections): /dev/stdout, /dev/fd/1,
// /proc/self/fd/1. Following them would find the file behind the
// descriptor and replace it, which its opener would never see.
func isDescriptorPath(p string) bool {
	p = filepath.Clean(p)
	switch p {
	case "/dev/stdout", "/dev/stderr", "/dev/stdin":
		return true
	}
	if strings.HasPrefix(p, "/dev/fd/") {
		return true
	}
	if rest, ok := strings.CutPrefix(p, "/proc/"); ok {
		parts := strings.Split(rest, "/")
		return len(parts) == 3 && parts[1] == "fd"
	}
	return false
}

func writeFileAtomic(path string, write func(io.Writer) error) (err error) {
	target, direct, err := Target(path)
	if err != nil {
		return err
	}
	if direct {
		return writeDirect(path, target, write)
	}
	var perm os.FileMode // of the file replaced, if any
	fi, err := os.Stat(target)
	replace := err == nil
	if replace {
		perm = fi.Mode().Perm()
	}
	f, err := createTemp(target)
	if err != nil {
		return fmt.Errorf("%s: %w", path, unwrapPathError(err))
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
		forgetTemp(tmp)
	}()
	if err := writeBuffered(f, write); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if replace {
		if err := f.Chmod(perm); err != nil && !errors.Is(err, errors.ErrUnsupported) {
			return fmt.Errorf("%s: %w", path, unwrapPathError(err))
		}
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("%s: %w", path, unwrapPathError(err))
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, unwrapPathError(err))
	}
	if err := os.Rename(tmp, target); err != nil {
		var le *os.LinkError
		if errors.As(err, &le) {
			err = le.Err
		}
		return fmt.Errorf("%s: %w", path, err)
	}
	// Make the rename itself durable where directories can be synced.
	if d, err := os.Open(filepath.Dir(target)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// writeDirect writes to a device, pipe or descriptor name: opened for
// writing without creating or truncating it (O_APPEND, so that a shell's
// >> redirection stays an append).
func writeDirect(path, target string, write func(io.Writer) error) error {
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("%s: %w", path, unwrapPathError(err))
	}
	if err := writeBuffered(f, write); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, unwrapPathError(err))
	}
	return nil
}

// The temporary files being written, so that a signal handler can remove
// them (RemoveTempFiles) before the process exits.
var temps struct {
	sync.Mutex
	names map[string]bool
}

func rememberTemp(name string) {
	temps.Lock()
	defer temps.Unlock()
	if temps.names == nil {
		temps.names = map[string]bool{}
	}
	temps.names[name] = true
}

func forgetTemp(name string) {
	temps.Lock()
	defer temps.Unlock()
	delete(temps.names, name)
}

// RemoveTempFiles removes the temporary files of writes still under way, for
// a signal handler that is about to end the process: an interrupted
// WriteFileAtomic leaves no hidden file behind. The writes themselves then
// fail; call it only on the way out.
func RemoveTempFiles() {
	temps.Lock()
	defer temps.Unlock()
	for name := range temps.names {
		os.Remove(name)
		delete(temps.names, name)
	}
}

// CreateTemp creates a new hidden file beside path (".NAME.tmpXXXX" followed by
// path's extension, so that writers that pick a format by extension still
// see it), registered for RemoveTempFiles until ForgetTemp. Unlike
// os.CreateTemp it asks for mode 0666, so that the umask applies to a new
// output file.
func CreateTemp(path string) (*os.File, error) { return createTemp(path) }

// ForgetTemp unregisters a file of CreateTemp once it is renamed or removed.
func ForgetTemp(name string) { forgetTemp(name) }

func createTemp(path string) (*os.File, error) {
	dir, base := filepath.Split(path)
	ext := filepath.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	seed := uint64(time.Now().UnixNano()) ^ uint64(os.Getpid())<<32
	for i := uint64(0); ; i++ {
		name := filepath.Join(dir, "."+stem+".tmp"+strconv.FormatUint(seed+i*0x9E3779B97F4A7C15, 36)+ext)
		// Registered before it exists: a signal between creation and
		// registration would otherwise leave it.
		rememberTemp(name)
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if err != nil {
			forgetTemp(name)
		}
		if err == nil || !os.IsExist(err) || i == 100 {
			return f, err
		}
	}
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
