package module_test

import (
	"encoding/json"
	"github.com/clusterplane/clusterplane/apis/clusterplane/stackoutputs"
	"slices"
	"strings"
	"testing"

	clusterv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetescluster/v1"
	nodepoolv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetesnodepool/v1"
	civov1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	clustermodule "github.com/clusterplane/clusterplane/iac/pulumi/civokubernetescluster/module"
	"github.com/clusterplane/clusterplane/iac/pulumi/civokubernetesnodepool/module"
	"github.com/clusterplane/clusterplane/internal/testing/moduletest"
	"github.com/clusterplane/clusterplane/pkg/pulumi/mockrun"
	"github.com/clusterplane/clusterplane/sdk/go/clusterplane"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// Type tokens of what the modules register.
const (
	nodePoolType         = "clusterplane:civo:NodePool"
	clusterType          = "civo:index/kubernetesCluster:KubernetesCluster"
	firewallType         = "civo:index/firewall:Firewall"
	providerType         = "pulumi:providers:clusterplane"
	componentType        = "clusterplane:civo:KubernetesNodePool"
	clusterComponentType = "clusterplane:civo:KubernetesCluster"
)

// The manifest name every child of the stack program is named after, and references to it.
const (
	name         = "prod-fra1-gpu"
	poolName     = "gpu"
	clusterID    = "cl-5e2b7a90"
	clusterStack = "organization/civokubernetescluster/prod-fra1"
)

// clusterRef points at the cluster stack "organization/civokubernetescluster/prod-fra1".
func clusterRef() *sharedv1.StringValueOrRef {
	return sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "CivoKubernetesCluster", Name: "prod", Env: "fra1"})
}

// minimalSpec is the smallest valid spec; its node_pool_name differs from the manifest name so
// that tests tell the two apart.
func minimalSpec() *nodepoolv1.CivoKubernetesNodePoolSpec {
	return &nodepoolv1.CivoKubernetesNodePoolSpec{
		NodePoolName: poolName,
		Cluster:      sharedv1.StringValue(clusterID),
		Region:       "fra1",
		Size:         "g4s.kube.large",
		NodeCount:    2,
	}
}

// stack runs the stack program on the minimal manifest; Isolate clears the variables the provider
// falls back to.
var stack = moduletest.Stack[*nodepoolv1.CivoKubernetesNodePoolStackInput, *nodepoolv1.CivoKubernetesNodePoolSpec]{
	APIVersion: "civo.clusterplane.dev/v1", Kind: "CivoKubernetesNodePool", Name: name, Spec: minimalSpec,
	Resources: module.Resources, Env: []string{"CIVO_TOKEN", "CIVO_API_URL"},
}

func TestResourcesRegistersExactlyAProviderAComponentAndANodePool(t *testing.T) {
	p := stack.Run(t, mockrun.Options{})
	stack.AssertTree(t, p, componentType, providerType, nodePoolType)
}

func TestResourcesPutsThePoolAndItsProviderInThePoolsRegion(t *testing.T) {
	stack.EachRegion(t, func(t *testing.T, region string, p *mockrun.Result) {
		moduletest.AssertEqual(t, "provider inputs", moduletest.MustFind(t, p, providerType, name).Inputs,
			map[string]any{"civoRegion": region})
		if got := moduletest.MustFind(t, p, nodePoolType, name).Inputs["region"]; got != region {
			t.Errorf("node pool region = %#v, want %s", got, region)
		}
	}, "lon1", "fra1", "nyc1", "phx1", "mum1")
}

func TestResourcesSendsEveryPoolArgumentExactly(t *testing.T) {
	tests := []struct {
		name string
		edit func(*nodepoolv1.CivoKubernetesNodePoolSpec)
		want map[string]any
	}{
		{
			name: "a minimal pool",
			want: map[string]any{
				"clusterId": clusterID, "nodePoolName": poolName, "region": "fra1", "size": "g4s.kube.large", "nodeCount": 2.0,
				"autoScale": false, "labels": map[string]any{}, "taints": []any{}, "publicIpNodePool": false,
			},
		},
		{
			name: "labels, taints and public IPs",
			edit: func(s *nodepoolv1.CivoKubernetesNodePoolSpec) {
				s.NodeCount = 3
				s.Labels = map[string]string{"workload": "gpu", "example.com/accelerator": "a100"}
				s.Taints = moduletest.Taints()
				s.PublicIpNodePool = true
			},
			want: map[string]any{
				"clusterId": clusterID, "nodePoolName": poolName, "region": "fra1", "size": "g4s.kube.large", "nodeCount": 3.0,
				"autoScale":        false,
				"labels":           map[string]any{"workload": "gpu", "example.com/accelerator": "a100"},
				"taints":           moduletest.TaintInputs(),
				"publicIpNodePool": true,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := stack.Run(t, mockrun.Options{}, func(in *nodepoolv1.CivoKubernetesNodePoolStackInput) {
				if tt.edit != nil {
					tt.edit(in.Target.Spec)
				}
			})
			moduletest.AssertEqual(t, "node pool inputs", moduletest.MustFind(t, p, nodePoolType, name).Inputs, tt.want)
		})
	}
}

func TestResourcesSendsTheNodeCountAndAutoScaleForThePluginToUpdateAndIgnoresNothing(t *testing.T) {
	type spec = nodepoolv1.CivoKubernetesNodePoolSpec
	// The plugin updates the count in place; with autoScale it leaves the count to the
	// autoscaler (iac/pulumi/civokubernetesnodepool/poolresource's Diff), so the module ignores nothing itself.
	stack.Sends(t, nodePoolType, []moduletest.SpecCase[*spec]{
		{Name: "without auto_scale", Edit: func(s *spec) { s.NodeCount = 2 },
			Want: map[string]any{"nodeCount": 2, "autoScale": false}},
		{Name: "with auto_scale", Edit: func(s *spec) { s.AutoScale, s.NodeCount, s.MinNodes, s.MaxNodes = true, 2, 1, 5 },
			Want: map[string]any{"nodeCount": 2, "autoScale": true}},
		{Name: "with auto_scale and fixed bounds", Edit: func(s *spec) { s.AutoScale, s.NodeCount, s.MinNodes, s.MaxNodes = true, 3, 3, 3 },
			Want: map[string]any{"nodeCount": 3, "autoScale": true}},
	}, func(t *testing.T, pool mockrun.Resource) {
		// Civo keeps no bounds on a pool (the autoscaler's --nodes flag does): none are sent.
		for key := range pool.Inputs {
			lower := strings.ToLower(key)
			if strings.Contains(lower, "min") || strings.Contains(lower, "max") {
				t.Errorf("node pool has input %q, want no min/max inputs", key)
			}
		}
	})
}

func TestResourcesTakesALiteralClusterIDWithoutAStackReference(t *testing.T) {
	p := stack.Run(t, mockrun.Options{})
	if refs := p.OfType(mockrun.StackReferenceType); len(refs) != 0 {
		t.Errorf("registered stack references %v, want none", moduletest.Registered(p))
	}
	if got := moduletest.MustFind(t, p, nodePoolType, name).Inputs["clusterId"]; got != clusterID {
		t.Errorf("node pool clusterId = %#v, want %q", got, clusterID)
	}
}

func TestResourcesReadsTheClusterIDFromTheClusterStack(t *testing.T) {
	stack.EachRef(t, moduletest.RefField{Field: "cluster", RefName: name + "-cluster", Component: componentType}, []moduletest.RefCase{
		{
			Name:    "the cluster_id output of the conventional stack by default",
			Ref:     clusterRef(),
			Stack:   clusterStack,
			Outputs: map[string]any{"cluster_id": "cl-from-stack", "network_id": "wrong"},
			Want:    "cl-from-stack",
		},
		{
			Name: "the output a field path names",
			Ref: sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "CivoKubernetesCluster", Name: "prod", Env: "fra1",
				FieldPath: "status.outputs.network_id"}),
			Stack:   clusterStack,
			Outputs: map[string]any{"cluster_id": "wrong", "network_id": "cl-blue"},
			Want:    "cl-blue",
		},
		{
			Name:    "in the configured organization",
			Ref:     clusterRef(),
			Config:  map[string]string{"clusterplane:stackReferenceOrganization": "acme"},
			Stack:   "acme/civokubernetescluster/prod-fra1",
			Outputs: map[string]any{"cluster_id": "cl-acme"},
			Want:    "cl-acme",
		},
	}, func(t *testing.T, tt moduletest.RefCase, p *mockrun.Result) {
		if got := moduletest.MustFind(t, p, nodePoolType, name).Inputs["clusterId"]; got != tt.Want {
			t.Errorf("node pool clusterId = %#v, want %q", got, tt.Want)
		}
	})
}

func TestResourcesFailsNamingTheStackAndTheOutputWhenTheClusterStackLacksIt(t *testing.T) {
	tests := []struct {
		name    string
		outputs map[string]any
	}{
		{name: "no cluster_id output", outputs: map[string]any{"network_id": "net-1"}},
		{name: "an empty cluster_id output", outputs: map[string]any{"cluster_id": ""}},
		{name: "a cluster_id output that is not a string", outputs: map[string]any{"cluster_id": 42.0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stack.Isolate(t)
			in := stack.Input(func(in *nodepoolv1.CivoKubernetesNodePoolStackInput) { in.Target.Spec.Cluster = clusterRef() })
			_, err := stack.RunErr(in, mockrun.Options{Stacks: map[string]map[string]any{clusterStack: tt.outputs}})
			moduletest.AssertMissingOutput(t, err, clusterStack, "cluster_id")
		})
	}
}

func TestResourcesInAPreviewWithoutTheClusterStackLeavesTheClusterIDUnknown(t *testing.T) {
	stack.Isolate(t)
	in := stack.Input(func(in *nodepoolv1.CivoKubernetesNodePoolStackInput) { in.Target.Spec.Cluster = clusterRef() })
	p := stack.RunInput(t, in, mockrun.Options{Preview: true})

	moduletest.AssertUnknown(t, moduletest.MustFind(t, p, nodePoolType, name), "clusterId")
	if got := moduletest.MustFind(t, p, mockrun.StackReferenceType, name+"-cluster").Inputs["name"]; got != clusterStack {
		t.Errorf("stack reference name = %v, want %q", got, clusterStack)
	}
}

// poolState gives the pool the values the cloud computes.
func poolState(typ, _ string, _ resource.PropertyMap) resource.PropertyMap {
	if typ != nodePoolType {
		return nil
	}
	return resource.NewPropertyMapFromMap(map[string]any{
		"instanceNames": []any{"k3s-gpu-1a2b-node-0", "k3s-gpu-1a2b-node-1"},
	})
}

func TestResourcesExportsTheNodePoolIDAndTheInstanceNames(t *testing.T) {
	p := stack.Run(t, mockrun.Options{State: poolState})
	moduletest.AssertEqual(t, "output names", moduletest.OutputNames(p), []string{"instance_names", "node_pool_id"})

	if out := p.Outputs[stackoutputs.CivoKubernetesNodePoolNodePoolID]; out.Value != name+"-id" || out.Secret {
		t.Errorf("output node_pool_id = %#v (secret %t), want plain %q", out.Value, out.Secret, name+"-id")
	}
	out := p.Outputs[stackoutputs.CivoKubernetesNodePoolInstanceNames]
	if out.Secret || !out.Known {
		t.Errorf("output instance_names secret %t known %t, want plain and known", out.Secret, out.Known)
	}
	got, err := json.Marshal(out.Value)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != `["k3s-gpu-1a2b-node-0","k3s-gpu-1a2b-node-1"]` {
		t.Errorf("output instance_names = %s, want the state's instance names", got)
	}
}

func TestResourcesGivesTheProviderTheTokenOnlyAsASecret(t *testing.T) {
	token := moduletest.TokenSecret{EnvVar: "CIVO_TOKEN", Type: providerType, Key: "civoToken", Opts: mockrun.Options{State: poolState}}
	moduletest.CheckTokens(t, stack, token, []moduletest.TokenCase[*civov1.CivoProviderConfig]{
		{Name: "the provider config's token", Config: &civov1.CivoProviderConfig{ApiToken: moduletest.ConfigToken}, Want: moduletest.ConfigToken},
		{Name: "CIVO_TOKEN when the config is empty", Config: &civov1.CivoProviderConfig{}, Env: moduletest.EnvToken, Want: moduletest.EnvToken},
		{Name: "the config's token over CIVO_TOKEN", Config: &civov1.CivoProviderConfig{ApiToken: moduletest.ConfigToken},
			Env: moduletest.EnvToken, Want: moduletest.ConfigToken},
	})
}

func TestResourcesRejectsAnInvalidStackInputNamingTheFieldAndRegistersNothing(t *testing.T) {
	type input = *nodepoolv1.CivoKubernetesNodePoolStackInput
	spec := func(edit func(*nodepoolv1.CivoKubernetesNodePoolSpec)) func(input) {
		return func(in input) { edit(in.Target.Spec) }
	}
	moduletest.InputRejects[input]{Resources: module.Resources, Setup: stack.Isolate,
		Valid: func() input { return stack.Input() },
	}.Check(t, []moduletest.InvalidInput[input]{
		{Name: "a pool without nodes", Field: "target.spec.node_count", RuleID: "int32.gte_lte",
			Edit: spec(func(s *nodepoolv1.CivoKubernetesNodePoolSpec) { s.NodeCount = 0 })},
		{Name: "no cluster", Field: "target.spec.cluster", RuleID: "required",
			Edit: spec(func(s *nodepoolv1.CivoKubernetesNodePoolSpec) { s.Cluster = nil })},
		{Name: "no region", Field: "target.spec.region", RuleID: "required",
			Edit: spec(func(s *nodepoolv1.CivoKubernetesNodePoolSpec) { s.Region = "" })},
		{Name: "an upper-case pool name", Field: "target.spec.node_pool_name", RuleID: "string.pattern",
			Edit: spec(func(s *nodepoolv1.CivoKubernetesNodePoolSpec) { s.NodePoolName = "GPU" })},
		{Name: "a lower bound without auto_scale", Field: "target.spec.min_nodes", RuleID: "min_nodes.needs_auto_scale",
			Edit: spec(func(s *nodepoolv1.CivoKubernetesNodePoolSpec) { s.MinNodes = 1 })},
	})
}

func TestResourcesMakesEveryChildAnswerToTheURNsItHadAtTheStackRootAndAsTheCivoProvidersResource(t *testing.T) {
	p := stack.Run(t, mockrun.Options{})
	for typ, old := range map[string]string{
		providerType: "pulumi:providers:civo",
		nodePoolType: "civo:index/kubernetesNodePool:KubernetesNodePool",
	} {
		t.Run(typ, func(t *testing.T) {
			moduletest.AssertEqual(t, "aliases", aliases(moduletest.MustFind(t, p, typ, name)), []string{
				"noParent", "type=" + old, "type=" + old + " noParent",
			})
		})
	}
	// The component is new: it has no earlier URN to answer to.
	moduletest.AssertNoAliases(t, moduletest.MustFind(t, p, componentType, name))
}

func clusterSpec(clusterName string, region string) *clusterv1.CivoKubernetesClusterSpec {
	return &clusterv1.CivoKubernetesClusterSpec{
		ClusterName:       clusterName,
		Region:            region,
		KubernetesVersion: "1.30.5-k3s1",
		DefaultNodePool:   &clusterv1.CivoKubernetesClusterDefaultNodePool{Size: "g4s.kube.medium", NodeCount: 1},
	}
}

// poolSpecWithoutCluster is a pool spec whose cluster comes from WithClusterID.
func poolSpecWithoutCluster(region string) *nodepoolv1.CivoKubernetesNodePoolSpec {
	spec := minimalSpec()
	spec.Cluster = nil
	spec.Region = region
	return spec
}

func TestNewJoinsEachPoolToItsOwnClusterInOneProgram(t *testing.T) {
	stack.Isolate(t)
	regions := map[string]string{"alpha": "fra1", "beta": "lon1"}
	p, err := moduletest.RunBody(t, func(ctx *pulumi.Context) error {
		for _, c := range []string{"alpha", "beta"} {
			cl, err := clustermodule.New(ctx, c, clusterSpec(c, regions[c]),
				clustermodule.WithNetworkID(pulumi.String("net-"+c)))
			if err != nil {
				return err
			}
			if _, err := module.New(ctx, c+"-gpu", poolSpecWithoutCluster(regions[c]),
				module.WithClusterID(cl.ClusterID)); err != nil {
				return err
			}
		}
		return nil
	}, mockrun.Options{})
	if err != nil {
		t.Fatalf("New() error = %v", err)
	}
	seen := map[string]bool{}
	for _, r := range moduletest.Registered(p) {
		if seen[r] {
			t.Errorf("%s registered twice", r)
		}
		seen[r] = true
	}
	if refs := p.OfType(mockrun.StackReferenceType); len(refs) != 0 {
		t.Errorf("registered stack references %v, want none", moduletest.Registered(p))
	}
	for c, region := range regions {
		pool := moduletest.MustFind(t, p, nodePoolType, c+"-gpu")
		if got := pool.Inputs["clusterId"]; got != c+"-id" {
			t.Errorf("%s-gpu clusterId = %#v, want %s's id %q", c, got, c, c+"-id")
		}
		want := clusterType + "::" + c
		deps := moduletest.PropertyDependencies(pool, "clusterId")
		if len(deps) != 1 || mockrun.ShortURN(deps[0]) != want {
			t.Errorf("%s-gpu clusterId depends on %v, want only %s", c, deps, want)
		}
		if !slices.Contains(pool.DependsOn, want) {
			t.Errorf("%s-gpu depends on %v, want %s among them", c, pool.DependsOn, want)
		}
		if got := moduletest.MustFind(t, p, providerType, c+"-gpu").Inputs["civoRegion"]; got != region {
			t.Errorf("%s-gpu provider region = %v, want %s", c, got, region)
		}
		moduletest.AssertParent(t, pool, componentType+"::"+c+"-gpu")
		moduletest.AssertParent(t, moduletest.MustFind(t, p, clusterType, c), clusterComponentType+"::"+c)
	}
}

func TestNewWithAProviderUsesItAndCreatesNone(t *testing.T) {
	stack.Isolate(t)
	p := moduletest.RunWithProvider(t, mockrun.Options{}, func(ctx *pulumi.Context, name string) (*clusterplane.Provider, error) {
		return clusterplane.NewProvider(ctx, name, &clusterplane.ProviderArgs{CivoRegion: pulumi.StringPtr("fra1")})
	}, func(ctx *pulumi.Context, shared *clusterplane.Provider) error {
		_, err := module.New(ctx, "pool", poolSpecWithoutCluster("fra1"),
			module.WithProvider(shared), module.WithClusterID(pulumi.String(clusterID)))
		return err
	})
	moduletest.AssertProviders(t, p, providerType, "shared")
	pool := moduletest.MustFind(t, p, nodePoolType, "pool")
	moduletest.AssertProvider(t, pool, providerType+"::shared")
	if got := pool.Inputs["clusterId"]; got != clusterID {
		t.Errorf("node pool clusterId = %#v, want %q", got, clusterID)
	}
	if got := pool.Inputs["region"]; got != "fra1" {
		t.Errorf("node pool region = %#v, want fra1", got)
	}
	// New is for programs, not the stack programs: no aliases to root URNs, only the one that
	// takes over a pool the civo provider managed.
	moduletest.AssertEqual(t, "pool aliases", aliases(pool), []string{"type=civo:index/kubernetesNodePool:KubernetesNodePool"})
	moduletest.AssertNoAliases(t, moduletest.MustFind(t, p, componentType, "pool"))
}

// aliases are a resource's alias specs in words: "noParent", "type=T", "type=T noParent".
func aliases(r mockrun.Resource) []string {
	out := []string{}
	for _, a := range r.Request.GetAliases() {
		var words []string
		if typ := a.GetSpec().GetType(); typ != "" {
			words = append(words, "type="+typ)
		}
		if a.GetSpec().GetNoParent() {
			words = append(words, "noParent")
		}
		out = append(out, strings.Join(words, " "))
	}
	return out
}

func TestNewWithAnInvalidSpecReturnsTheSpecRelativeFieldPathAndRegistersNothing(t *testing.T) {
	tests := []moduletest.InvalidSpec[*nodepoolv1.CivoKubernetesNodePoolSpec, module.Option]{
		{Name: "a pool without nodes", Field: "node_count",
			Edit: func(s *nodepoolv1.CivoKubernetesNodePoolSpec) { s.NodeCount = 0 }},
		{Name: "no cluster and no WithClusterID", Field: "cluster",
			Edit: func(s *nodepoolv1.CivoKubernetesNodePoolSpec) { s.Cluster = nil }},
		{Name: "a bad taint key despite WithClusterID", Field: "taints[0].key",
			Edit: func(s *nodepoolv1.CivoKubernetesNodePoolSpec) {
				s.Cluster = nil
				s.Taints = []*sharedv1.Taint{{Key: "bad key", Effect: sharedv1.TaintEffect_NoSchedule}}
			},
			Opts: []module.Option{module.WithClusterID(pulumi.String(clusterID))}},
	}
	moduletest.NewRejects[*nodepoolv1.CivoKubernetesNodePoolSpec, module.Option, *module.NodePool]{
		Kind: "CivoKubernetesNodePool", Name: "pool", New: module.New, Valid: minimalSpec, Setup: stack.Isolate,
	}.Run(t, tests)
}

func TestResourcesBoundsThePluginsWaitsByTheManifestsTimeout(t *testing.T) {
	tests := []struct {
		name    string
		minutes int32
		want    *pulumirpc.RegisterResourceRequest_CustomTimeouts
	}{
		{name: "unset leaves the plugin's default", minutes: 0},
		{name: "40 minutes bound creating, changing and deleting", minutes: 40,
			want: &pulumirpc.RegisterResourceRequest_CustomTimeouts{Create: "40m", Update: "40m", Delete: "40m"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := stack.Run(t, mockrun.Options{}, func(in *nodepoolv1.CivoKubernetesNodePoolStackInput) {
				in.Target.Spec.WaitTimeoutMinutes = tt.minutes
			})
			got := moduletest.MustFind(t, p, nodePoolType, name).Request.GetCustomTimeouts()
			if got.GetCreate() != tt.want.GetCreate() || got.GetUpdate() != tt.want.GetUpdate() || got.GetDelete() != tt.want.GetDelete() {
				t.Errorf("custom timeouts = %v, want %v", got, tt.want)
			}
		})
	}
}
