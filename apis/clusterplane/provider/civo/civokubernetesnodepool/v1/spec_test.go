package civokubernetesnodepoolv1_test

import (
	"strings"
	"testing"

	pool "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetesnodepool/v1"
	civov1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/iac/pulumi/civokubernetesnodepool/module"
	"github.com/clusterplane/clusterplane/internal/testing/providerschema"
	"github.com/clusterplane/clusterplane/internal/testing/spectest"
	"github.com/clusterplane/clusterplane/pkg/manifest/validation"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// validCivoKubernetesNodePool is the smallest manifest that passes validation.
func validCivoKubernetesNodePool() *pool.CivoKubernetesNodePool {
	return &pool.CivoKubernetesNodePool{
		ApiVersion: "civo.clusterplane.dev/v1",
		Kind:       "CivoKubernetesNodePool",
		Metadata:   &sharedv1.CloudResourceMetadata{Name: "prod-fra1-gpu"},
		Spec: &pool.CivoKubernetesNodePoolSpec{
			NodePoolName: "gpu",
			Cluster:      sharedv1.StringValue("a1b2c3d4-0000-4000-8000-000000000001"),
			Region:       "fra1",
			Size:         "g4s.kube.large",
			NodeCount:    2,
		},
	}
}

func autoScale(min, count, max int32) func(*pool.CivoKubernetesNodePool) {
	return func(p *pool.CivoKubernetesNodePool) {
		p.Spec.AutoScale, p.Spec.MinNodes, p.Spec.NodeCount, p.Spec.MaxNodes = true, min, count, max
	}
}

func TestCivoKubernetesNodePoolAcceptsValidManifests(t *testing.T) {
	tests := []spectest.Acceptance[*pool.CivoKubernetesNodePool]{
		{Name: "a minimal pool with a literal cluster id is accepted", Mutate: func(*pool.CivoKubernetesNodePool) {}},
		{Name: "a region Civo may open tomorrow is accepted: the cloud decides", Mutate: func(p *pool.CivoKubernetesNodePool) { p.Spec.Region = "xyz9" }},
		{Name: "a pool with every field set is accepted", Mutate: func(p *pool.CivoKubernetesNodePool) {
			p.Metadata = &sharedv1.CloudResourceMetadata{Name: "prod-fra1-gpu", Id: "np-7", Org: "acme", Env: "prod",
				Labels: map[string]string{"team": "ml"}, Annotations: map[string]string{"owner": "ml team"}}
			s := p.Spec
			s.Cluster = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "CivoKubernetesCluster", Env: "prod", Name: "prod-fra1", FieldPath: "status.outputs.cluster_id"})
			s.Region = "lon1"
			s.AutoScale, s.MinNodes, s.NodeCount, s.MaxNodes = true, 1, 3, 10
			s.Labels = map[string]string{"workload": "batch", "example.com/role": "gpu", "node.kubernetes.io/role": "gpu",
				"kubelet.kubernetes.io/tier": "a", "topology.kubernetes.io/zone": "fra1-a", "civo.com/team": "ml"}
			s.Taints = []*sharedv1.Taint{
				{Key: "nvidia.com/gpu", Value: "true", Effect: sharedv1.TaintEffect_NoSchedule},
				{Key: "dedicated", Effect: sharedv1.TaintEffect_PreferNoSchedule},
			}
			s.PublicIpNodePool = true
			p.Status = &pool.CivoKubernetesNodePoolStatus{Outputs: &pool.CivoKubernetesNodePoolStackOutputs{NodePoolId: "np", InstanceNames: []string{"a"}}}
		}},
		{Name: "autoscaling with min, count and max all equal to 1 is accepted", Mutate: autoScale(1, 1, 1)},
		{Name: "autoscaling with min equal to count and count equal to max is accepted", Mutate: autoScale(3, 3, 3)},
		{Name: "autoscaling with count at the lower bound is accepted", Mutate: autoScale(2, 2, 5)},
		{Name: "autoscaling with count at the upper bound is accepted", Mutate: autoScale(2, 5, 5)},
		{Name: "a pool of exactly one node without autoscaling is accepted", Mutate: func(p *pool.CivoKubernetesNodePool) { p.Spec.NodeCount = 1 }},
		{Name: "a taint with an empty value is accepted", Mutate: func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Taints = []*sharedv1.Taint{{Key: "nvidia.com/gpu", Effect: sharedv1.TaintEffect_NoExecute}}
		}},
		{Name: "the same taint key with two different effects is accepted", Mutate: func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Taints = []*sharedv1.Taint{
				{Key: "nvidia.com/gpu", Effect: sharedv1.TaintEffect_NoSchedule},
				{Key: "nvidia.com/gpu", Effect: sharedv1.TaintEffect_NoExecute},
			}
		}},
		{Name: "a label key with a DNS prefix is accepted", Mutate: func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Labels = map[string]string{"example.com/role": "gpu", "empty": ""}
		}},
		{Name: "a label key and a taint key with a DNS prefix of exactly 253 characters are accepted", Mutate: func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Labels = map[string]string{spectest.Prefix253 + "/" + strings.Repeat("n", 63): "gpu"}
			p.Spec.Taints = []*sharedv1.Taint{{Key: spectest.Prefix253 + "/gpu", Effect: sharedv1.TaintEffect_NoSchedule}}
		}},
		{Name: "a pool name of exactly 63 characters is accepted", Mutate: func(p *pool.CivoKubernetesNodePool) {
			p.Spec.NodePoolName = strings.Repeat("g", 63)
		}},
	}
	spectest.AssertAcceptances(t, validCivoKubernetesNodePool, tests, func(t *testing.T, p *pool.CivoKubernetesNodePool) {
		// What the module registers for a valid manifest, the pinned provider accepts.
		in := &pool.CivoKubernetesNodePoolStackInput{Target: p}
		providerschema.AssertPlanConforms(t, func(ctx *pulumi.Context) error { return module.Resources(ctx, in) })
	})
}

// Promise: pitfalls-validate-refuses-reserved-label-keys
func TestCivoKubernetesNodePoolRejectsEachBrokenRule(t *testing.T) {
	// The rules every kind shares come first, then this kind's own.
	tests := append(spectest.Envelope[*pool.CivoKubernetesNodePool]("civo.clusterplane.dev/v1", "CivoKubernetesNodePool", "digitalocean.clusterplane.dev/v1", "CivoKubernetesCluster"), []spectest.Rejection[*pool.CivoKubernetesNodePool]{
		// Envelope.
		// Node limits: Kubernetes supports at most 5,000 nodes in a cluster, whose first pool has one.
		{Name: "a pool of 5000 nodes is rejected: with the cluster's first pool it passes Kubernetes' 5,000", Mutate: func(p *pool.CivoKubernetesNodePool) { p.Spec.NodeCount = 5000 },
			Want: []spectest.Violation{{Field: "spec.node_count", Rule: "int32.gte_lte"}}, Hint: "4999"},
		{Name: "a metadata.name with a dot is rejected", Mutate: func(p *pool.CivoKubernetesNodePool) { p.Metadata.Name = "prod.gpu" },
			Want: []spectest.Violation{{Field: "metadata.name", Rule: "string.pattern"}}, Hint: ""},
		{Name: "a metadata.name of 64 characters is rejected", Mutate: func(p *pool.CivoKubernetesNodePool) { p.Metadata.Name = strings.Repeat("a", 64) },
			Want: []spectest.Violation{{Field: "metadata.name", Rule: "string.max_len"}}, Hint: ""},

		// node_pool_name, cluster, region, size.
		{Name: "a pool without node_pool_name is rejected", Mutate: func(p *pool.CivoKubernetesNodePool) { p.Spec.NodePoolName = "" },
			Want: []spectest.Violation{{Field: "spec.node_pool_name", Rule: "required"}}, Hint: ""},
		{Name: "a node_pool_name starting with a dash is rejected", Mutate: func(p *pool.CivoKubernetesNodePool) { p.Spec.NodePoolName = "-gpu" },
			Want: []spectest.Violation{{Field: "spec.node_pool_name", Rule: "string.pattern"}}, Hint: ""},
		{Name: "a node_pool_name of 64 characters is rejected", Mutate: func(p *pool.CivoKubernetesNodePool) { p.Spec.NodePoolName = strings.Repeat("g", 64) },
			Want: []spectest.Violation{{Field: "spec.node_pool_name", Rule: "string.max_len"}}, Hint: ""},
		{Name: "a pool without cluster is rejected", Mutate: func(p *pool.CivoKubernetesNodePool) { p.Spec.Cluster = nil },
			Want: []spectest.Violation{{Field: "spec.cluster", Rule: "required"}}, Hint: ""},
		{Name: "a cluster with neither value nor valueFrom is rejected", Mutate: func(p *pool.CivoKubernetesNodePool) { p.Spec.Cluster = &sharedv1.StringValueOrRef{} },
			Want: []spectest.Violation{{Field: "spec.cluster.literal_or_ref", Rule: "required"}}, Hint: ""},
		{Name: "a cluster with an empty literal value is rejected", Mutate: func(p *pool.CivoKubernetesNodePool) { p.Spec.Cluster = sharedv1.StringValue("") },
			Want: []spectest.Violation{{Field: "spec.cluster.value", Rule: "string.min_len"}}, Hint: ""},
		{Name: "a cluster reference without a name is rejected", Mutate: func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Cluster = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "CivoKubernetesCluster", FieldPath: "status.outputs.cluster_id"})
		}, Want: []spectest.Violation{{Field: "spec.cluster.value_from.name", Rule: "required"}}, Hint: ""},
		{Name: "a cluster reference without kind is rejected: the kind names the referenced stack", Mutate: func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Cluster = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Name: "prod-fra1"})
		}, Want: []spectest.Violation{{Field: "spec.cluster", Rule: "cluster.value_from_kind"}}, Hint: "cluster.valueFrom.kind must be CivoKubernetesCluster"},
		{Name: "a cluster reference to another kind is rejected", Mutate: func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Cluster = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "SomethingElse", Name: "prod-fra1"})
		}, Want: []spectest.Violation{{Field: "spec.cluster", Rule: "cluster.value_from_kind"}}, Hint: ""},
		{Name: "a cluster reference to an output the kind does not have is rejected", Mutate: func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Cluster = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "CivoKubernetesCluster", Name: "prod-fra1", FieldPath: "status.outputs.no_such_output"})
		}, Want: []spectest.Violation{{Field: "spec.cluster", Rule: "cluster.value_from_field_path"}}, Hint: "must name an output of CivoKubernetesCluster"},
		{Name: "a cluster reference with an invalid name is rejected", Mutate: func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Cluster = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "CivoKubernetesCluster", Name: "prod_fra1"})
		}, Want: []spectest.Violation{{Field: "spec.cluster.value_from.name", Rule: "string.pattern"}}, Hint: ""},
		{Name: "a cluster reference with a camelCase field_path is rejected", Mutate: func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Cluster = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "CivoKubernetesCluster", Name: "prod-fra1", FieldPath: "status.outputs.clusterId"})
		}, Want: []spectest.Violation{{Field: "spec.cluster.value_from.field_path", Rule: "string.pattern"}, {Field: "spec.cluster", Rule: "cluster.value_from_field_path"}}, Hint: ""},
		{Name: "an unspecified region is rejected", Mutate: func(p *pool.CivoKubernetesNodePool) { p.Spec.Region = "" },
			Want: []spectest.Violation{{Field: "spec.region", Rule: "required"}}, Hint: ""},
		{Name: "a region in capitals is rejected: manifests write region codes in lower case", Mutate: func(p *pool.CivoKubernetesNodePool) { p.Spec.Region = "FRA1" },
			Want: []spectest.Violation{{Field: "spec.region", Rule: "string.pattern"}}, Hint: ""},
		{Name: "a region name with a space is rejected", Mutate: func(p *pool.CivoKubernetesNodePool) { p.Spec.Region = "fra 1" },
			Want: []spectest.Violation{{Field: "spec.region", Rule: "string.pattern"}}, Hint: ""},
		{Name: "a region of more than eight characters is one error, in the region rule's words", Mutate: func(p *pool.CivoKubernetesNodePool) { p.Spec.Region = "frankfurt1" },
			Want: []spectest.Violation{{Field: "spec.region", Rule: "string.pattern"}}, Hint: "must be a region code"},
		{Name: "a pool without size is rejected", Mutate: func(p *pool.CivoKubernetesNodePool) { p.Spec.Size = "" },
			Want: []spectest.Violation{{Field: "spec.size", Rule: "required"}}, Hint: ""},

		// node_count and autoscaling.
		{Name: "a pool of zero nodes is rejected", Mutate: func(p *pool.CivoKubernetesNodePool) { p.Spec.NodeCount = 0 },
			Want: []spectest.Violation{{Field: "spec.node_count", Rule: "int32.gte_lte"}}, Hint: ""},
		{Name: "autoscaling with min_nodes 0 is rejected", Mutate: autoScale(0, 2, 3),
			Want: []spectest.Violation{{Field: "spec.min_nodes", Rule: "min_nodes.at_least_one"}}, Hint: "spec.minNodes: must be at least 1"},
		{Name: "autoscaling with min_nodes above node_count is rejected", Mutate: autoScale(3, 2, 4),
			Want: []spectest.Violation{{Field: "spec.min_nodes", Rule: "min_nodes.at_most_node_count"}}, Hint: ""},
		{Name: "autoscaling with max_nodes below node_count is rejected", Mutate: autoScale(1, 3, 2),
			Want: []spectest.Violation{{Field: "spec.max_nodes", Rule: "max_nodes.at_least_node_count"}}, Hint: ""},
		{Name: "autoscaling with max_nodes left unset is rejected", Mutate: autoScale(1, 2, 0),
			Want: []spectest.Violation{{Field: "spec.max_nodes", Rule: "max_nodes.at_least_node_count"}}, Hint: ""},
		{Name: "autoscaling with a negative min_nodes is rejected", Mutate: autoScale(-1, 2, 3),
			Want: []spectest.Violation{{Field: "spec.min_nodes", Rule: "int32.gte_lte"}, {Field: "spec.min_nodes", Rule: "min_nodes.at_least_one"}}, Hint: ""},
		{Name: "a negative max_nodes is rejected", Mutate: autoScale(1, 2, -1),
			Want: []spectest.Violation{{Field: "spec.max_nodes", Rule: "int32.gte_lte"}, {Field: "spec.max_nodes", Rule: "max_nodes.at_least_node_count"}}, Hint: ""},
		{Name: "min_nodes without auto_scale is rejected", Mutate: func(p *pool.CivoKubernetesNodePool) { p.Spec.MinNodes = 1 },
			Want: []spectest.Violation{{Field: "spec.min_nodes", Rule: "min_nodes.needs_auto_scale"}}, Hint: "only allowed when autoScale is true"},
		{Name: "max_nodes without auto_scale is rejected", Mutate: func(p *pool.CivoKubernetesNodePool) { p.Spec.MaxNodes = 5 },
			Want: []spectest.Violation{{Field: "spec.max_nodes", Rule: "max_nodes.needs_auto_scale"}}, Hint: ""},

		// Labels.
		{Name: "a label key with two slashes is rejected", Mutate: func(p *pool.CivoKubernetesNodePool) { p.Spec.Labels = map[string]string{"a.com/b/c": "x"} },
			Want: []spectest.Violation{{Field: `spec.labels["a.com/b/c"]`, Rule: "string.pattern"}}, Hint: ""},
		{Name: "a label value starting with a dot is rejected", Mutate: func(p *pool.CivoKubernetesNodePool) { p.Spec.Labels = map[string]string{"tier": ".gpu"} },
			Want: []spectest.Violation{{Field: `spec.labels["tier"]`, Rule: "string.pattern"}}, Hint: ""},

		{Name: "a label key in the kubernetes.io namespace is rejected: the kubelet refuses it", Mutate: func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Labels = map[string]string{"kubernetes.io/role": "gpu"}
		}, Want: []spectest.Violation{{Field: `spec.labels["kubernetes.io/role"]`, Rule: "label_key.kubelet_namespace"}}, Hint: "the nodes never join"},
		{Name: "a label key in the k8s.io namespace is rejected", Mutate: func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Labels = map[string]string{"x.k8s.io/tier": "a"}
		}, Want: []spectest.Violation{{Field: `spec.labels["x.k8s.io/tier"]`, Rule: "label_key.kubelet_namespace"}}, Hint: ""},
		{Name: "a label key under Civo's own namespace is rejected", Mutate: func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Labels = map[string]string{"kubernetes.civo.com/node-pool": "a"}
		}, Want: []spectest.Violation{{Field: `spec.labels["kubernetes.civo.com/node-pool"]`, Rule: "label_key.civo_namespace"}}, Hint: "Civo's own"},

		// Taints.
		{Name: "a taint without key is rejected", Mutate: func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Taints = []*sharedv1.Taint{{Effect: sharedv1.TaintEffect_NoSchedule}}
		}, Want: []spectest.Violation{{Field: "spec.taints[0].key", Rule: "required"}}, Hint: ""},
		{Name: "a taint key with a space is rejected", Mutate: func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Taints = []*sharedv1.Taint{{Key: "nvidia gpu", Effect: sharedv1.TaintEffect_NoSchedule}}
		}, Want: []spectest.Violation{{Field: "spec.taints[0].key", Rule: "string.pattern"}}, Hint: ""},
		{Name: "a taint value of 64 characters is rejected", Mutate: func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Taints = []*sharedv1.Taint{{Key: "gpu", Value: strings.Repeat("v", 64), Effect: sharedv1.TaintEffect_NoSchedule}}
		}, Want: []spectest.Violation{{Field: "spec.taints[0].value", Rule: "string.pattern"}}, Hint: ""},
		{Name: "a taint with an unknown effect number is rejected", Mutate: func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Taints = []*sharedv1.Taint{{Key: "gpu", Effect: 4}}
		}, Want: []spectest.Violation{{Field: "spec.taints[0].effect", Rule: "enum.defined_only"}}, Hint: ""},
		{Name: "two taints with the same key and effect are rejected", Mutate: func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Taints = []*sharedv1.Taint{
				{Key: "nvidia.com/gpu", Value: "true", Effect: sharedv1.TaintEffect_NoSchedule},
				{Key: "dedicated", Effect: sharedv1.TaintEffect_NoSchedule},
				{Key: "nvidia.com/gpu", Value: "false", Effect: sharedv1.TaintEffect_NoSchedule},
			}
		}, Want: []spectest.Violation{{Field: "spec.taints", Rule: "taints.unique_key_effect"}}, Hint: "must not repeat a key and effect pair"},
	}...)
	tests = append(tests, spectest.PoolLabelsAndTaints(
		func(p *pool.CivoKubernetesNodePool, l map[string]string) { p.Spec.Labels = l },
		func(p *pool.CivoKubernetesNodePool, t []*sharedv1.Taint) { p.Spec.Taints = t })...)
	spectest.AssertRejections(t, validCivoKubernetesNodePool, tests)
}

func TestCivoKubernetesNodePoolReportsEveryMistakeAtOnce(t *testing.T) {
	p := validCivoKubernetesNodePool()
	p.Kind = "NodePool"
	p.Spec.NodePoolName = "GPU"
	p.Spec.Cluster = sharedv1.StringValue("")
	p.Spec.Region = ""
	p.Spec.Size = ""
	p.Spec.MinNodes = 2
	p.Spec.Taints = []*sharedv1.Taint{{Key: "gpu"}}

	err := validation.Validate(p)
	spectest.AssertViolations(t, err,
		spectest.Violation{Field: "kind", Rule: "string.const"},
		spectest.Violation{Field: "spec.node_pool_name", Rule: "string.pattern"},
		spectest.Violation{Field: "spec.cluster.value", Rule: "string.min_len"},
		spectest.Violation{Field: "spec.region", Rule: "required"},
		spectest.Violation{Field: "spec.size", Rule: "required"},
		spectest.Violation{Field: "spec.min_nodes", Rule: "min_nodes.needs_auto_scale"},
		spectest.Violation{Field: "spec.taints[0].effect", Rule: "required"},
	)
	spectest.AssertViolationsListed(t, err)
	if !strings.Contains(err.Error(), "spec.minNodes: is only allowed when autoScale is true") {
		t.Errorf("error does not explain the autoscaling bounds:\n%v", err)
	}
}

func TestCivoKubernetesNodePoolStackInput(t *testing.T) {
	t.Run("a stack input with a valid target and an empty provider config is accepted", func(t *testing.T) {
		in := &pool.CivoKubernetesNodePoolStackInput{Target: validCivoKubernetesNodePool(), ProviderConfig: &civov1.CivoProviderConfig{}}
		if err := validation.Validate(in); err != nil {
			t.Fatalf("Validate() = %v, want nil", err)
		}
	})
	t.Run("a provider config with every field set is accepted", func(t *testing.T) {
		in := &pool.CivoKubernetesNodePoolStackInput{Target: validCivoKubernetesNodePool(), ProviderConfig: &civov1.CivoProviderConfig{
			ApiToken: "secret-token", DefaultRegion: "fra1", ApiUrl: "https://api.civo.com",
		}}
		if err := validation.Validate(in); err != nil {
			t.Fatalf("Validate() = %v, want nil", err)
		}
	})
	t.Run("a stack input without target is rejected", func(t *testing.T) {
		spectest.AssertViolations(t, validation.Validate(&pool.CivoKubernetesNodePoolStackInput{}), spectest.Violation{Field: "target", Rule: "required"})
	})
	t.Run("a stack input reports its target's violations under target", func(t *testing.T) {
		p := validCivoKubernetesNodePool()
		p.Spec.NodeCount = 0
		spectest.AssertViolations(t, validation.Validate(&pool.CivoKubernetesNodePoolStackInput{Target: p}), spectest.Violation{Field: "target.spec.node_count", Rule: "int32.gte_lte"})
	})
	t.Run("a provider config with an invalid api_url is rejected", func(t *testing.T) {
		in := &pool.CivoKubernetesNodePoolStackInput{Target: validCivoKubernetesNodePool(), ProviderConfig: &civov1.CivoProviderConfig{ApiToken: "a-token-of-its-own", ApiUrl: "not a url"}}
		spectest.AssertViolations(t, validation.Validate(in), spectest.Violation{Field: "provider_config.api_url", Rule: "string.uri"})
	})
	t.Run("a provider config with a default_region in capitals is rejected", func(t *testing.T) {
		in := &pool.CivoKubernetesNodePoolStackInput{Target: validCivoKubernetesNodePool(), ProviderConfig: &civov1.CivoProviderConfig{DefaultRegion: "FRA1"}}
		spectest.AssertViolations(t, validation.Validate(in), spectest.Violation{Field: "provider_config.default_region", Rule: "string.pattern"})
	})
}
