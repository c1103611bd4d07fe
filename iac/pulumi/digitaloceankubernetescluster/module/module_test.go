package module_test

import (
	"errors"
	"github.com/clusterplane/clusterplane/apis/clusterplane/stackoutputs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	digitaloceanv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetescluster/module"
	"github.com/clusterplane/clusterplane/internal/testing/moduletest"
	"github.com/clusterplane/clusterplane/pkg/pulumi/mockrun"
	"github.com/pulumi/pulumi-digitalocean/sdk/v4/go/digitalocean"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"google.golang.org/protobuf/proto"
)

const (
	clusterType   = "digitalocean:index/kubernetesCluster:KubernetesCluster"
	providerType  = "pulumi:providers:digitalocean"
	componentType = "clusterplane:digitalocean:KubernetesCluster"
	vpcType       = "digitalocean:index/vpc:Vpc"

	rawKubeconfig = "apiVersion: v1\nkind: Config\nusers:\n- name: admin\n  user:\n    token: kube-token\n"
)

func minimalSpec(clusterName string) *v1.DigitalOceanKubernetesClusterSpec {
	return &v1.DigitalOceanKubernetesClusterSpec{
		ClusterName:       clusterName,
		Region:            "fra1",
		KubernetesVersion: "1.31.1-do.5",
		DefaultNodePool:   &v1.DigitalOceanKubernetesClusterDefaultNodePool{Size: "s-2vcpu-4gb", NodeCount: 3},
	}
}

// stack runs the stack program on the minimal manifest, a fixed pool of three in the default
// VPC, answering with cloudState unless a run's options name their own.
var stack = moduletest.Stack[*v1.DigitalOceanKubernetesClusterStackInput, *v1.DigitalOceanKubernetesClusterSpec]{
	APIVersion: "digitalocean.clusterplane.dev/v1", Kind: "DigitalOceanKubernetesCluster", Name: "prod-fra1",
	Resources: module.Resources, State: cloudState,
	Spec: func() *v1.DigitalOceanKubernetesClusterSpec { return minimalSpec("prod-fra1") },
}

// cloudState is what DigitalOcean computes for a cluster after creation.
func cloudState(typ, name string, _ resource.PropertyMap) resource.PropertyMap {
	if typ != clusterType {
		return nil
	}
	return resource.NewPropertyMapFromMap(map[string]any{
		"clusterUrn":  "do:kubernetes:" + name + "-uuid",
		"endpoint":    "https://" + name + ".k8s.ondigitalocean.com",
		"ipv4Address": "203.0.113.10",
		"kubeConfigs": []any{map[string]any{"rawConfig": rawKubeconfig, "expiresAt": "2030-01-08T00:00:00Z"}},
		"nodePool":    map[string]any{"id": name + "-pool-id", "name": "default"},
		"vpcUuid":     name + "-vpc-uuid",
	})
}

func TestMinimalClusterRegistersExactlyProviderComponentAndClusterUnderTheStack(t *testing.T) {
	p := stack.Run(t, mockrun.Options{})
	stack.AssertTree(t, p, componentType, providerType, clusterType)
	tags := []string{"resource-kind:DigitalOceanKubernetesCluster", "resource-name:prod-fra1"}
	// Without auto_upgrade, auto_scale or a vpc reference.
	moduletest.AssertMinimal(t, moduletest.MustFind(t, p, clusterType, "prod-fra1"), map[string]any{
		"name":                          "prod-fra1",
		"region":                        "fra1",
		"version":                       "1.31.1-do.5",
		"ha":                            false,
		"autoUpgrade":                   false,
		"surgeUpgrade":                  true,
		"registryIntegration":           false,
		"destroyAllAssociatedResources": false,
		"controlPlaneFirewall":          map[string]any{"enabled": false, "allowedAddresses": []any{}},
		"maintenancePolicy":             map[string]any{"day": "any", "startTime": "00:00"},
		"tags":                          tags,
		"nodePool": map[string]any{
			"name":      "default",
			"size":      "s-2vcpu-4gb",
			"nodeCount": 3,
			"labels":    map[string]any{},
			"taints":    []any{},
			"tags":      tags,
		},
	})
}

// Promise: pitfalls-removals-refused-with-what-to-write
// Promise: pitfalls-unset-ha-sent-false
// Promise: pitfalls-control-plane-firewall-always-sent
// Promise: pitfalls-ha-always-sent
func TestClusterArguments(t *testing.T) {
	type spec = v1.DigitalOceanKubernetesClusterSpec
	stack.Sends(t, clusterType, []moduletest.SpecCase[*spec]{
		{Name: "ha is sent as false when the cluster is not highly available",
			Edit: func(*spec) {}, Want: map[string]any{"ha": false}},
		{Name: "ha is sent as true when the cluster is highly available",
			Edit: func(s *spec) { s.HighlyAvailable = true }, Want: map[string]any{"ha": true}},
		{Name: "surge upgrade is on unless disabled",
			Edit: func(*spec) {}, Want: map[string]any{"surgeUpgrade": true}},
		{Name: "disable_surge_upgrade turns surge upgrade off",
			Edit: func(s *spec) { s.DisableSurgeUpgrade = true }, Want: map[string]any{"surgeUpgrade": false}},
		{Name: "auto_upgrade is sent",
			Edit: func(s *spec) { s.AutoUpgrade = true }, Want: map[string]any{"autoUpgrade": true},
			IgnoreChanges: []string{"version"}},
		{Name: "a maintenance window is sent as a policy of day and start time",
			Edit: func(s *spec) {
				s.MaintenanceWindow = &v1.DigitalOceanKubernetesClusterMaintenanceWindow{
					Day: v1.DigitalOceanKubernetesClusterMaintenanceDay_sunday, StartTime: "03:00"}
			},
			Want: map[string]any{"maintenancePolicy": map[string]any{"day": "sunday", "startTime": "03:00"}}},
		{Name: "the maintenance day any is sent as any",
			Edit: func(s *spec) {
				s.MaintenanceWindow = &v1.DigitalOceanKubernetesClusterMaintenanceWindow{
					Day: v1.DigitalOceanKubernetesClusterMaintenanceDay_any, StartTime: "23:30"}
			},
			Want: map[string]any{"maintenancePolicy": map[string]any{"day": "any", "startTime": "23:30"}}},
		// An unsent policy keeps the old window (Optional and Computed): removing the field must
		// move it to the documented default instead.
		{Name: "no maintenance window sends the default window, any day at 00:00",
			Edit: func(*spec) {}, Want: map[string]any{"maintenancePolicy": map[string]any{"day": "any", "startTime": "00:00"}}},
		{Name: "allowed addresses turn the control-plane firewall on with them",
			Edit: func(s *spec) { s.ControlPlaneFirewallAllowedAddresses = []string{"203.0.113.7", "198.51.100.0/24"} },
			Want: map[string]any{"controlPlaneFirewall": map[string]any{
				"enabled": true, "allowedAddresses": []string{"203.0.113.7", "198.51.100.0/24"}}}},
		// Emptying the list must turn the firewall off: an omitted block keeps the old one.
		{Name: "no allowed addresses turn the control-plane firewall off explicitly",
			Edit: func(*spec) {}, Want: map[string]any{"controlPlaneFirewall": map[string]any{"enabled": false, "allowedAddresses": []string{}}}},
		{Name: "absent GPU and routing components keep DigitalOcean's defaults",
			Edit: func(*spec) {}, Want: map[string]any{"routingAgent": moduletest.Absent, "nvidiaGpuDevicePlugin": moduletest.Absent,
				"amdGpuDevicePlugin": moduletest.Absent, "amdGpuDeviceMetricsExporterPlugin": moduletest.Absent,
				"rdmaSharedDevicePlugin": moduletest.Absent}},
		{Name: "GPU and routing components are sent as enabled blocks",
			Edit: func(s *spec) {
				s.RoutingAgent, s.NvidiaGpuDevicePlugin, s.AmdGpuDevicePlugin = proto.Bool(true), proto.Bool(true), proto.Bool(false)
				s.AmdGpuDeviceMetricsExporterPlugin, s.RdmaSharedDevicePlugin = proto.Bool(false), proto.Bool(true)
			},
			Want: map[string]any{"routingAgent": map[string]any{"enabled": true}, "nvidiaGpuDevicePlugin": map[string]any{"enabled": true},
				"amdGpuDevicePlugin": map[string]any{"enabled": false}, "amdGpuDeviceMetricsExporterPlugin": map[string]any{"enabled": false},
				"rdmaSharedDevicePlugin": map[string]any{"enabled": true}}},
		{Name: "autoscaler expanders are sent in order",
			Edit: func(s *spec) {
				s.ClusterAutoscaler = &v1.DigitalOceanKubernetesClusterAutoscaler{Expanders: []string{"priority", "least-waste"}}
			},
			Want: map[string]any{"clusterAutoscalerConfigurations": []any{map[string]any{"expanders": []string{"priority", "least-waste"}}}}},
		{Name: "an empty default pool name becomes default",
			Edit: func(s *spec) { s.DefaultNodePool.NodePoolName = "" }, Want: map[string]any{"nodePool.name": "default"}},
		{Name: "a named default pool keeps its name",
			Edit: func(s *spec) { s.DefaultNodePool.NodePoolName = "system" }, Want: map[string]any{"nodePool.name": "system"}},
		{Name: "a fixed-size default pool sends its node count and no autoscaling bounds",
			Edit: func(*spec) {},
			Want: map[string]any{"nodePool.nodeCount": 3, "nodePool.autoScale": moduletest.Absent,
				"nodePool.minNodes": moduletest.Absent, "nodePool.maxNodes": moduletest.Absent}},
		{Name: "an autoscaling default pool sends autoScale with min and max nodes",
			Edit: func(s *spec) {
				p := s.DefaultNodePool
				p.AutoScale, p.MinNodes, p.NodeCount, p.MaxNodes = true, 2, 3, 5
			},
			Want: map[string]any{"nodePool.autoScale": true, "nodePool.minNodes": 2, "nodePool.maxNodes": 5,
				"nodePool.nodeCount": 3},
			IgnoreChanges: []string{"nodePool.nodeCount"}},
		{Name: "an autoscaling default pool without a node count sends no node count",
			Edit: func(s *spec) {
				p := s.DefaultNodePool
				p.AutoScale, p.MinNodes, p.NodeCount, p.MaxNodes = true, 1, 0, 4
			},
			Want:          map[string]any{"nodePool.nodeCount": moduletest.Absent, "nodePool.minNodes": 1, "nodePool.maxNodes": 4},
			IgnoreChanges: []string{"nodePool.nodeCount"}},
		{Name: "the default pool's size, labels and taints are passed through",
			Edit: func(s *spec) {
				p := s.DefaultNodePool
				p.Size = "s-4vcpu-8gb"
				p.Labels = map[string]string{"workload": "system", "example.com/role": "system"}
				p.Taints = moduletest.Taints()
			},
			Want: map[string]any{
				"nodePool.size":   "s-4vcpu-8gb",
				"nodePool.labels": map[string]any{"workload": "system", "example.com/role": "system"},
				"nodePool.taints": moduletest.TaintInputs(),
			}},
		{Name: "a literal vpc is sent as vpcUuid",
			Edit: func(s *spec) { s.Vpc = sharedv1.StringValue("c1a2b3c4-0000-4000-8000-000000000001") },
			Want: map[string]any{"vpcUuid": "c1a2b3c4-0000-4000-8000-000000000001"}},
		{Name: "no vpc sends no vpcUuid, leaving the region's default VPC",
			Edit: func(*spec) {}, Want: map[string]any{"vpcUuid": moduletest.Absent}},
		{Name: "optional settings are sent when set",
			Edit: func(s *spec) {
				s.RegistryIntegration = true
				s.DestroyAllAssociatedResources = true
				s.ClusterSubnet, s.ServiceSubnet = "10.244.0.0/16", "10.245.0.0/16"
				s.KubeconfigExpireSeconds = 86400
				s.ClusterAutoscaler = &v1.DigitalOceanKubernetesClusterAutoscaler{
					ScaleDownUtilizationThreshold: proto.Float64(0.65), ScaleDownUnneededTime: "1h30m"}
			},
			Want: map[string]any{
				"registryIntegration":           true,
				"destroyAllAssociatedResources": true,
				"clusterSubnet":                 "10.244.0.0/16",
				"serviceSubnet":                 "10.245.0.0/16",
				"kubeconfigExpireSeconds":       86400,
				"clusterAutoscalerConfigurations": []any{map[string]any{
					"scaleDownUtilizationThreshold": 0.65, "scaleDownUnneededTime": "1h30m"}},
			}},
		{Name: "optional settings left unset are not sent, so the provider's defaults apply",
			Edit: func(*spec) {},
			Want: map[string]any{"clusterSubnet": moduletest.Absent, "serviceSubnet": moduletest.Absent,
				"kubeconfigExpireSeconds":         moduletest.Absent,
				"clusterAutoscalerConfigurations": moduletest.Absent}},
	})
}

func TestClusterIgnoresChangesTheCloudMakesByItself(t *testing.T) {
	tests := []struct {
		name        string
		autoUpgrade bool
		autoScale   bool
		want        []string
	}{
		{"nothing is ignored without auto_upgrade or auto_scale", false, false, nil},
		{"auto_upgrade ignores version", true, false, []string{"version"}},
		{"an autoscaling default pool ignores its node count", false, true, []string{"nodePool.nodeCount"}},
		{"both ignore version and the default pool's node count", true, true, []string{"version", "nodePool.nodeCount"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			input := stack.Input()
			input.Target.Spec.AutoUpgrade = tt.autoUpgrade
			if tt.autoScale {
				pool := input.Target.Spec.DefaultNodePool
				pool.AutoScale, pool.MinNodes, pool.MaxNodes = true, 1, 5
			}
			got := moduletest.MustFind(t, stack.RunInput(t, input, mockrun.Options{}), clusterType, "prod-fra1").IgnoreChanges
			if !slices.Equal(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
				t.Errorf("ignoreChanges = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestClusterTagsAreTheDerivedStandardTagsFollowedByUserTags(t *testing.T) {
	tests := []struct {
		name               string
		metadata           *sharedv1.CloudResourceMetadata
		tags, poolTags     []string
		wantTags, wantPool []string
	}{
		{
			name:     "metadata derives kind, name, id, org and env tags and user tags follow",
			metadata: &sharedv1.CloudResourceMetadata{Name: "prod-fra1", Id: "k8s-0042", Org: "acme", Env: "prod"},
			tags:     []string{"team-platform"},
			poolTags: []string{"pool-system"},
			wantTags: []string{"environment:prod", "organization:acme", "resource-id:k8s-0042",
				"resource-kind:DigitalOceanKubernetesCluster", "resource-name:prod-fra1", "team-platform"},
			wantPool: []string{"environment:prod", "organization:acme", "resource-id:k8s-0042",
				"resource-kind:DigitalOceanKubernetesCluster", "resource-name:prod-fra1", "pool-system"},
		},
		{
			name: "a metadata label overrides the derived tag with the same key",
			metadata: &sharedv1.CloudResourceMetadata{Name: "prod-fra1", Org: "acme", Env: "prod",
				Labels: map[string]string{"environment": "production", "team": "platform"}},
			wantTags: []string{"environment:production", "organization:acme",
				"resource-kind:DigitalOceanKubernetesCluster", "resource-name:prod-fra1", "team:platform"},
			wantPool: []string{"environment:production", "organization:acme",
				"resource-kind:DigitalOceanKubernetesCluster", "resource-name:prod-fra1", "team:platform"},
		},
		{
			name:     "a user tag equal to a derived one is sent once",
			metadata: &sharedv1.CloudResourceMetadata{Name: "prod-fra1", Env: "prod"},
			tags:     []string{"environment:prod", "extra"},
			wantTags: []string{"environment:prod", "resource-kind:DigitalOceanKubernetesCluster",
				"resource-name:prod-fra1", "extra"},
			wantPool: []string{"environment:prod", "resource-kind:DigitalOceanKubernetesCluster",
				"resource-name:prod-fra1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			input := stack.Input()
			input.Target.Metadata = tt.metadata
			input.Target.Spec.Tags = tt.tags
			input.Target.Spec.DefaultNodePool.Tags = tt.poolTags
			cl := moduletest.MustFind(t, stack.RunInput(t, input, mockrun.Options{}), clusterType, "prod-fra1")
			moduletest.AssertInputs(t, cl.Inputs, map[string]any{"tags": tt.wantTags, "nodePool.tags": tt.wantPool})
		})
	}
}

func TestClusterVpcFromAnotherStackIsReadThroughAStackReference(t *testing.T) {
	const vpcStack = "organization/digitaloceankubernetescluster/shared-prod"
	vpc := moduletest.RefField{
		Field: "vpc", RefName: "prod-fra1-vpc", Component: componentType,
		// The state echoes the inputs, so vpcUuid stays what was sent.
		Opts: mockrun.Options{State: func(string, string, resource.PropertyMap) resource.PropertyMap {
			return resource.NewPropertyMapFromMap(map[string]any{
				"kubeConfigs": []any{map[string]any{"rawConfig": rawKubeconfig}}})
		}},
	}
	vpcRef := func(fieldPath string) *sharedv1.StringValueOrRef {
		return sharedv1.StringValueFrom(&sharedv1.ValueFromRef{
			Kind: "DigitalOceanKubernetesCluster", Env: "prod", Name: "shared", FieldPath: fieldPath})
	}
	stack.EachRef(t, vpc, []moduletest.RefCase{
		{Name: "without a field path the stack's vpc_uuid output is read", Ref: vpcRef(""), Stack: vpcStack,
			Outputs: map[string]any{"vpc_uuid": "vpc-from-default-output", "other": "wrong"}, Want: "vpc-from-default-output"},
		{Name: "a field path status.outputs.cluster_urn reads cluster_urn", Ref: vpcRef("status.outputs.cluster_urn"), Stack: vpcStack,
			Outputs: map[string]any{"vpc_uuid": "wrong", "cluster_urn": "vpc-from-field-path"}, Want: "vpc-from-field-path"},
	}, func(t *testing.T, tt moduletest.RefCase, p *mockrun.Result) {
		cl := moduletest.MustFind(t, p, clusterType, "prod-fra1")
		moduletest.AssertInputs(t, cl.Inputs, map[string]any{"vpcUuid": tt.Want})
		if !slices.Contains(cl.DependsOn, mockrun.StackReferenceType+"::prod-fra1-vpc") {
			t.Errorf("cluster dependsOn = %v, want the stack reference", cl.DependsOn)
		}
		if got := p.Outputs[stackoutputs.DigitalOceanKubernetesClusterVpcUUID].Value; got != tt.Want {
			t.Errorf("vpc_uuid output = %v, want %q", got, tt.Want)
		}
	})
}

// Promise: tokens-never-shown
func TestClusterExportsTheEightDesignOutputsFromTheCloudState(t *testing.T) {
	p := stack.Run(t, mockrun.Options{})

	want := map[string]string{
		"cluster_id":            "prod-fra1-id",
		"cluster_urn":           "do:kubernetes:prod-fra1-uuid",
		"api_server_endpoint":   "https://prod-fra1.k8s.ondigitalocean.com",
		"ipv4_address":          "203.0.113.10",
		"kubeconfig":            rawKubeconfig,
		"kubeconfig_expires_at": "2030-01-08T00:00:00Z",
		"default_node_pool_id":  "prod-fra1-pool-id",
		"vpc_uuid":              "prod-fra1-vpc-uuid",
	}
	if len(p.Outputs) != len(want) {
		t.Errorf("exported %d outputs, want %d", len(p.Outputs), len(want))
	}
	for name, value := range want {
		out, ok := p.Outputs[name]
		if !ok {
			t.Errorf("output %s is not exported", name)
			continue
		}
		if out.Value != value {
			t.Errorf("output %s = %v, want %q", name, out.Value, value)
		}
		if wantSecret := name == "kubeconfig"; out.Secret != wantSecret {
			t.Errorf("output %s secret = %t, want %t", name, out.Secret, wantSecret)
		}
	}
}

func TestClusterKubeconfigIsASecret(t *testing.T) {
	p := stack.Run(t, mockrun.Options{})

	cl := moduletest.MustFind(t, p, clusterType, "prod-fra1")
	if !slices.Contains(cl.AdditionalSecretOutputs, "kubeConfigs") {
		t.Errorf("cluster additionalSecretOutputs = %v, want kubeConfigs among them", cl.AdditionalSecretOutputs)
	}
	out := p.Outputs[stackoutputs.DigitalOceanKubernetesClusterKubeconfig]
	if !out.Secret {
		t.Errorf("kubeconfig output is not a secret")
	}
	if out.Value != rawKubeconfig {
		t.Errorf("kubeconfig output = %v, want the state's kubeConfigs[0].rawConfig", out.Value)
	}
	if rendered := moduletest.Render(t, p); strings.Contains(rendered, "kube-token") {
		t.Errorf("the rendered plan shows the kubeconfig:\n%s", rendered)
	}
}

func TestClusterWithoutAKubeconfigInItsStateStillDeploysWithAnEmptySecretKubeconfig(t *testing.T) {
	// A failed or partial read can leave kubeConfigs empty; the program must not crash on it.
	p := stack.Run(t, mockrun.Options{
		State: func(string, string, resource.PropertyMap) resource.PropertyMap {
			return resource.PropertyMap{"kubeConfigs": resource.NewArrayProperty(nil)}
		},
	})
	out, ok := p.Outputs[stackoutputs.DigitalOceanKubernetesClusterKubeconfig]
	if !ok {
		t.Fatal("kubeconfig output is not exported")
	}
	if !out.Secret || out.Value != "" {
		t.Errorf("kubeconfig output = %+v, want an empty secret", out)
	}
}

// Promise: pko-token-never-in-the-stacks-configuration
func TestClusterProviderTokenIsAlwaysASecret(t *testing.T) {
	type config = *digitaloceanv1.DigitalOceanProviderConfig
	token := moduletest.TokenSecret{EnvVar: "DIGITALOCEAN_TOKEN", Type: providerType, Key: "token"}
	moduletest.CheckTokens(t, stack, token, []moduletest.TokenCase[config]{
		{Name: "the provider config's token is sent as a secret",
			Config: &digitaloceanv1.DigitalOceanProviderConfig{ApiToken: moduletest.ConfigToken}, Want: moduletest.ConfigToken},
		{Name: "an empty provider config falls back to DIGITALOCEAN_TOKEN, also as a secret",
			Config: &digitaloceanv1.DigitalOceanProviderConfig{}, Env: moduletest.EnvToken, Want: moduletest.EnvToken},
		{Name: "no provider config at all falls back to DIGITALOCEAN_TOKEN",
			Env: moduletest.EnvToken, Want: moduletest.EnvToken},
		{Name: "the provider config's token wins over DIGITALOCEAN_TOKEN",
			Config: &digitaloceanv1.DigitalOceanProviderConfig{ApiToken: moduletest.ConfigToken}, Env: moduletest.EnvToken, Want: moduletest.ConfigToken},
	})
}

func TestClusterProviderWithoutAnyTokenSendsNone(t *testing.T) {
	t.Setenv("DIGITALOCEAN_TOKEN", "")
	p := stack.Run(t, mockrun.Options{})
	if token, ok := moduletest.MustFind(t, p, providerType, "prod-fra1").Inputs["token"]; ok {
		t.Errorf("provider token = %v, want none so the provider reads its own environment", token)
	}
}

func TestClusterRejectsAnInvalidStackInputBeforeRegisteringAnything(t *testing.T) {
	const token = "dop_v1_secret_in_an_invalid_input"
	type input = *v1.DigitalOceanKubernetesClusterStackInput
	moduletest.InputRejects[input]{Resources: module.Resources, Token: token,
		Valid: func() input {
			in := stack.Input()
			in.ProviderConfig = &digitaloceanv1.DigitalOceanProviderConfig{ApiToken: token}
			return in
		},
	}.Check(t, []moduletest.InvalidInput[input]{
		{Name: "a default pool without a size names spec.default_node_pool.size",
			Edit:  func(in input) { in.Target.Spec.DefaultNodePool.Size = "" },
			Field: "target.spec.default_node_pool.size"},
		{Name: "a version that is not a slug names spec.kubernetes_version",
			Edit:  func(in input) { in.Target.Spec.KubernetesVersion = "latest" },
			Field: "target.spec.kubernetes_version"},
		{Name: "a minor line without autoUpgrade names the version",
			Edit:  func(in input) { in.Target.Spec.KubernetesVersion = "1.31" },
			Field: "target.spec.kubernetes_version"},
		{Name: "a wrong apiVersion names api_version",
			Edit:  func(in input) { in.Target.ApiVersion = "civo.clusterplane.dev/v1" },
			Field: "target.api_version"},
	})
}

func rootURN(typ, name string) string {
	return "urn:pulumi:" + mockrun.Stack + "::" + mockrun.Project + "::" + typ + "::" + name
}

// aliasURNs are the URNs the alias specs of r stand for, resolved as the engine does.
func aliasURNs(t *testing.T, r mockrun.Resource) []string {
	t.Helper()
	var urns []string
	for _, a := range r.Request.GetAliases() {
		spec := a.GetSpec()
		if spec == nil {
			urns = append(urns, a.GetUrn())
			continue
		}
		name, typ, stack, project := spec.GetName(), spec.GetType(), spec.GetStack(), spec.GetProject()
		if name == "" {
			name = r.Name
		}
		if typ == "" {
			typ = r.Type
		}
		if stack == "" {
			stack = mockrun.Stack
		}
		if project == "" {
			project = mockrun.Project
		}
		if !spec.GetNoParent() {
			t.Errorf("%s alias keeps a parent (%q), want noParent", r.Name, spec.GetParentUrn())
		}
		urns = append(urns, "urn:pulumi:"+stack+"::"+project+"::"+typ+"::"+name)
	}
	return urns
}

func TestClusterStackChildrenAnswerToTheURNsTheyHadBeforeComponents(t *testing.T) {
	input := stack.Input()
	input.Target.Metadata.Name = "legacy"
	p := stack.RunInput(t, input, mockrun.Options{})

	// Before components, the program created the provider and the cluster at the stack's root,
	// both named metadata.name; the names and types must not have moved.
	for _, typ := range []string{providerType, clusterType} {
		r := moduletest.MustFind(t, p, typ, "legacy")
		if got := r.Aliases; !slices.Equal(got, []string{"noParent"}) {
			t.Errorf("%s aliases = %v, want [noParent]", typ, got)
		}
		if got, want := aliasURNs(t, r), []string{rootURN(typ, "legacy")}; !slices.Equal(got, want) {
			t.Errorf("%s answers to %v, want %v", typ, got, want)
		}
	}
	// The component is new: it has no earlier URN to answer to.
	moduletest.AssertNoAliases(t, moduletest.MustFind(t, p, componentType, "legacy"))
}

// runNew runs body, which calls module.New, under mocks answering with cloudState.
func runNew(t *testing.T, body pulumi.RunFunc) *mockrun.Result {
	t.Helper()
	return moduletest.Run(t, body, mockrun.Options{State: cloudState})
}

func TestNewTwoClustersInOneProgramRegisterWithoutANameClash(t *testing.T) {
	var clusters []*module.Cluster
	p := runNew(t, func(ctx *pulumi.Context) error {
		for _, name := range []string{"blue", "green"} {
			c, err := module.New(ctx, name, minimalSpec(name+"-cluster"))
			if err != nil {
				return err
			}
			clusters = append(clusters, c)
		}
		return nil
	})

	for _, name := range []string{"blue", "green"} {
		moduletest.AssertParent(t, moduletest.MustFind(t, p, componentType, name), moduletest.StackRoot)
		prov := moduletest.MustFind(t, p, providerType, name)
		cl := moduletest.MustFind(t, p, clusterType, name)
		for _, r := range []mockrun.Resource{prov, cl} {
			moduletest.AssertParent(t, r, componentType+"::"+name)
			// New is for programs, not the stack programs: no aliases to root URNs.
			moduletest.AssertNoAliases(t, r)
		}
		moduletest.AssertProvider(t, cl, providerType+"::"+name)
		moduletest.AssertInputs(t, cl.Inputs, map[string]any{
			"name": name + "-cluster",
			"tags": []string{"resource-kind:DigitalOceanKubernetesCluster", "resource-name:" + name},
		})
	}
	if got := len(p.Resources); got != 6 {
		t.Errorf("registered %v, want 6 resources", moduletest.Registered(p))
	}
	if len(clusters) != 2 || clusters[0].Resource == clusters[1].Resource {
		t.Errorf("New returned %d clusters, want two distinct ones", len(clusters))
	}
}

func TestNewWithProviderUsesThatProviderAndCreatesNone(t *testing.T) {
	p := moduletest.RunWithProvider(t, mockrun.Options{State: cloudState}, func(ctx *pulumi.Context, name string) (*digitalocean.Provider, error) {
		return digitalocean.NewProvider(ctx, name, &digitalocean.ProviderArgs{})
	}, func(ctx *pulumi.Context, shared *digitalocean.Provider) error {
		_, err := module.New(ctx, "blue", minimalSpec("blue"), module.WithProvider(shared))
		return err
	})
	moduletest.AssertProviders(t, p, providerType, "shared")
	moduletest.AssertProvider(t, moduletest.MustFind(t, p, clusterType, "blue"), providerType+"::shared")
}

func TestNewWithVpcIDPlacesTheClusterInAVpcOfTheSameProgram(t *testing.T) {
	p := runNew(t, func(ctx *pulumi.Context) error {
		vpc, err := digitalocean.NewVpc(ctx, "net", &digitalocean.VpcArgs{Region: pulumi.String("fra1")})
		if err != nil {
			return err
		}
		_, err = module.New(ctx, "blue", minimalSpec("blue"), module.WithVpcID(vpc.ID()))
		return err
	})

	cl := moduletest.MustFind(t, p, clusterType, "blue")
	moduletest.AssertInputs(t, cl.Inputs, map[string]any{"vpcUuid": "net-id"})
	if !slices.Contains(cl.DependsOn, vpcType+"::net") {
		t.Errorf("cluster dependsOn = %v, want the vpc", cl.DependsOn)
	}
	if refs := p.OfType(mockrun.StackReferenceType); len(refs) != 0 {
		t.Errorf("registered stack references %v, want none", moduletest.Registered(&mockrun.Result{Resources: refs}))
	}
}

func TestNewRejectsAnInvalidSpecNamingTheFieldAndRegistersNothing(t *testing.T) {
	spec := minimalSpec("blue")
	spec.DefaultNodePool.Size = ""
	var newErr error
	p := runNew(t, func(ctx *pulumi.Context) error {
		_, newErr = module.New(ctx, "blue", spec)
		return nil
	})

	if newErr == nil {
		t.Fatal("New accepted a default pool without a size")
	}
	if !strings.Contains(newErr.Error(), "defaultNodePool.size:") {
		t.Errorf("error %q does not name default_node_pool.size", newErr)
	}
	if strings.Contains(newErr.Error(), "spec.defaultNodePool") {
		t.Errorf("error %q names the path from the manifest, want it relative to the spec", newErr)
	}
	moduletest.AssertNothingRegistered(t, p)
}

// Promise: pitfalls-clusters-protected-by-default
func TestResourcesProtectsTheClusterUnlessDeletionProtectionIsOff(t *testing.T) {
	for _, tt := range moduletest.Protections() {
		t.Run(tt.Name, func(t *testing.T) {
			in := stack.Input()
			in.Target.Spec.DeletionProtection = tt.Value
			moduletest.AssertProtection(t, stack.RunInput(t, in, mockrun.Options{}), clusterType, tt.Protect)
		})
	}
}

const (
	lookupToken   = "digitalocean:index/getKubernetesCluster:getKubernetesCluster"
	versionsToken = "digitalocean:index/getKubernetesVersions:getKubernetesVersions"
)

// Promise: pitfalls-older-version-refused
func TestTheVersionIsDecidedWithTheOneTheClusterRuns(t *testing.T) {
	tests := []struct {
		name        string
		version     string
		autoUpgrade bool
		live        string
		// offered are the versions DigitalOcean offers; none is an offline answer.
		offered     []string
		wantSent    string
		wantIgnored bool
		wantErr     string
	}{
		{name: "a new cluster gets the manifest's slug", version: "1.31.1-do.5", wantSent: "1.31.1-do.5"},
		{name: "an upgrade in the manifest is sent", version: "1.32.1-do.0", live: "1.31.1-do.5", wantSent: "1.32.1-do.0"},
		{name: "a cluster DigitalOcean upgraded itself is not downgraded: the older manifest is refused",
			version: "1.31.1-do.5", live: "1.32.2-do.1",
			wantErr: "spec.kubernetesVersion: 1.31.1-do.5 is older than the version the cluster runs, 1.32.2-do.1, and DigitalOcean cannot take a cluster down a version: deploying it would replace the cluster. Set kubernetesVersion to 1.32.2-do.1 or a later version"},
		{name: "a lower patch than the live one is refused without autoUpgrade",
			version: "1.31.1-do.4", live: "1.31.1-do.5", wantErr: "Set kubernetesVersion to 1.31.1-do.5"},
		{name: "with autoUpgrade the live patch of the same minor line is left to DigitalOcean",
			version: "1.31.1-do.5", autoUpgrade: true, live: "1.31.4-do.0", wantSent: "1.31.1-do.5", wantIgnored: true},
		{name: "with autoUpgrade a minor line resolves to its latest slug",
			version: "1.31", autoUpgrade: true, offered: []string{"1.31.1-do.5", "1.31.6-do.0"}, wantSent: "1.31.6-do.0", wantIgnored: true},
		{name: "with autoUpgrade a minor bump upgrades instead of being ignored",
			version: "1.32", autoUpgrade: true, live: "1.31.5-do.1", offered: []string{"1.31.5-do.1", "1.32.2-do.0"}, wantSent: "1.32.2-do.0"},
		{name: "with autoUpgrade a minor line below the live one is refused",
			version: "1.31", autoUpgrade: true, live: "1.32.2-do.1", offered: []string{"1.31.6-do.0", "1.32.2-do.1"},
			wantErr: "Set kubernetesVersion to 1.32 (or 1.32.2-do.1)"},
		{name: "a minor upgrade from a cluster behind its minor's latest patch is refused, naming the patch",
			version: "1.32.1-do.0", live: "1.31.1-do.5", offered: []string{"1.31.1-do.5", "1.31.9-do.2", "1.32.1-do.0"},
			wantErr: "spec.kubernetesVersion: DigitalOcean cannot upgrade the cluster from 1.31.1-do.5 to 1.32.1-do.0 in one step: it upgrades " +
				"one minor version at a time, from the latest patch of the running minor, so the way there is 1.31.9-do.2, then 1.32.1-do.0. " +
				"Set kubernetesVersion to 1.31.9-do.2 and deploy"},
		{name: "a minor upgrade from the latest patch is sent",
			version: "1.32.1-do.0", live: "1.31.9-do.2", offered: []string{"1.31.9-do.2", "1.32.1-do.0"}, wantSent: "1.32.1-do.0"},
		{name: "with autoUpgrade a minor line bump from behind the latest patch is refused",
			version: "1.32", autoUpgrade: true, live: "1.31.5-do.1", offered: []string{"1.31.5-do.1", "1.31.9-do.2", "1.32.2-do.0"},
			wantErr: "Set kubernetesVersion to 1.31.9-do.2 and deploy"},
		{name: "a jump of two minor versions from behind the latest patch is refused, naming the patch first",
			version: "1.33.1-do.0", live: "1.31.1-do.5", offered: []string{"1.31.1-do.5", "1.31.9-do.2", "1.32.2-do.0", "1.33.1-do.0"},
			wantErr: "so the way there is 1.31.9-do.2, then 1.32.2-do.0, then 1.33.1-do.0. Set kubernetesVersion to 1.31.9-do.2 and deploy"},
		{name: "a jump of two minor versions from the latest patch is refused, naming the next minor's latest patch",
			version: "1.33.1-do.0", live: "1.31.9-do.2", offered: []string{"1.31.9-do.2", "1.32.1-do.0", "1.32.2-do.0", "1.33.1-do.0"},
			wantErr: "Set kubernetesVersion to 1.32.2-do.0 and deploy"},
		{name: "a jump of two minor versions is refused even when DigitalOcean's versions are not known, naming no step",
			version: "1.33.1-do.0", live: "1.31.9-do.2",
			wantErr: "DigitalOcean cannot upgrade the cluster from 1.31.9-do.2 to 1.33.1-do.0 in one step: it upgrades one minor version " +
				"at a time, from the latest patch of the running minor, and the versions it offers could not be read to name the first step"},
		{name: "a minor line DigitalOcean does not offer is an error at deployment",
			version: "1.19", autoUpgrade: true, wantErr: "spec.kubernetesVersion: DigitalOcean offers no 1.19 version"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := stack.Input()
			in.Target.Spec.KubernetesVersion, in.Target.Spec.AutoUpgrade = tt.version, tt.autoUpgrade
			p, err := moduletest.RunBody(t, func(ctx *pulumi.Context) error { return module.Resources(ctx, in) },
				mockrun.Options{State: cloudState, Invoke: offering(tt.live, tt.offered)})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want it to contain %q", err, tt.wantErr)
				}
				if len(p.OfType(clusterType)) != 0 {
					t.Error("the cluster was registered although its version was refused")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			cl := moduletest.MustFind(t, p, clusterType, "prod-fra1")
			if got := cl.Inputs["version"]; got != tt.wantSent {
				t.Errorf("version = %v, want %s", got, tt.wantSent)
			}
			if got := slices.Contains(cl.IgnoreChanges, "version"); got != tt.wantIgnored {
				t.Errorf("ignoreChanges %v: version ignored = %t, want %t", cl.IgnoreChanges, got, tt.wantIgnored)
			}
		})
	}
}

func TestALookupFailureOtherThanNoClusterStopsTheDeployment(t *testing.T) {
	in := stack.Input()
	_, err := moduletest.RunBody(t, func(ctx *pulumi.Context) error { return module.Resources(ctx, in) },
		mockrun.Options{State: cloudState, Invoke: func(token string, _ resource.PropertyMap) (resource.PropertyMap, error) {
			if token == lookupToken {
				return nil, errors.New("GET https://api.digitalocean.com/v2/kubernetes/clusters: 401 Unable to authenticate you")
			}
			return nil, nil
		}})
	if err == nil || !strings.Contains(err.Error(), "read the live cluster's version") {
		t.Fatalf("error = %v, want the failed lookup", err)
	}
}

func TestAnOfflinePlanOfAMinorLineShowsTheLine(t *testing.T) {
	in := stack.Input()
	in.Target.Spec.KubernetesVersion, in.Target.Spec.AutoUpgrade = "1.31", true
	p := stack.RunInput(t, in, mockrun.Options{Preview: true})
	if got := moduletest.MustFind(t, p, clusterType, "prod-fra1").Inputs["version"]; got != "1.31" {
		t.Errorf("version = %v, want the minor line 1.31 (resolved at deployment)", got)
	}
}

func TestHalfMadeInputIsAnErrorNotAPanic(t *testing.T) {
	tests := []struct {
		name string
		body func(ctx *pulumi.Context) error
		want string
	}{
		{"New with a nil spec", func(ctx *pulumi.Context) error {
			_, err := module.New(ctx, "prod", nil)
			return err
		}, "DigitalOceanKubernetesCluster prod: spec is required"},
		{"Resources with a nil stack input", func(ctx *pulumi.Context) error { return module.Resources(ctx, nil) }, "target"},
		{"Resources without a target", func(ctx *pulumi.Context) error {
			return module.Resources(ctx, &v1.DigitalOceanKubernetesClusterStackInput{})
		}, "target"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := moduletest.RunBody(t, tt.body, mockrun.Options{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want one containing %q", err, tt.want)
			}
			moduletest.AssertNothingRegistered(t, p)
		})
	}
}

func TestTheSDKPageNamesEveryFunctionTheModuleInvokesForGoUsersMocks(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "docs", "sdks.md"))
	if err != nil {
		t.Fatal(err)
	}
	invoked := map[string]bool{}
	record := func(token string, args resource.PropertyMap) (resource.PropertyMap, error) {
		invoked[token] = true
		return offering("1.31.1-do.5", []string{"1.31.1-do.5", "1.32.0-do.0"})(token, args)
	}
	in := stack.Input()
	in.Target.Spec.KubernetesVersion, in.Target.Spec.AutoUpgrade = "1.32", true
	stack.RunInput(t, in, mockrun.Options{State: cloudState, Invoke: record})
	if len(invoked) == 0 {
		t.Fatal("the module invoked nothing")
	}
	for token := range invoked {
		if !strings.Contains(string(page), "`"+token+"`") {
			t.Errorf("docs/sdks.md's Use from Go does not name %s, which the module invokes", token)
		}
	}
}

func TestEchoingMocksReadAsANewCluster(t *testing.T) {
	in := stack.Input()
	echo := func(_ string, args resource.PropertyMap) (resource.PropertyMap, error) { return args, nil }
	p := stack.RunInput(t, in, mockrun.Options{Invoke: echo})
	if got := moduletest.MustFind(t, p, clusterType, "prod-fra1").Inputs["version"]; got != "1.31.1-do.5" {
		t.Errorf("version = %v, want the manifest's", got)
	}
}

func TestUnderMocksTheRegistryIsNeverAskedForSoPlansStayOffline(t *testing.T) {
	asked := false
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		asked = true
		w.WriteHeader(http.StatusNotFound)
	}))
	defer server.Close()
	t.Setenv("DIGITALOCEAN_TOKEN", "dop_v1_mock")
	t.Setenv("DIGITALOCEAN_API_URL", server.URL)
	in := stack.Input()
	in.Target.Spec.RegistryIntegration = true
	stack.RunInput(t, in, mockrun.Options{Preview: true})
	if asked {
		t.Error("a mocked run asked DigitalOcean's API for the registry")
	}
}

func TestTheLiveVersionIsReadEvenThoughTheLookupAnswersWithASecretKubeconfig(t *testing.T) {
	// The provider marks the looked-up cluster's kubeconfig secret (the real engine showed it):
	// a typed lookup of the whole answer fails on it.
	answer := func(token string, args resource.PropertyMap) (resource.PropertyMap, error) {
		if token != lookupToken {
			return nil, nil
		}
		return resource.PropertyMap{
			"name":        args["name"],
			"version":     resource.NewProperty("1.32.2-do.1"),
			"kubeConfigs": resource.MakeSecret(resource.NewProperty([]resource.PropertyValue{resource.NewProperty("raw")})),
		}, nil
	}
	in := stack.Input()
	_, err := moduletest.RunBody(t, func(ctx *pulumi.Context) error { return module.Resources(ctx, in) },
		mockrun.Options{State: cloudState, Invoke: answer})
	if err == nil || !strings.Contains(err.Error(), "older than the version the cluster runs, 1.32.2-do.1") {
		t.Fatalf("error = %v, want the live version read and the older manifest refused", err)
	}
}
