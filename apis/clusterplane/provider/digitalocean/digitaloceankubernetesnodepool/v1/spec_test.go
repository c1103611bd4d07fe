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
	tests := []spectest.Acceptance[*pool.DigitalOceanKubernetesNodePool]{
		{Name: "a minimal pool with a literal cluster id is accepted", Mutate: func(*pool.DigitalOceanKubernetesNodePool) {}},
		{Name: "a pool with every field set is accepted", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) {
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
		{Name: "a pool that allows rotation is accepted", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Rollout = &sharedv1.Rollout{Strategy: sharedv1.RolloutStrategy_ROTATE, MaxSurge: 3, DrainTimeoutMinutes: 20, DeleteEmptyDirData: true}
		}},
		{Name: "autoscaling without node_count is accepted", Mutate: autoScale(1, 0, 5)},
		{Name: "autoscaling down to zero nodes is accepted: DigitalOcean scales separate pools to zero", Mutate: autoScale(0, 0, 3)},
		{Name: "autoscaling with min, count and max all equal to 1 is accepted", Mutate: autoScale(1, 1, 1)},
		{Name: "autoscaling with min equal to max and no node_count is accepted", Mutate: autoScale(4, 0, 4)},
		{Name: "autoscaling with node_count at the lower bound is accepted", Mutate: autoScale(2, 2, 6)},
		{Name: "autoscaling with node_count at the upper bound is accepted", Mutate: autoScale(2, 6, 6)},
		{Name: "a pool of exactly one node without autoscaling is accepted", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.NodeCount = 1 }},
		{Name: "a taint with an empty value is accepted", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Taints = []*sharedv1.Taint{{Key: "nvidia.com/gpu", Effect: sharedv1.TaintEffect_NoSchedule}}
		}},
		{Name: "the same taint key with different effects is accepted", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Taints = []*sharedv1.Taint{
				{Key: "nvidia.com/gpu", Effect: sharedv1.TaintEffect_NoSchedule},
				{Key: "nvidia.com/gpu", Effect: sharedv1.TaintEffect_NoExecute},
			}
		}},
		{Name: "a label key with a DNS prefix and an empty label value are accepted", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Labels = map[string]string{"example.com/role": "", "topology.kubernetes.io/zone": "fra1"}
		}},
		{Name: "a label key and a taint key with a DNS prefix of exactly 253 characters are accepted", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Labels = map[string]string{spectest.Prefix253 + "/" + strings.Repeat("n", 63): "worker"}
			p.Spec.Taints = []*sharedv1.Taint{{Key: spectest.Prefix253 + "/gpu", Effect: sharedv1.TaintEffect_NoSchedule}}
		}},
		{Name: "tags that only look like reserved ones are accepted", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Tags = []string{"k8s-workers", "terraform"}
		}},
		{Name: "a pool name of exactly 63 characters is accepted", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.NodePoolName = strings.Repeat("w", 63)
		}},
	}
	spectest.AssertAcceptances(t, validDigitalOceanKubernetesNodePool, tests, func(t *testing.T, p *pool.DigitalOceanKubernetesNodePool) {
		// What the module registers for a valid manifest, the pinned provider accepts.
		in := &pool.DigitalOceanKubernetesNodePoolStackInput{Target: p}
		providerschema.AssertPlanConforms(t, func(ctx *pulumi.Context) error { return module.Resources(ctx, in) })
	})
}

// Promise: pitfalls-validate-refuses-reserved-label-keys
// Promise: pitfalls-tags-differing-in-case-refused
func TestDigitalOceanKubernetesNodePoolRejectsEachBrokenRule(t *testing.T) {
	// The rules every kind shares come first, then this kind's own.
	tests := append(append(spectest.Envelope[*pool.DigitalOceanKubernetesNodePool]("digitalocean.clusterplane.dev/v1", "DigitalOceanKubernetesNodePool", "digitalocean.clusterplane.dev/v1beta1", "DigitalOceanKubernetesCluster"), spectest.TaggedMetadata[*pool.DigitalOceanKubernetesNodePool]()...), []spectest.Rejection[*pool.DigitalOceanKubernetesNodePool]{
		// Envelope.
		// Node limits: Kubernetes supports at most 5,000 nodes in a cluster, whose default pool has one.
		{Name: "a pool of 5000 nodes is rejected: with the cluster's default pool it passes Kubernetes' 5,000", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.NodeCount = 5000 },
			Want: []spectest.Violation{{Field: "spec.node_count", Rule: "int32.gte_lte"}}, Hint: "4999"},
		{Name: "an autoscaler bound of 5000 nodes is rejected", Mutate: autoScale(1, 2, 5000),
			Want: []spectest.Violation{{Field: "spec.max_nodes", Rule: "int32.gte_lte"}}, Hint: "4999"},
		// metadata becomes DigitalOcean tags.
		{Name: "a metadata.name with a space is rejected", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) { p.Metadata.Name = "prod workers" },
			Want: []spectest.Violation{{Field: "metadata.name", Rule: "string.pattern"}}, Hint: ""},
		{Name: "a metadata.name of 64 characters is rejected", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) { p.Metadata.Name = strings.Repeat("m", 64) },
			Want: []spectest.Violation{{Field: "metadata.name", Rule: "string.max_len"}}, Hint: ""},

		// node_pool_name, cluster, size.
		{Name: "a pool without node_pool_name is rejected", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.NodePoolName = "" },
			Want: []spectest.Violation{{Field: "spec.node_pool_name", Rule: "required"}}, Hint: ""},
		{Name: "a node_pool_name with an underscore is rejected", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.NodePoolName = "gpu_pool" },
			Want: []spectest.Violation{{Field: "spec.node_pool_name", Rule: "string.pattern"}}, Hint: ""},
		{Name: "a node_pool_name of 64 characters is rejected", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.NodePoolName = strings.Repeat("w", 64) },
			Want: []spectest.Violation{{Field: "spec.node_pool_name", Rule: "string.max_len"}}, Hint: ""},
		{Name: "a pool without cluster is rejected", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.Cluster = nil },
			Want: []spectest.Violation{{Field: "spec.cluster", Rule: "required"}}, Hint: ""},
		{Name: "a cluster with neither value nor valueFrom is rejected", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.Cluster = &sharedv1.StringValueOrRef{} },
			Want: []spectest.Violation{{Field: "spec.cluster.literal_or_ref", Rule: "required"}}, Hint: ""},
		{Name: "a cluster with an empty literal value is rejected", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.Cluster = sharedv1.StringValue("") },
			Want: []spectest.Violation{{Field: "spec.cluster.value", Rule: "string.min_len"}}, Hint: ""},
		{Name: "a cluster reference without a name is rejected", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Cluster = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "DigitalOceanKubernetesCluster"})
		}, Want: []spectest.Violation{{Field: "spec.cluster.value_from.name", Rule: "required"}}, Hint: ""},
		{Name: "a cluster reference without kind is rejected: the kind names the referenced stack", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Cluster = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Name: "prod-fra1"})
		}, Want: []spectest.Violation{{Field: "spec.cluster", Rule: "cluster.value_from_kind"}}, Hint: "cluster.valueFrom.kind must be DigitalOceanKubernetesCluster"},
		{Name: "a cluster reference to another kind is rejected", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Cluster = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "SomethingElse", Name: "prod-fra1"})
		}, Want: []spectest.Violation{{Field: "spec.cluster", Rule: "cluster.value_from_kind"}}, Hint: ""},
		{Name: "a cluster reference to an output the kind does not have is rejected", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Cluster = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "DigitalOceanKubernetesCluster", Name: "prod-fra1", FieldPath: "status.outputs.no_such_output"})
		}, Want: []spectest.Violation{{Field: "spec.cluster", Rule: "cluster.value_from_field_path"}}, Hint: "must name an output of DigitalOceanKubernetesCluster"},
		{Name: "a cluster reference with an invalid name is rejected", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Cluster = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "DigitalOceanKubernetesCluster", Name: "prod-fra1-"})
		}, Want: []spectest.Violation{{Field: "spec.cluster.value_from.name", Rule: "string.pattern"}}, Hint: ""},
		{Name: "a cluster reference with a name of 64 characters is rejected", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Cluster = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "DigitalOceanKubernetesCluster", Name: strings.Repeat("c", 64)})
		}, Want: []spectest.Violation{{Field: "spec.cluster.value_from.name", Rule: "string.max_len"}}, Hint: ""},
		{Name: "a cluster reference with a bare output name as field_path is rejected", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Cluster = sharedv1.StringValueFrom(&sharedv1.ValueFromRef{Kind: "DigitalOceanKubernetesCluster", Name: "prod-fra1", FieldPath: "cluster_id"})
		}, Want: []spectest.Violation{{Field: "spec.cluster.value_from.field_path", Rule: "string.pattern"}}, Hint: ""},
		{Name: "a pool without size is rejected", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.Size = "" },
			Want: []spectest.Violation{{Field: "spec.size", Rule: "required"}}, Hint: ""},

		// node_count and autoscaling.
		{Name: "a pool of zero nodes without autoscaling is rejected", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.NodeCount = 0 },
			Want: []spectest.Violation{{Field: "spec.node_count", Rule: "node_count.required_without_auto_scale"}}, Hint: "spec.nodeCount: must be at least 1 unless autoScale is true"},
		{Name: "a negative node_count is rejected", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.NodeCount = -3 },
			Want: []spectest.Violation{{Field: "spec.node_count", Rule: "int32.gte_lte"}, {Field: "spec.node_count", Rule: "node_count.required_without_auto_scale"}}, Hint: ""},
		{Name: "autoscaling with max_nodes 0 is rejected: the pool could never have a node", Mutate: autoScale(0, 0, 0),
			Want: []spectest.Violation{{Field: "spec.max_nodes", Rule: "max_nodes.at_least_one"}}, Hint: "spec.maxNodes: must be at least 1"},
		{Name: "autoscaling with a negative min_nodes is rejected", Mutate: autoScale(-1, 0, 5),
			Want: []spectest.Violation{{Field: "spec.min_nodes", Rule: "int32.gte_lte"}}, Hint: ""},
		{Name: "autoscaling with max_nodes below min_nodes is rejected", Mutate: autoScale(5, 0, 4),
			Want: []spectest.Violation{{Field: "spec.max_nodes", Rule: "max_nodes.at_least_min_nodes"}}, Hint: ""},
		{Name: "autoscaling with max_nodes left unset is rejected", Mutate: autoScale(1, 0, 0),
			Want: []spectest.Violation{{Field: "spec.max_nodes", Rule: "max_nodes.at_least_min_nodes"}, {Field: "spec.max_nodes", Rule: "max_nodes.at_least_one"}}, Hint: ""},
		{Name: "autoscaling with a negative max_nodes is rejected", Mutate: autoScale(1, 0, -1),
			Want: []spectest.Violation{{Field: "spec.max_nodes", Rule: "int32.gte_lte"}, {Field: "spec.max_nodes", Rule: "max_nodes.at_least_min_nodes"}, {Field: "spec.max_nodes", Rule: "max_nodes.at_least_one"}}, Hint: ""},
		{Name: "autoscaling with node_count above max_nodes is rejected", Mutate: autoScale(1, 8, 5),
			Want: []spectest.Violation{{Field: "spec.node_count", Rule: "node_count.within_bounds"}}, Hint: "nodeCount: must be between minNodes and maxNodes"},
		{Name: "autoscaling with node_count below min_nodes is rejected", Mutate: autoScale(3, 2, 5),
			Want: []spectest.Violation{{Field: "spec.node_count", Rule: "node_count.within_bounds"}}, Hint: ""},
		{Name: "min_nodes without auto_scale is rejected", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.MinNodes = 1 },
			Want: []spectest.Violation{{Field: "spec.min_nodes", Rule: "min_nodes.needs_auto_scale"}}, Hint: "spec.minNodes: is only allowed when autoScale is true"},
		{Name: "max_nodes without auto_scale is rejected", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.MaxNodes = 5 },
			Want: []spectest.Violation{{Field: "spec.max_nodes", Rule: "max_nodes.needs_auto_scale"}}, Hint: ""},

		// Labels.
		{Name: "an empty label key is rejected", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.Labels = map[string]string{"": "x"} },
			Want: []spectest.Violation{{Field: `spec.labels[""]`, Rule: "string.pattern"}}, Hint: ""},
		{Name: "a label key whose name exceeds 63 characters is rejected", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Labels = map[string]string{strings.Repeat("k", 64): "x"}
		}, Want: []spectest.Violation{{Field: `spec.labels["` + strings.Repeat("k", 64) + `"]`, Rule: "string.pattern"}}, Hint: ""},
		{Name: "a label value with a space is rejected", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.Labels = map[string]string{"tier": "a b"} },
			Want: []spectest.Violation{{Field: `spec.labels["tier"]`, Rule: "string.pattern"}}, Hint: ""},

		{Name: "a label key in the kubernetes.io namespace is rejected: the kubelet refuses it", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Labels = map[string]string{"kubernetes.io/role": "worker"}
		}, Want: []spectest.Violation{{Field: `spec.labels["kubernetes.io/role"]`, Rule: "label_key.kubelet_namespace"}}, Hint: "the nodes never join"},

		// Taints.
		{Name: "a taint without key is rejected", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Taints = []*sharedv1.Taint{{Value: "x", Effect: sharedv1.TaintEffect_NoSchedule}}
		}, Want: []spectest.Violation{{Field: "spec.taints[0].key", Rule: "required"}}, Hint: ""},
		{Name: "a taint key ending in a dot is rejected", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Taints = []*sharedv1.Taint{{Key: "gpu.", Effect: sharedv1.TaintEffect_NoSchedule}}
		}, Want: []spectest.Violation{{Field: "spec.taints[0].key", Rule: "string.pattern"}}, Hint: ""},
		{Name: "a taint value with a colon is rejected", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Taints = []*sharedv1.Taint{{Key: "gpu", Value: "a:b", Effect: sharedv1.TaintEffect_NoSchedule}}
		}, Want: []spectest.Violation{{Field: "spec.taints[0].value", Rule: "string.pattern"}}, Hint: ""},
		{Name: "a taint with an unknown effect number is rejected", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Taints = []*sharedv1.Taint{{Key: "gpu", Effect: -1}}
		}, Want: []spectest.Violation{{Field: "spec.taints[0].effect", Rule: "enum.defined_only"}}, Hint: ""},
		{Name: "two taints with the same key and effect are rejected", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Taints = []*sharedv1.Taint{
				{Key: "gpu", Effect: sharedv1.TaintEffect_PreferNoSchedule},
				{Key: "gpu", Value: "true", Effect: sharedv1.TaintEffect_PreferNoSchedule},
			}
		}, Want: []spectest.Violation{{Field: "spec.taints", Rule: "taints.unique_key_effect"}}, Hint: "must not repeat a key and effect pair"},

		// Rollout.
		{Name: "a rollout with an unknown strategy number is rejected", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Rollout = &sharedv1.Rollout{Strategy: 7}
		}, Want: []spectest.Violation{{Field: "spec.rollout.strategy", Rule: "enum.defined_only"}}, Hint: ""},
		{Name: "a drain timeout over a day is rejected", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) {
			p.Spec.Rollout = &sharedv1.Rollout{Strategy: sharedv1.RolloutStrategy_ROTATE, DrainTimeoutMinutes: 1441}
		}, Want: []spectest.Violation{{Field: "spec.rollout.drain_timeout_minutes", Rule: "int32.gte_lte"}}, Hint: ""},

		// Tags.
		{Name: "a tag with a space is rejected", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.Tags = []string{"team apps"} },
			Want: []spectest.Violation{{Field: "spec.tags[0]", Rule: "string.pattern"}}, Hint: ""},
		{Name: "a tag of 256 characters is rejected", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.Tags = []string{strings.Repeat("t", 256)} },
			Want: []spectest.Violation{{Field: "spec.tags[0]", Rule: "string.pattern"}}, Hint: ""},
		{Name: "a repeated tag is rejected", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.Tags = []string{"apps", "apps"} },
			Want: []spectest.Violation{{Field: "spec.tags", Rule: "repeated.unique"}}, Hint: ""},
		{Name: "two tags that differ only in case are rejected: DigitalOcean tags ignore case",
			Mutate: func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.Tags = []string{"apps", "Apps"} },
			Want:   []spectest.Violation{{Field: "spec.tags[1]", Rule: validation.RuleTagCase}}, Hint: "only in case"},
		{Name: "the tag k8s is rejected because the provider manages it", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.Tags = []string{"k8s"} },
			Want: []spectest.Violation{{Field: "spec.tags[0]", Rule: "tag.not_reserved"}}, Hint: "tags[0]: must not be k8s or start with k8s: or terraform:"},
		{Name: "a tag starting with k8s: is rejected", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.Tags = []string{"apps", "k8s:worker"} },
			Want: []spectest.Violation{{Field: "spec.tags[1]", Rule: "tag.not_reserved"}}, Hint: ""},
		{Name: "a tag starting with terraform: is rejected", Mutate: func(p *pool.DigitalOceanKubernetesNodePool) { p.Spec.Tags = []string{"terraform:pool"} },
			Want: []spectest.Violation{{Field: "spec.tags[0]", Rule: "tag.not_reserved"}}, Hint: ""},
	}...)
	tests = append(tests, spectest.PoolLabelsAndTaints(
		func(p *pool.DigitalOceanKubernetesNodePool, l map[string]string) { p.Spec.Labels = l },
		func(p *pool.DigitalOceanKubernetesNodePool, t []*sharedv1.Taint) { p.Spec.Taints = t })...)
	spectest.AssertRejections(t, validDigitalOceanKubernetesNodePool, tests)
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
