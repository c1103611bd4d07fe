package upgrade_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	civocluster "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetescluster/v1"
	docluster "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	dopool "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	"github.com/clusterplane/clusterplane/pkg/change/upgrade"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"google.golang.org/protobuf/proto"
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

const civoCluster = `apiVersion: civo.clusterplane.dev/v1
kind: CivoKubernetesCluster
metadata:
  name: dev
spec:
  clusterName: dev-lon1
  region: lon1
  kubernetesVersion: 1.30.5-k3s1
  defaultNodePool: {size: g4s.kube.small, nodeCount: 1}
`

const doPool = `apiVersion: digitalocean.clusterplane.dev/v1
kind: DigitalOceanKubernetesNodePool
metadata:
  name: workers
spec:
  nodePoolName: workers
  cluster: {value: 5e8f7c1a-0b1d-4c2e-9f3a-1b2c3d4e5f60}
  size: s-2vcpu-4gb
  nodeCount: 1
`

// What `upgrade plan` reads of a manifest: the cluster, its goal and its cloud, with the deploy
// commands' token; a pool is not planned, and a cluster without a token is a mistake to fix.
func TestAClusterManifestIsReadWithItsGoalAndTheCloudToAsk(t *testing.T) {
	tests := []struct {
		name, text string
		input      proto.Message
		env        map[string]string
		planned    bool
		want       upgrade.Cluster
		// noCloud is what the cluster's cloud says at every question, "" when it can be asked.
		noCloud string
	}{
		{name: "a DigitalOcean cluster with a token in the environment", text: doCluster, input: &docluster.DigitalOceanKubernetesClusterStackInput{},
			env: map[string]string{"DIGITALOCEAN_TOKEN": "dop_v1_" + strings.Repeat("a", 64)}, planned: true,
			want: upgrade.Cluster{Kind: "DigitalOceanKubernetesCluster", Name: "dev", Env: "staging", ClusterName: "dev-fra1",
				Region: "fra1", Version: "1.31.1-do.5", Goal: "1.33.1-do.0"}},
		{name: "a Civo cluster without a token", text: civoCluster, input: &civocluster.CivoKubernetesClusterStackInput{},
			env: map[string]string{"CIVO_TOKEN": ""}, planned: true,
			want: upgrade.Cluster{Kind: "CivoKubernetesCluster", Name: "dev", ClusterName: "dev-lon1", Region: "lon1",
				Version: "1.30.5-k3s1"}, noCloud: "no Civo API token (providerConfig.apiToken or CIVO_TOKEN)"},
		{name: "a node pool, which follows its cluster", text: doPool, input: &dopool.DigitalOceanKubernetesNodePoolStackInput{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			file := filepath.Join(t.TempDir(), "m.yaml")
			if err := os.WriteFile(file, []byte(tt.text), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := stackinput.LoadFile(file, tt.input); err != nil {
				t.Fatal(err)
			}
			kind := string(stackinput.Target(tt.input).ProtoReflect().Descriptor().Name())
			c, ok := upgrade.ClusterOf(file, kind, tt.input)
			if ok != tt.planned {
				t.Fatalf("planned %t, want %t", ok, tt.planned)
			}
			if !ok {
				return
			}
			cloud := c.Cloud
			c.Cloud, tt.want.File = nil, file
			if c != tt.want {
				t.Errorf("read %+v\nwant %+v", c, tt.want)
			}
			no, isNo := cloud.(upgrade.NoCloud)
			switch {
			case tt.noCloud == "" && (isNo || cloud == nil):
				t.Errorf("the cloud cannot be asked: %v", cloud)
			case tt.noCloud != "" && (!isNo || no.Err.Error() != tt.noCloud):
				t.Errorf("the cloud %#v, want one that says %q", cloud, tt.noCloud)
			}
		})
	}
}

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
	plans := []upgrade.ClusterPlan{
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
	plans := []upgrade.ClusterPlan{{File: file, Kind: "DigitalOceanKubernetesCluster", Name: "dev", Target: "1.32.2-do.0",
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
