// Command wheelgrad identifies wheeled robots from their logs and
// synthesises the wheel commands that drive them along a path (docs/cli.md):
// the command line of package cli over the built-in models of package
// robots.
package main

import (
	"os"

	"github.com/wheelgrad/wheelgrad/cli"
	"github.com/wheelgrad/wheelgrad/robots"
)

func main() { os.Exit(cli.Main(os.Args[1:], robots.Default())) }
