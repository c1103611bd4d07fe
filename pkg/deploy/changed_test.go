package deploy_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/pipeline"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// gitRepo makes a git repository of the files, committed, and returns its folder.
func gitRepo(t *testing.T, texts map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := writeFiles(t, texts)
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "fleet"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

func TestChangedSinceRunsTheManifestsChangedAndTheStacksReferencingThem(t *testing.T) {
	tests := []struct {
		name string
		// edit changes the fleet after its commit.
		edit func(t *testing.T, dir string)
		want []string
	}{
		{"a cluster changed runs with its pool, not the other cluster", func(t *testing.T, dir string) {
			write(t, dir, "a.yaml", strings.Replace(clusterText("a", "prod"), "nodeCount: 2", "nodeCount: 3", 1))
		}, []string{"digitaloceankubernetescluster/a-prod", "digitaloceankubernetesnodepool/workers"}},
		{"a pool changed runs alone", func(t *testing.T, dir string) {
			write(t, dir, "pool.yaml", strings.Replace(poolText("workers", "a", "prod"), "nodeCount: 2", "nodeCount: 4", 1))
		}, []string{"digitaloceankubernetesnodepool/workers"}},
		{"a manifest not yet committed runs", func(t *testing.T, dir string) {
			write(t, dir, "c.yaml", clusterText("c", "dev"))
		}, []string{"digitaloceankubernetescluster/c-dev"}},
		{"nothing changed runs nothing", func(*testing.T, string) {}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := gitRepo(t, map[string]string{"a.yaml": clusterText("a", "prod"), "b.yaml": clusterText("b", "prod"),
				"pool.yaml": poolText("workers", "a", "prod")})
			tt.edit(t, dir)
			b := deploytest.New()
			var said []string
			outcomes, err := pipeline.Run(context.Background(), pipeline.Request{Paths: []string{dir}, ChangedSince: "HEAD",
				Files: reading(t, "", false), Backend: func() (stackstate.Backend, error) { return b, nil }, Parallel: 2, StackTimeout: time.Minute,
				Say: func(line string) { said = append(said, line) }, Op: preview.Around(func(pipeline.Call) outcome.Outcome {
					return outcome.Outcome{Status: outcome.Done, Reason: "ran"}
				})})
			if err != nil {
				t.Fatal(err)
			}
			var ran []string
			for _, o := range outcomes {
				if o.Reason == "ran" {
					ran = append(ran, o.Target.Key())
				} else if !strings.Contains(o.Reason, "did not change since HEAD") {
					t.Errorf("%s: %q, want it not run, saying why", o.Target.Key(), o.Reason)
				}
			}
			slices.Sort(ran)
			if !slices.Equal(ran, tt.want) {
				t.Errorf("ran %v, want %v", ran, tt.want)
			}
			if len(said) == 0 || !strings.Contains(said[0], "--changed-since HEAD: ") {
				t.Errorf("said %q, want how many stacks run", said)
			}
		})
	}
}

// Promise: changed-since-unknown-commit-refused
func TestChangedSinceACommitGitDoesNotKnowIsAMistakeOfTheCommandLine(t *testing.T) {
	dir := gitRepo(t, map[string]string{"a.yaml": clusterText("a", "prod")})
	_, err := pipeline.Run(context.Background(), pipeline.Request{Paths: []string{dir}, ChangedSince: "no-such-branch",
		Files: reading(t, "", false), Backend: func() (stackstate.Backend, error) { return deploytest.New(), nil }, Op: preview})
	var args *pipeline.ArgsError
	if !errors.As(err, &args) || !strings.Contains(err.Error(), `"no-such-branch": git knows no such commit`) {
		t.Errorf("err %v (%T), want an *ArgsError naming the commit", err, err)
	}
}

func write(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}
