package module_test

import (
	"github.com/clusterplane/clusterplane/apis/clusterplane/stackoutputs"
	"slices"
	"strings"
	"testing"

	clusterv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	digitaloceanv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	cluster "github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetescluster/module"
	"github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetesnodepool/module"
	"github.com/clusterplane/clusterplane/internal/testing/moduletest"
	"github.com/clusterplane/clusterplane/pkg/pulumi/mockrun"
	"github.com/pulumi/pulumi-digitalocean/sdk/v4/go/digitalocean"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

const (
	poolType      = "digitalocean:index/kubernetesNodePool:KubernetesNodePool"
	clusterType   = "digitalocean:index/kubernetesCluster:KubernetesCluster"
	providerType  = "pulumi:providers:digitalocean"
	componentType = "clusterplane:digitalocean:KubernetesNodePool"
	// clusterStack is the stack a reference to the cluster manifest "prod" in env "fra1" reads.
	clusterStack = "organization/digitaloceankubernetescluster/prod-fra1"
)

func minimalSpec(poolName string, clusterRef *sharedv1.StringValueOrRef) *v1.DigitalOceanKubernetesNodePoolSpec {
	return &v1.DigitalOceanKubernetesNodePoolSpec{
		NodePoolName: poolName,
		Cluster:      clusterRef,
		Size:         "s-2vcpu-4gb",
		NodeCount:    2,
	}
}

// clusterRef references the cluster manifest "prod" in env "fra1", read from fieldPath.
func clusterRef(fieldPath string) *sharedv1.StringValueOrRef {
	return sharedv1.StringValueFrom(&sharedv1.ValueFromRef{
		Kind: "DigitalOceanKubernetesCluster", Env: "fra1", Name: "prod", FieldPath: fieldPath,
	})
}

// stack runs the stack program on the minimal manifest, a fixed pool of two on a literal cluster
// id, answering with cloudState unless a run's options name their own.
var stack = moduletest.Stack[*v1.DigitalOceanKubernetesNodePoolStackInput, *v1.DigitalOceanKubernetesNodePoolSpec]{
	APIVersion: "digitalocean.clusterplane.dev/v1", Kind: "DigitalOceanKubernetesNodePool", Name: "workers",
	Resources: module.Resources, State: cloudState,
	Spec: func() *v1.DigitalOceanKubernetesNodePoolSpec {
		return minimalSpec("workers", sharedv1.StringValue("b6a1c2d3-cluster"))
	},
}

// cloudState is what DigitalOcean computes after creation: a pool's nodes, a cluster's kubeconfig.
func cloudState(typ, name string, _ resource.PropertyMap) resource.PropertyMap {
	switch typ {
	case poolType:
		return resource.NewPropertyMapFromMap(map[string]any{"nodes": []any{
			map[string]any{"id": "node-1", "name": name + "-a1", "status": "running"},
			map[string]any{"id": "node-2", "name": name + "-a2", "status": "running"},
		}})
	case clusterType:
		return resource.NewPropertyMapFromMap(map[string]any{
			"kubeConfigs": []any{map[string]any{"rawConfig": "apiVersion: v1\nkind: Config\n"}}})
	}
	return nil
}

func sameStrings(got, want []string) bool {
	return slices.Equal(got, want) || (len(got) == 0 && len(want) == 0)
}

func TestMinimalNodePoolRegistersExactlyProviderComponentAndPoolOnTheLiteralCluster(t *testing.T) {
	p := stack.Run(t, mockrun.Options{})
	stack.AssertTree(t, p, componentType, providerType, poolType)
	// Without auto_scale or a cluster reference.
	moduletest.AssertMinimal(t, moduletest.MustFind(t, p, poolType, "workers"), map[string]any{
		"clusterId": "b6a1c2d3-cluster",
		"name":      "workers",
		"size":      "s-2vcpu-4gb",
		"nodeCount": 2,
		"labels":    map[string]any{},
		"taints":    []any{},
		"tags":      []string{"resource-kind:DigitalOceanKubernetesNodePool", "resource-name:workers"},
	})
}

func TestNodePoolArguments(t *testing.T) {
	type spec = v1.DigitalOceanKubernetesNodePoolSpec
	stack.Sends(t, poolType, []moduletest.SpecCase[*spec]{
		{Name: "a fixed-size pool sends its node count, no autoscaling bounds and ignores nothing",
			Edit: func(*spec) {},
			Want: map[string]any{"nodeCount": 2, "autoScale": moduletest.Absent,
				"minNodes": moduletest.Absent, "maxNodes": moduletest.Absent}},
		{Name: "an autoscaling pool sends autoScale with min and max and ignores nodeCount",
			Edit:          func(s *spec) { s.AutoScale, s.MinNodes, s.NodeCount, s.MaxNodes = true, 1, 3, 6 },
			Want:          map[string]any{"autoScale": true, "minNodes": 1, "maxNodes": 6, "nodeCount": 3},
			IgnoreChanges: []string{"nodeCount"}},
		{Name: "an autoscaling pool without a node count sends no node count",
			Edit:          func(s *spec) { s.AutoScale, s.MinNodes, s.NodeCount, s.MaxNodes = true, 2, 0, 4 },
			Want:          map[string]any{"autoScale": true, "minNodes": 2, "maxNodes": 4, "nodeCount": moduletest.Absent},
			IgnoreChanges: []string{"nodeCount"}},
		{Name: "name, size, labels and taints are passed through",
			Edit: func(s *spec) {
				s.NodePoolName = "gpu"
				s.Size = "gpu-h100x1-80gb"
				s.Labels = map[string]string{"workload": "gpu", "nvidia.com/gpu.present": "true"}
				s.Taints = moduletest.Taints()
			},
			Want: map[string]any{
				"name":   "gpu",
				"size":   "gpu-h100x1-80gb",
				"labels": map[string]any{"workload": "gpu", "nvidia.com/gpu.present": "true"},
				"taints": moduletest.TaintInputs(),
			}},
		{Name: "user tags follow the derived standard tags",
			Edit: func(s *spec) { s.Tags = []string{"team-ml", "resource-name:workers"} },
			Want: map[string]any{"tags": []string{"resource-kind:DigitalOceanKubernetesNodePool", "resource-name:workers", "team-ml"}}},
	})
}

func TestNodePoolTagsDeriveFromMetadataAndALabelOverridesADerivedTag(t *testing.T) {
	input := stack.Input()
	input.Target.Metadata = &sharedv1.CloudResourceMetadata{Name: "workers", Id: "np-7", Org: "acme", Env: "prod",
		Labels: map[string]string{"organization": "acme-eu"}}
	input.Target.Spec.Tags = []string{"team-ml"}
	pool := moduletest.MustFind(t, stack.RunInput(t, input, mockrun.Options{}), poolType, "workers")
	moduletest.AssertInputs(t, pool.Inputs, map[string]any{"tags": []string{
		"environment:prod", "organization:acme-eu", "resource-id:np-7",
		"resource-kind:DigitalOceanKubernetesNodePool", "resource-name:workers", "team-ml",
	}})
}

func TestNodePoolClusterFromAnotherStack(t *testing.T) {
	stack.EachRef(t, moduletest.RefField{Field: "cluster", RefName: "workers-cluster", Component: componentType}, []moduletest.RefCase{
		{Name: "without a field path the cluster stack's cluster_id is read", Ref: clusterRef(""),
			Stack: clusterStack, Outputs: map[string]any{"cluster_id": "cluster-from-cluster-id", "other": "wrong"},
			Want: "cluster-from-cluster-id"},
		{Name: "a field path status.outputs.cluster_urn reads cluster_urn", Ref: clusterRef("status.outputs.cluster_urn"),
			Stack: clusterStack, Outputs: map[string]any{"cluster_id": "wrong", "cluster_urn": "cluster-from-other"},
			Want: "cluster-from-other"},
		{Name: "the stackReferences config names the stack to read instead of the convention", Ref: clusterRef(""),
			Config: map[string]string{"clusterplane:stackReferences": `{"prod": "acme/clusters/prod"}`},
			Stack:  "acme/clusters/prod", Outputs: map[string]any{"cluster_id": "cluster-from-config"},
			Want: "cluster-from-config"},
	}, func(t *testing.T, tt moduletest.RefCase, p *mockrun.Result) {
		pool := moduletest.MustFind(t, p, poolType, "workers")
		moduletest.AssertInputs(t, pool.Inputs, map[string]any{"clusterId": tt.Want})
		if !slices.Contains(pool.DependsOn, mockrun.StackReferenceType+"::workers-cluster") {
			t.Errorf("pool dependsOn = %v, want the stack reference", pool.DependsOn)
		}
	})
}

func TestNodePoolFailsNamingTheStackAndOutputWhenTheClusterStackLacksTheOutput(t *testing.T) {
	input := stack.Input()
	input.Target.Spec.Cluster = clusterRef("")
	_, err := stack.RunErr(input, mockrun.Options{
		Stacks: map[string]map[string]any{clusterStack: {"kubeconfig": "not the id"}},
	})
	if err == nil {
		t.Fatal("mockrun.Run succeeded with a cluster stack that has no cluster_id")
	}
	for _, want := range []string{`"` + clusterStack + `"`, `"cluster_id"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
}

func TestNodePoolPreviewWithoutTheClusterStackLeavesTheClusterIdUnknown(t *testing.T) {
	input := stack.Input()
	input.Target.Spec.Cluster = clusterRef("")
	p := stack.RunInput(t, input, mockrun.Options{Preview: true})

	moduletest.AssertInputs(t, moduletest.MustFind(t, p, mockrun.StackReferenceType, "workers-cluster").Inputs,
		map[string]any{"name": clusterStack})
	moduletest.AssertUnknown(t, moduletest.MustFind(t, p, poolType, "workers"), "clusterId")
	for _, name := range []string{stackoutputs.DigitalOceanKubernetesNodePoolNodePoolID, stackoutputs.DigitalOceanKubernetesNodePoolNodeIDs, stackoutputs.DigitalOceanKubernetesNodePoolNodeNames} {
		if out, ok := p.Outputs[name]; !ok || out.Known {
			t.Errorf("output %s = %+v (exported %t), want it unknown in a preview", name, out, ok)
		}
	}
}

func TestNodePoolExportsItsIdAndNodesFromTheCloudState(t *testing.T) {
	p := stack.Run(t, mockrun.Options{})

	want := map[string]any{
		"node_pool_id": "workers-id",
		"node_ids":     []string{"node-1", "node-2"},
		"node_names":   []string{"workers-a1", "workers-a2"},
	}
	if len(p.Outputs) != len(want) {
		t.Errorf("exported %d outputs, want %d", len(p.Outputs), len(want))
	}
	for name, value := range want {
		out, ok := p.Outputs[name]
		switch {
		case !ok:
			t.Errorf("output %s is not exported", name)
		case moduletest.JSON(out.Value) != moduletest.JSON(value):
			t.Errorf("output %s = %s, want %s", name, moduletest.JSON(out.Value), moduletest.JSON(value))
		case out.Secret:
			t.Errorf("output %s is a secret, want it plain", name)
		}
	}
}

func TestNodePoolProviderTokenIsASecretFromTheConfigOrTheEnvironment(t *testing.T) {
	type config = *digitaloceanv1.DigitalOceanProviderConfig
	token := moduletest.TokenSecret{EnvVar: "DIGITALOCEAN_TOKEN", Type: providerType, Key: "token"}
	moduletest.CheckTokens(t, stack, token, []moduletest.TokenCase[config]{
		{Name: "the provider config's token is a secret", Config: &digitaloceanv1.DigitalOceanProviderConfig{ApiToken: moduletest.ConfigToken}},
		{Name: "DIGITALOCEAN_TOKEN is a secret when the config has none", Config: &digitaloceanv1.DigitalOceanProviderConfig{}, Env: moduletest.EnvToken},
	})
}

func TestNodePoolRejectsAnInvalidStackInputBeforeRegisteringAnything(t *testing.T) {
	type input = *v1.DigitalOceanKubernetesNodePoolStackInput
	moduletest.InputRejects[input]{Resources: module.Resources, Valid: func() input { return stack.Input() }}.Check(t, []moduletest.InvalidInput[input]{
		{Name: "a pool without a cluster names spec.cluster",
			Edit: func(in input) { in.Target.Spec.Cluster = nil }, Field: "target.spec.cluster"},
		{Name: "a taint without an effect names its effect",
			Edit: func(in input) {
				in.Target.Spec.Taints = []*sharedv1.Taint{{Key: "gpu", Value: "true"}}
			}, Field: "target.spec.taints[0].effect"},
	})
}

func TestNodePoolStackChildrenAnswerToTheURNsTheyHadBeforeComponents(t *testing.T) {
	p := stack.Run(t, mockrun.Options{})

	// Before components, the program created the provider and the pool at the stack's root,
	// both named metadata.name; the names and types must not have moved.
	for _, typ := range []string{providerType, poolType} {
		moduletest.AssertRootAlias(t, moduletest.MustFind(t, p, typ, "workers"))
	}
	// The component is new: it has no earlier URN to answer to.
	moduletest.AssertNoAliases(t, moduletest.MustFind(t, p, componentType, "workers"))
}

// runNew runs body, which calls New, under mocks answering with cloudState.
func runNew(t *testing.T, body pulumi.RunFunc) *mockrun.Result {
	t.Helper()
	return moduletest.Run(t, body, mockrun.Options{State: cloudState})
}

func TestNewTwoPoolsOnTwoClustersOfOneProgramJoinTheirClusterWithoutANameClash(t *testing.T) {
	p := runNew(t, func(ctx *pulumi.Context) error {
		for _, name := range []string{"blue", "green"} {
			c, err := cluster.New(ctx, name, &clusterv1.DigitalOceanKubernetesClusterSpec{
				ClusterName:       name,
				Region:            "fra1",
				KubernetesVersion: "1.31.1-do.5",
				DefaultNodePool:   &clusterv1.DigitalOceanKubernetesClusterDefaultNodePool{Size: "s-2vcpu-4gb", NodeCount: 1},
			})
			if err != nil {
				return err
			}
			spec := minimalSpec("workers", nil)
			if _, err := module.New(ctx, name+"-workers", spec, module.WithClusterID(c.ClusterID)); err != nil {
				return err
			}
		}
		return nil
	})

	if got := len(p.Resources); got != 12 {
		t.Errorf("registered %v, want 12 resources (component, provider and cloud resource each)", moduletest.Registered(p))
	}
	if refs := p.OfType(mockrun.StackReferenceType); len(refs) != 0 {
		t.Errorf("registered stack references %v, want none", moduletest.Registered(&mockrun.Result{Resources: refs}))
	}
	for _, name := range []string{"blue", "green"} {
		poolName := name + "-workers"
		moduletest.MustFind(t, p, clusterType, name)
		pool := moduletest.MustFind(t, p, poolType, poolName)
		moduletest.AssertInputs(t, pool.Inputs, map[string]any{"clusterId": name + "-id", "name": "workers"})
		if !slices.Contains(pool.DependsOn, clusterType+"::"+name) {
			t.Errorf("%s dependsOn = %v, want its cluster", poolName, pool.DependsOn)
		}
		clusterURN := "urn:pulumi:plan::clusterplane::clusterplane:digitalocean:KubernetesCluster$" + clusterType + "::" + name
		if urns := moduletest.PropertyDependencies(pool, "clusterId"); !slices.Equal(urns, []string{clusterURN}) {
			t.Errorf("%s clusterId depends on %v, want [%s]", poolName, urns, clusterURN)
		}
		moduletest.AssertProvider(t, pool, providerType+"::"+poolName)
		moduletest.AssertParent(t, pool, componentType+"::"+poolName)
		// New is for programs, not the stack programs: no aliases to root URNs.
		moduletest.AssertNoAliases(t, pool)
	}
}

func TestNewUsesAProviderTheCallerGivesAndCreatesNone(t *testing.T) {
	tests := []struct {
		name string
		with func(p *digitalocean.Provider) module.Option
	}{
		{"given with WithProvider", module.WithProvider},
		{"given in the component's providers", func(p *digitalocean.Provider) module.Option {
			return module.WithResourceOptions(pulumi.Providers(p))
		}},
		{"given as the component's provider", func(p *digitalocean.Provider) module.Option {
			return module.WithResourceOptions(pulumi.Provider(p))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := moduletest.RunWithProvider(t, mockrun.Options{State: cloudState}, func(ctx *pulumi.Context, name string) (*digitalocean.Provider, error) {
				return digitalocean.NewProvider(ctx, name, &digitalocean.ProviderArgs{})
			}, func(ctx *pulumi.Context, shared *digitalocean.Provider) error {
				_, err := module.New(ctx, "workers", minimalSpec("workers", sharedv1.StringValue("b6a1c2d3-cluster")), tt.with(shared))
				return err
			})
			moduletest.AssertProviders(t, p, providerType, "shared")
			moduletest.AssertProvider(t, moduletest.MustFind(t, p, poolType, "workers"), providerType+"::shared")
		})
	}
}

func TestNewRejectsAnInvalidSpecNamingTheFieldAndRegistersNothing(t *testing.T) {
	tests := []struct {
		name      string
		spec      *v1.DigitalOceanKubernetesNodePoolSpec
		opts      []module.Option
		wantField string
	}{
		{"a taint without an effect is named relative to the spec",
			func() *v1.DigitalOceanKubernetesNodePoolSpec {
				s := minimalSpec("workers", sharedv1.StringValue("b6a1c2d3-cluster"))
				s.Taints = []*sharedv1.Taint{{Key: "gpu"}}
				return s
			}(), nil, "taints[0].effect"},
		{"a pool with neither a cluster nor WithClusterID names cluster",
			minimalSpec("workers", nil), nil, "cluster"},
		{"WithClusterID does not excuse other violations",
			func() *v1.DigitalOceanKubernetesNodePoolSpec {
				s := minimalSpec("workers", nil)
				s.Size = ""
				return s
			}(), []module.Option{module.WithClusterID(pulumi.String("b6a1c2d3-cluster"))}, "size"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var newErr error
			p := runNew(t, func(ctx *pulumi.Context) error {
				_, newErr = module.New(ctx, "workers", tt.spec, tt.opts...)
				return nil
			})
			if newErr == nil {
				t.Fatal("New accepted an invalid spec")
			}
			// Each violation is on its own line as "  <field path>: <message>".
			if !strings.Contains(newErr.Error(), "\n  "+tt.wantField+":") {
				t.Errorf("error %q does not name %s", newErr, tt.wantField)
			}
			moduletest.AssertNothingRegistered(t, p)
		})
	}
}
