package v1

import (
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

// Labels the provider's instance types carry as requirements, so a NodePool may select sizes by
// them (a family, at least so many CPUs) as AWS's provider's karpenter.k8s.aws/instance-* do.
const (
	LabelSizeFamily = Group + "/size-family"
	LabelSizeCPU    = Group + "/size-cpu"
	LabelSizeMemory = Group + "/size-memory-mib"
	LabelGPUCount   = Group + "/size-gpu-count"
	// LabelNodeClass is on every node the provider makes: the name of its NodeClass.
	LabelNodeClass = Group + "/nodeclass"
)

// Karpenter refuses a requirement on a label it does not know unless the provider says it knows
// it; AWS's and Azure's providers add theirs the same way, at start.
func init() {
	karpv1.WellKnownLabels = karpv1.WellKnownLabels.Insert(LabelSizeFamily, LabelSizeCPU, LabelSizeMemory, LabelGPUCount)
}
