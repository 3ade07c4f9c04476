package main

import "github.com/wheelgrad/wheelgrad/experiments/own-model/unicycle"

// Robot is the model of unicycle/model.go, written once and shared with
// the command line of experiments/own-model/cli.
var Robot = unicycle.Robot
