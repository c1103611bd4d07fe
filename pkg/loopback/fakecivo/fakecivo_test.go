package fakecivo_test

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/civo/civogo"

	"github.com/clusterplane/clusterplane/pkg/loopback/fakecivo"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
)

const token = "fakecivo-test-token"

// client is a civogo v0.3.89 client of f in region, as the provider makes one.
func client(t *testing.T, f *fakecivo.Civo, region string) *civogo.Client {
	t.Helper()
	c, err := civogo.NewClientWithURL(token, f.URL(), region)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// firewall creates a firewall in c's region's default network and returns its id.
func firewall(t *testing.T, c *civogo.Client, name string) string {
	t.Helper()
	res, err := c.NewFirewall(&civogo.FirewallConfig{Name: name, Region: c.Region})
	if err != nil {
		t.Fatalf("NewFirewall(%s): %v", name, err)
	}
	return res.ID
}

// clusterConfig is what the provider sends for a one-pool cluster with firewall fw.
func clusterConfig(name, fw string) *civogo.KubernetesClusterConfig {
	return &civogo.KubernetesClusterConfig{
		Name: name, KubernetesVersion: "1.30.5-k3s1", Tags: "team:platform env:prod", CNIPlugin: "cilium",
		InstanceFirewall: fw, Applications: "cert-manager",
		Pools: []civogo.KubernetesClusterPoolConfig{{ID: "workers", Count: 3, Size: "g4s.kube.medium", Labels: map[string]string{"team": "platform"}}},
	}
}

func createCluster(t *testing.T, c *civogo.Client, name string) *civogo.KubernetesCluster {
	t.Helper()
	cl, err := c.NewKubernetesClusters(clusterConfig(name, firewall(t, c, name+"-fw")))
	if err != nil {
		t.Fatalf("NewKubernetesClusters(%s): %v", name, err)
	}
	return cl
}

func TestTheRegionsAreListedWithoutARegionAndMatchInAnyCase(t *testing.T) {
	f := fakecivo.New(t, token, "")
	// The provider configures itself with whatever region it was given, possibly none.
	regions, err := client(t, f, "").ListRegions()
	if err != nil {
		t.Fatalf("ListRegions: %v", err)
	}
	var codes []string
	for _, r := range regions {
		codes = append(codes, r.Code)
	}
	for _, want := range []string{"lon1", "nyc1", "fra1", "phx1", "mum1"} {
		if !slices.Contains(codes, want) {
			t.Errorf("regions %v lack %s", codes, want)
		}
	}
	def, err := client(t, f, "").GetDefaultRegion()
	if err != nil || def.Code != "lon1" || !def.Features.Kubernetes {
		t.Errorf("default region %+v, %v; want lon1 with Kubernetes", def, err)
	}
	for _, name := range []string{"LON1", "lon1", "Fra1"} {
		if _, err := client(t, f, name).ListNetworks(); err != nil {
			t.Errorf("region %s is refused: %v", name, err)
		}
	}
	if _, err := client(t, f, "ams3").ListNetworks(); !errors.Is(err, civogo.RegionUnavailableError) {
		t.Errorf("a region Civo does not offer gave %v, want RegionUnavailable", err)
	}
}

func TestEveryRegionHasItsOwnDefaultNetwork(t *testing.T) {
	f := fakecivo.New(t, token, "")
	seen := map[string]string{}
	for _, region := range []string{"lon1", "fra1", "nyc1", "phx1", "mum1"} {
		t.Run(region, func(t *testing.T) {
			c := client(t, f, region)
			n, err := c.GetDefaultNetwork()
			if err != nil {
				t.Fatalf("GetDefaultNetwork: %v", err)
			}
			if !n.Default || n.ID == "" || n.ID != f.DefaultNetworkID(region) {
				t.Fatalf("default network %+v, want default with id %s", n, f.DefaultNetworkID(region))
			}
			if other, dup := seen[n.ID]; dup {
				t.Fatalf("%s shares its default network with %s", region, other)
			}
			seen[n.ID] = region
			if got, err := c.GetNetwork(n.ID); err != nil || got.ID != n.ID {
				t.Fatalf("GetNetwork(%s) = %+v, %v", n.ID, got, err)
			}
			if found, err := c.FindNetwork("Default"); err != nil || found.ID != n.ID {
				t.Fatalf("FindNetwork(Default) = %+v, %v", found, err)
			}
		})
	}
	if _, err := client(t, f, "fra1").GetNetwork(f.DefaultNetworkID("lon1")); !errors.Is(err, civogo.DatabaseNetworkNotFoundError) {
		t.Errorf("lon1's network read from fra1 gave %v, want DatabaseNetworkNotFound", err)
	}
}

func TestNetworksCanBeCreatedRenamedAndDeletedButNotTheDefault(t *testing.T) {
	f := fakecivo.New(t, token, "")
	c := client(t, f, "lon1")
	res, err := c.NewNetwork("private")
	if err != nil || res.Result != "success" {
		t.Fatalf("NewNetwork: %+v, %v", res, err)
	}
	if _, err := c.NewNetwork("private"); !errors.Is(err, civogo.DatabaseNetworkDuplicateNameError) {
		t.Errorf("a second network labelled private gave %v", err)
	}
	if _, err := c.RenameNetwork("backend", res.ID); err != nil {
		t.Fatalf("RenameNetwork: %v", err)
	}
	if n, err := c.FindNetwork("backend"); err != nil || n.ID != res.ID {
		t.Errorf("FindNetwork(backend) = %+v, %v", n, err)
	}
	if _, err := c.DeleteNetwork(f.DefaultNetworkID("lon1")); !errors.Is(err, civogo.NetworkDeleteDefaultError) {
		t.Errorf("deleting the default network gave %v", err)
	}
	if _, err := c.DeleteNetwork(res.ID); err != nil {
		t.Fatalf("DeleteNetwork: %v", err)
	}
	if _, err := c.GetNetwork(res.ID); !errors.Is(err, civogo.DatabaseNetworkNotFoundError) {
		t.Errorf("a deleted network read gave %v", err)
	}
}

// createAndFindFirewall creates cfg in a fresh lon1 and finds it by name and id, as the provider does.
func createAndFindFirewall(t *testing.T, cfg civogo.FirewallConfig, wantRules int) civogo.Firewall {
	t.Helper()
	f := fakecivo.New(t, token, "")
	c := client(t, f, "lon1")
	cfg.Region = c.Region
	res, err := c.NewFirewall(&cfg)
	if err != nil || res.Result != "success" || res.ID == "" {
		t.Fatalf("NewFirewall: %+v, %v", res, err)
	}
	// The provider finds the firewall it made by name, then reads it by id.
	byName, err := c.FindFirewall(cfg.Name)
	if err != nil || byName.ID != res.ID {
		t.Fatalf("FindFirewall(%s) = %+v, %v", cfg.Name, byName, err)
	}
	fw, err := c.FindFirewall(res.ID)
	if err != nil || len(fw.Rules) != wantRules || fw.RulesCount != wantRules {
		t.Fatalf("FindFirewall(id) = %+v, %v; want %d rules", fw, err, wantRules)
	}
	if fw.NetworkID != f.DefaultNetworkID("lon1") {
		t.Errorf("firewall in network %s, want the default one", fw.NetworkID)
	}
	return *fw
}

func TestFirewalls(t *testing.T) {
	no := false
	tests := []struct {
		name      string
		cfg       civogo.FirewallConfig
		wantRules int
		check     func(*testing.T, civogo.Firewall)
	}{
		{"a firewall created without create_rules gets Civo's default rules",
			civogo.FirewallConfig{Name: "defaults"}, 6, nil},
		{"create_rules false gives only the rules asked for, ports spelled out",
			civogo.FirewallConfig{Name: "web", CreateRules: &no, Rules: []civogo.FirewallRule{
				{Protocol: "TCP", Ports: "80-443", Direction: "ingress", Action: "allow", Cidr: []string{"10.0.0.0/8"}, Label: "web"},
			}}, 1,
			func(t *testing.T, fw civogo.Firewall) {
				r := fw.Rules[0]
				if r.Protocol != "tcp" || r.StartPort != "80" || r.EndPort != "443" || r.Ports != "80-443" || r.ID == "" || r.FirewallID != fw.ID {
					t.Errorf("rule %+v", r)
				}
			}},
		{"rules asked for come after the default ones",
			civogo.FirewallConfig{Name: "both", Rules: []civogo.FirewallRule{{Protocol: "tcp", Ports: "6443", Direction: "ingress", Action: "allow"}}}, 7,
			func(t *testing.T, fw civogo.Firewall) {
				if r := fw.Rules[6]; r.Ports != "6443" || !slices.Equal(r.Cidr, []string{"0.0.0.0/0"}) {
					t.Errorf("last rule %+v", r)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fw := createAndFindFirewall(t, tt.cfg, tt.wantRules)
			if tt.check != nil {
				tt.check(t, fw)
			}
		})
	}

	t.Run("rules can be added, listed and deleted one by one", func(t *testing.T) {
		f := fakecivo.New(t, token, "")
		c := client(t, f, "lon1")
		id := firewall(t, c, "rules")
		rule, err := c.NewFirewallRule(&civogo.FirewallRuleConfig{FirewallID: id, Protocol: "udp", StartPort: "53", Direction: "egress", Action: "allow", Label: "dns"})
		if err != nil || rule.ID == "" || rule.Ports != "53" || rule.EndPort != "53" {
			t.Fatalf("NewFirewallRule: %+v, %v", rule, err)
		}
		rules, err := c.ListFirewallRules(id)
		if err != nil || len(rules) != 7 {
			t.Fatalf("ListFirewallRules: %d rules, %v; want 7", len(rules), err)
		}
		if _, err := c.DeleteFirewallRule(id, rule.ID); err != nil {
			t.Fatalf("DeleteFirewallRule: %v", err)
		}
		if rules, _ := c.ListFirewallRules(id); len(rules) != 6 || slices.ContainsFunc(rules, func(r civogo.FirewallRule) bool { return r.ID == rule.ID }) {
			t.Fatalf("after the delete the rules are %+v", rules)
		}
		if _, err := c.DeleteFirewallRule(id, rule.ID); !errors.Is(err, civogo.DatabaseFirewallRulesFindError) {
			t.Errorf("deleting the rule again gave %v", err)
		}
		if _, err := c.NewFirewallRule(&civogo.FirewallRuleConfig{FirewallID: id, Protocol: "sctp", Ports: "1", Direction: "ingress"}); !errors.Is(err, civogo.DatabaseFirewallRulesInvalidParams) {
			t.Errorf("an sctp rule gave %v", err)
		}
	})

	t.Run("a rename shows under the new name and a taken name is refused", func(t *testing.T) {
		f := fakecivo.New(t, token, "")
		c := client(t, f, "lon1")
		id := firewall(t, c, "old")
		firewall(t, c, "taken")
		if _, err := c.RenameFirewall(id, &civogo.FirewallConfig{Name: "new"}); err != nil {
			t.Fatalf("RenameFirewall: %v", err)
		}
		if fw, err := c.FindFirewall("new"); err != nil || fw.ID != id {
			t.Fatalf("FindFirewall(new) = %+v, %v", fw, err)
		}
		if _, err := c.RenameFirewall(id, &civogo.FirewallConfig{Name: "taken"}); !errors.Is(err, civogo.DatabaseFirewallDuplicateNameError) {
			t.Errorf("renaming onto a taken name gave %v", err)
		}
		if fw, _ := f.Networking().Firewall(id); fw.Name != "new" {
			t.Errorf("a refused rename still renamed the firewall to %s", fw.Name)
		}
	})

	t.Run("a firewall a cluster uses cannot be deleted until the cluster is gone", func(t *testing.T) {
		f := fakecivo.New(t, token, "")
		c := client(t, f, "lon1")
		cl := createCluster(t, c, "uses-fw")
		_, err := c.DeleteFirewall(cl.FirewallID)
		if err == nil || !strings.Contains(err.Error(), "409") || !strings.Contains(err.Error(), "database_firewall_inuse_by_cluster") {
			t.Fatalf("deleting a firewall in use gave %v, want a 409 database_firewall_inuse_by_cluster", err)
		}
		if fw, ok := f.Networking().Firewall(cl.FirewallID); !ok || fw.ClusterCount != 1 {
			t.Fatalf("the firewall in use is %+v (exists %v), want cluster_count 1", fw, ok)
		}
		if _, err := c.DeleteKubernetesCluster(cl.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := c.DeleteFirewall(cl.FirewallID); err != nil {
			t.Fatalf("deleting the firewall after its cluster: %v", err)
		}
		if _, err := c.FindFirewall(cl.FirewallID); !errors.Is(err, civogo.ZeroMatchesError) {
			t.Errorf("the deleted firewall is still found: %v", err)
		}
	})
}

func TestANewClusterIsBuildingThenActiveWithItsPoolAndInstances(t *testing.T) {
	f := fakecivo.New(t, token, "")
	f.BuildPolls = 2
	c := client(t, f, "lon1")
	fw := firewall(t, c, "k8s")
	cfg := clusterConfig("prod", fw)
	created, err := c.NewKubernetesClusters(cfg)
	if err != nil {
		t.Fatalf("NewKubernetesClusters: %v", err)
	}
	if created.ID == "" || created.Status != "BUILDING" {
		t.Fatalf("the create answered id %q status %q", created.ID, created.Status)
	}
	if body := f.LastBody(t, "POST"); body["instance_firewall"] != fw || body["region"] != "lon1" || body["tags"] != "team:platform env:prod" {
		t.Fatalf("the create body was %v", body)
	}
	for poll := 1; poll <= 2; poll++ {
		cl, err := c.GetKubernetesCluster(created.ID)
		if err != nil {
			t.Fatal(err)
		}
		if cl.Status != "BUILDING" || cl.Ready || cl.Pools[0].Instances[0].Status != "BUILDING" {
			t.Fatalf("read %d: status %s ready %v node %s; want BUILDING, not ready, building nodes", poll, cl.Status, cl.Ready, cl.Pools[0].Instances[0].Status)
		}
	}
	cl, err := c.GetKubernetesCluster(created.ID)
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		what string
		ok   bool
	}{
		{"status ACTIVE and ready", cl.Status == "ACTIVE" && cl.Ready},
		{"name", cl.Name == "prod"},
		{"version and kubernetes_version", cl.Version == "1.30.5-k3s1" && cl.KubernetesVersion == "1.30.5-k3s1"},
		{"an upgrade to the newest stable k3s", cl.UpgradeAvailableTo == "1.31.1-k3s1"},
		{"cluster_type k3s and cni cilium", cl.ClusterType == "k3s" && cl.CNIPlugin == "cilium"},
		{"tags as a list", slices.Equal(cl.Tags, []string{"team:platform", "env:prod"})},
		{"the firewall asked for", cl.FirewallID == fw},
		{"the default network", cl.NetworkID == f.DefaultNetworkID("lon1")},
		{"addresses", cl.MasterIP != "" && cl.APIEndPoint == "https://"+cl.MasterIP+":6443" && cl.DNSEntry == cl.ID+".k8s.civo.com"},
		{"a kubeconfig for the endpoint", strings.Contains(cl.KubeConfig, "server: "+cl.APIEndPoint)},
		{"created_at and built_at", !cl.CreatedAt.IsZero() && !cl.BuiltAt.IsZero()},
		{"one pool of three ACTIVE nodes", len(cl.Pools) == 1 && cl.Pools[0].ID == "workers" && cl.Pools[0].Count == 3 &&
			len(cl.Pools[0].InstanceNames) == 3 && len(cl.Pools[0].Instances) == 3 &&
			!slices.ContainsFunc(cl.Pools[0].Instances, func(i civogo.KubernetesInstance) bool { return i.Status != "ACTIVE" })},
		{"the pool's labels with Civo's", cl.Pools[0].Labels["team"] == "platform" && cl.Pools[0].Labels["kubernetes.civo.com/node-pool"] == "workers"},
		{"required_pools as asked", len(cl.RequiredPools) == 1 && cl.RequiredPools[0].Count == 3 && cl.RequiredPools[0].Size == "g4s.kube.medium"},
		{"the legacy fields from the first pool", cl.NumTargetNode == 3 && cl.TargetNodeSize == "g4s.kube.medium"},
		{"the cluster's instances", len(cl.Instances) == 3},
		{"the default applications and the one asked for", installed(cl, "metrics-server") && installed(cl, "traefik2-nodeport") && installed(cl, "cert-manager")},
	}
	for _, ch := range checks {
		if !ch.ok {
			t.Errorf("the ACTIVE cluster lacks %s: %+v", ch.what, cl)
		}
	}

	// One store: the pool routes see the cluster's pool, and the lists find the cluster.
	if p, err := c.GetKubernetesClusterPool(cl.ID, "workers"); err != nil || p.Count != 3 {
		t.Errorf("GetKubernetesClusterPool = %+v, %v", p, err)
	}
	if found, err := c.FindKubernetesCluster("prod"); err != nil || found.ID != cl.ID {
		t.Errorf("FindKubernetesCluster(prod) = %+v, %v", found, err)
	}
	if list, err := c.ListKubernetesClusters(); err != nil || list.Page != 1 || list.Pages != 1 || len(list.Items) != 1 {
		t.Errorf("ListKubernetesClusters = %+v, %v", list, err)
	}
	if list, _ := client(t, f, "fra1").ListKubernetesClusters(); len(list.Items) != 0 {
		t.Errorf("fra1 lists lon1's cluster: %+v", list.Items)
	}
	if got, ok := f.ClusterNamed("prod"); !ok || got.ID != cl.ID || got.Status != "ACTIVE" {
		t.Errorf("ClusterNamed(prod) = %+v, %v", got, ok)
	}
}

func installed(c *civogo.KubernetesCluster, name string) bool {
	return slices.ContainsFunc(c.InstalledApplications, func(a civogo.KubernetesInstalledApplication) bool { return a.Name == name && a.Installed })
}

func TestClusterListsComeInPagesAsCivogoReadsThem(t *testing.T) {
	f := fakecivo.New(t, token, "")
	for range 21 {
		f.SeedCluster(civogo.KubernetesCluster{})
	}
	list, err := client(t, f, "lon1").ListKubernetesClusters()
	if err != nil || list.PerPage != 20 || list.Pages != 2 || len(list.Items) != 20 {
		t.Fatalf("ListKubernetesClusters = page %d/%d, %d items, %v; want the first 20 of 21", list.Page, list.Pages, len(list.Items), err)
	}
	if n := len(f.Clusters()); n != 21 {
		t.Errorf("Clusters() has %d, want 21", n)
	}
}

func TestWhatCivoWouldRefuseIsRefusedWithItsCodes(t *testing.T) {
	no := false
	tests := []struct {
		name   string
		region string
		change func(f *fakecivo.Civo, c *civogo.Client, cfg *civogo.KubernetesClusterConfig)
		want   error
	}{
		{"an unknown node size", "lon1", func(_ *fakecivo.Civo, _ *civogo.Client, cfg *civogo.KubernetesClusterConfig) {
			cfg.Pools[0].Size = "g4s.kube.huge"
		}, civogo.DatabaseSizeNotFoundError},
		{"a VM size for a node pool", "lon1", func(_ *fakecivo.Civo, _ *civogo.Client, cfg *civogo.KubernetesClusterConfig) {
			cfg.Pools[0].Size = "g3.medium"
		}, civogo.DatabaseSizeNotFoundError},
		{"an unknown Kubernetes version", "lon1", func(_ *fakecivo.Civo, _ *civogo.Client, cfg *civogo.KubernetesClusterConfig) {
			cfg.KubernetesVersion = "1.99.0-k3s1"
		}, civogo.DatabaseKubernetesClusterInvalidVersionError},
		{"a deprecated Kubernetes version", "lon1", func(_ *fakecivo.Civo, _ *civogo.Client, cfg *civogo.KubernetesClusterConfig) {
			cfg.KubernetesVersion = "1.27.1-k3s1"
		}, civogo.DatabaseKubernetesClusterInvalidVersionError},
		{"a talos version for a k3s cluster", "lon1", func(_ *fakecivo.Civo, _ *civogo.Client, cfg *civogo.KubernetesClusterConfig) {
			cfg.KubernetesVersion = "talos-v1.5.0"
		}, civogo.DatabaseKubernetesClusterInvalidVersionError},
		{"a region Civo does not offer", "xyz1", func(*fakecivo.Civo, *civogo.Client, *civogo.KubernetesClusterConfig) {},
			civogo.RegionUnavailableError},
		{"an unknown network", "lon1", func(_ *fakecivo.Civo, _ *civogo.Client, cfg *civogo.KubernetesClusterConfig) {
			cfg.NetworkID = "00000000-0000-4000-8000-000000000000"
		}, civogo.DatabaseNetworkNotFoundError},
		{"an unknown firewall", "lon1", func(_ *fakecivo.Civo, _ *civogo.Client, cfg *civogo.KubernetesClusterConfig) {
			cfg.InstanceFirewall = "00000000-0000-4000-8000-000000000000"
		}, civogo.DatabaseFirewallNotFoundError},
		{"a firewall of another network", "lon1", func(f *fakecivo.Civo, c *civogo.Client, cfg *civogo.KubernetesClusterConfig) {
			n, _ := c.NewNetwork("other")
			fw, _ := c.NewFirewall(&civogo.FirewallConfig{Name: "other-fw", Region: c.Region, NetworkID: n.ID, CreateRules: &no})
			cfg.InstanceFirewall = fw.ID
		}, civogo.DatabaseFirewallMismatchError},
		{"a firewall of another region", "fra1", func(f *fakecivo.Civo, _ *civogo.Client, cfg *civogo.KubernetesClusterConfig) {
			cfg.InstanceFirewall = firewall(t, client(t, f, "lon1"), "lon1-fw")
		}, civogo.DatabaseFirewallNotFoundError},
		{"an application not in the marketplace", "lon1", func(_ *fakecivo.Civo, _ *civogo.Client, cfg *civogo.KubernetesClusterConfig) {
			cfg.Applications = "cert-manager,nope"
		}, civogo.DatabaseKubernetesApplicationNotFoundError},
		{"an application plan that does not exist", "lon1", func(_ *fakecivo.Civo, _ *civogo.Client, cfg *civogo.KubernetesClusterConfig) {
			cfg.Applications = "MariaDB:1TB"
		}, civogo.DatabaseKubernetesApplicationInvalidPlanError},
		{"cilium on talos", "lon1", func(_ *fakecivo.Civo, _ *civogo.Client, cfg *civogo.KubernetesClusterConfig) {
			cfg.ClusterType, cfg.KubernetesVersion = "talos", "talos-v1.5.0"
		}, civogo.DatabaseKubernetesClusterInvalidError},
		{"a name with a space", "lon1", func(_ *fakecivo.Civo, _ *civogo.Client, cfg *civogo.KubernetesClusterConfig) {
			cfg.Name = "my cluster"
		}, civogo.KubernetesClusterInvalidNameError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := fakecivo.New(t, token, "")
			c := client(t, f, tt.region)
			cfg := clusterConfig("refused", "")
			if tt.region == "lon1" || tt.region == "fra1" {
				cfg.InstanceFirewall = firewall(t, c, "fw")
			}
			tt.change(f, c, cfg)
			_, err := c.NewKubernetesClusters(cfg)
			if !errors.Is(err, tt.want) {
				t.Fatalf("create gave %v, want %v", err, tt.want)
			}
			if n := len(f.Clusters()); n != 0 {
				t.Fatalf("a refused create left %d clusters", n)
			}
			if st := f.Requests("POST"); st[len(st)-1].Status < 400 || st[len(st)-1].Status >= 500 {
				t.Fatalf("the refusal's status was %d, want a 4xx", st[len(st)-1].Status)
			}
		})
	}

	t.Run("a second cluster with a taken name is a 409", func(t *testing.T) {
		f := fakecivo.New(t, token, "")
		c := client(t, f, "lon1")
		createCluster(t, c, "twin")
		_, err := c.NewKubernetesClusters(clusterConfig("twin", firewall(t, c, "fw2")))
		if err == nil || !strings.Contains(err.Error(), "409") || !strings.Contains(err.Error(), "database_duplicate_cluster_name_not_allowed") {
			t.Fatalf("a duplicate name gave %v", err)
		}
	})

	t.Run("a pool in a cluster Civo does not know is not found unless any cluster is accepted", func(t *testing.T) {
		f := fakecivo.New(t, token, "")
		c := client(t, f, "lon1")
		pool := &civogo.KubernetesClusterPoolConfig{ID: "extra", Count: 1, Size: "g4s.kube.small"}
		if _, err := c.CreateKubernetesClusterPool("no-such-cluster", pool); !errors.Is(err, civogo.DatabaseKubernetesClusterNotFoundError) {
			t.Fatalf("a pool in an unknown cluster gave %v", err)
		}
		f.AnyCluster = true
		if _, err := c.CreateKubernetesClusterPool("no-such-cluster", pool); err != nil {
			t.Fatalf("with AnyCluster: %v", err)
		}
	})

	t.Run("a pool id taken in the cluster is a 409", func(t *testing.T) {
		f := fakecivo.New(t, token, "")
		c := client(t, f, "lon1")
		cl := createCluster(t, c, "pools")
		_, err := c.CreateKubernetesClusterPool(cl.ID, &civogo.KubernetesClusterPoolConfig{ID: "workers", Count: 1, Size: "g4s.kube.small"})
		if err == nil || !strings.Contains(err.Error(), "409") {
			t.Fatalf("a duplicate pool id gave %v", err)
		}
	})
}

func TestClusterUpdates(t *testing.T) {
	tests := []struct {
		name    string
		update  civogo.KubernetesClusterConfig
		wantErr error
		check   func(t *testing.T, before, after civogo.KubernetesCluster)
	}{
		{
			name:   "a rename that leaves the tags out keeps the stored tags",
			update: civogo.KubernetesClusterConfig{Name: "renamed"},
			check: func(t *testing.T, before, after civogo.KubernetesCluster) {
				if after.Name != "renamed" || !slices.Equal(after.Tags, before.Tags) {
					t.Errorf("name %s tags %v; want renamed with tags %v", after.Name, after.Tags, before.Tags)
				}
			},
		},
		{
			// civogo drops an empty string: clearing the tags never reaches the cloud.
			name:   "emptied tags are left out by civogo, so the old ones stay",
			update: civogo.KubernetesClusterConfig{Tags: ""},
			check: func(t *testing.T, before, after civogo.KubernetesCluster) {
				if !slices.Equal(after.Tags, before.Tags) {
					t.Errorf("tags %v, want the stored %v", after.Tags, before.Tags)
				}
			},
		},
		{
			name:   "an upgrade is taken and reported UPGRADING for a while",
			update: civogo.KubernetesClusterConfig{KubernetesVersion: "1.31.1-k3s1"},
			check: func(t *testing.T, before, after civogo.KubernetesCluster) {
				if after.Version != "1.31.1-k3s1" || after.Status != "UPGRADING" || after.UpgradeAvailableTo != "" {
					t.Errorf("version %s status %s upgrade_available_to %q", after.Version, after.Status, after.UpgradeAvailableTo)
				}
			},
		},
		{
			name:    "a downgrade is refused with Civo's invalid-version error",
			update:  civogo.KubernetesClusterConfig{KubernetesVersion: "1.29.8-k3s1"},
			wantErr: civogo.DatabaseKubernetesClusterInvalidVersionError,
		},
		{
			name:    "another network is refused, not ignored",
			update:  civogo.KubernetesClusterConfig{NetworkID: "00000000-0000-4000-8000-000000000000"},
			wantErr: civogo.DatabaseKubernetesClusterInvalidError,
		},
		{
			name: "pools in the body replace the pool list",
			update: civogo.KubernetesClusterConfig{Pools: []civogo.KubernetesClusterPoolConfig{
				{ID: "workers", Count: 5, Size: "g4s.kube.medium"},
				{ID: "batch", Count: 2, Size: "g4s.kube.large"},
			}},
			check: func(t *testing.T, before, after civogo.KubernetesCluster) {
				if len(after.Pools) != 2 || after.Pools[0].Count != 5 || after.Pools[1].ID != "batch" || after.Pools[1].Count != 2 {
					t.Errorf("pools %+v", after.Pools)
				}
				if after.Pools[0].Labels["team"] != "platform" {
					t.Errorf("labels left out of a pool were dropped: %v", after.Pools[0].Labels)
				}
			},
		},
		{
			name:   "a pool left out of the list is deleted",
			update: civogo.KubernetesClusterConfig{Pools: []civogo.KubernetesClusterPoolConfig{{ID: "fresh", Count: 1, Size: "g4s.kube.small"}}},
			check: func(t *testing.T, before, after civogo.KubernetesCluster) {
				if len(after.Pools) != 1 || after.Pools[0].ID != "fresh" {
					t.Errorf("pools %+v", after.Pools)
				}
			},
		},
		{
			name:    "a pool's size cannot change",
			update:  civogo.KubernetesClusterConfig{Pools: []civogo.KubernetesClusterPoolConfig{{ID: "workers", Count: 3, Size: "g4s.kube.large"}}},
			wantErr: civogo.DatabaseKubernetesClusterInvalidError,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := fakecivo.New(t, token, "")
			c := client(t, f, "lon1")
			cl := createCluster(t, c, "upd")
			// Built at once, but an upgrade or a scale takes a read to finish.
			f.BuildPolls = 1
			before, _ := f.Cluster(cl.ID)
			if before.Status != "ACTIVE" {
				t.Fatalf("the cluster is %s before the update", before.Status)
			}
			upd := tt.update
			_, err := c.UpdateKubernetesCluster(cl.ID, &upd)
			after, _ := f.Cluster(cl.ID)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("update gave %v, want %v", err, tt.wantErr)
				}
				if after.Version != before.Version || after.NetworkID != before.NetworkID || len(after.Pools) != len(before.Pools) || after.Pools[0].Size != before.Pools[0].Size {
					t.Fatalf("a refused update changed the cluster: %+v", after)
				}
				return
			}
			if err != nil {
				t.Fatalf("update: %v", err)
			}
			tt.check(t, before, after)
		})
	}
}

func TestADeletedClusterIsNotFoundSoTheProvidersWaitEnds(t *testing.T) {
	for _, deletePolls := range []int{0, 2} {
		t.Run(map[int]string{0: "at once", 2: "after two DELETING reads"}[deletePolls], func(t *testing.T) {
			f := fakecivo.New(t, token, "")
			f.DeletePolls = deletePolls
			c := client(t, f, "lon1")
			cl := createCluster(t, c, "doomed")
			if _, err := c.DeleteKubernetesCluster(cl.ID); err != nil {
				t.Fatalf("DeleteKubernetesCluster: %v", err)
			}
			if n := f.Pools(); n != 0 {
				t.Fatalf("the cluster's pools outlived it: %d", n)
			}
			for i := range deletePolls {
				got, err := c.GetKubernetesCluster(cl.ID)
				if err != nil || got.Status != "DELETING" {
					t.Fatalf("read %d after the delete: %+v, %v; want DELETING", i+1, got, err)
				}
			}
			_, err := c.GetKubernetesCluster(cl.ID)
			if !errors.Is(err, civogo.DatabaseKubernetesClusterNotFoundError) {
				t.Fatalf("a deleted cluster read gave %v, want DatabaseKubernetesClusterNotFound", err)
			}
			if last := f.Requests("GET"); last[len(last)-1].Status != http.StatusNotFound {
				t.Fatalf("the read answered %d, want 404", last[len(last)-1].Status)
			}
			if _, ok := f.Cluster(cl.ID); ok {
				t.Fatal("Cluster still reports the deleted cluster")
			}
		})
	}
}

func TestVersionsAndSizesAreListedAndReplaceable(t *testing.T) {
	f := fakecivo.New(t, token, "")
	c := client(t, f, "lon1")
	versions, err := c.ListAvailableKubernetesVersions()
	if err != nil {
		t.Fatal(err)
	}
	has := func(version, clusterType string) bool {
		return slices.ContainsFunc(versions, func(v civogo.KubernetesVersion) bool {
			return v.Version == version && v.ClusterType == clusterType && v.Type == "stable"
		})
	}
	for _, v := range []string{"1.28.7-k3s1", "1.29.8-k3s1", "1.30.5-k3s1", "1.31.1-k3s1"} {
		if !has(v, "k3s") {
			t.Errorf("no stable k3s %s in %+v", v, versions)
		}
	}
	if !has("talos-v1.5.0", "talos") {
		t.Errorf("no stable talos-v1.5.0 in %+v", versions)
	}
	sizes, err := c.ListInstanceSizes()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"g4s.kube.small", "g4s.kube.medium", "g4s.kube.large", "g4s.kube.xlarge", "an.g1.l40s.kube.x1"} {
		if !slices.ContainsFunc(sizes, func(i civogo.InstanceSize) bool { return i.Name == s && i.Type == "kubernetes" }) {
			t.Errorf("no Kubernetes size %s", s)
		}
	}

	f.Catalogue().SetVersions(civogo.KubernetesVersion{Label: "1.32.0-k3s1", Version: "1.32.0-k3s1", Type: "stable", ClusterType: "k3s", Default: true})
	f.Catalogue().SetSizes(civogo.InstanceSize{Type: "kubernetes", Name: "tiny"})
	if v, _ := c.ListAvailableKubernetesVersions(); len(v) != 1 || v[0].Version != "1.32.0-k3s1" {
		t.Errorf("after SetVersions the list is %+v", v)
	}
	old := clusterConfig("old", firewall(t, c, "fw"))
	old.KubernetesVersion = "1.32.0-k3s1"
	if _, err := c.NewKubernetesClusters(old); !errors.Is(err, civogo.DatabaseSizeNotFoundError) {
		t.Errorf("a size no longer offered gave %v", err)
	}
	old.Pools[0].Size, old.KubernetesVersion = "tiny", "1.30.5-k3s1"
	if _, err := c.NewKubernetesClusters(old); !errors.Is(err, civogo.DatabaseKubernetesClusterInvalidVersionError) {
		t.Errorf("a version no longer offered gave %v", err)
	}
	cfg := clusterConfig("new", firewall(t, c, "fw2"))
	cfg.KubernetesVersion, cfg.Pools[0].Size = "", "tiny"
	cl, err := c.NewKubernetesClusters(cfg)
	if err != nil || cl.Version != "1.32.0-k3s1" {
		t.Errorf("a cluster without a version got %+v, %v; want the default 1.32.0-k3s1", cl, err)
	}
}

func TestABadTokenIsAnInvalidAccount(t *testing.T) {
	f := fakecivo.New(t, token, "")
	c, err := civogo.NewClientWithURL("not-the-token", f.URL(), "lon1")
	if err != nil {
		t.Fatal(err)
	}
	// The provider checks for exactly this error to say the token is invalid.
	if _, err := c.ListRegions(); !errors.Is(err, civogo.DatabaseAccountNotFoundError) {
		t.Fatalf("ListRegions with a bad token gave %v, want DatabaseAccountNotFound", err)
	}
	_, err = c.SendGetRequest("/v2/kubernetes/clusters")
	var httpErr civogo.HTTPError
	if !errors.As(err, &httpErr) || httpErr.Code != http.StatusUnauthorized {
		t.Fatalf("the raw answer was %v, want HTTP 401", err)
	}
}

func TestInjectedFaults(t *testing.T) {
	t.Run("a 429 with Retry-After is answered once, then the API answers", func(t *testing.T) {
		f := fakecivo.New(t, token, "")
		f.Inject(fakecloud.Fault{Method: "GET", Path: "/v2/kubernetes/versions", Status: http.StatusTooManyRequests, RetryAfter: 3 * time.Second})
		req, _ := http.NewRequest("GET", f.URL()+"/v2/kubernetes/versions", nil)
		req.Header.Set("Authorization", "bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "3" {
			t.Fatalf("answered %d with Retry-After %q, want 429 with 3", resp.StatusCode, resp.Header.Get("Retry-After"))
		}
		c := client(t, f, "lon1")
		if _, err := c.ListAvailableKubernetesVersions(); err != nil {
			t.Fatalf("the read after the 429: %v", err)
		}
	})

	t.Run("a rate limit answers every request 429 with the time left until it ends", func(t *testing.T) {
		f := fakecivo.New(t, token, "")
		f.Inject(fakecloud.Fault{Status: http.StatusTooManyRequests, For: 2 * time.Second})
		get := func(path string) (int, string) {
			req, _ := http.NewRequest("GET", f.URL()+path, nil)
			req.Header.Set("Authorization", "bearer "+token)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			return resp.StatusCode, resp.Header.Get("Retry-After")
		}
		for _, path := range []string{"/v2/kubernetes/versions", "/v2/regions", "/v2/kubernetes/versions"} {
			if code, after := get(path); code != http.StatusTooManyRequests || after != "2" {
				t.Fatalf("GET %s within the limit: %d with Retry-After %q, want 429 with 2", path, code, after)
			}
		}
		time.Sleep(2 * time.Second)
		if code, _ := get("/v2/kubernetes/versions"); code != http.StatusOK {
			t.Fatalf("GET after the limit ended: %d, want 200", code)
		}
	})

	t.Run("a 404 right after a create reads as Civo's cluster-not-found, once", func(t *testing.T) {
		f := fakecivo.New(t, token, "")
		c := client(t, f, "lon1")
		fw := firewall(t, c, "fw")
		f.Inject(fakecloud.Fault{Method: "GET", Path: "/v2/kubernetes/clusters/", Status: http.StatusNotFound, After: "POST"})
		cl, err := c.NewKubernetesClusters(clusterConfig("flaky", fw))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.GetKubernetesCluster(cl.ID); !errors.Is(err, civogo.DatabaseKubernetesClusterNotFoundError) {
			t.Fatalf("the first read gave %v, want DatabaseKubernetesClusterNotFound", err)
		}
		if got, err := c.GetKubernetesCluster(cl.ID); err != nil || got.ID != cl.ID {
			t.Fatalf("the second read gave %+v, %v", got, err)
		}
	})

	t.Run("Fail still answers the next requests of a method with a status", func(t *testing.T) {
		f := fakecivo.New(t, token, "")
		f.Fail("GET", http.StatusServiceUnavailable, 2)
		c := client(t, f, "lon1")
		for i := range 2 {
			if _, err := c.ListInstanceSizes(); err == nil || !strings.Contains(err.Error(), "503") {
				t.Fatalf("read %d gave %v, want a 503", i+1, err)
			}
		}
		if _, err := c.ListInstanceSizes(); err != nil {
			t.Fatalf("the third read: %v", err)
		}
	})
}

func TestHoldKeepsANewClusterBuildingUntilReleased(t *testing.T) {
	f := fakecivo.New(t, token, "")
	f.Hold(true)
	c := client(t, f, "lon1")
	cl := createCluster(t, c, "held")
	for i := range 5 {
		got, err := c.GetKubernetesCluster(cl.ID)
		if err != nil || got.Status != "BUILDING" {
			t.Fatalf("read %d while held: %+v, %v; want BUILDING", i+1, got, err)
		}
	}
	f.Hold(false)
	if got, err := c.GetKubernetesCluster(cl.ID); err != nil || got.Status != "ACTIVE" || !got.Ready {
		t.Fatalf("the read after the release: %+v, %v; want ACTIVE", got, err)
	}
}

func TestSeededAndEditedClustersAreWhatClientsRead(t *testing.T) {
	f := fakecivo.New(t, token, "")
	c := client(t, f, "fra1")
	id := f.SeedCluster(civogo.KubernetesCluster{ID: "c0ffee00-seeded", Name: "seeded", NetworkID: f.DefaultNetworkID("fra1")})
	if id != "c0ffee00-seeded" {
		t.Fatalf("SeedCluster returned %s, want the given id", id)
	}
	cl, err := c.GetKubernetesCluster(id)
	if err != nil || cl.Status != "ACTIVE" || len(cl.Pools) != 1 || cl.Pools[0].Count != 3 || cl.FirewallID == "" || cl.Version != "1.30.5-k3s1" {
		t.Fatalf("the seeded cluster reads %+v, %v", cl, err)
	}
	if fw, err := c.FindFirewall(cl.FirewallID); err != nil || fw.ClusterCount != 1 || fw.NetworkID != cl.NetworkID {
		t.Fatalf("the seeded cluster's firewall reads %+v, %v", fw, err)
	}
	// Pools may join a seeded cluster.
	if _, err := c.CreateKubernetesClusterPool(id, &civogo.KubernetesClusterPoolConfig{ID: "extra", Count: 1, Size: "g4s.kube.small"}); err != nil {
		t.Fatalf("a pool joining the seeded cluster: %v", err)
	}

	if !f.EditCluster(id, func(c *civogo.KubernetesCluster) {
		c.KubernetesVersion = "1.31.1-k3s1"
		c.Pools[0].Count = 5
		c.Status = "ERROR"
	}) {
		t.Fatal("EditCluster did not find the cluster")
	}
	cl, err = c.GetKubernetesCluster(id)
	if err != nil || cl.Version != "1.31.1-k3s1" || cl.Pools[0].Count != 5 || len(cl.Pools[0].Instances) != 5 || cl.Status != "ERROR" || len(cl.Pools) != 2 {
		t.Fatalf("after the edit the cluster reads %+v, %v", cl, err)
	}
	// A copy handed out is not the fake's own.
	copied, _ := f.Cluster(id)
	copied.Pools[0].Labels["x"] = "y"
	if again, _ := f.Cluster(id); again.Pools[0].Labels["x"] != "" {
		t.Fatal("Cluster handed out the fake's own labels map")
	}
	if f.EditCluster("nope", func(*civogo.KubernetesCluster) {}) {
		t.Fatal("EditCluster found a cluster that does not exist")
	}
}
