package digitaloceankubernetesnodepoolv1_test

import (
	"strings"
	"testing"

	pool "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	digitaloceanv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetesnodepool/module"
	"github.com/clusterplane/clusterplane/internal/testing/providerschema"
	"github.com/clusterplane/clusterplane/internal/testing/spectest"
	"github.com/clusterplane/clusterplane/pkg/manifest/validation"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// validDigitalOceanKubernetesNodePool is the smallest manifest that passes validation.
func validDigitalOceanKubernetesNodePool() *pool.DigitalOceanKubernetesNodePool {
	return &pool.DigitalOceanKubernetesNodePool{
		ApiVersion: "digitalocean.clusterplane.dev/v1",
		Kind:       "DigitalOceanKubernetesNodePool",
		Metadata:   &sharedv1.CloudResourceMetadata{Name: "prod-fra1-workers"},
		Spec: &pool.DigitalOceanKubernetesNodePoolSpec{
			NodePoolName: "workers",
			Cluster:      sharedv1.StringValue("b6a1c2d3-0000-4000-8000-000000000001"),
			Size:         "s-4vcpu-8gb",
			NodeCount:    3,
		},
	}
}

func autoScale(min, count, max int32) func(*pool.DigitalOceanKubernetesNodePool) {
	return func(p *pool.DigitalOceanKubernetesNodePool) {
		p.Spec.AutoScale, p.Spec.MinNodes, p.Spec.NodeCount, p.Spec.MaxNodes = true, min, count, max
	}
}

func TestDigitalOceanKubernetesNodePoolAcceptsValidManifests(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*pool.DigitalOceanKubernetesNodePool)
	}{
		{"a minimal pool with a literal cluster id is accepted", func(*pool.DigitalOceanKubernetesNodePool) {}},
		{"a pool with every field set is accepted", func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Metadata = &sharedv1.CloudResourceMetadata{Name: "prod-fra1-workers", Id: "np-9", Org: "acme", Env: "prod",
				Labels: map[string]string{"team": "apps"}, Annotations: map[string]string{"owner": "apps team"}}
			s := p.Spec
			s.Cluster = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "DigitalOceanKubernetesCluster", Env: "prod", Name: "prod-fra1", FieldPath: "status.outputs.cluster_id"})
			s.AutoScale, s.MinNodes, s.NodeCount, s.MaxNodes = true, 2, 3, 10
			s.Labels = map[string]string{"workload": "batch", "example.com/role": "worker", "node.kubernetes.io/role": "worker",
				"kubelet.kubernetes.io/tier": "a", "kubernetes.io/arch": "amd64", "kubernetes.civo.com/x": "allowed-on-digitalocean"}
			s.Taints = []*sharedv1.Taint{{Key: "workload", Value: "batch", Effect: sharedv1.TaintEffect_NoSchedule}}
			s.Tags = []string{"pool-workers", "team:apps"}
			p.Status = &pool.DigitalOceanKubernetesNodePoolStatus{Outputs: &pool.DigitalOceanKubernetesNodePoolStackOutputs{NodePoolId: "np"}}
		}},
		{"a pool that allows rotation is accepted", func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Rollout = &sharedv1.Rollout{Strategy: sharedv1.RolloutStrategy_ROTATE, MaxSurge: 3, DrainTimeoutMinutes: 20, DeleteEmptyDirData: true}
		}},
		{"autoscaling without node_count is accepted", autoScale(1, 0, 5)},
		{"autoscaling down to zero nodes is accepted: DigitalOcean scales separate pools to zero", autoScale(0, 0, 3)},
		{"autoscaling with min, count and max all equal to 1 is accepted", autoScale(1, 1, 1)},
		{"autoscaling with min equal to max and no node_count is accepted", autoScale(4, 0, 4)},
		{"autoscaling with node_count at the lower bound is accepted", autoScale(2, 2, 6)},
		{"autoscaling with node_count at the upper bound is accepted", autoScale(2, 6, 6)},
		{"a pool of exactly one node without autoscaling is accepted", func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.NodeCount = 1 }},
		{"a taint with an empty value is accepted", func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Taints = []*sharedv1.Taint{{Key: "nvidia.com/gpu", Effect: sharedv1.TaintEffect_NoSchedule}}
		}},
		{"the same taint key with different effects is accepted", func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Taints = []*sharedv1.Taint{
				{Key: "nvidia.com/gpu", Effect: sharedv1.TaintEffect_NoSchedule},
				{Key: "nvidia.com/gpu", Effect: sharedv1.TaintEffect_NoExecute},
			}
		}},
		{"a label key with a DNS prefix and an empty label value are accepted", func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Labels = map[string]string{"example.com/role": "", "topology.kubernetes.io/zone": "fra1"}
		}},
		{"a label key and a taint key with a DNS prefix of exactly 253 characters are accepted", func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Labels = map[string]string{spectest.Prefix253 + "/" + strings.Repeat("n", 63): "worker"}
			p.Spec.Taints = []*sharedv1.Taint{{Key: spectest.Prefix253 + "/gpu", Effect: sharedv1.TaintEffect_NoSchedule}}
		}},
		{"tags that only look like reserved ones are accepted", func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Tags = []string{"k8s-workers", "terraform"}
		}},
		{"a pool name of exactly 63 characters is accepted", func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.NodePoolName = strings.Repeat("w", 63)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := validDigitalOceanKubernetesNodePool()
			tt.mutate(p)
			if err := validation.Validate(p); err != nil {
				t.Fatalf("Validate() = %v, want nil", err)
			}
			// What the module registers for a valid manifest, the pinned provider accepts.
			in := &pool.DigitalOceanKubernetesNodePoolStackInput{Target: p}
			providerschema.AssertPlanConforms(t, func(ctx *pulumi.Context) error { return module.Resources(ctx, in) })
		})
	}
}

func TestDigitalOceanKubernetesNodePoolRejectsEachBrokenRule(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*pool.DigitalOceanKubernetesNodePool)
		want   []spectest.Violation
		hint   string // text the error must contain, when the message matters
	}{
		// Envelope.
		// Node limits: Kubernetes supports at most 5,000 nodes in a cluster, whose default pool has one.
		{"a pool of 5000 nodes is rejected: with the cluster's default pool it passes Kubernetes' 5,000", func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.NodeCount = 5000 },
			[]spectest.Violation{{Field: "spec.node_count", Rule: "int32.gte_lte"}}, "4999"},
		{"an autoscaler bound of 5000 nodes is rejected", autoScale(1, 2, 5000),
			[]spectest.Violation{{Field: "spec.max_nodes", Rule: "int32.gte_lte"}}, "4999"},
		{"a wrong api_version is rejected", func(p *pool.DigitalOceanKubernetesNodePool) { p.ApiVersion = "digitalocean.clusterplane.dev/v1beta1" },
			[]spectest.Violation{{Field: "api_version", Rule: "string.const"}}, "digitalocean.clusterplane.dev/v1"},
		{"another kind is rejected", func(p *pool.DigitalOceanKubernetesNodePool) { p.Kind = "DigitalOceanKubernetesCluster" },
			[]spectest.Violation{{Field: "kind", Rule: "string.const"}}, "DigitalOceanKubernetesNodePool"},
		{"a manifest without metadata is rejected", func(p *pool.DigitalOceanKubernetesNodePool) { p.Metadata = nil },
			[]spectest.Violation{{Field: "metadata", Rule: "required"}}, ""},
		{"a manifest without spec is rejected", func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec = nil },
			[]spectest.Violation{{Field: "spec", Rule: "required"}}, ""},
		// metadata becomes DigitalOcean tags.
		{"a metadata label key the provider manages as a tag is rejected", func(p *pool.DigitalOceanKubernetesNodePool) { p.Metadata.Labels = map[string]string{"K8s": "x"} },
			[]spectest.Violation{{Field: "metadata", Rule: "metadata.labels_not_reserved_tags"}}, "must not be k8s or terraform"},
		{"a metadata label key starting with terraform: is rejected", func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Metadata.Labels = map[string]string{"terraform:x": "y"}
		},
			[]spectest.Violation{{Field: "metadata", Rule: "metadata.labels_not_reserved_tags"}}, ""},
		{"a metadata label whose tag would exceed 255 characters is rejected", func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Metadata.Labels = map[string]string{"team": strings.Repeat("v", 251)}
		}, []spectest.Violation{{Field: "metadata", Rule: "metadata.tags_fit_255"}}, "at most 255 characters"},
		{"a metadata org whose tag would exceed 255 characters is rejected", func(p *pool.DigitalOceanKubernetesNodePool) { p.Metadata.Org = strings.Repeat("o", 243) },
			[]spectest.Violation{{Field: "metadata", Rule: "metadata.tags_fit_255"}}, ""},
		{"a manifest without metadata.name is rejected", func(p *pool.DigitalOceanKubernetesNodePool) { p.Metadata.Name = "" },
			[]spectest.Violation{{Field: "metadata.name", Rule: "required"}}, ""},
		{"a metadata.name with a space is rejected", func(p *pool.DigitalOceanKubernetesNodePool) { p.Metadata.Name = "prod workers" },
			[]spectest.Violation{{Field: "metadata.name", Rule: "string.pattern"}}, ""},
		{"a metadata.name of 64 characters is rejected", func(p *pool.DigitalOceanKubernetesNodePool) { p.Metadata.Name = strings.Repeat("m", 64) },
			[]spectest.Violation{{Field: "metadata.name", Rule: "string.max_len"}}, ""},

		// node_pool_name, cluster, size.
		{"a pool without node_pool_name is rejected", func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.NodePoolName = "" },
			[]spectest.Violation{{Field: "spec.node_pool_name", Rule: "required"}}, ""},
		{"a node_pool_name with an underscore is rejected", func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.NodePoolName = "gpu_pool" },
			[]spectest.Violation{{Field: "spec.node_pool_name", Rule: "string.pattern"}}, ""},
		{"a node_pool_name of 64 characters is rejected", func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.NodePoolName = strings.Repeat("w", 64) },
			[]spectest.Violation{{Field: "spec.node_pool_name", Rule: "string.max_len"}}, ""},
		{"a pool without cluster is rejected", func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.Cluster = nil },
			[]spectest.Violation{{Field: "spec.cluster", Rule: "required"}}, ""},
		{"a cluster with neither value nor valueFrom is rejected", func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.Cluster = &sharedv1.StringValueOrRef{} },
			[]spectest.Violation{{Field: "spec.cluster.literal_or_ref", Rule: "required"}}, ""},
		{"a cluster with an empty literal value is rejected", func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.Cluster = sharedv1.StringValue("") },
			[]spectest.Violation{{Field: "spec.cluster.value", Rule: "string.min_len"}}, ""},
		{"a cluster reference without a name is rejected", func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Cluster = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "DigitalOceanKubernetesCluster"})
		}, []spectest.Violation{{Field: "spec.cluster.value_from.name", Rule: "required"}}, ""},
		{"a cluster reference without kind is rejected: the kind names the referenced stack", func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Cluster = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Name: "prod-fra1"})
		}, []spectest.Violation{{Field: "spec.cluster", Rule: "cluster.value_from_kind"}}, "cluster.valueFrom.kind must be DigitalOceanKubernetesCluster"},
		{"a cluster reference to another kind is rejected", func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Cluster = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "SomethingElse", Name: "prod-fra1"})
		}, []spectest.Violation{{Field: "spec.cluster", Rule: "cluster.value_from_kind"}}, ""},
		{"a cluster reference to an output the kind does not have is rejected", func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Cluster = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "DigitalOceanKubernetesCluster", Name: "prod-fra1", FieldPath: "status.outputs.no_such_output"})
		}, []spectest.Violation{{Field: "spec.cluster", Rule: "cluster.value_from_field_path"}}, "must name an output of DigitalOceanKubernetesCluster"},
		{"a cluster reference with an invalid name is rejected", func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Cluster = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "DigitalOceanKubernetesCluster", Name: "prod-fra1-"})
		}, []spectest.Violation{{Field: "spec.cluster.value_from.name", Rule: "string.pattern"}}, ""},
		{"a cluster reference with a name of 64 characters is rejected", func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Cluster = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "DigitalOceanKubernetesCluster", Name: strings.Repeat("c", 64)})
		}, []spectest.Violation{{Field: "spec.cluster.value_from.name", Rule: "string.max_len"}}, ""},
		{"a cluster reference with a bare output name as field_path is rejected", func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Cluster = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "DigitalOceanKubernetesCluster", Name: "prod-fra1", FieldPath: "cluster_id"})
		}, []spectest.Violation{{Field: "spec.cluster.value_from.field_path", Rule: "string.pattern"}}, ""},
		{"a pool without size is rejected", func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.Size = "" },
			[]spectest.Violation{{Field: "spec.size", Rule: "required"}}, ""},

		// node_count and autoscaling.
		{"a pool of zero nodes without autoscaling is rejected", func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.NodeCount = 0 },
			[]spectest.Violation{{Field: "spec.node_count", Rule: "node_count.required_without_auto_scale"}}, "spec.nodeCount: must be at least 1 unless autoScale is true"},
		{"a negative node_count is rejected", func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.NodeCount = -3 },
			[]spectest.Violation{{Field: "spec.node_count", Rule: "int32.gte_lte"}, {Field: "spec.node_count", Rule: "node_count.required_without_auto_scale"}}, ""},
		{"autoscaling with max_nodes 0 is rejected: the pool could never have a node", autoScale(0, 0, 0),
			[]spectest.Violation{{Field: "spec.max_nodes", Rule: "max_nodes.at_least_one"}}, "spec.maxNodes: must be at least 1"},
		{"autoscaling with a negative min_nodes is rejected", autoScale(-1, 0, 5),
			[]spectest.Violation{{Field: "spec.min_nodes", Rule: "int32.gte_lte"}}, ""},
		{"autoscaling with max_nodes below min_nodes is rejected", autoScale(5, 0, 4),
			[]spectest.Violation{{Field: "spec.max_nodes", Rule: "max_nodes.at_least_min_nodes"}}, ""},
		{"autoscaling with max_nodes left unset is rejected", autoScale(1, 0, 0),
			[]spectest.Violation{{Field: "spec.max_nodes", Rule: "max_nodes.at_least_min_nodes"}, {Field: "spec.max_nodes", Rule: "max_nodes.at_least_one"}}, ""},
		{"autoscaling with a negative max_nodes is rejected", autoScale(1, 0, -1),
			[]spectest.Violation{{Field: "spec.max_nodes", Rule: "int32.gte_lte"}, {Field: "spec.max_nodes", Rule: "max_nodes.at_least_min_nodes"}, {Field: "spec.max_nodes", Rule: "max_nodes.at_least_one"}}, ""},
		{"autoscaling with node_count above max_nodes is rejected", autoScale(1, 8, 5),
			[]spectest.Violation{{Field: "spec.node_count", Rule: "node_count.within_bounds"}}, "nodeCount: must be between minNodes and maxNodes"},
		{"autoscaling with node_count below min_nodes is rejected", autoScale(3, 2, 5),
			[]spectest.Violation{{Field: "spec.node_count", Rule: "node_count.within_bounds"}}, ""},
		{"min_nodes without auto_scale is rejected", func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.MinNodes = 1 },
			[]spectest.Violation{{Field: "spec.min_nodes", Rule: "min_nodes.needs_auto_scale"}}, "spec.minNodes: is only allowed when autoScale is true"},
		{"max_nodes without auto_scale is rejected", func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.MaxNodes = 5 },
			[]spectest.Violation{{Field: "spec.max_nodes", Rule: "max_nodes.needs_auto_scale"}}, ""},

		// Labels.
		{"a label key with a space is rejected", func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.Labels = map[string]string{"Bad Key": "x"} },
			[]spectest.Violation{{Field: `spec.labels["Bad Key"]`, Rule: "string.pattern"}}, ""},
		{"an empty label key is rejected", func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.Labels = map[string]string{"": "x"} },
			[]spectest.Violation{{Field: `spec.labels[""]`, Rule: "string.pattern"}}, ""},
		{"a label key whose name exceeds 63 characters is rejected", func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Labels = map[string]string{strings.Repeat("k", 64): "x"}
		}, []spectest.Violation{{Field: `spec.labels["` + strings.Repeat("k", 64) + `"]`, Rule: "string.pattern"}}, ""},
		{"a label key whose DNS prefix exceeds 253 characters is rejected", func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Labels = map[string]string{spectest.Prefix254 + "/role": "x"}
		}, []spectest.Violation{{Field: `spec.labels["` + spectest.Prefix254 + `/role"]`, Rule: "label_key.prefix_max_len"}}, "must be at most 253 characters"},
		{"a label key longer than 317 characters is rejected", func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Labels = map[string]string{spectest.Prefix254 + "/" + strings.Repeat("n", 63): "x"}
		}, []spectest.Violation{
			{Field: `spec.labels["` + spectest.Prefix254 + "/" + strings.Repeat("n", 63) + `"]`, Rule: "string.max_len"},
			{Field: `spec.labels["` + spectest.Prefix254 + "/" + strings.Repeat("n", 63) + `"]`, Rule: "label_key.prefix_max_len"},
		}, ""},
		{"a label value with a space is rejected", func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.Labels = map[string]string{"tier": "a b"} },
			[]spectest.Violation{{Field: `spec.labels["tier"]`, Rule: "string.pattern"}}, ""},
		{"a label value of 64 characters is rejected", func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Labels = map[string]string{"tier": strings.Repeat("v", 64)}
		}, []spectest.Violation{{Field: `spec.labels["tier"]`, Rule: "string.pattern"}}, ""},

		{"a label key in the kubernetes.io namespace is rejected: the kubelet refuses it", func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Labels = map[string]string{"kubernetes.io/role": "worker"}
		}, []spectest.Violation{{Field: `spec.labels["kubernetes.io/role"]`, Rule: "label_key.kubelet_namespace"}}, "the nodes never join"},
		{"a node-role label is rejected: its namespace is under kubernetes.io", func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Labels = map[string]string{"node-role.kubernetes.io/worker": ""}
		}, []spectest.Violation{{Field: `spec.labels["node-role.kubernetes.io/worker"]`, Rule: "label_key.kubelet_namespace"}}, ""},

		// Taints.
		{"a taint without key is rejected", func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Taints = []*sharedv1.Taint{{Value: "x", Effect: sharedv1.TaintEffect_NoSchedule}}
		}, []spectest.Violation{{Field: "spec.taints[0].key", Rule: "required"}}, ""},
		{"a taint key ending in a dot is rejected", func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Taints = []*sharedv1.Taint{{Key: "gpu.", Effect: sharedv1.TaintEffect_NoSchedule}}
		}, []spectest.Violation{{Field: "spec.taints[0].key", Rule: "string.pattern"}}, ""},
		{"a taint key whose DNS prefix exceeds 253 characters is rejected", func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Taints = []*sharedv1.Taint{{Key: spectest.Prefix254 + "/gpu", Effect: sharedv1.TaintEffect_NoSchedule}}
		}, []spectest.Violation{{Field: "spec.taints[0].key", Rule: "key.prefix_max_len"}}, "must be at most 253 characters"},
		{"a taint key longer than 317 characters is rejected", func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Taints = []*sharedv1.Taint{{Key: spectest.Prefix254 + "/" + strings.Repeat("n", 63), Effect: sharedv1.TaintEffect_NoSchedule}}
		}, []spectest.Violation{{Field: "spec.taints[0].key", Rule: "string.max_len"}, {Field: "spec.taints[0].key", Rule: "key.prefix_max_len"}}, ""},
		{"a taint value with a colon is rejected", func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Taints = []*sharedv1.Taint{{Key: "gpu", Value: "a:b", Effect: sharedv1.TaintEffect_NoSchedule}}
		}, []spectest.Violation{{Field: "spec.taints[0].value", Rule: "string.pattern"}}, ""},
		{"a taint without effect is rejected", func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Taints = []*sharedv1.Taint{{Key: "gpu", Value: "true"}}
		}, []spectest.Violation{{Field: "spec.taints[0].effect", Rule: "required"}}, ""},
		{"a taint with an unknown effect number is rejected", func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Taints = []*sharedv1.Taint{{Key: "gpu", Effect: -1}}
		}, []spectest.Violation{{Field: "spec.taints[0].effect", Rule: "enum.defined_only"}}, ""},
		{"two taints with the same key and effect are rejected", func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Taints = []*sharedv1.Taint{
				{Key: "gpu", Effect: sharedv1.TaintEffect_PreferNoSchedule},
				{Key: "gpu", Value: "true", Effect: sharedv1.TaintEffect_PreferNoSchedule},
			}
		}, []spectest.Violation{{Field: "spec.taints", Rule: "taints.unique_key_effect"}}, "must not repeat a key and effect pair"},

		// Rollout.
		{"a rollout with an unknown strategy number is rejected", func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Rollout = &sharedv1.Rollout{Strategy: 7}
		}, []spectest.Violation{{Field: "spec.rollout.strategy", Rule: "enum.defined_only"}}, ""},
		{"a drain timeout over a day is rejected", func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Rollout = &sharedv1.Rollout{Strategy: sharedv1.RolloutStrategy_ROTATE, DrainTimeoutMinutes: 1441}
		}, []spectest.Violation{{Field: "spec.rollout.drain_timeout_minutes", Rule: "int32.gte_lte"}}, ""},

		// Tags.
		{"a tag with a space is rejected", func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.Tags = []string{"team apps"} },
			[]spectest.Violation{{Field: "spec.tags[0]", Rule: "string.pattern"}}, ""},
		{"a tag of 256 characters is rejected", func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.Tags = []string{strings.Repeat("t", 256)} },
			[]spectest.Violation{{Field: "spec.tags[0]", Rule: "string.pattern"}}, ""},
		{"a repeated tag is rejected", func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.Tags = []string{"apps", "apps"} },
			[]spectest.Violation{{Field: "spec.tags", Rule: "repeated.unique"}}, ""},
		{"the tag k8s is rejected because the provider manages it", func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.Tags = []string{"k8s"} },
			[]spectest.Violation{{Field: "spec.tags[0]", Rule: "tag.not_reserved"}}, "tags[0]: must not be k8s or start with k8s: or terraform:"},
		{"a tag starting with k8s: is rejected", func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.Tags = []string{"apps", "k8s:worker"} },
			[]spectest.Violation{{Field: "spec.tags[1]", Rule: "tag.not_reserved"}}, ""},
		{"a tag starting with terraform: is rejected", func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.Tags = []string{"terraform:pool"} },
			[]spectest.Violation{{Field: "spec.tags[0]", Rule: "tag.not_reserved"}}, ""},
	}
	covered := map[string]bool{}
	for _, tt := range tests {
		for _, w := range tt.want {
			covered[w.Rule] = true
		}
		t.Run(tt.name, func(t *testing.T) {
			p := validDigitalOceanKubernetesNodePool()
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

func TestDigitalOceanKubernetesNodePoolReportsEveryMistakeAtOnce(t *testing.T) {
	p := validDigitalOceanKubernetesNodePool()
	p.Metadata.Name = ""
	p.Spec.NodePoolName = "Workers"
	p.Spec.Cluster = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "DigitalOceanKubernetesCluster", FieldPath: "spec.cluster_id"})
	p.Spec.AutoScale, p.Spec.MinNodes, p.Spec.NodeCount, p.Spec.MaxNodes = true, 0, 9, 5
	p.Spec.Labels = map[string]string{"tier": "-x"}
	p.Spec.Tags = []string{"terraform:x", "terraform:x"}

	err := validation.Validate(p)
	spectest.AssertViolations(t, err,
		spectest.Violation{Field: "metadata.name", Rule: "required"},
		spectest.Violation{Field: "spec.node_pool_name", Rule: "string.pattern"},
		spectest.Violation{Field: "spec.cluster.value_from.name", Rule: "required"},
		spectest.Violation{Field: "spec.cluster.value_from.field_path", Rule: "string.pattern"},
		spectest.Violation{Field: "spec.node_count", Rule: "node_count.within_bounds"},
		spectest.Violation{Field: `spec.labels["tier"]`, Rule: "string.pattern"},
		spectest.Violation{Field: "spec.tags", Rule: "repeated.unique"},
		spectest.Violation{Field: "spec.tags[0]", Rule: "tag.not_reserved"},
		spectest.Violation{Field: "spec.tags[1]", Rule: "tag.not_reserved"},
	)
	spectest.AssertViolationsListed(t, err)
	if !strings.Contains(err.Error(), "9 violations") {
		t.Errorf("error does not count 9 violations:\n%v", err)
	}
}

func TestDigitalOceanKubernetesNodePoolStackInput(t *testing.T) {
	t.Run("a stack input with a valid target and an empty provider config is accepted", func(t *testing.T) {
		in := &pool.DigitalOceanKubernetesNodePoolStackInput{Target: validDigitalOceanKubernetesNodePool(), ProviderConfig: &digitaloceanv1.DigitalOceanProviderConfig{}}
		if err := validation.Validate(in); err != nil {
			t.Fatalf("Validate() = %v, want nil", err)
		}
	})
	t.Run("a provider config with a token and api_url is accepted", func(t *testing.T) {
		in := &pool.DigitalOceanKubernetesNodePoolStackInput{Target: validDigitalOceanKubernetesNodePool(), ProviderConfig: &digitaloceanv1.DigitalOceanProviderConfig{
			ApiToken: "dop_v1_secret", ApiUrl: "https://api.digitalocean.com",
		}}
		if err := validation.Validate(in); err != nil {
			t.Fatalf("Validate() = %v, want nil", err)
		}
	})
	t.Run("a stack input without target is rejected", func(t *testing.T) {
		spectest.AssertViolations(t, validation.Validate(&pool.DigitalOceanKubernetesNodePoolStackInput{}), spectest.Violation{Field: "target", Rule: "required"})
	})
	t.Run("a stack input reports its target's violations under target", func(t *testing.T) {
		p := validDigitalOceanKubernetesNodePool()
		p.Spec.Size = ""
		spectest.AssertViolations(t, validation.Validate(&pool.DigitalOceanKubernetesNodePoolStackInput{Target: p}), spectest.Violation{Field: "target.spec.size", Rule: "required"})
	})
	t.Run("a provider config with an invalid api_url is rejected", func(t *testing.T) {
		in := &pool.DigitalOceanKubernetesNodePoolStackInput{Target: validDigitalOceanKubernetesNodePool(), ProviderConfig: &digitaloceanv1.DigitalOceanProviderConfig{ApiToken: "a-token-of-its-own", ApiUrl: "http//api.digitalocean.com"}}
		spectest.AssertViolations(t, validation.Validate(in), spectest.Violation{Field: "provider_config.api_url", Rule: "string.uri"})
	})
}
