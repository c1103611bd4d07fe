package upgradeplan_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	civocluster "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetescluster/v1"
	docluster "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	dopool "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	"github.com/clusterplane/clusterplane/pkg/change/upgrade"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/upgradeplan"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/manifest/apikinds"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"google.golang.org/protobuf/proto"
)

// The manifests an upgrade plan reads (pkg/change/upgrade's ClusterOf), each with the cloud to
// ask through its driver.
const upgradeDOCluster = `apiVersion: digitalocean.clusterplane.dev/v1
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

const upgradeCivoCluster = `apiVersion: civo.clusterplane.dev/v1
kind: CivoKubernetesCluster
metadata:
  name: dev
spec:
  clusterName: dev-lon1
  region: lon1
  kubernetesVersion: 1.30.5-k3s1
  defaultNodePool: {size: g4s.kube.small, nodeCount: 1}
`

const upgradeDOPool = `apiVersion: digitalocean.clusterplane.dev/v1
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
		{name: "a DigitalOcean cluster with a token in the environment", text: upgradeDOCluster, input: &docluster.DigitalOceanKubernetesClusterStackInput{},
			env: map[string]string{"DIGITALOCEAN_TOKEN": "dop_v1_" + strings.Repeat("a", 64)}, planned: true,
			want: upgrade.Cluster{Kind: "DigitalOceanKubernetesCluster", Name: "dev", Env: "staging", ClusterName: "dev-fra1",
				Region: "fra1", Version: "1.31.1-do.5", Goal: "1.33.1-do.0", Window: &upgrade.Window{Day: "any", Start: "00:00"}}},
		{name: "a DigitalOcean cluster with its maintenance window", text: upgradeDOCluster + "  maintenanceWindow: {day: sunday, startTime: \"03:00\"}\n",
			input: &docluster.DigitalOceanKubernetesClusterStackInput{},
			env:   map[string]string{"DIGITALOCEAN_TOKEN": "dop_v1_" + strings.Repeat("a", 64)}, planned: true,
			want: upgrade.Cluster{Kind: "DigitalOceanKubernetesCluster", Name: "dev", Env: "staging", ClusterName: "dev-fra1",
				Region: "fra1", Version: "1.31.1-do.5", Goal: "1.33.1-do.0", Window: &upgrade.Window{Day: "sunday", Start: "03:00"}}},
		{name: "a Civo cluster without a token", text: upgradeCivoCluster, input: &civocluster.CivoKubernetesClusterStackInput{},
			env: map[string]string{"CIVO_TOKEN": ""}, planned: true,
			want: upgrade.Cluster{Kind: "CivoKubernetesCluster", Name: "dev", ClusterName: "dev-lon1", Region: "lon1",
				Version: "1.30.5-k3s1"}, noCloud: "no Civo API token (providerConfig.apiToken or CIVO_TOKEN)"},
		{name: "a node pool, which follows its cluster", text: upgradeDOPool, input: &dopool.DigitalOceanKubernetesNodePoolStackInput{}},
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
			kind := string(apikinds.Target(tt.input).ProtoReflect().Descriptor().Name())
			_, clusters, err := upgradeplan.UpgradeClusters([]deploytarget.Target{{Kind: kinds.Kind{Name: kind}, File: file, Input: tt.input}}, []string{file})
			if ok := err == nil && len(clusters) == 1; ok != tt.planned {
				t.Fatalf("planned %t (%v), want %t", ok, err, tt.planned)
			}
			if !tt.planned {
				return
			}
			c := clusters[0]
			cloud := c.Cloud
			c.Cloud, tt.want.File = nil, file
			if !reflect.DeepEqual(c, tt.want) {
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
