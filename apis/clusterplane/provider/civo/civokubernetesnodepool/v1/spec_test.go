package civokubernetesnodepoolv1_test

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	pool "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetesnodepool/v1"
	civov1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/validation"
)

// validCivoKubernetesNodePool is the smallest manifest that passes validation.
func validCivoKubernetesNodePool() *pool.CivoKubernetesNodePool {
	return &pool.CivoKubernetesNodePool{
		ApiVersion: "civo.clusterplane.dev/v1",
		Kind:       "CivoKubernetesNodePool",
		Metadata:   &sharedv1.CloudResourceMetadata{Name: "prod-fra1-gpu"},
		Spec: &pool.CivoKubernetesNodePoolSpec{
			NodePoolName: "gpu",
			Cluster:      value("a1b2c3d4-0000-4000-8000-000000000001"),
			Region:       civov1.CivoRegion_fra1,
			Size:         "g4s.kube.large",
			NodeCount:    2,
		},
	}
}

// A DNS prefix of 253 characters, the longest a Kubernetes qualified name allows, and one of 254.
var (
	prefix253 = strings.Repeat("a.", 126) + "b"
	prefix254 = strings.Repeat("a.", 126) + "bc"
)

func value(v string) *sharedv1.StringValueOrRef {
	return &sharedv1.StringValueOrRef{LiteralOrRef: &sharedv1.StringValueOrRef_Value{Value: v}}
}

func ref(r *sharedv1.ValueFromRef) *sharedv1.StringValueOrRef {
	return &sharedv1.StringValueOrRef{LiteralOrRef: &sharedv1.StringValueOrRef_ValueFrom{ValueFrom: r}}
}

type violation struct{ field, rule string }

// assertViolations checks that err reports exactly want, in any order.
func assertViolations(t *testing.T, err error, want ...violation) {
	t.Helper()
	if err == nil {
		t.Fatalf("Validate() = nil, want violations %v", want)
	}
	got, wantSet := map[violation]int{}, map[violation]int{}
	for _, v := range validation.Violations(err) {
		got[violation{v.Field, v.RuleID}]++
	}
	for _, w := range want {
		wantSet[w]++
	}
	if !maps.Equal(got, wantSet) {
		t.Errorf("violations differ\n got: %v\nwant: %v\nerror: %v", got, wantSet, err)
	}
}

// celIDs returns the ids of the CEL rules declared in the proto files matching the patterns.
func celIDs(t *testing.T, patterns ...string) []string {
	t.Helper()
	var ids []string
	for _, pattern := range patterns {
		files, _ := filepath.Glob(pattern)
		if len(files) == 0 {
			t.Fatalf("no proto file matches %s", pattern)
		}
		for _, file := range files {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range regexp.MustCompile(`\bid: "([^"]+)"`).FindAllStringSubmatch(string(src), -1) {
				ids = append(ids, m[1])
			}
		}
	}
	return ids
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
		{"a pool with every field set is accepted", func(p *pool.CivoKubernetesNodePool) {
			p.Metadata = &sharedv1.CloudResourceMetadata{Name: "prod-fra1-gpu", Id: "np-7", Org: "acme", Env: "prod",
				Labels: map[string]string{"team": "ml"}, Annotations: map[string]string{"owner": "ml team"}}
			s := p.Spec
			s.Cluster = ref(&sharedv1.ValueFromRef{Kind: "CivoKubernetesCluster", Env: "prod", Name: "prod-fra1", FieldPath: "status.outputs.cluster_id"})
			s.Region = civov1.CivoRegion_lon1
			s.AutoScale, s.MinNodes, s.NodeCount, s.MaxNodes = true, 1, 3, 10
			s.Labels = map[string]string{"workload": "batch", "example.com/role": "gpu"}
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
			p.Spec.Labels = map[string]string{prefix253 + "/" + strings.Repeat("n", 63): "gpu"}
			p.Spec.Taints = []*sharedv1.Taint{{Key: prefix253 + "/gpu", Effect: sharedv1.TaintEffect_NoSchedule}}
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
		})
	}
}

func TestCivoKubernetesNodePoolRejectsEachBrokenRule(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*pool.CivoKubernetesNodePool)
		want   []violation
		hint   string // text the error must contain, when the message matters
	}{
		// Envelope.
		{"a wrong api_version is rejected", func(p *pool.CivoKubernetesNodePool) { p.ApiVersion = "digitalocean.clusterplane.dev/v1" },
			[]violation{{"api_version", "string.const"}}, "civo.clusterplane.dev/v1"},
		{"another kind is rejected", func(p *pool.CivoKubernetesNodePool) { p.Kind = "CivoKubernetesCluster" },
			[]violation{{"kind", "string.const"}}, "CivoKubernetesNodePool"},
		{"a manifest without metadata is rejected", func(p *pool.CivoKubernetesNodePool) { p.Metadata = nil },
			[]violation{{"metadata", "required"}}, ""},
		{"a manifest without spec is rejected", func(p *pool.CivoKubernetesNodePool) { p.Spec = nil },
			[]violation{{"spec", "required"}}, ""},
		{"a manifest without metadata.name is rejected", func(p *pool.CivoKubernetesNodePool) { p.Metadata.Name = "" },
			[]violation{{"metadata.name", "required"}}, ""},
		{"a metadata.name with a dot is rejected", func(p *pool.CivoKubernetesNodePool) { p.Metadata.Name = "prod.gpu" },
			[]violation{{"metadata.name", "string.pattern"}}, ""},
		{"a metadata.name of 64 characters is rejected", func(p *pool.CivoKubernetesNodePool) { p.Metadata.Name = strings.Repeat("a", 64) },
			[]violation{{"metadata.name", "string.max_len"}}, ""},

		// node_pool_name, cluster, region, size.
		{"a pool without node_pool_name is rejected", func(p *pool.CivoKubernetesNodePool) { p.Spec.NodePoolName = "" },
			[]violation{{"spec.node_pool_name", "required"}}, ""},
		{"a node_pool_name starting with a dash is rejected", func(p *pool.CivoKubernetesNodePool) { p.Spec.NodePoolName = "-gpu" },
			[]violation{{"spec.node_pool_name", "string.pattern"}}, ""},
		{"a node_pool_name of 64 characters is rejected", func(p *pool.CivoKubernetesNodePool) { p.Spec.NodePoolName = strings.Repeat("g", 64) },
			[]violation{{"spec.node_pool_name", "string.max_len"}}, ""},
		{"a pool without cluster is rejected", func(p *pool.CivoKubernetesNodePool) { p.Spec.Cluster = nil },
			[]violation{{"spec.cluster", "required"}}, ""},
		{"a cluster with neither value nor valueFrom is rejected", func(p *pool.CivoKubernetesNodePool) { p.Spec.Cluster = &sharedv1.StringValueOrRef{} },
			[]violation{{"spec.cluster.literal_or_ref", "required"}}, ""},
		{"a cluster with an empty literal value is rejected", func(p *pool.CivoKubernetesNodePool) { p.Spec.Cluster = value("") },
			[]violation{{"spec.cluster.value", "string.min_len"}}, ""},
		{"a cluster reference without a name is rejected", func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Cluster = ref(&sharedv1.ValueFromRef{Kind: "CivoKubernetesCluster", FieldPath: "status.outputs.cluster_id"})
		}, []violation{{"spec.cluster.value_from.name", "required"}}, ""},
		{"a cluster reference with an invalid name is rejected", func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Cluster = ref(&sharedv1.ValueFromRef{Name: "prod_fra1"})
		}, []violation{{"spec.cluster.value_from.name", "string.pattern"}}, ""},
		{"a cluster reference with a camelCase field_path is rejected", func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Cluster = ref(&sharedv1.ValueFromRef{Name: "prod-fra1", FieldPath: "status.outputs.clusterId"})
		}, []violation{{"spec.cluster.value_from.field_path", "string.pattern"}}, ""},
		{"an unspecified region is rejected", func(p *pool.CivoKubernetesNodePool) { p.Spec.Region = civov1.CivoRegion_CIVO_REGION_UNSPECIFIED },
			[]violation{{"spec.region", "required"}}, ""},
		{"an unknown region number is rejected", func(p *pool.CivoKubernetesNodePool) { p.Spec.Region = 99 },
			[]violation{{"spec.region", "enum.defined_only"}}, ""},
		{"a pool without size is rejected", func(p *pool.CivoKubernetesNodePool) { p.Spec.Size = "" },
			[]violation{{"spec.size", "required"}}, ""},

		// node_count and autoscaling.
		{"a pool of zero nodes is rejected", func(p *pool.CivoKubernetesNodePool) { p.Spec.NodeCount = 0 },
			[]violation{{"spec.node_count", "int32.gte"}}, ""},
		{"autoscaling with min_nodes 0 is rejected", autoScale(0, 2, 3),
			[]violation{{"spec", "min_nodes.at_least_one"}}, "min_nodes must be at least 1"},
		{"autoscaling with min_nodes above node_count is rejected", autoScale(3, 2, 4),
			[]violation{{"spec", "min_nodes.at_most_node_count"}}, ""},
		{"autoscaling with max_nodes below node_count is rejected", autoScale(1, 3, 2),
			[]violation{{"spec", "max_nodes.at_least_node_count"}}, ""},
		{"autoscaling with max_nodes left unset is rejected", autoScale(1, 2, 0),
			[]violation{{"spec", "max_nodes.at_least_node_count"}}, ""},
		{"autoscaling with a negative min_nodes is rejected", autoScale(-1, 2, 3),
			[]violation{{"spec.min_nodes", "int32.gte"}, {"spec", "min_nodes.at_least_one"}}, ""},
		{"a negative max_nodes is rejected", autoScale(1, 2, -1),
			[]violation{{"spec.max_nodes", "int32.gte"}, {"spec", "max_nodes.at_least_node_count"}}, ""},
		{"min_nodes without auto_scale is rejected", func(p *pool.CivoKubernetesNodePool) { p.Spec.MinNodes = 1 },
			[]violation{{"spec", "auto_scale.bounds_need_auto_scale"}}, "only allowed when auto_scale is true"},
		{"max_nodes without auto_scale is rejected", func(p *pool.CivoKubernetesNodePool) { p.Spec.MaxNodes = 5 },
			[]violation{{"spec", "auto_scale.bounds_need_auto_scale"}}, ""},

		// Labels.
		{"a label key with a space is rejected", func(p *pool.CivoKubernetesNodePool) { p.Spec.Labels = map[string]string{"Bad Key": "x"} },
			[]violation{{`spec.labels["Bad Key"]`, "string.pattern"}}, ""},
		{"a label key with two slashes is rejected", func(p *pool.CivoKubernetesNodePool) { p.Spec.Labels = map[string]string{"a.com/b/c": "x"} },
			[]violation{{`spec.labels["a.com/b/c"]`, "string.pattern"}}, ""},
		{"a label key whose DNS prefix exceeds 253 characters is rejected", func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Labels = map[string]string{prefix254 + "/role": "x"}
		}, []violation{{`spec.labels["` + prefix254 + `/role"]`, "label_key.prefix_max_len"}}, "must be at most 253 characters"},
		{"a label key longer than 317 characters is rejected", func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Labels = map[string]string{prefix254 + "/" + strings.Repeat("n", 63): "x"}
		}, []violation{
			{`spec.labels["` + prefix254 + "/" + strings.Repeat("n", 63) + `"]`, "string.max_len"},
			{`spec.labels["` + prefix254 + "/" + strings.Repeat("n", 63) + `"]`, "label_key.prefix_max_len"},
		}, ""},
		{"a label value starting with a dot is rejected", func(p *pool.CivoKubernetesNodePool) { p.Spec.Labels = map[string]string{"tier": ".gpu"} },
			[]violation{{`spec.labels["tier"]`, "string.pattern"}}, ""},
		{"a label value of 64 characters is rejected", func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Labels = map[string]string{"tier": strings.Repeat("v", 64)}
		}, []violation{{`spec.labels["tier"]`, "string.pattern"}}, ""},

		// Taints.
		{"a taint without key is rejected", func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Taints = []*sharedv1.Taint{{Effect: sharedv1.TaintEffect_NoSchedule}}
		}, []violation{{"spec.taints[0].key", "required"}}, ""},
		{"a taint key with a space is rejected", func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Taints = []*sharedv1.Taint{{Key: "nvidia gpu", Effect: sharedv1.TaintEffect_NoSchedule}}
		}, []violation{{"spec.taints[0].key", "string.pattern"}}, ""},
		{"a taint key whose DNS prefix exceeds 253 characters is rejected", func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Taints = []*sharedv1.Taint{{Key: prefix254 + "/gpu", Effect: sharedv1.TaintEffect_NoSchedule}}
		}, []violation{{"spec.taints[0].key", "key.prefix_max_len"}}, "must be at most 253 characters"},
		{"a taint key longer than 317 characters is rejected", func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Taints = []*sharedv1.Taint{{Key: prefix254 + "/" + strings.Repeat("n", 63), Effect: sharedv1.TaintEffect_NoSchedule}}
		}, []violation{{"spec.taints[0].key", "string.max_len"}, {"spec.taints[0].key", "key.prefix_max_len"}}, ""},
		{"a taint value of 64 characters is rejected", func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Taints = []*sharedv1.Taint{{Key: "gpu", Value: strings.Repeat("v", 64), Effect: sharedv1.TaintEffect_NoSchedule}}
		}, []violation{{"spec.taints[0].value", "string.pattern"}}, ""},
		{"a taint without effect is rejected", func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Taints = []*sharedv1.Taint{{Key: "gpu", Value: "true"}}
		}, []violation{{"spec.taints[0].effect", "required"}}, ""},
		{"a taint with an unknown effect number is rejected", func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Taints = []*sharedv1.Taint{{Key: "gpu", Effect: 4}}
		}, []violation{{"spec.taints[0].effect", "enum.defined_only"}}, ""},
		{"two taints with the same key and effect are rejected", func(p *pool.CivoKubernetesNodePool) {
			p.Spec.Taints = []*sharedv1.Taint{
				{Key: "nvidia.com/gpu", Value: "true", Effect: sharedv1.TaintEffect_NoSchedule},
				{Key: "dedicated", Effect: sharedv1.TaintEffect_NoSchedule},
				{Key: "nvidia.com/gpu", Value: "false", Effect: sharedv1.TaintEffect_NoSchedule},
			}
		}, []violation{{"spec.taints", "taints.unique_key_effect"}}, "must not repeat a key and effect pair"},
	}
	covered := map[string]bool{}
	for _, tt := range tests {
		for _, w := range tt.want {
			covered[w.rule] = true
		}
		t.Run(tt.name, func(t *testing.T) {
			p := validCivoKubernetesNodePool()
			tt.mutate(p)
			err := validation.Validate(p)
			assertViolations(t, err, tt.want...)
			if err != nil && !strings.Contains(err.Error(), tt.hint) {
				t.Errorf("error %q does not contain %q", err, tt.hint)
			}
		})
	}
	for _, id := range celIDs(t, "spec.proto", "../../../../shared/v1/*.proto") {
		if !covered[id] {
			t.Errorf("CEL rule %q has no test case", id)
		}
	}
}

func TestCivoKubernetesNodePoolReportsEveryMistakeAtOnce(t *testing.T) {
	p := validCivoKubernetesNodePool()
	p.Kind = "NodePool"
	p.Spec.NodePoolName = "GPU"
	p.Spec.Cluster = value("")
	p.Spec.Region = civov1.CivoRegion_CIVO_REGION_UNSPECIFIED
	p.Spec.Size = ""
	p.Spec.MinNodes = 2
	p.Spec.Taints = []*sharedv1.Taint{{Key: "gpu"}}

	err := validation.Validate(p)
	assertViolations(t, err,
		violation{"kind", "string.const"},
		violation{"spec.node_pool_name", "string.pattern"},
		violation{"spec.cluster.value", "string.min_len"},
		violation{"spec.region", "required"},
		violation{"spec.size", "required"},
		violation{"spec", "auto_scale.bounds_need_auto_scale"},
		violation{"spec.taints[0].effect", "required"},
	)
	for _, v := range validation.Violations(err) {
		if line := v.Field + ": " + v.Message; !strings.Contains(err.Error(), line) {
			t.Errorf("error does not contain %q:\n%v", line, err)
		}
	}
	if !strings.Contains(err.Error(), "spec: min_nodes and max_nodes are only allowed when auto_scale is true") {
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
			ApiToken: "secret-token", DefaultRegion: civov1.CivoRegion_fra1, ApiUrl: "https://api.civo.com",
		}}
		if err := validation.Validate(in); err != nil {
			t.Fatalf("Validate() = %v, want nil", err)
		}
	})
	t.Run("a stack input without target is rejected", func(t *testing.T) {
		assertViolations(t, validation.Validate(&pool.CivoKubernetesNodePoolStackInput{}), violation{"target", "required"})
	})
	t.Run("a stack input reports its target's violations under target", func(t *testing.T) {
		p := validCivoKubernetesNodePool()
		p.Spec.NodeCount = 0
		assertViolations(t, validation.Validate(&pool.CivoKubernetesNodePoolStackInput{Target: p}), violation{"target.spec.node_count", "int32.gte"})
	})
	t.Run("a provider config with an invalid api_url is rejected", func(t *testing.T) {
		in := &pool.CivoKubernetesNodePoolStackInput{Target: validCivoKubernetesNodePool(), ProviderConfig: &civov1.CivoProviderConfig{ApiUrl: "not a url"}}
		assertViolations(t, validation.Validate(in), violation{"provider_config.api_url", "string.uri"})
	})
	t.Run("a provider config with an unknown default_region is rejected", func(t *testing.T) {
		in := &pool.CivoKubernetesNodePoolStackInput{Target: validCivoKubernetesNodePool(), ProviderConfig: &civov1.CivoProviderConfig{DefaultRegion: 42}}
		assertViolations(t, validation.Validate(in), violation{"provider_config.default_region", "enum.defined_only"})
	})
}
