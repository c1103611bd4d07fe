package examples_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/internal/testing/providerschema"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/pulumi/mockrun"
)

// everything are manifests that set the optional fields no example sets, so that every attribute
// a module can send is sent at least once.
var everything = map[string]string{
	"digitaloceankubernetescluster": `apiVersion: digitalocean.clusterplane.dev/v1
kind: DigitalOceanKubernetesCluster
metadata: {name: everything}
spec:
  clusterName: everything
  region: fra1
  kubernetesVersion: 1.31.1-do.5
  routingAgent: true
  nvidiaGpuDevicePlugin: false
  amdGpuDevicePlugin: false
  amdGpuDeviceMetricsExporterPlugin: false
  rdmaSharedDevicePlugin: false
  clusterAutoscaler: {expanders: [priority], scaleDownUnneededTime: 5m, scaleDownUtilizationThreshold: 0.5}
  defaultNodePool:
    size: s-2vcpu-4gb
    autoScale: true
    minNodes: 1
    maxNodes: 3
    taints: [{key: dedicated, effect: NoSchedule}]
`,
}

func TestEveryAttributeAModuleSendsHasTheProvidersFactsInTheEffectsTable(t *testing.T) {
	isolate(t)
	dir, ok := providerschema.Dir()
	if !ok {
		t.Skip("../shared/providers is absent (a user's clone has none): the attributes sent are not read against the pinned schemas")
	}
	schema, err := providerschema.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := exampleFiles(t)
	tmp := t.TempDir()
	for folder, manifest := range everything {
		if err := os.MkdirAll(filepath.Join(tmp, folder), 0o755); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(tmp, folder, "everything.yaml")
		if err := os.WriteFile(path, []byte(manifest), 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, path)
	}
	terraformResources := effects.TerraformResources(registry.Kinds().Tables())
	sent := map[string]map[string]bool{}
	for _, path := range files {
		k := kinds[filepath.Base(filepath.Dir(path))]
		_, body, err := k.load(path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		p, err := mockrun.Run(body, mockrun.Options{Preview: true})
		if err != nil {
			t.Fatalf("plan %s: %v", path, err)
		}
		for _, r := range p.Resources {
			resource, ok := terraformResources[r.Type]
			if !ok {
				continue
			}
			for _, attribute := range schema.SentAttributes(r) {
				if sent[k.name] == nil {
					sent[k.name] = map[string]bool{}
				}
				sent[k.name][resource+"."+attribute] = true
			}
		}
	}
	for kind, attributes := range sent {
		table := registry.Kinds().Table(kind)
		var missing []string
		for attribute := range attributes {
			if _, ok := table.Attributes[attribute]; !ok {
				missing = append(missing, attribute)
			}
		}
		sort.Strings(missing)
		if len(missing) > 0 {
			t.Errorf("%s sends attributes the effects table has no facts for: %s", kind, strings.Join(missing, ", "))
		}
	}
	if len(sent) != len(kinds) {
		t.Errorf("attributes were collected for %d kinds, want every one of the %d", len(sent), len(kinds))
	}
}
