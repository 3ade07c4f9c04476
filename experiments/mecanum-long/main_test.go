package main

import (
	"strings"
	"testing"
)

func TestSmoke(t *testing.T) {
	var b strings.Builder
	if err := run(&b, 20, 1, "steps"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "continuation") || !strings.Contains(b.String(), "whole log") {
		t.Errorf("output:\n%s", b.String())
	}
}
