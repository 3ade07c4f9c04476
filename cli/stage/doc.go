// Package stage holds the command line's output files, all or nothing
// (issue 17): a command declares its inputs and outputs before any work
// (Set.Declare: an output that is the same file as an input or another
// output, in a missing or read-only directory, or write-protected, is a
// UsageError), writes each output to a hidden staged file beside its target
// (Set.Write, Set.Path), and Set.Commit renames them all into place once
// the command has succeeded; Set.Discard removes them after a failure.
//
// WriteFileAtomic writes one file the same way on its own: a temporary file
// in the target's directory, flushed, synced and renamed, so that no output
// is ever partial yet looks complete; a symbolic link's target is replaced,
// never the link; devices, pipes and the process's own descriptors are
// written directly. Every temporary file is registered until it is renamed
// or removed, so that a signal handler can remove them (RemoveTempFiles).
//
// The package is the command line's own (it keeps global state: the
// registry of temporary files); the library writes to io.Writers and leaves
// files to its caller.
package stage
