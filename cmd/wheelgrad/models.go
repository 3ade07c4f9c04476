package main

import (
	"fmt"
	"slices"
	"strings"
)

// Models known to the command line (FORMATS.md: -model).
var modelNames = []string{"mecanum", "diffdrive", "skidsteer"}

// implemented lists, per subcommand, the models whose code has landed. A
// model that is named in FORMATS.md but not yet built is a runtime failure
// (exit 1) that says so, not a usage error.
var implemented = map[string][]string{}

func checkModel(cmd, model string) error {
	if model == "" {
		return usagef("-model is required (one of %s)", strings.Join(modelNames, ", "))
	}
	if !slices.Contains(modelNames, model) {
		return usagef("unknown -model %q (one of %s)", model, strings.Join(modelNames, ", "))
	}
	if !slices.Contains(implemented[cmd], model) {
		return fmt.Errorf("model %q is not available in this version of wheelgrad %s yet", model, cmd)
	}
	return nil
}

func required(flag, value string) error {
	if value == "" {
		return usagef("-%s is required", flag)
	}
	return nil
}
