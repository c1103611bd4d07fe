package module_test

import (
	"encoding/base64"
	"github.com/clusterplane/clusterplane/apis/clusterplane/stackoutputs"
	"slices"
	"strings"
	"testing"

	clusterv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetescluster/v1"
	civov1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/iac/pulumi/civokubernetescluster/module"
	"github.com/clusterplane/clusterplane/internal/testing/moduletest"
	"github.com/clusterplane/clusterplane/pkg/manifest/validation"
	"github.com/clusterplane/clusterplane/pkg/pulumi/mockrun"
	"github.com/pulumi/pulumi-civo/sdk/v2/go/civo"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// Type tokens of what the module registers.
const (
	clusterType   = "civo:index/kubernetesCluster:KubernetesCluster"
	firewallType  = "civo:index/firewall:Firewall"
	networkType   = "civo:index/network:Network"
	providerType  = "pulumi:providers:civo"
	componentType = "clusterplane:civo:KubernetesCluster"
)

// The manifest name every child of the stack program is named after, and references to it.
const (
	name          = "prod-fra1"
	clusterName   = "acme-prod"
	networkID     = "8f4a2c1e-6b3d-4e5f-9a07-1c2d3e4f5a6b"
	firewallRef   = firewallType + "::" + name
	allIPv4       = "0.0.0.0/0"
	minimalK3s    = "1.30.5-k3s1"
	minimalSize   = "g4s.kube.medium"
	fakeConfigYML = "apiVersion: v1\nkind: Config\nclusters:\n- name: acme-prod\n  cluster:\n    server: https://212.2.240.10:6443\n"
)

// minimalSpec is the smallest valid spec; its cluster_name differs from the manifest name so
// that tests tell the two apart.
func minimalSpec() *clusterv1.CivoKubernetesClusterSpec {
	return &clusterv1.CivoKubernetesClusterSpec{
		ClusterName:       clusterName,
		Region:            "fra1",
		KubernetesVersion: minimalK3s,
		Network:           sharedv1.StringValue(networkID),
		DefaultNodePool:   &clusterv1.CivoKubernetesClusterDefaultNodePool{Size: minimalSize, NodeCount: 3},
	}
}

// stack runs the stack program on the minimal manifest; Isolate clears the variables the provider
// falls back to.
var stack = moduletest.Stack[*clusterv1.CivoKubernetesClusterStackInput, *clusterv1.CivoKubernetesClusterSpec]{
	APIVersion: "civo.clusterplane.dev/v1", Kind: "CivoKubernetesCluster", Name: name, Spec: minimalSpec,
	Resources: module.Resources, Env: []string{"CIVO_TOKEN", "CIVO_API_URL"},
}

func anyStrings(values ...string) []any {
	out := []any{}
	for _, v := range values {
		out = append(out, v)
	}
	return out
}

func firewallRule(label, protocol, ports string, cidrs ...string) map[string]any {
	r := map[string]any{"label": label, "protocol": protocol, "action": "allow", "cidrs": anyStrings(cidrs...)}
	if ports != "" {
		r["portRange"] = ports
	}
	return r
}

func TestResourcesWithAMinimalSpecRegistersExactlyAProviderAComponentAFirewallAndACluster(t *testing.T) {
	p := stack.Run(t, mockrun.Options{})
	stack.AssertTree(t, p, componentType, providerType, firewallType, clusterType)
}

func TestResourcesSetsTheProviderRegionToTheSpecRegion(t *testing.T) {
	stack.EachRegion(t, func(t *testing.T, region string, p *mockrun.Result) {
		moduletest.AssertEqual(t, "provider inputs", moduletest.MustFind(t, p, providerType, name).Inputs,
			map[string]any{"region": region})
		for _, typ := range []string{firewallType, clusterType} {
			if got := moduletest.MustFind(t, p, typ, name).Inputs["region"]; got != region {
				t.Errorf("%s region = %v, want %s", typ, got, region)
			}
		}
	}, "lon1", "fra1", "nyc1", "phx1", "mum1")
}

func TestResourcesCreatesAFirewallOnTheNetworkThatLimitsTheKubernetesAPIToTheAllowedCIDRs(t *testing.T) {
	tests := []struct {
		name     string
		cidrs    []string
		wantAPIs []string
	}{
		{name: "no allowed CIDRs open the API to everyone", wantAPIs: []string{allIPv4}},
		{name: "allowed CIDRs are the only sources of the API", cidrs: []string{"203.0.113.0/24", "198.51.100.7/32"},
			wantAPIs: []string{"203.0.113.0/24", "198.51.100.7/32"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stack.Isolate(t)
			in := stack.Input(func(in *clusterv1.CivoKubernetesClusterStackInput) {
				in.Target.Spec.ApiServerAllowedCidrs = tt.cidrs
			})
			p := stack.RunInput(t, in, mockrun.Options{})

			fw := moduletest.MustFind(t, p, firewallType, name)
			moduletest.AssertEqual(t, "firewall inputs", fw.Inputs, map[string]any{
				"name":               clusterName,
				"networkId":          networkID,
				"region":             "fra1",
				"createDefaultRules": false,
				"ingressRules": []any{
					firewallRule("kubernetes-api", "tcp", "6443", tt.wantAPIs...),
					firewallRule("http", "tcp", "80", allIPv4),
					firewallRule("https", "tcp", "443", allIPv4),
				},
				"egressRules": []any{
					firewallRule("all-tcp", "tcp", "1-65535", allIPv4),
					firewallRule("all-udp", "udp", "1-65535", allIPv4),
					firewallRule("all-icmp", "icmp", "", allIPv4),
				},
			})

			// The cluster's firewall is the created one: its id, and a dependency on it.
			cl := moduletest.MustFind(t, p, clusterType, name)
			if got := cl.Inputs["firewallId"]; got != name+"-id" {
				t.Errorf("cluster firewallId = %v, want the firewall's id %q", got, name+"-id")
			}
			deps := moduletest.PropertyDependencies(cl, "firewallId")
			if len(deps) != 1 || mockrun.ShortURN(deps[0]) != firewallRef {
				t.Errorf("cluster firewallId depends on %v, want only the firewall %s", deps, firewallRef)
			}
			// In a preview the firewall's id is not known yet, so neither is the cluster's firewallId.
			preview := stack.RunInput(t, in, mockrun.Options{Preview: true})
			moduletest.AssertUnknown(t, moduletest.MustFind(t, preview, clusterType, name), "firewallId")
		})
	}
}

func TestResourcesWithAFirewallCreatesNoneAndUsesTheGivenID(t *testing.T) {
	tests := []struct {
		name     string
		firewall *sharedv1.StringValueOrRef
		stacks   map[string]map[string]any
		want     string
	}{
		{name: "a literal id", firewall: sharedv1.StringValue("5d7e9f10-2a3b-4c5d-8e6f-7a8b9c0d1e2f"), want: "5d7e9f10-2a3b-4c5d-8e6f-7a8b9c0d1e2f"},
		{
			name:     "a reference reads the firewall_id output by default",
			firewall: sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "CivoKubernetesCluster", Name: "edge"}),
			stacks:   map[string]map[string]any{"organization/civokubernetescluster/edge": {"firewall_id": "fw-from-stack"}},
			want:     "fw-from-stack",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := stack.Run(t, mockrun.Options{Stacks: tt.stacks}, func(in *clusterv1.CivoKubernetesClusterStackInput) {
				in.Target.Spec.Firewall = tt.firewall
			})
			if fws := p.OfType(firewallType); len(fws) != 0 {
				t.Errorf("registered %d firewalls, want none: %v", len(fws), moduletest.Registered(p))
			}
			cl := moduletest.MustFind(t, p, clusterType, name)
			if got := cl.Inputs["firewallId"]; got != tt.want {
				t.Errorf("cluster firewallId = %v, want %q", got, tt.want)
			}
			if got := p.Outputs[stackoutputs.CivoKubernetesClusterFirewallID].Value; got != tt.want {
				t.Errorf("output %s = %v, want %q", stackoutputs.CivoKubernetesClusterFirewallID, got, tt.want)
			}
		})
	}
}

func TestResourcesSendsEveryClusterArgumentExactly(t *testing.T) {
	stack.Isolate(t)
	in := stack.Input(func(in *clusterv1.CivoKubernetesClusterStackInput) {
		in.Target.Metadata = &sharedv1.CloudResourceMetadata{
			Name: name, Id: "ck-0001", Org: "acme", Env: "prod",
			Labels: map[string]string{"team": "platform/core"},
		}
		spec := in.Target.Spec
		spec.Region = "lon1"
		spec.KubernetesVersion = "1.29.8-k3s1"
		spec.Cni = clusterv1.CivoKubernetesClusterCni_cilium
		spec.ApiServerAllowedCidrs = []string{"203.0.113.0/24"}
		spec.Applications = []string{"Traefik-v2-nodeport", "metrics-server"}
		spec.Tags = []string{"billing-42", "tier:gold"}
		spec.DefaultNodePool = &clusterv1.CivoKubernetesClusterDefaultNodePool{
			Size:             "g4s.kube.large",
			NodeCount:        5,
			PublicIpNodePool: true,
		}
	})
	p := stack.RunInput(t, in, mockrun.Options{})
	moduletest.AssertEqual(t, "cluster inputs", moduletest.MustFind(t, p, clusterType, name).Inputs, map[string]any{
		"name":              clusterName,
		"region":            "lon1",
		"kubernetesVersion": "1.29.8-k3s1",
		"clusterType":       "k3s",
		"cni":               "cilium",
		"networkId":         networkID,
		"firewallId":        name + "-id",
		"tags": "environment:prod organization:acme resource-id:ck-0001 resource-kind:CivoKubernetesCluster " +
			"resource-name:prod-fra1 team:platform-core billing-42 tier:gold",
		"applications":    "Traefik-v2-nodeport,metrics-server",
		"writeKubeconfig": true,
		"pools": map[string]any{
			"size":             "g4s.kube.large",
			"nodeCount":        5.0,
			"publicIpNodePool": true,
		},
	})
}

func TestResourcesAlwaysAsksForTheKubeconfig(t *testing.T) {
	p := stack.Run(t, mockrun.Options{})
	if got := moduletest.MustFind(t, p, clusterType, name).Inputs["writeKubeconfig"]; got != true {
		t.Errorf("cluster writeKubeconfig = %v, want true", got)
	}
}

func TestResourcesSendsTagsAsOneSpaceSeparatedString(t *testing.T) {
	tests := []struct {
		name     string
		metadata *sharedv1.CloudResourceMetadata
		tags     []string
		want     string
	}{
		{
			name:     "only the name derives kind and name tags",
			metadata: &sharedv1.CloudResourceMetadata{Name: name},
			want:     "resource-kind:CivoKubernetesCluster resource-name:prod-fra1",
		},
		{
			name:     "id, org and env are derived tags and user tags follow them",
			metadata: &sharedv1.CloudResourceMetadata{Name: name, Id: "ck-1", Org: "acme", Env: "staging"},
			tags:     []string{"team-platform"},
			want: "environment:staging organization:acme resource-id:ck-1 resource-kind:CivoKubernetesCluster " +
				"resource-name:prod-fra1 team-platform",
		},
		{
			name: "a user label wins over the derived one with its key",
			metadata: &sharedv1.CloudResourceMetadata{Name: name, Env: "prod",
				Labels: map[string]string{"environment": "production"}},
			want: "environment:production resource-kind:CivoKubernetesCluster resource-name:prod-fra1",
		},
		{
			name:     "a user tag equal to a derived tag is sent once",
			metadata: &sharedv1.CloudResourceMetadata{Name: name},
			tags:     []string{"resource-name:prod-fra1", "cost-center:42"},
			want:     "resource-kind:CivoKubernetesCluster resource-name:prod-fra1 cost-center:42",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := stack.Run(t, mockrun.Options{}, func(in *clusterv1.CivoKubernetesClusterStackInput) {
				in.Target.Metadata = tt.metadata
				in.Target.Spec.Tags = tt.tags
			})
			got, ok := moduletest.MustFind(t, p, clusterType, name).Inputs["tags"].(string)
			if !ok {
				t.Fatalf("cluster tags = %#v, want one string", moduletest.MustFind(t, p, clusterType, name).Inputs["tags"])
			}
			if got != tt.want {
				t.Errorf("cluster tags = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestResourcesJoinsApplicationsWithCommas(t *testing.T) {
	tests := []struct {
		name         string
		applications []string
		want         any
	}{
		{name: "no applications send none", want: moduletest.Absent},
		{name: "one application", applications: []string{"metrics-server"}, want: "metrics-server"},
		{name: "several applications in order", applications: []string{"Traefik-v2-nodeport", "metrics-server", "cert-manager"},
			want: "Traefik-v2-nodeport,metrics-server,cert-manager"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := stack.Run(t, mockrun.Options{}, func(in *clusterv1.CivoKubernetesClusterStackInput) {
				in.Target.Spec.Applications = tt.applications
			})
			moduletest.AssertInputs(t, moduletest.MustFind(t, p, clusterType, name).Inputs, map[string]any{"applications": tt.want})
		})
	}
}

func TestResourcesSendsClusterTypeAndCniExplicitly(t *testing.T) {
	tests := []struct {
		name        string
		clusterType clusterv1.CivoKubernetesClusterType
		cni         clusterv1.CivoKubernetesClusterCni
		version     string
		wantType    string
		wantCni     string
	}{
		{name: "unset means k3s with flannel", version: minimalK3s, wantType: "k3s", wantCni: "flannel"},
		{name: "k3s with cilium", clusterType: clusterv1.CivoKubernetesClusterType_k3s,
			cni: clusterv1.CivoKubernetesClusterCni_cilium, version: minimalK3s, wantType: "k3s", wantCni: "cilium"},
		{name: "talos with the default cni", clusterType: clusterv1.CivoKubernetesClusterType_talos,
			version: "talos-v1.5.0", wantType: "talos", wantCni: "flannel"},
		{name: "talos with flannel", clusterType: clusterv1.CivoKubernetesClusterType_talos,
			cni: clusterv1.CivoKubernetesClusterCni_flannel, version: "talos-v1.5.0", wantType: "talos", wantCni: "flannel"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := stack.Run(t, mockrun.Options{}, func(in *clusterv1.CivoKubernetesClusterStackInput) {
				in.Target.Spec.ClusterType = tt.clusterType
				in.Target.Spec.Cni = tt.cni
				in.Target.Spec.KubernetesVersion = tt.version
			})
			cl := moduletest.MustFind(t, p, clusterType, name)
			if got := cl.Inputs["clusterType"]; got != tt.wantType {
				t.Errorf("cluster clusterType = %#v, want %q", got, tt.wantType)
			}
			if got := cl.Inputs["cni"]; got != tt.wantCni {
				t.Errorf("cluster cni = %#v, want %q", got, tt.wantCni)
			}
			if got := cl.Inputs["kubernetesVersion"]; got != tt.version {
				t.Errorf("cluster kubernetesVersion = %#v, want %q", got, tt.version)
			}
		})
	}
}

func TestResourcesCreatesTheClusterWithExactlyOnePool(t *testing.T) {
	tests := []struct {
		name string
		pool *clusterv1.CivoKubernetesClusterDefaultNodePool
		want map[string]any
	}{
		{
			name: "size and count only",
			pool: &clusterv1.CivoKubernetesClusterDefaultNodePool{Size: "g4s.kube.small", NodeCount: 1},
			want: map[string]any{
				"size": "g4s.kube.small", "nodeCount": 1.0,
				"publicIpNodePool": false,
			},
		},
		{
			// Labels and taints are refused by the spec (civo#380), so never sent.
			name: "public IPs",
			pool: &clusterv1.CivoKubernetesClusterDefaultNodePool{Size: "g4s.kube.xlarge", NodeCount: 4, PublicIpNodePool: true},
			want: map[string]any{
				"size": "g4s.kube.xlarge", "nodeCount": 4.0,
				"publicIpNodePool": true,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := stack.Run(t, mockrun.Options{}, func(in *clusterv1.CivoKubernetesClusterStackInput) {
				in.Target.Spec.DefaultNodePool = tt.pool
			})
			// One pool: the `pools` input is a single object, not a list.
			moduletest.AssertEqual(t, "cluster pools", moduletest.MustFind(t, p, clusterType, name).Inputs["pools"], tt.want)
			if pools := p.OfType("civo:index/kubernetesNodePool:KubernetesNodePool"); len(pools) != 0 {
				t.Errorf("registered %d separate node pools, want none", len(pools))
			}
		})
	}
}

// kubeconfigState gives the cluster the values the cloud computes.
func clusterState(typ, _ string, _ resource.PropertyMap) resource.PropertyMap {
	if typ != clusterType {
		return nil
	}
	return resource.NewPropertyMapFromMap(map[string]any{
		"kubeconfig":  fakeConfigYML,
		"apiEndpoint": "https://212.2.240.10:6443",
		"masterIp":    "212.2.240.10",
		"dnsEntry":    "0a1b2c3d.k8s.civo.com",
		"createdAt":   "2024-05-01T10:00:00Z",
	})
}

func TestResourcesExportsTheKubeconfigBase64EncodedAsASecret(t *testing.T) {
	p := stack.Run(t, mockrun.Options{State: clusterState})

	cl := moduletest.MustFind(t, p, clusterType, name)
	if !slices.Contains(cl.AdditionalSecretOutputs, "kubeconfig") {
		t.Errorf("cluster additionalSecretOutputs = %v, want kubeconfig among them", cl.AdditionalSecretOutputs)
	}
	out, ok := p.Outputs[stackoutputs.CivoKubernetesClusterKubeconfigB64]
	if !ok {
		t.Fatalf("no output %s", stackoutputs.CivoKubernetesClusterKubeconfigB64)
	}
	if !out.Secret {
		t.Errorf("output %s is not secret", stackoutputs.CivoKubernetesClusterKubeconfigB64)
	}
	want := base64.StdEncoding.EncodeToString([]byte(fakeConfigYML))
	if out.Value != want {
		t.Errorf("output %s = %v, want base64 of the kubeconfig %q", stackoutputs.CivoKubernetesClusterKubeconfigB64, out.Value, want)
	}
	rendered := moduletest.Render(t, p)
	for _, leak := range []string{want, "212.2.240.10:6443\\n", "kind: Config"} {
		if strings.Contains(rendered, leak) {
			t.Errorf("rendered plan shows the kubeconfig (%q):\n%s", leak, rendered)
		}
	}
}

// Promise: tokens-never-shown
func TestResourcesExportsTheEightOutputsOfTheDesign(t *testing.T) {
	p := stack.Run(t, mockrun.Options{State: clusterState})
	moduletest.AssertEqual(t, "output names", moduletest.OutputNames(p), []string{
		"api_server_endpoint", "cluster_id", "created_at", "dns_entry", "firewall_id", "kubeconfig_b64",
		"master_ip", "network_id",
	})
	want := map[string]any{
		"cluster_id":          name + "-id",
		"api_server_endpoint": "https://212.2.240.10:6443",
		"master_ip":           "212.2.240.10",
		"dns_entry":           "0a1b2c3d.k8s.civo.com",
		"firewall_id":         name + "-id",
		"network_id":          networkID,
		"created_at":          "2024-05-01T10:00:00Z",
	}
	for n, v := range want {
		out := p.Outputs[n]
		if out.Value != v || !out.Known {
			t.Errorf("output %s = %#v (known %t), want %#v", n, out.Value, out.Known, v)
		}
		if out.Secret {
			t.Errorf("output %s is secret, want plain", n)
		}
	}
}

func TestResourcesReadsTheNetworkFromAnotherStack(t *testing.T) {
	stack.EachRef(t, moduletest.RefField{Field: "network", RefName: name + "-network", Component: componentType}, []moduletest.RefCase{
		{
			Name:    "the network_id output of the conventional stack by default",
			Ref:     sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "CivoKubernetesCluster", Name: "core", Env: "fra1"}),
			Stack:   "organization/civokubernetescluster/core-fra1",
			Outputs: map[string]any{"network_id": "net-from-stack", "other_id": "wrong"},
			Want:    "net-from-stack",
		},
		{
			Name: "the output a field path names",
			// Another output of the referenced cluster stack: its firewall's network, say.
			Ref: sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "CivoKubernetesCluster", Name: "core",
				FieldPath: "status.outputs.firewall_id"}),
			Stack:   "organization/civokubernetescluster/core",
			Outputs: map[string]any{"network_id": "wrong", "firewall_id": "net-private"},
			Want:    "net-private",
		},
		{
			Name:    "the stack that config maps the name to",
			Ref:     sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "CivoKubernetesCluster", Name: "core"}),
			Config:  map[string]string{"clusterplane:stackReferences": `{"core": "acme/networks/shared"}`},
			Stack:   "acme/networks/shared",
			Outputs: map[string]any{"network_id": "net-shared"},
			Want:    "net-shared",
		},
	}, func(t *testing.T, tt moduletest.RefCase, p *mockrun.Result) {
		for _, typ := range []string{firewallType, clusterType} {
			if got := moduletest.MustFind(t, p, typ, name).Inputs["networkId"]; got != tt.Want {
				t.Errorf("%s networkId = %v, want %q", typ, got, tt.Want)
			}
		}
		if got := p.Outputs[stackoutputs.CivoKubernetesClusterNetworkID].Value; got != tt.Want {
			t.Errorf("output %s = %v, want %q", stackoutputs.CivoKubernetesClusterNetworkID, got, tt.Want)
		}
	})
}

// Promise: pko-token-never-in-the-stacks-configuration
func TestResourcesGivesTheProviderTheTokenOnlyAsASecret(t *testing.T) {
	token := moduletest.TokenSecret{EnvVar: "CIVO_TOKEN", Type: providerType, Key: "token", Opts: mockrun.Options{State: clusterState}}
	moduletest.CheckTokens(t, stack, token, []moduletest.TokenCase[*civov1.CivoProviderConfig]{
		{Name: "the provider config's token", Config: &civov1.CivoProviderConfig{ApiToken: moduletest.ConfigToken}, Want: moduletest.ConfigToken},
		{Name: "CIVO_TOKEN when the config has none", Config: &civov1.CivoProviderConfig{}, Env: moduletest.EnvToken, Want: moduletest.EnvToken},
		{Name: "CIVO_TOKEN when there is no config", Env: moduletest.EnvToken, Want: moduletest.EnvToken},
		{Name: "the config's token over CIVO_TOKEN", Config: &civov1.CivoProviderConfig{ApiToken: moduletest.ConfigToken},
			Env: moduletest.EnvToken, Want: moduletest.ConfigToken},
	})
	t.Run("no token anywhere leaves it to the provider", func(t *testing.T) {
		p := stack.Run(t, mockrun.Options{})
		if got, ok := moduletest.MustFind(t, p, providerType, name).Inputs["token"]; ok {
			t.Errorf("provider token = %#v, want none sent", got)
		}
	})
}

func TestResourcesSetsTheProviderAPIEndpointFromConfigOrCIVO_API_URL(t *testing.T) {
	tests := []struct {
		name   string
		config *civov1.CivoProviderConfig
		env    string
		want   any
	}{
		{name: "CIVO_API_URL", env: "https://api.civo.example/", want: "https://api.civo.example/"},
		{name: "the config's api_url", config: &civov1.CivoProviderConfig{ApiToken: "config-token", ApiUrl: "https://config.civo.example/"},
			want: "https://config.civo.example/"},
		{name: "the config's api_url over CIVO_API_URL", config: &civov1.CivoProviderConfig{ApiToken: "config-token", ApiUrl: "https://config.civo.example/"},
			env: "https://env.civo.example/", want: "https://config.civo.example/"},
		{name: "neither leaves the provider's default", want: moduletest.Absent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stack.Isolate(t)
			t.Setenv("CIVO_API_URL", tt.env)
			p := stack.RunInput(t, stack.Input(func(in *clusterv1.CivoKubernetesClusterStackInput) {
				in.ProviderConfig = tt.config
			}), mockrun.Options{})
			moduletest.AssertInputs(t, moduletest.MustFind(t, p, providerType, name).Inputs, map[string]any{"apiEndpoint": tt.want})
		})
	}
}

func TestResourcesRejectsAnInvalidStackInputNamingTheFieldAndRegistersNothing(t *testing.T) {
	const token = "civo-token-never-in-errors-5d1e"
	type input = *clusterv1.CivoKubernetesClusterStackInput
	moduletest.InputRejects[input]{Resources: module.Resources, Token: token, Setup: stack.Isolate,
		Valid: func() input {
			return stack.Input(func(in input) { in.ProviderConfig = &civov1.CivoProviderConfig{ApiToken: token} })
		},
	}.Check(t, []moduletest.InvalidInput[input]{
		{Name: "a pool without nodes", Field: "target.spec.default_node_pool.node_count",
			Edit: func(in input) { in.Target.Spec.DefaultNodePool.NodeCount = 0 }},
		{Name: "a k3s version with a plus", Field: "target.spec.kubernetes_version",
			Edit: func(in input) { in.Target.Spec.KubernetesVersion = "1.30.5+k3s1" }},
		{Name: "no region", Field: "target.spec.region",
			Edit: func(in input) { in.Target.Spec.Region = "" }},
		{Name: "a wrong kind", Field: "target.kind",
			Edit: func(in input) { in.Target.Kind = "CivoKubernetesNodePool" }},
		{Name: "a bad API server CIDR", Field: "target.spec.api_server_allowed_cidrs[0]",
			Edit: func(in input) { in.Target.Spec.ApiServerAllowedCidrs = []string{"not-a-cidr"} }},
	})
}

func TestResourcesMakesEveryChildAnswerToTheURNItHadAtTheStackRoot(t *testing.T) {
	p := stack.Run(t, mockrun.Options{})
	for _, typ := range []string{providerType, firewallType, clusterType} {
		t.Run(typ, func(t *testing.T) {
			moduletest.AssertRootAlias(t, moduletest.MustFind(t, p, typ, name))
		})
	}
	// The component is new: it has no earlier URN to answer to.
	moduletest.AssertNoAliases(t, moduletest.MustFind(t, p, componentType, name))
}

func newSpecWithoutReferences() *clusterv1.CivoKubernetesClusterSpec {
	spec := minimalSpec()
	spec.Network = nil
	spec.Firewall = nil
	return spec
}

func TestNewTakesTheNetworkAndFirewallFromOptionsInsteadOfTheSpec(t *testing.T) {
	const component = "alpha"
	tests := []struct {
		name          string
		opts          func(ctx *pulumi.Context) ([]module.Option, error)
		wantFirewall  bool
		wantNetwork   any
		wantFirewalls any
		networkDepOn  string
	}{
		{
			name: "WithNetworkID puts the created firewall and the cluster on that network",
			opts: func(*pulumi.Context) ([]module.Option, error) {
				return []module.Option{module.WithNetworkID(pulumi.String("net-opt"))}, nil
			},
			wantFirewall: true, wantNetwork: "net-opt", wantFirewalls: component + "-id",
		},
		{
			name: "WithFirewallID puts the cluster behind that firewall and creates none",
			opts: func(*pulumi.Context) ([]module.Option, error) {
				return []module.Option{
					module.WithNetworkID(pulumi.String("net-opt")),
					module.WithFirewallID(pulumi.String("fw-opt")),
				}, nil
			},
			wantNetwork: "net-opt", wantFirewalls: "fw-opt",
		},
		{
			name: "WithNetworkID of a network in the same program makes the cluster depend on it",
			opts: func(ctx *pulumi.Context) ([]module.Option, error) {
				network, err := civo.NewNetwork(ctx, "shared", &civo.NetworkArgs{Label: pulumi.String("shared")})
				if err != nil {
					return nil, err
				}
				return []module.Option{module.WithNetworkID(network.ID().ToStringOutput())}, nil
			},
			wantFirewall: true, wantNetwork: "shared-id", wantFirewalls: component + "-id",
			networkDepOn: networkType + "::shared",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stack.Isolate(t)
			var got *module.Cluster
			p, err := moduletest.RunBody(t, func(ctx *pulumi.Context) error {
				opts, err := tt.opts(ctx)
				if err != nil {
					return err
				}
				got, err = module.New(ctx, component, newSpecWithoutReferences(), opts...)
				return err
			}, mockrun.Options{})
			if err != nil {
				t.Fatalf("New() error = %v", err)
			}
			if got == nil || got.Resource == nil {
				t.Fatalf("New() = %v, want a cluster with its resource", got)
			}
			if refs := p.OfType(mockrun.StackReferenceType); len(refs) != 0 {
				t.Errorf("registered stack references %v, want none", moduletest.Registered(p))
			}
			cl := moduletest.MustFind(t, p, clusterType, component)
			moduletest.AssertInputs(t, cl.Inputs, map[string]any{"networkId": tt.wantNetwork, "firewallId": tt.wantFirewalls})
			assertCreatedFirewall(t, p, tt.wantFirewall, tt.wantNetwork)
			if tt.networkDepOn != "" {
				deps := moduletest.PropertyDependencies(cl, "networkId")
				if len(deps) != 1 || mockrun.ShortURN(deps[0]) != tt.networkDepOn {
					t.Errorf("cluster networkId depends on %v, want %s", deps, tt.networkDepOn)
				}
			}
			// New is for programs, not the stack programs: no aliases to root URNs.
			moduletest.AssertNoAliases(t, p.Resources...)
		})
	}
}

// assertCreatedFirewall checks that New created one firewall, on network, when want, and none
// otherwise.
func assertCreatedFirewall(t *testing.T, p *mockrun.Result, want bool, network any) {
	t.Helper()
	fws := p.OfType(firewallType)
	if want {
		if len(fws) != 1 || fws[0].Inputs["networkId"] != network {
			t.Errorf("firewalls %v, want one on network %v", fws, network)
		}
	} else if len(fws) != 0 {
		t.Errorf("registered %d firewalls, want none", len(fws))
	}
}

func TestNewWithAFirewallOptionStillRejectsAPIServerAllowedCIDRs(t *testing.T) {
	stack.Isolate(t)
	spec := newSpecWithoutReferences()
	spec.ApiServerAllowedCidrs = []string{"203.0.113.0/24"}
	p, err := moduletest.RunBody(t, func(ctx *pulumi.Context) error {
		_, err := module.New(ctx, "alpha", spec,
			module.WithNetworkID(pulumi.String("net-opt")), module.WithFirewallID(pulumi.String("fw-opt")))
		return err
	}, mockrun.Options{})
	if err == nil {
		t.Fatal("New() = nil, want the created_firewall_only violation")
	}
	ids := []string{}
	for _, v := range validation.Violations(err) {
		ids = append(ids, v.RuleID)
	}
	moduletest.AssertEqual(t, "violated rules", ids, []string{"api_server_allowed_cidrs.created_firewall_only"})
	moduletest.AssertNothingRegistered(t, p)
}

func TestNewWithAProviderUsesItAndCreatesNone(t *testing.T) {
	stack.Isolate(t)
	p := moduletest.RunWithProvider(t, mockrun.Options{}, func(ctx *pulumi.Context, name string) (*civo.Provider, error) {
		return civo.NewProvider(ctx, name, &civo.ProviderArgs{Region: pulumi.String("lon1")})
	}, func(ctx *pulumi.Context, shared *civo.Provider) error {
		_, err := module.New(ctx, "alpha", newSpecWithoutReferences(),
			module.WithProvider(shared), module.WithNetworkID(pulumi.String("net-opt")))
		return err
	})
	moduletest.AssertProviders(t, p, providerType, "shared")
	for _, typ := range []string{firewallType, clusterType} {
		moduletest.AssertProvider(t, moduletest.MustFind(t, p, typ, "alpha"), providerType+"::shared")
	}
}

func TestNewWithoutMetadataDerivesTagsFromTheComponentName(t *testing.T) {
	stack.Isolate(t)
	p, err := moduletest.RunBody(t, func(ctx *pulumi.Context) error {
		_, err := module.New(ctx, "alpha", newSpecWithoutReferences(), module.WithNetworkID(pulumi.String("net-opt")))
		return err
	}, mockrun.Options{})
	if err != nil {
		t.Fatalf("New() error = %v", err)
	}
	got := moduletest.MustFind(t, p, clusterType, "alpha").Inputs["tags"]
	if got != "resource-kind:CivoKubernetesCluster resource-name:alpha" {
		t.Errorf("cluster tags = %#v, want the kind and the component name", got)
	}
}

func TestNewWithAnInvalidSpecReturnsTheSpecRelativeFieldPathAndRegistersNothing(t *testing.T) {
	tests := []moduletest.InvalidSpec[*clusterv1.CivoKubernetesClusterSpec, module.Option]{
		{Name: "a pool without nodes", Field: "default_node_pool.node_count",
			Edit: func(s *clusterv1.CivoKubernetesClusterSpec) { s.DefaultNodePool.NodeCount = 0 }},
		{Name: "an upper-case cluster name", Field: "cluster_name",
			Edit: func(s *clusterv1.CivoKubernetesClusterSpec) { s.ClusterName = "Prod" }},
	}
	moduletest.NewRejects[*clusterv1.CivoKubernetesClusterSpec, module.Option, *module.Cluster]{
		Kind: "CivoKubernetesCluster", Name: "alpha", New: module.New, Valid: minimalSpec, Setup: stack.Isolate,
	}.Run(t, tests)
}

func TestResourcesProtectsTheClusterUnlessDeletionProtectionIsOff(t *testing.T) {
	for _, tt := range moduletest.Protections() {
		t.Run(tt.Name, func(t *testing.T) {
			p := stack.Run(t, mockrun.Options{}, func(in *clusterv1.CivoKubernetesClusterStackInput) {
				in.Target.Spec.DeletionProtection = tt.Value
			})
			moduletest.AssertProtection(t, p, clusterType, tt.Protect)
		})
	}
}

func TestTalosClustersLeaveTheirVersionAloneAfterCreationSoASecondUpdateWorks(t *testing.T) {
	tests := []struct {
		name        string
		clusterType clusterv1.CivoKubernetesClusterType
		version     string
		want        []string
	}{
		// civo/terraform-provider-civo#365: the provider reads back the Kubernetes version
		// ("1.30.5") instead of the talos one, so the manifest's version differs from the state
		// after every refresh; sending it again fails the update.
		{name: "talos ignores later version changes", clusterType: clusterv1.CivoKubernetesClusterType_talos, version: "talos-v1.7.0",
			want: []string{"kubernetesVersion"}},
		{name: "k3s manages its version", clusterType: clusterv1.CivoKubernetesClusterType_k3s, version: minimalK3s},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stack.Isolate(t)
			in := stack.Input(func(in *clusterv1.CivoKubernetesClusterStackInput) {
				in.Target.Spec.ClusterType, in.Target.Spec.KubernetesVersion = tt.clusterType, tt.version
			})
			// Twice: the second run stands for the update after the provider read back its own
			// version into state.
			readBack := func(typ, _ string, _ resource.PropertyMap) resource.PropertyMap {
				if typ != clusterType {
					return nil
				}
				return resource.NewPropertyMapFromMap(map[string]any{"kubernetesVersion": "1.30.5"})
			}
			for run := 0; run < 2; run++ {
				p := stack.RunInput(t, in, mockrun.Options{State: readBack})
				got := moduletest.MustFind(t, p, clusterType, name).IgnoreChanges
				if len(got) == 0 {
					got = nil
				}
				moduletest.AssertEqual(t, "cluster ignoreChanges", got, tt.want)
			}
		})
	}
}

func TestACivoClusterWithoutANetworkLeavesItToTheProviderWhichUsesTheRegionsDefault(t *testing.T) {
	tests := []struct {
		name     string
		firewall *sharedv1.StringValueOrRef
		want     []string
	}{
		{"a created firewall", nil, []string{firewallType, clusterType}},
		{"a given firewall", sharedv1.StringValue("0c2d3e4f-5a6b-4c7d-8e9f-a0b1c2d3e4f5"), []string{clusterType}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := stack.Run(t, mockrun.Options{}, func(in *clusterv1.CivoKubernetesClusterStackInput) {
				in.Target.Spec.Network = nil
				in.Target.Spec.Firewall = tt.firewall
			})
			for _, typ := range tt.want {
				// The Civo provider, as the civo CLI, asks Civo for the region's default network
				// when it is given none (terraform-provider-civo's GetDefaultNetwork).
				if got, ok := moduletest.MustFind(t, p, typ, name).Inputs["networkId"]; ok {
					t.Errorf("%s networkId = %v, want none", typ, got)
				}
			}
		})
	}
}
