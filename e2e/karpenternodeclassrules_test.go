//go:build e2e

package e2e_test

import (
	"strings"
	"testing"
)

// A NodeClass's taints and label keys are checked by the API server as Kubernetes checks a
// Node's: a bad taint effect, key or value, or a label key Kubernetes would refuse, is refused
// when the NodeClass is written, not found out when a pool is made or a node registers. The
// checks are patterns and CEL in the generated CRDs, which only a real API server runs.
// Promise: karpenter-nodeclass-taint-and-label-rules
func TestANodeClassWithABadTaintOrLabelIsRefused(t *testing.T) {
	t.Parallel()
	k := newKube(t)
	k.installCRDs(karpenterNodeClassCRDs(t))
	taint := func(key, value, effect string) map[string]any {
		return map[string]any{"cluster": map[string]any{"id": "c1"},
			"taints": []any{map[string]any{"key": key, "value": value, "effect": effect}}}
	}
	label := func(key, value string) map[string]any {
		return map[string]any{"cluster": map[string]any{"id": "c1"}, "labels": map[string]any{key: value}}
	}
	cases := []nodeClassCase{
		{"a taint of each of Kubernetes' effects, with a prefixed key, is stored",
			map[string]any{"cluster": map[string]any{"id": "c1"}, "taints": []any{
				map[string]any{"key": "example.com/workload", "value": "batch", "effect": "NoSchedule"},
				map[string]any{"key": "gpu", "effect": "PreferNoSchedule"},
				map[string]any{"key": "dedicated", "value": "db_1.x", "effect": "NoExecute"}}}, ""},
		{"a misspelt taint effect is refused", taint("workload", "batch", "NoScheduel"), `spec.taints[0].effect: Unsupported value: \"NoScheduel\"`},
		{"a taint key with a space is refused", taint("not a valid key!", "batch", "NoSchedule"), `spec.taints[0].key: Invalid value: \"not a valid key!\"`},
		{"a taint key with an empty prefix is refused", taint("/workload", "batch", "NoSchedule"), `spec.taints[0].key: Invalid value: \"/workload\"`},
		{"a taint value with a space is refused", taint("workload", "a b", "NoSchedule"), `spec.taints[0].value: Invalid value: \"a b\"`},
		{"a taint value over 63 characters is refused", taint("workload", strings.Repeat("v", 64), "NoSchedule"), "spec.taints[0].value: Too long"},
		{"a prefixed label is stored", label("example.com/team", "platform"), ""},
		{"a label key with a space is refused", label("bad label!", "x"), "a label key is"},
		{"a label key whose name is over 63 characters is refused", label(strings.Repeat("k", 64), "x"), "a label key is"},
	}
	tryNodeClasses(t, k, "rules", cases)
}
