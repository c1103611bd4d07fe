package discover

import (
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
)

// doBase is a DigitalOcean cluster as doctl leaves it: surge upgrades on, the default window,
// DigitalOcean's own tags on the cluster and its pool.
func doBase() doCluster {
	return doCluster{
		ID: "c-1", Name: "web", Region: "fra1", Version: "1.31.1-do.5", SurgeUpgrade: true,
		ClusterSubnet: "10.244.0.0/16", ServiceSubnet: "10.245.0.0/16", VPCUUID: "vpc-1",
		Tags: []string{"k8s", "k8s:c-1"},
		NodePools: []doPool{{ID: "p-1", Name: "web-default-pool", Size: "s-1vcpu-2gb", Count: 3,
			Tags: []string{"k8s", "k8s:c-1", "k8s:worker"}}},
	}
}

func doYAML(t *testing.T, cl doCluster) []string {
	t.Helper()
	ms, err := doManifests(cl, cl.Name)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range ms {
		data, err := render(m, Options{Kinds: registry.Kinds(), Command: "clusterplane discover digitalocean"})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(data))
	}
	return out
}

func TestEachDigitalOceanFieldIsWrittenAsTheCloudHasIt(t *testing.T) {
	tests := []struct {
		name string
		edit func(*doCluster)
		// file is which manifest to look in: 0 the cluster, 1 the first extra pool.
		file          int
		want, without []string
	}{
		{name: "names, region, version, subnets and the VPC are the cloud's", edit: func(*doCluster) {},
			want: []string{"clusterName: web", "region: fra1", `kubernetesVersion: "1.31.1-do.5"`, `clusterSubnet: "10.244.0.0/16"`,
				`serviceSubnet: "10.245.0.0/16"`, "value: vpc-1", "name: web\n", "clusterplane.dev/cloud-id: c-1", "nodePoolName: web-default-pool",
				"size: s-1vcpu-2gb", "nodeCount: 3"}},
		{name: "DigitalOcean's own tags are left out of cluster and pool", edit: func(*doCluster) {},
			without: []string{"k8s", "tags:"}},
		{name: "surge upgrades on, the doctl default, are not written", edit: func(*doCluster) {},
			without: []string{"disableSurgeUpgrade", "autoUpgrade", "highlyAvailable", "maintenanceWindow"}},
		{name: "the kubeconfig expiry, which DigitalOcean does not return, is said not read", edit: func(*doCluster) {},
			want: []string{"# spec.kubeconfigExpireSeconds is not read"}, without: []string{"kubeconfigExpireSeconds"}},
		{name: "surge upgrades off become disableSurgeUpgrade", edit: func(c *doCluster) { c.SurgeUpgrade = false },
			want: []string{"disableSurgeUpgrade: true"}},
		{name: "auto-upgrade and HA are written when on", edit: func(c *doCluster) { c.AutoUpgrade, c.HA = true, true },
			want: []string{"autoUpgrade: true", "highlyAvailable: true"}},
		{name: "the registry integration is written when on", edit: func(c *doCluster) { c.RegistryEnabled = true },
			want: []string{"registryIntegration: true"}},
		{name: "a maintenance window other than any 00:00 is written", edit: func(c *doCluster) {
			c.MaintenancePolicy = &struct {
				StartTime string `json:"start_time"`
				Day       string `json:"day"`
			}{StartTime: "3:00", Day: "sunday"}
		}, want: []string{"maintenanceWindow:\n    day: sunday\n    startTime: \"03:00\""}},
		{name: "the control-plane firewall's addresses are written when it is on", edit: func(c *doCluster) {
			on := true
			c.ControlPlaneFirewall = &struct {
				Enabled          *bool    `json:"enabled"`
				AllowedAddresses []string `json:"allowed_addresses"`
			}{Enabled: &on, AllowedAddresses: []string{"203.0.113.7"}}
		}, want: []string{"controlPlaneFirewallAllowedAddresses:\n    - \"203.0.113.7\""}},
		{name: "a GPU plugin turned on is written", edit: func(c *doCluster) {
			on := true
			c.NvidiaGpuDevicePlugin = &doSwitch{Enabled: &on}
		}, want: []string{"nvidiaGpuDevicePlugin: true"}},
		{name: "user tags stay, the provider's terraform: tags go", edit: func(c *doCluster) {
			c.Tags = append(c.Tags, "team-web")
			c.NodePools[0].Tags = append(c.NodePools[0].Tags, "pool-web", "terraform:default-node-pool")
		}, want: []string{"tags:\n    - team-web", "tags:\n      - pool-web"}, without: []string{"terraform:"}},
		{name: "a cluster clusterplane deployed gets its metadata back from its tags", edit: func(c *doCluster) {
			c.Tags = append(c.Tags, "resource-kind:DigitalOceanKubernetesCluster", "resource-name:web-prod", "environment:prod", "organization:acme", "team-web")
			c.NodePools[0].Tags = append(c.NodePools[0].Tags, "resource-kind:DigitalOceanKubernetesCluster", "resource-name:web-prod", "environment:prod", "organization:acme")
		}, want: []string{"name: web-prod", "org: acme", "env: prod", "tags:\n    - team-web"}, without: []string{"resource-"}},
		{name: "an extra pool refers to its cluster and keeps labels, taints and autoscaling", file: 1, edit: func(c *doCluster) {
			c.NodePools = append(c.NodePools, doPool{ID: "p-2", Name: "batch", Size: "s-2vcpu-4gb", Count: 2, AutoScale: true, MinNodes: 1, MaxNodes: 5,
				Labels: map[string]string{"workload": "batch"}, Taints: []taint{{Key: "batch", Value: "true", Effect: "NoSchedule"}},
				Tags: []string{"k8s", "k8s:c-1", "k8s:worker", "pool-batch"}})
		}, want: []string{"kind: DigitalOceanKubernetesNodePool", "name: web-batch", "clusterplane.dev/cloud-id: p-2", "nodePoolName: batch",
			"cluster:\n    valueFrom:\n      kind: DigitalOceanKubernetesCluster\n      name: web", "autoScale: true", "minNodes: 1", "maxNodes: 5",
			"labels:\n    workload: batch", "- key: batch\n      value: \"true\"\n      effect: NoSchedule", "tags:\n    - pool-batch"},
			without: []string{"k8s"}},
		{name: "the pool tagged as the default is the default, whatever its place", file: 1, edit: func(c *doCluster) {
			c.NodePools = append([]doPool{{ID: "p-0", Name: "first", Size: "s-1vcpu-2gb", Count: 1}}, c.NodePools...)
			c.NodePools[1].Tags = append(c.NodePools[1].Tags, doDefaultPoolTag)
		}, want: []string{"nodePoolName: first"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl := doBase()
			tt.edit(&cl)
			files := doYAML(t, cl)
			if tt.file >= len(files) {
				t.Fatalf("%d files, want file %d", len(files), tt.file)
			}
			body := files[tt.file]
			// The header names the cloud's id and is not part of the manifest.
			_, manifest, _ := strings.Cut(body, "apiVersion:")
			for _, w := range tt.want {
				// A want that starts "# " is a line of the header.
				if !strings.Contains(manifest, w) && !(strings.HasPrefix(w, "# ") && strings.Contains(body, w)) {
					t.Errorf("want %q in\n%s", w, body)
				}
			}
			for _, w := range tt.without {
				if strings.Contains(manifest, w) {
					t.Errorf("want no %q in\n%s", w, body)
				}
			}
		})
	}
}

func civoBase() civoCluster {
	return civoCluster{
		ID: "c-9", Name: "api", Version: "1.30.5-k3s1", KubernetesVersion: "1.30.5-k3s1", ClusterType: "k3s", CNIPlugin: "cilium",
		NetworkID: "net-1", FirewallID: "fw-1",
		Pools: []civoPool{{ID: "pool-a", Size: "g4s.kube.medium", Count: 3, Labels: map[string]string{"kubernetes.civo.com/node-pool": "pool-a"}}},
	}
}

func TestEachCivoFieldIsWrittenAsTheCloudHasIt(t *testing.T) {
	tests := []struct {
		name          string
		edit          func(*civoCluster)
		file          int
		want, without []string
	}{
		{name: "version, type, CNI, network and firewall are the cloud's", edit: func(*civoCluster) {},
			want: []string{"clusterName: api", "region: fra1", `kubernetesVersion: "1.30.5-k3s1"`, "clusterType: k3s", "cni: cilium",
				"network:\n    value: net-1", "firewall:\n    value: fw-1", "defaultNodePool:\n    size: g4s.kube.medium\n    nodeCount: 3",
				"clusterplane.dev/cloud-id: c-9"},
			without: []string{"apiServerAllowedCidrs", "labels"}},
		{name: "installed applications are said, not written", edit: func(c *civoCluster) {
			c.InstalledApplications = []struct {
				Name string `json:"name"`
			}{{Name: "metrics-server"}}
		}, want: []string{"# Installed applications: metrics-server."}, without: []string{"applications:"}},
		{name: "tags are the cloud's", edit: func(c *civoCluster) { c.Tags = []string{"team-api", "tier-prod"} },
			want: []string{"tags:\n    - team-api\n    - tier-prod"}},
		{name: "a public-IP default pool is written", edit: func(c *civoCluster) { c.Pools[0].PublicIPNodePool = true },
			want: []string{"publicIpNodePool: true"}},
		{name: "an extra pool refers to its cluster, without Civo's own labels", file: 1, edit: func(c *civoCluster) {
			c.Pools = append(c.Pools, civoPool{ID: "workers", Size: "g4s.kube.large", Count: 2,
				Labels: map[string]string{"kubernetes.civo.com/node-pool": "workers", "workload": "apps"},
				Taints: []taint{{Key: "apps", Value: "only", Effect: "NoExecute"}}})
		}, want: []string{"kind: CivoKubernetesNodePool", "name: api-workers", "nodePoolName: workers", "region: fra1",
			"cluster:\n    valueFrom:\n      kind: CivoKubernetesCluster\n      name: api", "labels:\n    workload: apps", "effect: NoExecute",
			"clusterplane.dev/cloud-id: c-9:workers"},
			without: []string{"kubernetes.civo.com"}},
		{name: "a pool's autoscaling, which Civo does not keep, is said not written", file: 1, edit: func(c *civoCluster) {
			c.Pools = append(c.Pools, civoPool{ID: "workers", Size: "g4s.kube.large", Count: 2})
		}, want: []string{"# spec.autoScale, minNodes and maxNodes are not written"}, without: []string{"autoScale"}},
		{name: "a managed cluster's API CIDRs, which Civo does not return, are said not written", edit: func(c *civoCluster) {
			c.Tags = []string{"resource-kind:CivoKubernetesCluster", "resource-name:api"}
		}, want: []string{"# spec.apiServerAllowedCidrs is not written"}, without: []string{"apiServerAllowedCidrs"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl := civoBase()
			tt.edit(&cl)
			ms := civoManifests(cl, "fra1", cl.Name)
			if tt.file >= len(ms) {
				t.Fatalf("%d files, want file %d", len(ms), tt.file)
			}
			data, err := render(ms[tt.file], Options{Kinds: registry.Kinds()})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(string(data), w) {
					t.Errorf("want %q in\n%s", w, data)
				}
			}
			_, manifest, _ := strings.Cut(string(data), "apiVersion:")
			for _, w := range tt.without {
				if strings.Contains(manifest, w) {
					t.Errorf("want no %q in\n%s", w, data)
				}
			}
		})
	}
}

func TestStringsThatAReaderCouldTakeForAnotherTypeAreQuoted(t *testing.T) {
	cl := doBase()
	cl.NodePools[0].Labels = map[string]string{"a": "yes", "b": "on", "c": "010", "d": "plain", "e": ""}
	out := doYAML(t, cl)[0]
	for _, w := range []string{`a: "yes"`, `b: "on"`, `c: "010"`, "d: plain", `e: ""`} {
		if !strings.Contains(out, w) {
			t.Errorf("want %q in\n%s", w, out)
		}
	}
}
