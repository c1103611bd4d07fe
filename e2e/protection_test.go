//go:build e2e

package e2e_test

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

// onATerminal runs clusterplane as clusterplane does for a person: its standard input a
// pseudo-terminal on which answer is typed ahead.
func (e *env) onATerminal(answer string, args ...string) (result, int) {
	e.t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		e.t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	if _, err := ptmx.Write([]byte(answer)); err != nil {
		e.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(binaries(e.t), "clusterplane"), args...)
	cmd.Dir, cmd.Env, cmd.Stdin = e.dir, e.vars, tty
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else if err != nil {
		e.t.Fatalf("clusterplane %s: %v", strings.Join(args, " "), err)
	}
	e.log(stdout.String(), stderr.String())
	return result{stdout.String(), stderr.String(), err}, code
}

// Promise: recorded-only-changes-asked-and-planned
func TestTurningProtectionOffIsListedAskedAndHeldByASavedPlanOnTheRealEngine(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	manifest := e.write("cluster.yaml", withSpec(example(t, "digitaloceankubernetescluster/minimal.yaml"), "  deletionProtection: true\n"))
	e.ok("up", manifest, "--yes")
	// The plan reviewed while the cluster was protected: nothing to do.
	before := filepath.Join(e.dir, "before.json")
	e.ok("preview", manifest, "--save-plan", before)

	e.write("cluster.yaml", strings.Replace(e.read(manifest), "deletionProtection: true", "deletionProtection: false", 1))
	const off = "deletion protection on → off: destroy will delete this cluster"

	// The engine counts the cluster same; preview says the change all the same.
	r := e.ok("preview", manifest)
	for _, s := range []string{"1 change recorded only", off, "recorded only spec.deletionProtection: true → false"} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("preview does not say %q: %s", s, r)
		}
	}
	// On a terminal up lists it and asks; answered no, nothing is deployed.
	r, code := e.onATerminal("n\n", "up", manifest)
	if code != 3 || !strings.Contains(r.stderr, off) || !strings.Contains(r.stderr, "Deploy? [y/N]") {
		t.Errorf("up on a terminal answered no = %d, want 3 after listing and asking: %s", code, r)
	}
	if r, code := e.clusterplane("destroy", manifest, "--yes"); code == 0 {
		t.Fatalf("destroy after the unconfirmed up deleted the cluster: %s", r)
	}
	if _, ok := e.do.ClusterNamed("dev-fra1"); !ok {
		t.Fatal("the cluster is gone")
	}
	// The plan reviewed before the change does not apply it.
	if r, code := e.clusterplane("up", "--plan", before); code != 3 || !strings.Contains(r.stdout+r.stderr, "not the manifest reviewed") {
		t.Errorf("up --plan of the plan made before = %d, want 3 naming the manifest: %s", code, r)
	}
	// A plan that shows it holds it, and its report says it.
	after := filepath.Join(e.dir, "after.json")
	e.ok("preview", manifest, "--save-plan", after)
	if plan := e.read(after); !strings.Contains(plan, `"spec.deletionProtection"`) {
		t.Errorf("the saved plan does not hold the change: %s", plan)
	}
	r = e.ok("up", "--plan", after, "-o", "json")
	if !strings.Contains(r.stdout, `"protectionOff": true`) || !strings.Contains(r.stdout, `"recordedOnly"`) {
		t.Errorf("up --plan's report does not say protection went off: %s", r.stdout)
	}
	// Now the destroy goes through: the change was deployed, seen.
	e.ok("destroy", manifest, "--yes")
}

func TestTheQuestionForANodeCountChangeListsThatFieldAloneOnTheRealEngine(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	manifest := e.write("cluster.yaml", withSpec(example(t, "digitaloceankubernetescluster/minimal.yaml"), "  deletionProtection: false\n"))
	e.ok("up", manifest, "--yes")
	e.write("cluster.yaml", strings.Replace(e.read(manifest), "nodeCount: 2", "nodeCount: 3", 1))
	r, code := e.onATerminal("n\n", "up", manifest)
	if code != 3 {
		t.Fatalf("up answered no = %d, want 3: %s", code, r)
	}
	var fields []string
	for _, line := range strings.Split(r.stderr, "\n") {
		if strings.HasPrefix(line, "    spec.") || strings.HasPrefix(line, "    metadata.") {
			fields = append(fields, strings.TrimSpace(line))
		}
	}
	if strings.Join(fields, "|") != "spec.defaultNodePool.nodeCount: 2 → 3" {
		t.Errorf("the question lists %q, want the node count alone:\n%s", fields, r.stderr)
	}
}
