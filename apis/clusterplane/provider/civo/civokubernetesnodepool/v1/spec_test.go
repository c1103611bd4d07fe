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
	tests := []struct {
		name   string
		mutate func(*pool.CivoKubernetesNodePool)
	}{
		{"a minimal pool with a literal cluster id is accepted", func(*pool.CivoKubernetesNodePool) {}},
		{"a region Civo may open tomorrow is accepted: the cloud decides", func(p *pool.CivoKubernetesNodePool) { p.Spec.Region = "xyz9" }},
		{"a pool with every field set is accepted", func(p *pool.CivoKubernetesNodePool) {
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
		{"autoscaling with min, count and max all equal to 1 is accepted", autoScale(1, 1, 1)},
		{"autoscaling with min equal to count and count equal to max is accepted", autoScale(3, 3, 3)},
		{"autoscaling with count at the lower bound is accepted", autoScale(2, 2, 5)},
		{"autoscaling with count at the upper bound is accepted", autoScale(2, 5, 5)},
		{"a pool of exactly one node without autoscaling is accepted", func(p *pool.CivoKubernetesNodePool) { p.Spec.NodeCount = 1 }},
		{"a taint with an empty value is accepted", func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Taints = []*sharedv1.Taint{{Key: "nvidia.com/gpu", Effect: sharedv1.TaintEffect_NoExecute}}
		}},
		{"the same taint key with two different effects is accepted", func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Taints = []*sharedv1.Taint{
				{Key: "nvidia.com/gpu", Effect: sharedv1.TaintEffect_NoSchedule},
				{Key: "nvidia.com/gpu", Effect: sharedv1.TaintEffect_NoExecute},
			}
		}},
		{"a label key with a DNS prefix is accepted", func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Labels = map[string]string{"example.com/role": "gpu", "empty": ""}
		}},
		{"a label key and a taint key with a DNS prefix of exactly 253 characters are accepted", func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Labels = map[string]string{spectest.Prefix253 + "/" + strings.Repeat("n", 63): "gpu"}
			p.Spec.Taints = []*sharedv1.Taint{{Key: spectest.Prefix253 + "/gpu", Effect: sharedv1.TaintEffect_NoSchedule}}
		}},
		{"a pool name of exactly 63 characters is accepted", func(p *pool.CivoKubernetesNodePool) {
			p.Spec.NodePoolName = strings.Repeat("g", 63)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := validCivoKubernetesNodePool()
			tt.mutate(p)
			if err := validation.Validate(p); err != nil {
				t.Fatalf("Validate() = %v, want nil", err)
			}
			// What the module registers for a valid manifest, the pinned provider accepts.
			in := &pool.CivoKubernetesNodePoolStackInput{Target: p}
			providerschema.AssertPlanConforms(t, func(ctx *pulumi.Context) error { return module.Resources(ctx, in) })
		})
	}
}

func TestCivoKubernetesNodePoolRejectsEachBrokenRule(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*pool.CivoKubernetesNodePool)
		want   []spectest.Violation
		hint   string // text the error must contain, when the message matters
	}{
		// Envelope.
		// Node limits: Kubernetes supports at most 5,000 nodes in a cluster, whose first pool has one.
		{"a pool of 5000 nodes is rejected: with the cluster's first pool it passes Kubernetes' 5,000", func(p *pool.CivoKubernetesNodePool) { p.Spec.NodeCount = 5000 },
			[]spectest.Violation{{Field: "spec.node_count", Rule: "int32.gte_lte"}}, "4999"},
		{"a wrong api_version is rejected", func(p *pool.CivoKubernetesNodePool) { p.ApiVersion = "digitalocean.clusterplane.dev/v1" },
			[]spectest.Violation{{Field: "api_version", Rule: "string.const"}}, "civo.clusterplane.dev/v1"},
		{"another kind is rejected", func(p *pool.CivoKubernetesNodePool) { p.Kind = "CivoKubernetesCluster" },
			[]spectest.Violation{{Field: "kind", Rule: "string.const"}}, "CivoKubernetesNodePool"},
		{"a manifest without metadata is rejected", func(p *pool.CivoKubernetesNodePool) { p.Metadata = nil },
			[]spectest.Violation{{Field: "metadata", Rule: "required"}}, ""},
		{"a manifest without spec is rejected", func(p *pool.CivoKubernetesNodePool) { p.Spec = nil },
			[]spectest.Violation{{Field: "spec", Rule: "required"}}, ""},
		{"a manifest without metadata.name is rejected", func(p *pool.CivoKubernetesNodePool) { p.Metadata.Name = "" },
			[]spectest.Violation{{Field: "metadata.name", Rule: "required"}}, ""},
		{"a metadata.name with a dot is rejected", func(p *pool.CivoKubernetesNodePool) { p.Metadata.Name = "prod.gpu" },
			[]spectest.Violation{{Field: "metadata.name", Rule: "string.pattern"}}, ""},
		{"a metadata.name of 64 characters is rejected", func(p *pool.CivoKubernetesNodePool) { p.Metadata.Name = strings.Repeat("a", 64) },
			[]spectest.Violation{{Field: "metadata.name", Rule: "string.max_len"}}, ""},

		// node_pool_name, cluster, region, size.
		{"a pool without node_pool_name is rejected", func(p *pool.CivoKubernetesNodePool) { p.Spec.NodePoolName = "" },
			[]spectest.Violation{{Field: "spec.node_pool_name", Rule: "required"}}, ""},
		{"a node_pool_name starting with a dash is rejected", func(p *pool.CivoKubernetesNodePool) { p.Spec.NodePoolName = "-gpu" },
			[]spectest.Violation{{Field: "spec.node_pool_name", Rule: "string.pattern"}}, ""},
		{"a node_pool_name of 64 characters is rejected", func(p *pool.CivoKubernetesNodePool) { p.Spec.NodePoolName = strings.Repeat("g", 64) },
			[]spectest.Violation{{Field: "spec.node_pool_name", Rule: "string.max_len"}}, ""},
		{"a pool without cluster is rejected", func(p *pool.CivoKubernetesNodePool) { p.Spec.Cluster = nil },
			[]spectest.Violation{{Field: "spec.cluster", Rule: "required"}}, ""},
		{"a cluster with neither value nor valueFrom is rejected", func(p *pool.CivoKubernetesNodePool) { p.Spec.Cluster = &sharedv1.StringValueOrRef{} },
			[]spectest.Violation{{Field: "spec.cluster.literal_or_ref", Rule: "required"}}, ""},
		{"a cluster with an empty literal value is rejected", func(p *pool.CivoKubernetesNodePool) { p.Spec.Cluster = sharedv1.StringValue("") },
			[]spectest.Violation{{Field: "spec.cluster.value", Rule: "string.min_len"}}, ""},
		{"a cluster reference without a name is rejected", func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Cluster = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "CivoKubernetesCluster", FieldPath: "status.outputs.cluster_id"})
		}, []spectest.Violation{{Field: "spec.cluster.value_from.name", Rule: "required"}}, ""},
		{"a cluster reference without kind is rejected: the kind names the referenced stack", func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Cluster = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Name: "prod-fra1"})
		}, []spectest.Violation{{Field: "spec.cluster", Rule: "cluster.value_from_kind"}}, "cluster.valueFrom.kind must be CivoKubernetesCluster"},
		{"a cluster reference to another kind is rejected", func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Cluster = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "SomethingElse", Name: "prod-fra1"})
		}, []spectest.Violation{{Field: "spec.cluster", Rule: "cluster.value_from_kind"}}, ""},
		{"a cluster reference to an output the kind does not have is rejected", func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Cluster = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "CivoKubernetesCluster", Name: "prod-fra1", FieldPath: "status.outputs.no_such_output"})
		}, []spectest.Violation{{Field: "spec.cluster", Rule: "cluster.value_from_field_path"}}, "must name an output of CivoKubernetesCluster"},
		{"a cluster reference with an invalid name is rejected", func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Cluster = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "CivoKubernetesCluster", Name: "prod_fra1"})
		}, []spectest.Violation{{Field: "spec.cluster.value_from.name", Rule: "string.pattern"}}, ""},
		{"a cluster reference with a camelCase field_path is rejected", func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Cluster = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "CivoKubernetesCluster", Name: "prod-fra1", FieldPath: "status.outputs.clusterId"})
		}, []spectest.Violation{{Field: "spec.cluster.value_from.field_path", Rule: "string.pattern"}, {Field: "spec.cluster", Rule: "cluster.value_from_field_path"}}, ""},
		{"an unspecified region is rejected", func(p *pool.CivoKubernetesNodePool) { p.Spec.Region = "" },
			[]spectest.Violation{{Field: "spec.region", Rule: "required"}}, ""},
		{"a region in capitals is rejected: manifests write region codes in lower case", func(p *pool.CivoKubernetesNodePool) { p.Spec.Region = "FRA1" },
			[]spectest.Violation{{Field: "spec.region", Rule: "string.pattern"}}, ""},
		{"a region name with a space is rejected", func(p *pool.CivoKubernetesNodePool) { p.Spec.Region = "fra 1" },
			[]spectest.Violation{{Field: "spec.region", Rule: "string.pattern"}}, ""},
		{"a region of more than eight characters is one error, in the region rule's words", func(p *pool.CivoKubernetesNodePool) { p.Spec.Region = "frankfurt1" },
			[]spectest.Violation{{Field: "spec.region", Rule: "string.pattern"}}, "must be a region code"},
		{"a pool without size is rejected", func(p *pool.CivoKubernetesNodePool) { p.Spec.Size = "" },
			[]spectest.Violation{{Field: "spec.size", Rule: "required"}}, ""},

		// node_count and autoscaling.
		{"a pool of zero nodes is rejected", func(p *pool.CivoKubernetesNodePool) { p.Spec.NodeCount = 0 },
			[]spectest.Violation{{Field: "spec.node_count", Rule: "int32.gte_lte"}}, ""},
		{"autoscaling with min_nodes 0 is rejected", autoScale(0, 2, 3),
			[]spectest.Violation{{Field: "spec.min_nodes", Rule: "min_nodes.at_least_one"}}, "spec.minNodes: must be at least 1"},
		{"autoscaling with min_nodes above node_count is rejected", autoScale(3, 2, 4),
			[]spectest.Violation{{Field: "spec.min_nodes", Rule: "min_nodes.at_most_node_count"}}, ""},
		{"autoscaling with max_nodes below node_count is rejected", autoScale(1, 3, 2),
			[]spectest.Violation{{Field: "spec.max_nodes", Rule: "max_nodes.at_least_node_count"}}, ""},
		{"autoscaling with max_nodes left unset is rejected", autoScale(1, 2, 0),
			[]spectest.Violation{{Field: "spec.max_nodes", Rule: "max_nodes.at_least_node_count"}}, ""},
		{"autoscaling with a negative min_nodes is rejected", autoScale(-1, 2, 3),
			[]spectest.Violation{{Field: "spec.min_nodes", Rule: "int32.gte_lte"}, {Field: "spec.min_nodes", Rule: "min_nodes.at_least_one"}}, ""},
		{"a negative max_nodes is rejected", autoScale(1, 2, -1),
			[]spectest.Violation{{Field: "spec.max_nodes", Rule: "int32.gte_lte"}, {Field: "spec.max_nodes", Rule: "max_nodes.at_least_node_count"}}, ""},
		{"min_nodes without auto_scale is rejected", func(p *pool.CivoKubernetesNodePool) { p.Spec.MinNodes = 1 },
			[]spectest.Violation{{Field: "spec.min_nodes", Rule: "min_nodes.needs_auto_scale"}}, "only allowed when autoScale is true"},
		{"max_nodes without auto_scale is rejected", func(p *pool.CivoKubernetesNodePool) { p.Spec.MaxNodes = 5 },
			[]spectest.Violation{{Field: "spec.max_nodes", Rule: "max_nodes.needs_auto_scale"}}, ""},

		// Labels.
		{"a label key with a space is rejected", func(p *pool.CivoKubernetesNodePool) { p.Spec.Labels = map[string]string{"Bad Key": "x"} },
			[]spectest.Violation{{Field: `spec.labels["Bad Key"]`, Rule: "string.pattern"}}, ""},
		{"a label key with two slashes is rejected", func(p *pool.CivoKubernetesNodePool) { p.Spec.Labels = map[string]string{"a.com/b/c": "x"} },
			[]spectest.Violation{{Field: `spec.labels["a.com/b/c"]`, Rule: "string.pattern"}}, ""},
		{"a label key whose DNS prefix exceeds 253 characters is rejected", func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Labels = map[string]string{spectest.Prefix254 + "/role": "x"}
		}, []spectest.Violation{{Field: `spec.labels["` + spectest.Prefix254 + `/role"]`, Rule: "label_key.prefix_max_len"}}, "must be at most 253 characters"},
		{"a label key longer than 317 characters is rejected", func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Labels = map[string]string{spectest.Prefix254 + "/" + strings.Repeat("n", 63): "x"}
		}, []spectest.Violation{
			{Field: `spec.labels["` + spectest.Prefix254 + "/" + strings.Repeat("n", 63) + `"]`, Rule: "string.max_len"},
			{Field: `spec.labels["` + spectest.Prefix254 + "/" + strings.Repeat("n", 63) + `"]`, Rule: "label_key.prefix_max_len"},
		}, ""},
		{"a label value starting with a dot is rejected", func(p *pool.CivoKubernetesNodePool) { p.Spec.Labels = map[string]string{"tier": ".gpu"} },
			[]spectest.Violation{{Field: `spec.labels["tier"]`, Rule: "string.pattern"}}, ""},
		{"a label value of 64 characters is rejected", func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Labels = map[string]string{"tier": strings.Repeat("v", 64)}
		}, []spectest.Violation{{Field: `spec.labels["tier"]`, Rule: "string.pattern"}}, ""},

		{"a label key in the kubernetes.io namespace is rejected: the kubelet refuses it", func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Labels = map[string]string{"kubernetes.io/role": "gpu"}
		}, []spectest.Violation{{Field: `spec.labels["kubernetes.io/role"]`, Rule: "label_key.kubelet_namespace"}}, "the nodes never join"},
		{"a node-role label is rejected: its namespace is under kubernetes.io", func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Labels = map[string]string{"node-role.kubernetes.io/worker": ""}
		}, []spectest.Violation{{Field: `spec.labels["node-role.kubernetes.io/worker"]`, Rule: "label_key.kubelet_namespace"}}, ""},
		{"a label key in the k8s.io namespace is rejected", func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Labels = map[string]string{"x.k8s.io/tier": "a"}
		}, []spectest.Violation{{Field: `spec.labels["x.k8s.io/tier"]`, Rule: "label_key.kubelet_namespace"}}, ""},
		{"a label key under Civo's own namespace is rejected", func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Labels = map[string]string{"kubernetes.civo.com/node-pool": "a"}
		}, []spectest.Violation{{Field: `spec.labels["kubernetes.civo.com/node-pool"]`, Rule: "label_key.civo_namespace"}}, "Civo's own"},

		// Taints.
		{"a taint without key is rejected", func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Taints = []*sharedv1.Taint{{Effect: sharedv1.TaintEffect_NoSchedule}}
		}, []spectest.Violation{{Field: "spec.taints[0].key", Rule: "required"}}, ""},
		{"a taint key with a space is rejected", func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Taints = []*sharedv1.Taint{{Key: "nvidia gpu", Effect: sharedv1.TaintEffect_NoSchedule}}
		}, []spectest.Violation{{Field: "spec.taints[0].key", Rule: "string.pattern"}}, ""},
		{"a taint key whose DNS prefix exceeds 253 characters is rejected", func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Taints = []*sharedv1.Taint{{Key: spectest.Prefix254 + "/gpu", Effect: sharedv1.TaintEffect_NoSchedule}}
		}, []spectest.Violation{{Field: "spec.taints[0].key", Rule: "key.prefix_max_len"}}, "must be at most 253 characters"},
		{"a taint key longer than 317 characters is rejected", func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Taints = []*sharedv1.Taint{{Key: spectest.Prefix254 + "/" + strings.Repeat("n", 63), Effect: sharedv1.TaintEffect_NoSchedule}}
		}, []spectest.Violation{{Field: "spec.taints[0].key", Rule: "string.max_len"}, {Field: "spec.taints[0].key", Rule: "key.prefix_max_len"}}, ""},
		{"a taint value of 64 characters is rejected", func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Taints = []*sharedv1.Taint{{Key: "gpu", Value: strings.Repeat("v", 64), Effect: sharedv1.TaintEffect_NoSchedule}}
		}, []spectest.Violation{{Field: "spec.taints[0].value", Rule: "string.pattern"}}, ""},
		{"a taint without effect is rejected", func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Taints = []*sharedv1.Taint{{Key: "gpu", Value: "true"}}
		}, []spectest.Violation{{Field: "spec.taints[0].effect", Rule: "required"}}, ""},
		{"a taint with an unknown effect number is rejected", func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Taints = []*sharedv1.Taint{{Key: "gpu", Effect: 4}}
		}, []spectest.Violation{{Field: "spec.taints[0].effect", Rule: "enum.defined_only"}}, ""},
		{"two taints with the same key and effect are rejected", func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Taints = []*sharedv1.Taint{
				{Key: "nvidia.com/gpu", Value: "true", Effect: sharedv1.TaintEffect_NoSchedule},
				{Key: "dedicated", Effect: sharedv1.TaintEffect_NoSchedule},
				{Key: "nvidia.com/gpu", Value: "false", Effect: sharedv1.TaintEffect_NoSchedule},
			}
		}, []spectest.Violation{{Field: "spec.taints", Rule: "taints.unique_key_effect"}}, "must not repeat a key and effect pair"},
	}
	covered := map[string]bool{}
	for _, tt := range tests {
		for _, w := range tt.want {
			covered[w.Rule] = true
		}
		t.Run(tt.name, func(t *testing.T) {
			p := validCivoKubernetesNodePool()
			tt.mutate(p)
			err := validation.Validate(p)
			spectest.AssertViolations(t, err, tt.want...)
			if err != nil && !strings.Contains(err.Error(), tt.hint) {
				t.Errorf("error %q does not contain %q", err, tt.hint)
			}
		})
	}
	for _, id := range spectest.CELRuleIDs(t, "spec.proto", "../../../../shared/v1/*.proto") {
		if !covered[id] {
			t.Errorf("CEL rule %q has no test case", id)
		}
	}
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
