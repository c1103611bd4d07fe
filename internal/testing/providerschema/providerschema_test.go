package providerschema_test

import (
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/internal/testing/providerschema"
	"github.com/clusterplane/clusterplane/pkg/pulumi/mockrun"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
)

func load(t *testing.T) *providerschema.Schema {
	t.Helper()
	dir, ok := providerschema.Dir()
	if !ok {
		t.Skip("../shared/providers is absent (a user's clone has none): the checker is not exercised")
	}
	s, err := providerschema.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const doPool = "digitalocean:index/kubernetesNodePool:KubernetesNodePool"

func pool(inputs map[string]any, ignore ...string) mockrun.Resource {
	return mockrun.Resource{Type: doPool, Name: "p", RawInputs: resource.NewPropertyMapFromMap(inputs), IgnoreChanges: ignore}
}

func TestTheCheckerFindsEveryKindOfMisfit(t *testing.T) {
	s := load(t)
	valid := map[string]any{"clusterId": "c", "name": "p", "size": "s-2vcpu-4gb", "nodeCount": 2,
		"taints": []any{map[string]any{"key": "k", "value": "v", "effect": "NoSchedule"}}}
	cases := []struct {
		name   string
		r      mockrun.Resource
		wantIn string
	}{
		{"a valid pool fits", pool(valid, "nodeCount"), ""},
		{"a property the provider does not have", pool(with(valid, "minNodez", 1)), "minNodez is not an input"},
		{"a property of the wrong type", pool(with(valid, "nodeCount", "two")), "nodeCount: want integer"},
		{"a fraction for an integer", pool(with(valid, "nodeCount", 2.5)), "nodeCount: want integer"},
		{"a missing required input", pool(without(valid, "size")), "required input size is missing"},
		{"a nested property the type does not have", pool(with(valid, "taints", []any{map[string]any{"key": "k", "value": "v", "effect": "x", "operator": "y"}})),
			"operator is not an input"},
		{"an ignoreChanges path that names nothing", pool(valid, "nodeCounts"), `ignoreChanges path "nodeCounts"`},
		{"an unknown resource type", mockrun.Resource{Type: "digitalocean:index/droplet:Droplet"}, "not a resource of the pinned providers"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			problems := strings.Join(s.Check(c.r), "\n")
			if c.wantIn == "" && problems != "" {
				t.Errorf("problems = %s, want none", problems)
			}
			if c.wantIn != "" && !strings.Contains(problems, c.wantIn) {
				t.Errorf("problems = %q, want one containing %q", problems, c.wantIn)
			}
		})
	}
}

func TestTheCheckerFollowsIgnoreChangesPathsIntoNestedTypes(t *testing.T) {
	s := load(t)
	cluster := mockrun.Resource{Type: "digitalocean:index/kubernetesCluster:KubernetesCluster", RawInputs: resource.NewPropertyMapFromMap(map[string]any{
		"region": "fra1", "version": "1.31.1-do.5", "nodePool": map[string]any{"name": "d", "size": "s-1vcpu-2gb"},
	}), IgnoreChanges: []string{"nodePool.nodeCount", "nodePool.nodeCountz"}}
	problems := strings.Join(s.Check(cluster), "\n")
	if !strings.Contains(problems, `"nodePool.nodeCountz"`) || strings.Contains(problems, `"nodePool.nodeCount"`) {
		t.Errorf("problems = %q, want only the misspelt nested path", problems)
	}
}

func with(m map[string]any, key string, v any) map[string]any {
	out := map[string]any{}
	for k, x := range m {
		out[k] = x
	}
	out[key] = v
	return out
}

func without(m map[string]any, key string) map[string]any {
	out := with(m, key, nil)
	delete(out, key)
	return out
}
