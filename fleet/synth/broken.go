package synth

import (
	"bytes"
	"fmt"
	"strings"
)

// brokenKind is one way a log arrives broken, and what breaks it.
type brokenKind struct {
	name string
	// brk returns the broken log and the substring of the error the
	// toolkit's reader gives for it.
	brk func(lines []string, sp *spec) (out []string, msg string)
}

// brokenKinds are the kinds of broken log, given to the broken robot-days
// in this order.
var brokenKinds = []brokenKind{
	{"nan", func(ls []string, sp *spec) ([]string, string) {
		// a NaN in the first output column, on a row that has it
		k := middleRow(ls, sp.outputs[0].every)
		c := len(sp.commands) + 1
		f := strings.Split(ls[k], ",")
		f[c] = "NaN"
		ls[k] = strings.Join(f, ",")
		return ls, fmt.Sprintf("line %d, column %q", k+1, sp.outputs[0].name)
	}},
	{"missing-column", func(ls []string, sp *spec) ([]string, string) {
		// the first command column gone
		for i, l := range ls {
			f := strings.Split(l, ",")
			ls[i] = strings.Join(append(f[:1], f[2:]...), ",")
		}
		return ls, fmt.Sprintf("missing column %q", sp.commands[0].name)
	}},
	{"time", func(ls []string, sp *spec) ([]string, string) {
		// a row's time repeated from the row before
		k := middleRow(ls, 1)
		prev := strings.SplitN(ls[k-1], ",", 2)[0]
		f := strings.SplitN(ls[k], ",", 2)
		ls[k] = prev + "," + f[1]
		return ls, fmt.Sprintf("line %d, column \"t\"", k+1)
	}},
	{"empty", func(ls []string, sp *spec) ([]string, string) {
		return nil, "empty file"
	}},
	{"truncated", func(ls []string, sp *spec) ([]string, string) {
		// the last row cut after its second field, as a copy interrupted
		k := len(ls) - 1
		f := strings.Split(ls[k], ",")
		ls[k] = strings.Join(f[:2], ",")
		return ls, fmt.Sprintf("line %d", k+1)
	}},
}

// middleRow is a data row near the middle of the log (lines[0] is the
// header) whose row index is a multiple of every.
func middleRow(lines []string, every int) int {
	k := (len(lines) - 1) / 2
	return 1 + (k/every)*every
}

// breakLog breaks a good log as b's kind says and records the error's
// substring in b.
func breakLog(b *Broken, data []byte, sp *spec) ([]byte, error) {
	for _, k := range brokenKinds {
		if k.name != b.Kind {
			continue
		}
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		out, msg := k.brk(lines, sp)
		b.Error = msg
		if len(out) == 0 {
			return nil, nil
		}
		var buf bytes.Buffer
		for i, l := range out {
			buf.WriteString(l)
			if i < len(out)-1 || b.Kind != "truncated" {
				buf.WriteByte('\n')
			}
		}
		return buf.Bytes(), nil
	}
	return nil, fmt.Errorf("synth: no broken kind %q", b.Kind)
}
