package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"github.com/wheelgrad/wheelgrad/cli/stage"
	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/robots"
)

// Main runs the command line args (os.Args[1:]) with the models of reg on
// the process's stdout and stderr and returns the exit status. SIGINT and
// SIGTERM end the process without leaving staged or temporary output files
// (issue 17); the exit status is then the shell's 128 + signal. Main also
// caps the process's memory (limitMemory). A program calls it once:
//
//	os.Exit(cli.Main(os.Args[1:], robots.Default()))
func Main(args []string, reg *robots.Registry) int {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-sig
		stage.RemoveTempFiles()
		fmt.Fprintf(os.Stderr, "wheelgrad: %v: stopped, no output written\n", s)
		if s == syscall.SIGTERM {
			os.Exit(128 + 15)
		}
		os.Exit(128 + 2)
	}()
	signalsReady()
	limitMemory()
	return Run(args, reg, os.Stdout, os.Stderr)
}

// signalsReady runs once the SIGINT/SIGTERM handler is installed; a test
// replaces it to know when a signal will be handled by main (the Go runtime
// catches SIGINT from its start, so /proc's SigCgt cannot tell).
var signalsReady = func() {}

// env is what a subcommand writes to.
type env struct {
	stdout, stderr io.Writer
	// outs stages the command's output files (outputs.go); nil outside run.
	outs *stage.Set
	// reg holds the models (-model); nil outside Run.
	reg *robots.Registry
}

// command is one subcommand.
type command struct {
	name    string
	usage   string // the synopsis line after "wheelgrad "
	summary string
	// flags declares the subcommand's flags and returns the function that
	// runs it once they are parsed.
	flags func(fs *flag.FlagSet, reg *robots.Registry) func(e env) error
}

// usageError is a mistake in the command line: exit status 2.
type usageError struct{ msg string }

func (u usageError) Error() string { return u.msg }

func usagef(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

var commands = map[string]command{}

func register(c command) { commands[c.name] = c }

// Run runs the command line args with the models of reg, writing to stdout
// and stderr, and returns the exit status (0 success, 1 runtime failure, 2
// usage error, 3 an optimiser that did not converge). It installs no signal
// handler (Main does). A pipe given as an input (a FIFO, a shell's
// <(zcat log.csv.gz)) is read once for the command however often it is
// opened (dataset.ReadPipesOnce).
func Run(args []string, reg *robots.Registry, stdout, stderr io.Writer) int {
	defer dataset.ReadPipesOnce()()
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help" {
		w := stderr
		status := 2
		if len(args) > 0 {
			w, status = stdout, 0
		}
		mainUsage(w)
		return status
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "wheelgrad: unknown command %q (commands: %s; see wheelgrad -h)\n", args[0], strings.Join(commandNames(), ", "))
		return 2
	}
	fs := flag.NewFlagSet("wheelgrad "+c.name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	exec := c.flags(fs, reg)
	fs.Usage = func() {
		out := fs.Output()
		fmt.Fprintf(out, "usage: wheelgrad %s\n\n%s\n\nflags:\n", c.usage, c.summary)
		fs.PrintDefaults()
	}
	// -h prints the usage to stdout and succeeds; a bad flag is a usage error.
	for _, a := range args[1:] {
		if a == "-h" || a == "-help" || a == "--help" || a == "--h" {
			fs.SetOutput(stdout)
			fs.Usage()
			return 0
		}
	}
	fs.SetOutput(io.Discard) // we print one line ourselves
	if err := fs.Parse(args[1:]); err != nil {
		fmt.Fprintf(stderr, "wheelgrad %s: %v (see wheelgrad %s -h)\n", c.name, oneLine(err), c.name)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "wheelgrad %s: unexpected argument %q (see wheelgrad %s -h)\n", c.name, fs.Arg(0), c.name)
		return 2
	}
	so := &errWriter{w: stdout}
	e := env{stdout: so, stderr: stderr, outs: stage.New(so), reg: reg}
	err := runHandler(exec, e)
	// A report lost on a full or closed stdout is a failure, and no file is
	// renamed into place after it.
	if uc := (unconvergedError{}); so.err != nil && (err == nil || errors.As(err, &uc)) {
		err = fmt.Errorf("writing stdout: %w", so.err)
	}
	// An unconverged fit has written its outputs (their status says so);
	// anything else that failed writes none.
	var uc unconvergedError
	if err == nil || errors.As(err, &uc) {
		if cerr := e.outs.Commit(); cerr != nil {
			err = cerr
		}
	}
	msg := ""
	if err != nil {
		msg = e.outs.Explain(oneLine(err)) // before discard forgets the staged names
	}
	e.outs.Discard()
	if err == nil {
		return 0
	}
	var ue usageError
	var se stage.UsageError
	switch {
	case errors.As(err, &ue) || errors.As(err, &se):
		fmt.Fprintf(stderr, "wheelgrad %s: %s (see wheelgrad %s -h)\n", c.name, msg, c.name)
		return exitUsage
	case errors.As(err, &uc):
		fmt.Fprintf(stderr, "wheelgrad %s: %s\n", c.name, msg)
		return exitUnconverged
	}
	fmt.Fprintf(stderr, "wheelgrad %s: %s\n", c.name, msg)
	return exitFailure
}

// errWriter passes writes on and keeps the first error.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	if err != nil {
		e.err = err
	}
	return n, err
}

// oneLine keeps error output to one line whatever a library wrapped into it.
func oneLine(err error) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", " ")), " ")
}

func commandNames() []string {
	var names []string
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func mainUsage(w io.Writer) {
	fmt.Fprintf(w, "wheelgrad: differentiable physics of wheeled mobile robots\n\nusage:\n")
	for _, n := range commandNames() {
		fmt.Fprintf(w, "  wheelgrad %s\n", commands[n].usage)
	}
	fmt.Fprintf(w, "\nRun 'wheelgrad COMMAND -h' for a command's flags. Exit status: 0 success, 1 runtime failure, 2 usage error, 3 an optimiser that did not converge (output written, its status recorded; -allow-unconverged makes it 0).\n")
}
