package spectest

import (
	"strings"

	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"google.golang.org/protobuf/proto"
)

// PoolLabelsAndTaints are the rules of a node pool's labels and taints (spec.labels and
// spec.taints, set through labels and taints) that every cloud's pool holds alike, from the
// shared label-key and taint rules: a kind's table adds the rows that are its cloud's own.
func PoolLabelsAndTaints[M proto.Message](labels func(M, map[string]string), taints func(M, []*sharedv1.Taint)) []Rejection[M] {
	label := func(m map[string]string) func(M) { return func(p M) { labels(p, m) } }
	return append(LabelAndTaintKeys("spec", "", labels, taints), []Rejection[M]{
		{Name: "a label value of 64 characters is rejected", Mutate: label(map[string]string{"tier": strings.Repeat("v", 64)}),
			Want: []Violation{{Field: `spec.labels["tier"]`, Rule: "string.pattern"}}},
		{Name: "a node-role label is rejected: its namespace is under kubernetes.io", Mutate: label(map[string]string{"node-role.kubernetes.io/worker": ""}),
			Want: []Violation{{Field: `spec.labels["node-role.kubernetes.io/worker"]`, Rule: "label_key.kubelet_namespace"}}},
		{Name: "a taint without effect is rejected",
			Mutate: func(p M) { taints(p, []*sharedv1.Taint{{Key: "gpu", Value: "true"}}) },
			Want:   []Violation{{Field: "spec.taints[0].effect", Rule: "required"}}},
	}...)
}

// LabelAndTaintKeys are the rules of the label keys and taint keys of a pool whose labels and
// taints are at path (e.g. "spec", "spec.default_node_pool"), set through labels and taints:
// the shared key rules, alike for every pool and every default pool. noun names the pool in the
// cases' names ("" or "default pool ").
func LabelAndTaintKeys[M proto.Message](path, noun string, labels func(M, map[string]string), taints func(M, []*sharedv1.Taint)) []Rejection[M] {
	long := Prefix254 + "/" + strings.Repeat("n", 63)
	label := func(m map[string]string) func(M) { return func(p M) { labels(p, m) } }
	taint := func(t ...*sharedv1.Taint) func(M) { return func(p M) { taints(p, t) } }
	return []Rejection[M]{
		{Name: "a " + noun + "label key with a space is rejected", Mutate: label(map[string]string{"Bad Key": "x"}),
			Want: []Violation{{Field: path + `.labels["Bad Key"]`, Rule: "string.pattern"}}},
		{Name: "a " + noun + "label key whose DNS prefix exceeds 253 characters is rejected", Mutate: label(map[string]string{Prefix254 + "/role": "x"}),
			Want: []Violation{{Field: path + `.labels["` + Prefix254 + `/role"]`, Rule: "label_key.prefix_max_len"}}, Hint: "must be at most 253 characters"},
		{Name: "a " + noun + "label key longer than 317 characters is rejected", Mutate: label(map[string]string{long: "x"}),
			Want: []Violation{{Field: path + `.labels["` + long + `"]`, Rule: "string.max_len"}, {Field: path + `.labels["` + long + `"]`, Rule: "label_key.prefix_max_len"}}},
		{Name: "a " + noun + "taint key whose DNS prefix exceeds 253 characters is rejected",
			Mutate: taint(&sharedv1.Taint{Key: Prefix254 + "/gpu", Effect: sharedv1.TaintEffect_NoSchedule}),
			Want:   []Violation{{Field: path + ".taints[0].key", Rule: "key.prefix_max_len"}}, Hint: "must be at most 253 characters"},
		{Name: "a " + noun + "taint key longer than 317 characters is rejected", Mutate: taint(&sharedv1.Taint{Key: long, Effect: sharedv1.TaintEffect_NoSchedule}),
			Want: []Violation{{Field: path + ".taints[0].key", Rule: "string.max_len"}, {Field: path + ".taints[0].key", Rule: "key.prefix_max_len"}}},
	}
}
