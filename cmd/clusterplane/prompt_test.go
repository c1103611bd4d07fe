package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"github.com/creack/pty"
)

// onATerminal runs clusterplane in this process with standard input a real pseudo-terminal, on
// which answer is typed: clusterplane finds the terminal itself, as it does for a person.
func onATerminal(t *testing.T, b *deploytest.Backend, answer string, args ...string) result {
	t.Helper()
	for _, env := range []string{civo.TokenEnv, digitalocean.TokenEnv, civo.APIURLEnv,
		digitalocean.APIURLEnv, stackinput.FileEnv} {
		t.Setenv(env, "")
	}
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	// Typed ahead: the terminal holds the line until clusterplane reads it.
	if _, err := ptmx.Write([]byte(answer)); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	a := newApp(registry.Kinds(), tty, &stdout, &stderr)
	a.f.deploy.backend = b
	code := a.run(args)
	return result{code, stdout.String(), stderr.String()}
}

// Promise: up-asks-on-terminal
// Promise: destroy-needs-yes
func TestUpAndDestroyOnATerminalShowThePlanAndGoOnOnlyOnYes(t *testing.T) {
	const key = "digitaloceankubernetescluster/platform-prod"
	tests := []struct {
		name, answer string
		// command is up or destroy, run after the cluster is deployed and its nodeCount edited 2 → 3.
		command string
		code    int
		// shows is what the plan and question on stderr hold.
		shows []string
		// changed tells whether the stack must have changed.
		changed bool
	}{
		{"up answered no changes nothing", "no\n", "up", exitcode.Blocked,
			[]string{"would update 1", "\n    spec.defaultNodePool.nodeCount: 2 → 3\n", "\n  monthly cost: +$", "Deploy? [y/N]"}, false},
		{"up answered an empty line changes nothing", "\n", "up", exitcode.Blocked, []string{"Deploy? [y/N]"}, false},
		{"up answered yes deploys", "yes\n", "up", exitcode.OK, []string{"spec.defaultNodePool.nodeCount: 2 → 3"}, true},
		{"up answered y deploys", "y\n", "up", exitcode.OK, []string{"Deploy? [y/N]"}, true},
		{"destroy answered no deletes nothing", "no\n", "destroy", exitcode.Blocked,
			[]string{"would delete:", "digitalocean:index/kubernetesCluster:KubernetesCluster platform", "Destroy? [y/N]"}, false},
		{"destroy answered yes destroys", "yes\n", "destroy", exitcode.OK, []string{"Destroy? [y/N]"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := deploytest.New()
			dir := fleet(t)
			file := filepath.Join(dir, "cluster.yaml")
			deployed(t, b, file)
			edit(t, dir, "cluster.yaml", "nodeCount: 2", "nodeCount: 3")
			updates, destroys := count(b.Calls(), "update "+key), count(b.Calls(), "destroy "+key)
			r := onATerminal(t, b, tt.answer, tt.command, file)
			if r.code != tt.code {
				t.Errorf("exit %d, want %d\n%s%s", r.code, tt.code, r.stdout, r.stderr)
			}
			for _, s := range tt.shows {
				if !strings.Contains(r.stderr, s) {
					t.Errorf("the terminal does not show %q:\n%s", s, r.stderr)
				}
			}
			changed := count(b.Calls(), "update "+key) != updates || count(b.Calls(), "destroy "+key) != destroys
			if changed != tt.changed {
				t.Errorf("the stack changed: %t, want %t: %v", changed, tt.changed, b.Calls())
			}
			// Answered no, the table says so: --yes would mend nothing the person did not mean.
			if !tt.changed && (!strings.Contains(r.stdout, "not confirmed (answered no)") || strings.Contains(r.stdout, "--yes")) {
				t.Errorf("the table does not say the stack was not confirmed, answered no:\n%s", r.stdout)
			}
		})
	}
}

// Without a terminal or --yes, destroy deletes nothing and exits 3, as an up not confirmed does.
// Promise: destroy-needs-yes
func TestDestroyWithoutATerminalOrYesStillDeletesNothing(t *testing.T) {
	b := deploytest.New()
	file := filepath.Join(fleet(t), "cluster.yaml")
	deployed(t, b, file)
	r := deployRun(t, b, strings.NewReader("yes\n"), false, "destroy", file)
	if r.code != exitcode.Blocked || !strings.Contains(r.stderr, "not confirmed (no terminal to ask on: use --yes)") ||
		count(b.Calls(), "destroy") != 0 {
		t.Errorf("destroy without a terminal or --yes: exit %d, calls %v\n%s", r.code, b.Calls(), r.stderr)
	}
}

// count is how many calls hold s.
func count(calls []string, s string) int {
	n := 0
	for _, c := range calls {
		if strings.Contains(c, s) {
			n++
		}
	}
	return n
}

func TestTurningProtectionOffOnATerminalIsListedOnALineOfItsOwnAndAsked(t *testing.T) {
	tests := []struct {
		name, answer string
		code         int
		// stdout is what the table and the lines under it say once answered.
		stdout []string
	}{
		{"answered no, the stack keeps its protection", "no\n", exitcode.Blocked, []string{"not confirmed"}},
		{"answered yes, the summary counts it and says it", "yes\n", exitcode.OK,
			[]string{"1 change recorded only", "deletion protection on → off: destroy will delete this cluster",
				"recorded only spec.deletionProtection: true → false"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := deploytest.New()
			dir := fleet(t)
			file := filepath.Join(dir, "cluster.yaml")
			edit(t, dir, "cluster.yaml", "deletionProtection: false", "deletionProtection: true")
			deployed(t, b, file)
			edit(t, dir, "cluster.yaml", "deletionProtection: true", "deletionProtection: false")
			r := onATerminal(t, b, tt.answer, "up", file)
			if r.code != tt.code {
				t.Errorf("exit %d, want %d\n%s%s", r.code, tt.code, r.stdout, r.stderr)
			}
			for _, s := range []string{"deletion protection on → off: destroy will delete this cluster",
				"recorded only spec.deletionProtection: true → false", "Deploy? [y/N]"} {
				if !strings.Contains(r.stderr, s) {
					t.Errorf("the question does not show %q:\n%s", s, r.stderr)
				}
			}
			for _, s := range tt.stdout {
				if !strings.Contains(r.stdout, s) {
					t.Errorf("the report does not say %q:\n%s", s, r.stdout)
				}
			}
		})
	}
}

func TestTheQuestionListsOnlyTheFieldsWhoseValuesChange(t *testing.T) {
	b := deploytest.New()
	dir := fleet(t)
	file := filepath.Join(dir, "cluster.yaml")
	deployed(t, b, file)
	edit(t, dir, "cluster.yaml", "nodeCount: 2", "nodeCount: 3")
	r := onATerminal(t, b, "no\n", "up", file)
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

// The question up asks after reading the cloud shows what it would put back, old → new, and the
// cost from what the cloud has: the one screen a person decides on.
func TestTheQuestionShowsWhatUpWouldPutBackAndItsCostFromTheCloud(t *testing.T) {
	b := deploytest.New()
	dir := fleet(t)
	deployed(t, b, filepath.Join(dir, "cluster.yaml"))
	pool := filepath.Join(dir, "pool.yaml")
	deployed(t, b, pool)
	b.EditRefreshed("digitaloceankubernetesnodepool/workers", "digitalocean:index/kubernetesNodePool:KubernetesNodePool", "workers",
		"nodeCount", float64(6), float64(6))
	r := onATerminal(t, b, "no\n", "up", pool)
	for _, want := range []string{"\n  would put back spec.nodeCount: 6 → 2 (changed in the cloud since the last up)\n",
		"\n  monthly cost: -$", "($", " → $", "Deploy? [y/N]"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("the question lacks %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "monthly cost: unchanged") || strings.Contains(r.stderr, "the cloud differs from the manifest") {
		t.Errorf("the question says the cost is unchanged, or names the field without its values:\n%s", r.stderr)
	}
}
