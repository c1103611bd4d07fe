package moduletest

import sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"

// Taints are the taints the kinds' tests give a pool: one of each effect, one without a value,
// and one key twice (with two effects), which Kubernetes allows.
func Taints() []*sharedv1.Taint {
	return []*sharedv1.Taint{
		{Key: "nvidia.com/gpu", Effect: sharedv1.TaintEffect_NoSchedule},
		{Key: "spot", Value: "true", Effect: sharedv1.TaintEffect_PreferNoSchedule},
		{Key: "nvidia.com/gpu", Value: "drain", Effect: sharedv1.TaintEffect_NoExecute},
	}
}

// TaintInputs are the taints input every kind's provider takes for Taints: in order, each with
// its key, its value ("" when it has none) and its effect.
func TaintInputs() []any {
	return []any{
		map[string]any{"key": "nvidia.com/gpu", "value": "", "effect": "NoSchedule"},
		map[string]any{"key": "spot", "value": "true", "effect": "PreferNoSchedule"},
		map[string]any{"key": "nvidia.com/gpu", "value": "drain", "effect": "NoExecute"},
	}
}
