// Command hostile-memory measures the peak memory and time of wheelgrad
// commands given hostile input files (issue 26, "Done when": no input file
// of any kind makes a command use more than ~200 MB above its normal peak,
// or hang). Each case runs the command line in a child process (this
// program re-executed) and reads its peak resident set size from the
// kernel (getrusage's ru_maxrss), next to the same command on the clean
// sample log (its normal peak). A case that runs past -timeout is killed
// and counted as a hang.
//
//	go run ./experiments/hostile-memory            # from the repository's root
//	go run ./experiments/hostile-memory -long      # also the 1-GiB streams (~1 min each)
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/wheelgrad/wheelgrad/cli"
	"github.com/wheelgrad/wheelgrad/robots"
)

// childEnv marks the re-executed child, which runs the command line and
// writes its peak resident set size (VmHWM of /proc/self/status, kB) to
// the file that childEnv names. (The kernel's ru_maxrss of a child counts
// the parent's memory it shared until exec.)
const childEnv = "WHEELGRAD_HOSTILE_CHILD"

// Child runs the command line as the child and records its peak.
func Child() int {
	st := cli.Main(os.Args[1:], robots.Default())
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
				os.WriteFile(os.Getenv(childEnv), []byte(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB"))), 0o644)
			}
		}
	}
	return st
}

// Case is one command on one input.
type Case struct {
	Name string
	// Args of the command line; "{dir}" is the work directory, "{root}"
	// the repository's root.
	Args []string
	// Setup writes the case's input into dir (nil: none); it may start a
	// goroutine that feeds a FIFO, ended by the returned stop.
	Setup func(dir string) (stop func(), err error)
	// Baseline names the clean case whose peak is this one's normal.
	Baseline string
	Long     bool // reads about 1 GiB: only with -long
}

// Result is one case's measurement.
type Result struct {
	Case     Case
	Status   int // exit status; -1: killed at the timeout
	Stderr   string
	PeakMB   float64
	AboveMB  float64 // PeakMB minus the baseline's
	Duration time.Duration
}

func main() {
	if os.Getenv(childEnv) != "" {
		os.Exit(Child())
	}
	root := flag.String("root", ".", "the repository's root (the sample logs are read from it)")
	long := flag.Bool("long", false, "also the cases that read 1 GiB")
	timeout := flag.Duration("timeout", 3*time.Minute, "a case running longer is killed and counted as a hang")
	flag.Parse()
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	rs, err := Run(self, *root, Cases(*long), *timeout)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	Print(os.Stdout, rs)
}

// Cases are the hostile inputs of issue 26 and their clean baselines.
func Cases(long bool) []Case {
	jackal := "{root}/models/tire/testdata/jackal.csv"
	identify := func(data string) []string {
		return []string{"identify", "-model", "tire", "-data", data, "-out", "{dir}/out.json"}
	}
	validate := func(params string) []string {
		return []string{"validate", "-model", "tire", "-params", params, "-data", jackal}
	}
	cs := []Case{
		{Name: "clean identify", Args: identify(jackal)},
		{Name: "clean validate", Args: validate("{dir}/good.json"), Setup: writeFile("good.json", func() []byte { return []byte(`{"model": "tire", "tyre": "dugoff", "mu": 0.45, "Kx": 220, "Ky": 160}`) })},
		{Name: "-data /dev/zero", Args: identify("/dev/zero"), Baseline: "clean identify"},
		{Name: "-data /dev/urandom", Args: identify("/dev/urandom"), Baseline: "clean identify"},
		{Name: "-data FIFO, one endless line", Args: identify("{dir}/line.fifo"), Setup: fifo("line.fifo", "t,wl,wr,x,y,psi\n0,", "7"), Baseline: "clean identify"},
		{Name: "-data 20-MB header line", Args: identify("{dir}/header.csv"), Setup: writeFile("header.csv", func() []byte { return []byte("t," + strings.Repeat("x", 20<<20) + "\n0,1\n") }), Baseline: "clean identify"},
		{Name: "-data 50 MB of binary", Args: identify("{dir}/binary.csv"), Setup: writeFile("binary.csv", func() []byte { return pseudoRandom(50 << 20) }), Baseline: "clean identify"},
		{Name: "-params 80-KB nested brackets", Args: validate("{dir}/nested.json"), Setup: writeFile("nested.json", func() []byte {
			return []byte(`{"model": "tire", "mu": ` + strings.Repeat("[", 40<<10) + strings.Repeat("]", 40<<10) + "}")
		}), Baseline: "clean validate"},
		{Name: "-params /dev/zero", Args: validate("/dev/zero"), Baseline: "clean validate"},
		{Name: "-params FIFO of blanks", Args: validate("{dir}/blank.fifo"), Setup: fifo("blank.fifo", `{"model": "tire", `, " "), Baseline: "clean validate"},
		{Name: "-data FIFO of comments (1 GiB)", Args: identify("{dir}/comments.fifo"), Setup: fifo("comments.fifo", "t,wl,wr,x,y,psi\n", "# no row\n"), Baseline: "clean identify", Long: true},
	}
	var out []Case
	for _, c := range cs {
		if long || !c.Long {
			out = append(out, c)
		}
	}
	return out
}

// Run runs the cases with the program at self (re-executed as the child),
// baselines first.
func Run(self, root string, cases []Case, timeout time.Duration) ([]Result, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "hostile-memory")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	peak := map[string]float64{}
	var rs []Result
	for _, c := range cases {
		r, err := runCase(self, root, dir, c, timeout)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Name, err)
		}
		if c.Baseline == "" {
			peak[c.Name] = r.PeakMB
		} else {
			base, ok := peak[c.Baseline]
			if !ok {
				return nil, fmt.Errorf("%s: baseline %q not run before it", c.Name, c.Baseline)
			}
			r.AboveMB = r.PeakMB - base
		}
		rs = append(rs, r)
	}
	return rs, nil
}

func runCase(self, root, dir string, c Case, timeout time.Duration) (Result, error) {
	if c.Setup != nil {
		stop, err := c.Setup(dir)
		if err != nil {
			return Result{}, err
		}
		if stop != nil {
			defer stop()
		}
	}
	args := make([]string, len(c.Args))
	for i, a := range c.Args {
		args[i] = strings.NewReplacer("{dir}", dir, "{root}", root).Replace(a)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, self, args...)
	peakFile := filepath.Join(dir, "peak")
	os.Remove(peakFile)
	cmd.Env = append(os.Environ(), childEnv+"="+peakFile)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	start := time.Now()
	err := cmd.Run()
	r := Result{Case: c, Duration: time.Since(start), Stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		r.Status = -1
	case errors.As(err, &ee):
		r.Status = ee.ExitCode()
	case err != nil:
		return r, err
	}
	b, err := os.ReadFile(peakFile)
	if err != nil {
		r.PeakMB = math.NaN() // killed, or no /proc: unknown
		return r, nil
	}
	kb, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return r, fmt.Errorf("peak %q: %w", b, err)
	}
	r.PeakMB = kb / 1024
	return r, nil
}

// Print writes the results as a table.
func Print(w io.Writer, rs []Result) {
	fmt.Fprintf(w, "%-34s %6s %9s %9s %8s  %s\n", "case", "exit", "peak MB", "above MB", "time", "stderr (first line)")
	for _, r := range rs {
		above := "-"
		if r.Case.Baseline != "" {
			above = fmt.Sprintf("%.0f", r.AboveMB)
		}
		first, _, _ := strings.Cut(strings.TrimSpace(r.Stderr), "\n")
		if len(first) > 110 {
			first = first[:110] + "…"
		}
		status := fmt.Sprint(r.Status)
		if r.Status == -1 {
			status = "HANG"
		}
		fmt.Fprintf(w, "%-34s %6s %9.0f %9s %8s  %s\n", r.Case.Name, status, r.PeakMB, above, r.Duration.Round(10*time.Millisecond), first)
	}
}

// writeFile writes the file made by b when the case runs (not before: the
// parent holds no case's bytes while another runs).
func writeFile(name string, b func() []byte) func(string) (func(), error) {
	return func(dir string) (func(), error) {
		return nil, os.WriteFile(filepath.Join(dir, name), b(), 0o644)
	}
}

// fifo makes a FIFO that carries head, then tail repeated without end.
func fifo(name, head, tail string) func(string) (func(), error) {
	return func(dir string) (func(), error) {
		p := filepath.Join(dir, name)
		os.Remove(p)
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			return nil, err
		}
		chunk := []byte(strings.Repeat(tail, max(1, 4096/len(tail))))
		done := make(chan struct{})
		go func() {
			w, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err != nil {
				return
			}
			defer w.Close()
			if _, err := w.Write([]byte(head)); err != nil {
				return
			}
			for {
				select {
				case <-done:
					return
				default:
				}
				if _, err := w.Write(chunk); err != nil {
					return // the reader closed it
				}
			}
		}()
		return func() {
			close(done)
			if f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
				f.Close() // a writer still waiting for a reader
			}
		}, nil
	}
}

// pseudoRandom is n bytes of a fixed xorshift sequence (deterministic).
func pseudoRandom(n int) []byte {
	b := make([]byte, n)
	x := uint64(88172645463325252)
	for i := range b {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		b[i] = byte(x)
	}
	return b
}
