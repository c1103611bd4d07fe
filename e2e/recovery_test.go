//go:build e2e

package e2e_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestATornCheckpointIsNamedWithTheCommandThatRestoresItsBackup(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	manifest := e.write("cluster.yaml", withSpec(example(t, "digitaloceankubernetescluster/minimal.yaml"), "  deletionProtection: false\n"))
	if r, code := e.clusterplane("up", manifest, "--yes"); code != 0 {
		t.Fatalf("up = %d: %s", code, r)
	}
	// A disk that filled up while the CLI wrote the checkpoint leaves it cut short.
	checkpoint := filepath.Join(e.dir, "state", ".pulumi", "stacks", "digitaloceankubernetescluster", "dev-fra1.json")
	data, err := os.ReadFile(checkpoint)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(checkpoint, data[:len(data)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	restore := "cp " + checkpoint + ".bak " + checkpoint
	for _, command := range []string{"status", "up"} {
		r, code := e.clusterplane(command, manifest, "--yes")
		if command == "status" {
			r, code = e.clusterplane(command, manifest)
		}
		t.Logf("%s on a torn checkpoint:\n%s", command, r)
		if code != 1 || !strings.Contains(r.stdout+r.stderr, "is torn") || !strings.Contains(r.stdout+r.stderr, "`"+restore+"`") {
			t.Errorf("%s on a torn checkpoint = %d, want 1 naming the checkpoint and `%s`: %s", command, code, restore, r)
		}
	}
	// Followed as written, the stack works again.
	backup, err := os.ReadFile(checkpoint + ".bak")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(checkpoint, backup, 0o600); err != nil {
		t.Fatal(err)
	}
	if r, code := e.clusterplane("refresh", manifest); code != 0 {
		t.Fatalf("refresh after restoring the backup = %d: %s", code, r)
	}
	if r, code := e.clusterplane("up", manifest, "--yes"); code != 0 {
		t.Fatalf("up after restoring the backup = %d: %s", code, r)
	}
	if n := len(e.do.Clusters()); n != 1 {
		t.Errorf("the cloud holds %d clusters after the recovery, want 1", n)
	}
}

func TestAStackThatOutlivesItsTimeoutSaysItsLockAndPendingCreateAndWhatToRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	manifest := e.write("cluster.yaml", withSpec(example(t, "digitaloceankubernetescluster/minimal.yaml"), "  deletionProtection: false\n"))
	// The cluster stays provisioning: the provider waits for it, as it does for minutes in the real
	// cloud, and the stack's deadline passes in the middle of the create. The deadline leaves the
	// engine time to start and reach the create on a loaded 2-core machine (20 s did not in CI).
	e.do.SetHold(true)
	r, code := e.clusterplane("up", manifest, "--yes", "--stack-timeout", "90s")
	e.do.SetHold(false)
	t.Logf("up past its deadline:\n%s", r)
	// The cluster the interrupted create made is named as the id to import, in the command to run.
	id := e.doCluster("dev-fra1").ID
	for _, s := range []string{"timed out after 1m30s", "did not end within 1m30s", "pulumi cancel --stack organization/digitaloceankubernetescluster/dev-fra1",
		"the cloud holds cluster dev-fra1 in region fra1 (id " + id + ")", "`clusterplane refresh " + manifest + " --import-pending-create " + id + "`"} {
		if !strings.Contains(r.stdout+r.stderr, s) {
			t.Errorf("up past its deadline does not say %q", s)
		}
	}
	if code != 1 {
		t.Errorf("up past its deadline = %d, want 1", code)
	}
	// status gives the same advice.
	if st := e.status(manifest); condition(st, "Ready") != "False/PendingCreates" {
		t.Errorf("status after the timeout: %+v", st)
	}
}

// A Civo cluster an interrupted up was creating, recorded with --import-pending-create as the
// advice says, is deployed by the next up without a word of anything changed in the cloud. The
// refresh that records it reads the module's firewall too, whose rules the Terraform bridge pairs
// by position with the ones it read (a udp rule with the icmp one, which has no ports): the up
// must not then fail on the provider's "ports of egress rules is required" (refreshinputs.go).
// The refresh leaves writeKubeconfig, which the provider never reads from the cloud
// (terraform-provider-civo v1.1.4, civo/kubernetes/resource_kubernetes_cluster.go), empty, and
// the up sets it for the first time: that is nothing put back.
func TestACivoClusterRecordedFromAKilledUpPutsNothingBack(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seedExamples()
	manifest := e.write("cluster.yaml", example(t, "civokubernetescluster/minimal.yaml"))
	made := func() bool {
		for _, c := range e.civo.Clusters() {
			if c.Name == "dev-fra1" {
				return true
			}
		}
		return false
	}
	e.killedUpIn(manifest, "dev-fra1", e.civo.Hold, made, "pulumi-resource-civo")
	// The fault needs the provider to have read the egress rules back in another order than the
	// module's, the icmp rule (no ports) not last: the ids the loopback cloud gives make it so.
	if labels := egressRulesRead(t, e); len(labels) != 3 || labels[2] == "all-icmp" {
		t.Fatalf("the provider read the firewall's egress rules as %q: with icmp last the test sees nothing", labels)
	}
	commands := backticked(message(e.status(manifest), "Ready"))
	if len(commands) != 2 || !strings.Contains(commands[1], "--import-pending-create") {
		t.Fatalf("the advice after a killed up names %q, want the cancel and the refresh that records the cluster", commands)
	}
	if r := e.pulumi(e.dir, nil, strings.Fields(commands[0])[1:]...); r.err != nil {
		t.Fatalf("%s: %s", commands[0], r)
	}
	if r, code := e.clusterplane(strings.Fields(commands[1])[1:]...); code != 0 {
		t.Fatalf("%s = %d: %s", commands[1], code, r)
	}
	r, code := e.clusterplane("up", manifest, "--yes")
	if code != 0 || strings.Contains(r.stdout, "put back") || strings.Contains(r.stdout, "changed in the cloud") {
		t.Errorf("up after recording the cluster = %d, want done putting nothing back: %s", code, r)
	}
}

// egressRulesRead are the labels of the Civo firewall's egress rules as the provider read them,
// in its order, from the state of stack civokubernetescluster/dev-fra1.
func egressRulesRead(t *testing.T, e *env) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(e.dir, "state", ".pulumi", "stacks", "civokubernetescluster", "dev-fra1.json"))
	if err != nil {
		t.Fatal(err)
	}
	var checkpoint struct {
		Checkpoint struct {
			Latest struct {
				Resources []struct {
					Type    string
					Outputs struct {
						EgressRules []struct{ Label string } `json:"egressRules"`
					}
				}
			}
		}
	}
	if err := json.Unmarshal(data, &checkpoint); err != nil {
		t.Fatalf("read the stack's checkpoint: %v", err)
	}
	var labels []string
	for _, r := range checkpoint.Checkpoint.Latest.Resources {
		if r.Type == "civo:index/firewall:Firewall" {
			for _, rule := range r.Outputs.EgressRules {
				labels = append(labels, rule.Label)
			}
		}
	}
	return labels
}
