package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
)

// status's exit code is that of the stacks it shows: a person who asks for the clusters and sees
// every one Ready is not told "not ready" because of a pool the selection left out.
// Promise: status-filters-exit-with-shown-stacks
func TestStatusExitsWithTheCodeOfTheStacksItShows(t *testing.T) {
	b := deploytest.New()
	dir := fleet(t)
	if r := deployRun(t, b, strings.NewReader(""), false, "up", filepath.Join(dir, "cluster.yaml"), "--yes"); r.code != exitcode.OK {
		t.Fatalf("up of the cluster = exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"the whole fleet, with its pool never deployed, is not ready", nil, exitcode.NotReady},
		{"only the deployed cluster's kind is ready", []string{"--kind", "do-cluster"}, exitcode.OK},
		{"only the pool's kind is not ready", []string{"--kind", "do-pool"}, exitcode.NotReady},
		{"a selector that keeps every stack keeps the fleet's code", []string{"-l", "!team"}, exitcode.NotReady},
		{"a selector that keeps no stack is nothing to be unready", []string{"-l", "team=data"}, exitcode.OK},
		{"only the stacks not ready are not ready", []string{"--only", "not-ready"}, exitcode.NotReady},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := deployRun(t, b, strings.NewReader(""), false, append([]string{"status", dir}, tt.args...)...)
			if r.code != tt.code {
				t.Errorf("status %s = exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(tt.args, " "), r.code, tt.code, r.stdout, r.stderr)
			}
		})
	}
}

// kubectl's habit, "-o wide", is refused with the flag that does it here, where a command has one.
func TestOutputWideIsRefusedWithTheFlagThatShowsMoreColumns(t *testing.T) {
	tests := []struct {
		command string
		hint    bool
	}{
		{"status", true},
		{"preview", false},
	}
	for _, tt := range tests {
		t.Run(tt.command, func(t *testing.T) {
			r := run(t, "", tt.command, "x.yaml", "-o", "wide")
			if r.code != exitcode.Usage {
				t.Errorf("%s -o wide = exit %d, want %d", tt.command, r.code, exitcode.Usage)
			}
			if got := strings.Contains(r.stderr, "--wide"); got != tt.hint {
				t.Errorf("%s -o wide names --wide: %v, want %v\n%s", tt.command, got, tt.hint, r.stderr)
			}
		})
	}
}
