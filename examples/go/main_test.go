package main

import (
	"slices"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/pulumi/mockrun"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
)

const (
	doCluster   = "digitalocean:index/kubernetesCluster:KubernetesCluster"
	doPool      = "digitalocean:index/kubernetesNodePool:KubernetesNodePool"
	civoCluster = "civo:index/kubernetesCluster:KubernetesCluster"
	civoPool    = "clusterplane:civo:NodePool"
	civoFw      = "civo:index/firewall:Firewall"
)

func runProgram(t *testing.T) *mockrun.Result {
	t.Helper()
	p, err := mockrun.Run(program, mockrun.Options{
		State: func(typ, name string, _ resource.PropertyMap) resource.PropertyMap {
			switch typ {
			case doCluster:
				return resource.PropertyMap{"kubeConfigs": resource.NewArrayProperty([]resource.PropertyValue{
					resource.NewObjectProperty(resource.PropertyMap{"rawConfig": resource.NewProperty("do-kubeconfig-" + name)}),
				})}
			case civoCluster:
				return resource.PropertyMap{"kubeconfig": resource.NewProperty("civo-kubeconfig-" + name)}
			}
			return nil
		},
	})
	if err != nil {
		t.Fatalf("program failed under mocks: %v", err)
	}
	return p
}

func TestTheCompositionRegistersEachCloudResourceUnderItsComponent(t *testing.T) {
	p := runProgram(t)
	for _, tc := range []struct{ typ, name, parent string }{
		{"clusterplane:digitalocean:KubernetesCluster", "platform", "pulumi:pulumi:Stack::clusterplane-plan"},
		{doCluster, "platform", "clusterplane:digitalocean:KubernetesCluster::platform"},
		{"pulumi:providers:digitalocean", "digitalocean", "pulumi:pulumi:Stack::clusterplane-plan"},
		{"clusterplane:digitalocean:KubernetesNodePool", "platform-workers", "pulumi:pulumi:Stack::clusterplane-plan"},
		{doPool, "platform-workers", "clusterplane:digitalocean:KubernetesNodePool::platform-workers"},
		{doPool, "platform-gpu", "clusterplane:digitalocean:KubernetesNodePool::platform-gpu"},
		{"clusterplane:civo:KubernetesCluster", "edge", "pulumi:pulumi:Stack::clusterplane-plan"},
		{civoFw, "edge", "clusterplane:civo:KubernetesCluster::edge"},
		{civoCluster, "edge", "clusterplane:civo:KubernetesCluster::edge"},
		{"pulumi:providers:clusterplane", "edge-batch", "clusterplane:civo:KubernetesNodePool::edge-batch"},
		{civoPool, "edge-batch", "clusterplane:civo:KubernetesNodePool::edge-batch"},
	} {
		r, ok := p.Find(tc.typ, tc.name)
		if !ok {
			t.Errorf("%s %s was not registered", tc.typ, tc.name)
			continue
		}
		if r.Parent != tc.parent {
			t.Errorf("%s %s: parent %q, want %q", tc.typ, tc.name, r.Parent, tc.parent)
		}
		// Only the Civo pool and its provider have aliases: to the civo provider's types, which
		// managed the pool before the plugin did.
		if len(r.Aliases) != 0 && tc.name != "edge-batch" {
			t.Errorf("%s %s: composed resources need no aliases, got %v", tc.typ, tc.name, r.Aliases)
		}
	}
	// 5 components, 1 shared DigitalOcean provider, 1 Civo one and 1 clusterplane one, 2 clusters, 1 firewall, 3 pools.
	if n := len(p.Resources); n != 14 {
		t.Errorf("registered %d resources, want 14", n)
		for _, r := range p.Resources {
			t.Logf("  %s %s", r.Type, r.Name)
		}
	}
}

func TestTheDigitalOceanComponentsShareTheProviderTheyWereGiven(t *testing.T) {
	p := runProgram(t)
	if n := len(p.OfType("pulumi:providers:digitalocean")); n != 1 {
		t.Errorf("%d DigitalOcean providers registered, want only the program's own", n)
	}
	for _, r := range append(p.OfType(doCluster), p.OfType(doPool)...) {
		if r.Provider != "pulumi:providers:digitalocean::digitalocean" {
			t.Errorf("%s %s: provider %q, want the program's provider", r.Type, r.Name, r.Provider)
		}
	}
}

func TestEachPoolGetsItsClusterIDAsAnOutputAndDependsOnTheCluster(t *testing.T) {
	p := runProgram(t)
	for _, tc := range []struct{ poolType, pool, clusterType, cluster string }{
		{doPool, "platform-workers", doCluster, "platform"},
		{doPool, "platform-gpu", doCluster, "platform"},
		{civoPool, "edge-batch", civoCluster, "edge"},
	} {
		r, ok := p.Find(tc.poolType, tc.pool)
		if !ok {
			t.Fatalf("%s was not registered", tc.pool)
		}
		if got, want := r.Inputs["clusterId"], tc.cluster+"-id"; got != want {
			t.Errorf("%s: clusterId %v, want the cluster's id %q", tc.pool, got, want)
		}
		if want := tc.clusterType + "::" + tc.cluster; !slices.Contains(r.DependsOn, want) {
			t.Errorf("%s: dependsOn %v, want it to contain %s", tc.pool, r.DependsOn, want)
		}
	}
	if refs := p.OfType(mockrun.StackReferenceType); len(refs) != 0 {
		t.Errorf("ids wired by outputs need no stack reference, got %d", len(refs))
	}
}

func TestKubeconfigsAreSecretOutputsAndIDsAreNot(t *testing.T) {
	p := runProgram(t)
	for name, wantSecret := range map[string]bool{
		"platform_kubeconfig": true, "edge_kubeconfig_b64": true,
		"platform_cluster_id": false, "edge_cluster_id": false,
	} {
		o, ok := p.Outputs[name]
		if !ok {
			t.Errorf("output %s missing", name)
			continue
		}
		if o.Secret != wantSecret {
			t.Errorf("output %s: secret %v, want %v", name, o.Secret, wantSecret)
		}
	}
	if got := p.Outputs["platform_kubeconfig"].Value; got != "do-kubeconfig-platform" {
		t.Errorf("platform_kubeconfig = %v, want the cluster's raw kubeconfig", got)
	}
}

func TestTheTaintedPoolCarriesItsTaintAndTheAutoscalingPoolIgnoresNodeCount(t *testing.T) {
	p := runProgram(t)
	gpu, _ := p.Find(doPool, "platform-gpu")
	taints, _ := gpu.Inputs["taints"].([]any)
	if len(taints) != 1 || taints[0].(map[string]any)["key"] != "nvidia.com/gpu" || taints[0].(map[string]any)["effect"] != "NoSchedule" {
		t.Errorf("gpu pool taints = %v, want nvidia.com/gpu NoSchedule", gpu.Inputs["taints"])
	}
	workers, _ := p.Find(doPool, "platform-workers")
	if !slices.Equal(workers.IgnoreChanges, []string{"nodeCount"}) {
		t.Errorf("workers ignoreChanges = %v, want [nodeCount]", workers.IgnoreChanges)
	}
	if workers.Inputs["minNodes"] != float64(2) || workers.Inputs["maxNodes"] != float64(10) {
		t.Errorf("workers bounds = %v..%v, want 2..10", workers.Inputs["minNodes"], workers.Inputs["maxNodes"])
	}
}
