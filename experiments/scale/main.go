// Command scale measures how the wheelgrad command line scales: wall time,
// throughput (rows/s, runs/s, simulated seconds per second) and peak
// resident memory of `identify`, `simulate` and `follow` for every model
// against the size of the input, on synthetic logs from the models' own
// generators. Each case runs the built command line in a child process, so
// the peak is the whole process's (getrusage's maxrss), as a user sees it.
//
//	go run ./experiments/scale [-out DIR] [-quick] [-bin wheelgrad]
//
// It prints one table (wall and CPU time, throughput per wall and per CPU
// second, peak RSS, and the objective evaluations a command reports) and
// writes scale.png (peak memory against size, per case) into DIR.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/wheelgrad/wheelgrad/figure"
)

func main() {
	if spec := os.Getenv(genEnv); spec != "" {
		os.Exit(genMain(spec))
	}
	out := flag.String("out", "out/scale", "directory for the PNG and the generated inputs")
	quick := flag.Bool("quick", false, "small sizes (the smoke test)")
	bin := flag.String("bin", "", "wheelgrad binary (default: built from this module into -out)")
	only := flag.String("only", "", "run only the cases whose \"model command unit\" contains this")
	maxSize := flag.Int("max", 0, "skip sizes above this (0: none)")
	flag.Parse()
	if _, err := run(os.Stdout, *out, *bin, *only, *maxSize, *quick); err != nil {
		fmt.Fprintln(os.Stderr, "scale:", err)
		os.Exit(1)
	}
}

// scaleCase is one command of one model over a list of sizes.
type scaleCase struct {
	model, command string
	unit           string // what a size counts: runs, rows, s (path seconds)
	sizes, quick   []int
	// prepare writes the input of one size into dir and returns the
	// command's arguments.
	prepare func(dir string, size int) ([]string, error)
}

// Result is one measured run.
type Result struct {
	Model, Command, Unit string
	Size                 int
	Wall, CPU            time.Duration // CPU: user + system time of the process
	PeakMB               float64
	// Evaluations is the objective evaluations the command reported (0
	// when it reports none): identify's time is evaluations × the time of
	// one, and only the latter need be linear in the size.
	Evaluations int
}

// PerSecond is the throughput: units of work per second of wall time.
func (r Result) PerSecond() float64 { return float64(r.Size) / r.Wall.Seconds() }

// PerCPUSecond is the throughput per second of CPU time, which a shared
// machine's load disturbs less than the wall time (a command may use more
// than one core: then it is below PerSecond).
func (r Result) PerCPUSecond() float64 { return float64(r.Size) / r.CPU.Seconds() }

const (
	mecanumParams = `{"model": "mecanum", "mu": [0.45, 0.62, 0.38, 0.55]}`
	skidParams    = `{"model": "skidsteer", "a": [[-0.05, 0, 0], [0, 0.01, 0], [0, -0.1, 0]]}`
	diffParams    = `{"model": "diffdrive", "c1": 0.4265, "c2": 0.006491, "alpha": 0.2315, "beta": 6.548, "gamma": 4.073, "mu": 0.1676}`
	tireParams    = `{"model": "tire"}`
)

// genEnv makes this program (or its test binary) a generator: the inputs
// are written by a child process, so that the measuring parent stays small.
// Linux keeps a process's peak resident size across exec, and a child
// started from a parent that had just generated a million-row log would
// report the parent's peak as its own.
const genEnv = "WHEELGRAD_SCALE_GEN"

var generators = map[string]func(path string, n int, seed uint64) error{
	"mecanum-runs":     func(p string, n int, s uint64) error { _, err := mecanumRuns(p, n, 6, s); return err },
	"mecanum-log":      func(p string, n int, s uint64) error { return mecanumLong(p, n, true, s) },
	"mecanum-controls": func(p string, n int, s uint64) error { return mecanumLong(p, n, false, s) },
	"diffdrive":        diffdriveLog,
	"skidsteer":        skidsteerLog,
	"tire":             tireLog,
}

// genMain runs one generator: spec is "kind,path,n,seed".
func genMain(spec string) int {
	f := strings.Split(spec, ",")
	if len(f) != 4 {
		fmt.Fprintln(os.Stderr, "scale: bad generator spec", spec)
		return 2
	}
	n, err1 := strconv.Atoi(f[2])
	seed, err2 := strconv.ParseUint(f[3], 10, 64)
	g := generators[f[0]]
	if err1 != nil || err2 != nil || g == nil {
		fmt.Fprintln(os.Stderr, "scale: bad generator spec", spec)
		return 2
	}
	if err := g(f[1], n, seed); err != nil {
		fmt.Fprintln(os.Stderr, "scale:", err)
		return 1
	}
	return 0
}

// generate writes an input in a child process (see genEnv).
func generate(kind, path string, n int, seed uint64) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s,%s,%d,%d", genEnv, kind, path, n, seed))
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("generating %s: %v: %s", path, err, b)
	}
	return nil
}

func cases() []scaleCase {
	file := func(dir, name string, size int) string {
		return filepath.Join(dir, fmt.Sprintf("%s-%d.csv", name, size))
	}
	params := func(dir, name, body string) string {
		p := filepath.Join(dir, name+".json")
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	follow := func(model, body string, extra ...string) func(string, int) ([]string, error) {
		return func(dir string, size int) ([]string, error) {
			return append([]string{"follow", "-model", model, "-params", params(dir, model, body), "-path", "figure8",
				"-duration", strconv.Itoa(size), "-out", file(dir, model+"-follow", size)}, extra...), nil
		}
	}
	identify := func(model, kind string, seed uint64) func(string, int) ([]string, error) {
		return func(dir string, n int) ([]string, error) {
			f := file(dir, kind, n)
			return []string{"identify", "-model", model, "-data", f, "-out", f + ".json"}, generate(kind, f, n, seed)
		}
	}
	simulate := func(model, kind, body string, seed uint64) func(string, int) ([]string, error) {
		return func(dir string, n int) ([]string, error) {
			f := file(dir, kind+"-controls", n)
			return []string{"simulate", "-model", model, "-params", params(dir, model, body), "-controls", f, "-out", f + ".out"}, generate(kind, f, n, seed)
		}
	}
	return []scaleCase{
		{"mecanum", "identify", "runs", []int{25, 50, 100, 200}, []int{2, 4}, identify("mecanum", "mecanum-runs", 7)},
		{"mecanum", "identify", "rows", []int{100_000, 300_000, 1_000_000}, []int{3000, 6000}, identify("mecanum", "mecanum-log", 8)},
		{"mecanum", "simulate", "rows", []int{100_000, 1_000_000, 3_000_000}, []int{1000, 2000}, simulate("mecanum", "mecanum-controls", mecanumParams, 9)},
		{"mecanum", "follow", "s", []int{100, 1000, 10000}, []int{10, 20}, follow("mecanum", mecanumParams, "-theta0", "0")},
		{"diffdrive", "identify", "rows", []int{37_500, 300_000, 1_000_000}, []int{2000, 4000}, identify("diffdrive", "diffdrive", 10)},
		{"diffdrive", "simulate", "rows", []int{100_000, 1_000_000, 3_000_000}, []int{1000, 2000}, simulate("diffdrive", "diffdrive", diffParams, 11)},
		{"diffdrive", "follow", "s", []int{100, 1000, 10000}, []int{10, 20}, follow("diffdrive", diffParams, "-theta0", "0.785398")},
		{"skidsteer", "identify", "rows", []int{10_000, 100_000, 1_000_000}, []int{1000, 2000}, identify("skidsteer", "skidsteer", 12)},
		{"skidsteer", "simulate", "rows", []int{100_000, 1_000_000, 3_000_000}, []int{1000, 2000}, simulate("skidsteer", "skidsteer", skidParams, 13)},
		{"skidsteer", "follow", "s", []int{100, 1000, 10000}, []int{10, 20}, follow("skidsteer", skidParams, "-theta0", "0.785398")},
		{"tire", "identify", "rows", []int{10_000, 30_000, 100_000}, []int{500, 1000}, identify("tire", "tire", 14)},
		{"tire", "simulate", "rows", []int{10_000, 100_000, 1_000_000}, []int{500, 1000}, simulate("tire", "tire", tireParams, 15)},
	}
}

// run measures every case (those matching only) and prints the table.
func run(w io.Writer, dir, bin, only string, maxSize int, quick bool) ([]Result, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if bin == "" {
		bin = filepath.Join(dir, "wheelgrad")
		b, err := exec.Command("go", "build", "-o", bin, "github.com/wheelgrad/wheelgrad/cmd/wheelgrad").CombinedOutput()
		if err != nil {
			return nil, fmt.Errorf("building wheelgrad: %v: %s", err, b)
		}
	}
	fmt.Fprintf(w, "%-10s %-9s %10s %-5s %9s %9s %12s %12s %13s %6s\n", "model", "command", "size", "unit", "wall (s)", "CPU (s)", "per wall s", "per CPU s", "peak RSS (MB)", "evals")
	var all []Result
	for _, c := range cases() {
		if only != "" && !strings.Contains(c.model+" "+c.command+" "+c.unit, only) {
			continue
		}
		sizes := c.sizes
		if quick {
			sizes = c.quick
		}
		for _, n := range sizes {
			if maxSize > 0 && n > maxSize {
				continue
			}
			args, err := c.prepare(dir, n)
			if err != nil {
				return nil, fmt.Errorf("%s %s %d: %w", c.model, c.command, n, err)
			}
			r, err := measure(bin, args)
			if err != nil {
				return nil, fmt.Errorf("%s %s %d %s: %w", c.model, c.command, n, c.unit, err)
			}
			r.Model, r.Command, r.Unit, r.Size = c.model, c.command, c.unit, n
			all = append(all, r)
			fmt.Fprintf(w, "%-10s %-9s %10d %-5s %9.2f %9.2f %12.4g %12.4g %13.0f %6d\n", r.Model, r.Command, r.Size, r.Unit, r.Wall.Seconds(), r.CPU.Seconds(), r.PerSecond(), r.PerCPUSecond(), r.PeakMB, r.Evaluations)
			// the inputs of a size are not needed again
			for _, a := range args {
				if strings.HasPrefix(a, dir) && strings.Contains(a, ".csv") {
					os.Remove(a)
				}
			}
		}
	}
	if err := plot(filepath.Join(dir, "scale.png"), all); err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "wrote %s\n", filepath.Join(dir, "scale.png"))
	return all, nil
}

// evaluations finds "N evaluations" in a command's report.
var evaluations = regexp.MustCompile(`(\d+) evaluations`)

// measure runs the command line once and returns its wall time and peak
// resident memory.
func measure(bin string, args []string) (Result, error) {
	cmd := exec.Command(bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return Result{}, fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return Result{}, errors.New("no resource usage from the child process")
	}
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	r := Result{Wall: wall, CPU: cpu, PeakMB: float64(ru.Maxrss) / 1024}
	if m := evaluations.FindSubmatch(append(stdout.Bytes(), stderr.Bytes()...)); m != nil {
		r.Evaluations, _ = strconv.Atoi(string(m[1]))
	}
	return r, nil
}

// plot draws, per case, the peak memory against the size as a fraction of
// the case's largest: linear memory is a straight line.
func plot(path string, rs []Result) error {
	type key struct{ m, c, u string }
	groups := map[key][]Result{}
	var order []key
	for _, r := range rs {
		k := key{r.Model, r.Command, r.Unit}
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	var ss []figure.Series
	for i, k := range order {
		g := groups[k]
		top := float64(g[len(g)-1].Size)
		var x, y []float64
		for _, r := range g {
			x = append(x, float64(r.Size)/top)
			y = append(y, r.PeakMB)
		}
		ss = append(ss, figure.Series{Name: fmt.Sprintf("%s %s (max %d %s)", k.m, k.c, g[len(g)-1].Size, k.u), X: x, Y: y,
			Color: figure.Palette[i%len(figure.Palette)], Dashed: i >= len(figure.Palette)})
	}
	return figure.XY(path, "peak resident memory against input size", "size / largest size of the case", "peak RSS (MB)", false, ss)
}
