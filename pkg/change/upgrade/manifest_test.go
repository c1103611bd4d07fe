package upgrade_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/change/upgrade"
)

const doCluster = `apiVersion: digitalocean.clusterplane.dev/v1
kind: DigitalOceanKubernetesCluster
metadata:
  name: dev
  env: staging
  annotations:
    clusterplane.dev/upgrade-to: 1.33.1-do.0
spec:
  clusterName: dev-fra1
  region: fra1
  kubernetesVersion: 1.31.1-do.5
  defaultNodePool: {size: s-2vcpu-4gb, nodeCount: 1}
`

// --write sets the next step of the plans that have one and nothing blocking, keeps the file's
// mode, and leaves a blocked cluster's manifest alone.
func TestWriteNextWritesTheNextStepOfEachUnblockedPlan(t *testing.T) {
	dir := t.TempDir()
	ready, blocked := filepath.Join(dir, "ready.yaml"), filepath.Join(dir, "blocked.yaml")
	for _, f := range []string{ready, blocked} {
		if err := os.WriteFile(f, []byte(doCluster), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	clusters := []upgrade.Cluster{
		{File: ready, Kind: "DigitalOceanKubernetesCluster", Name: "dev", Version: "1.31.1-do.5", Goal: "1.33.1-do.0"},
		{File: blocked, Kind: "DigitalOceanKubernetesCluster", Name: "dev", Version: "1.31.1-do.5", Goal: "1.33.1-do.0"},
	}
	step := []upgrade.Step{{From: "1.31.1-do.5", To: "1.32.2-do.0"}, {From: "1.32.2-do.0", To: "1.33.1-do.0"}}
	plans := []upgrade.Assessment{
		{File: ready, Kind: "DigitalOceanKubernetesCluster", Name: "dev", Target: "1.33.1-do.0", Steps: step},
		{File: blocked, Kind: "DigitalOceanKubernetesCluster", Name: "dev", Target: "1.33.1-do.0", Steps: step,
			Blockers: []string{"a removed API in use"}},
	}
	written, notWritten, err := upgrade.WriteNext(clusters, plans)
	if err != nil {
		t.Fatal(err)
	}
	if want := ready + ": dev kubernetesVersion 1.32.2-do.0"; len(written) != 1 || written[0] != want {
		t.Errorf("wrote %q, want only %q", written, want)
	}
	if want := blocked + ": dev not written: the upgrade is blocked: a removed API in use"; len(notWritten) != 1 || notWritten[0] != want {
		t.Errorf("not written %q, want only %q", notWritten, want)
	}
	// Again: the ready file says the next step already, and the second --write says so.
	if written, notWritten, err = upgrade.WriteNext(clusters, plans); err != nil || len(written) != 0 ||
		len(notWritten) != 2 || !strings.Contains(notWritten[0], ready+": dev not written: it says kubernetesVersion 1.32.2-do.0, the next step, already") {
		t.Errorf("a second --write wrote %q and said %q (%v)", written, notWritten, err)
	}
	got, _ := os.ReadFile(ready)
	if !strings.Contains(string(got), "kubernetesVersion: 1.32.2-do.0") || !strings.Contains(string(got), "upgrade-to: 1.33.1-do.0") {
		t.Errorf("the ready manifest reads:\n%s", got)
	}
	if info, _ := os.Stat(ready); info.Mode().Perm() != 0o600 {
		t.Errorf("the file's mode became %v", info.Mode().Perm())
	}
	if got, _ := os.ReadFile(blocked); string(got) != doCluster {
		t.Errorf("the blocked manifest was written:\n%s", got)
	}
}

// A first step that removes no API (a patch release) is written even when the removed APIs of a
// later step could not be checked, and the line says which steps are still blocked and why.
func TestWriteNextTakesAClearFirstStepAndSaysTheLaterStepsAreBlocked(t *testing.T) {
	file := filepath.Join(t.TempDir(), "cluster.yaml")
	if err := os.WriteFile(file, []byte(doCluster), 0o600); err != nil {
		t.Fatal(err)
	}
	clusters := []upgrade.Cluster{{File: file, Kind: "DigitalOceanKubernetesCluster", Name: "dev", Version: "1.31.1-do.5", Goal: "1.32.2-do.0"}}
	blocker := "the APIs 1.32 removes could not be checked: the kubeconfig could not be read"
	plans := []upgrade.Assessment{{File: file, Kind: "DigitalOceanKubernetesCluster", Name: "dev", Target: "1.32.2-do.0",
		Steps:    []upgrade.Step{{From: "1.31.1-do.5", To: "1.31.9-do.2"}, {From: "1.31.9-do.2", To: "1.32.2-do.0"}},
		Blockers: []string{blocker}, NextClear: true}}
	written, notWritten, err := upgrade.WriteNext(clusters, plans)
	if err != nil {
		t.Fatal(err)
	}
	want := file + ": dev kubernetesVersion 1.31.9-do.2; the steps after it are blocked: " + blocker
	if len(written) != 1 || written[0] != want || len(notWritten) != 0 {
		t.Errorf("wrote %q and not %q, want only %q", written, notWritten, want)
	}
	if got, _ := os.ReadFile(file); !strings.Contains(string(got), "kubernetesVersion: 1.31.9-do.2") {
		t.Errorf("the manifest reads:\n%s", got)
	}
}
