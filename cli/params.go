package cli

import (
	"fmt"
	"strings"

	"github.com/wheelgrad/wheelgrad/models/mecanum"
)

// warnParams prints a model's warnings about legal but unusual parameter
// values (each "key: why") to stderr, one line each, naming the file.
func warnParams(e env, path string, warnings []string) {
	for _, w := range warnings {
		key, why, ok := strings.Cut(w, ": ")
		if !ok {
			fmt.Fprintf(e.stderr, "wheelgrad: warning: %s: %s\n", path, w)
			continue
		}
		fmt.Fprintf(e.stderr, "wheelgrad: warning: %s, key %q: %s\n", path, key, why)
	}
}

// readMecanumParams is mecanum.ReadParams with its warnings printed.
func readMecanumParams(e env, path string, needMu bool) (mecanum.Params, error) {
	p, warnings, err := mecanum.ReadParams(path, needMu)
	if err != nil {
		return p, err
	}
	warnParams(e, path, warnings)
	return p, nil
}
