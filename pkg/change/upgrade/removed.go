package upgrade

import (
	"github.com/clusterplane/clusterplane/pkg/kubeversion"
)

// RemovedSource is where the table of removed APIs comes from: the Kubernetes project's
// deprecated API migration guide, which lists, per release, each beta API version that release
// stops serving and the version to move to. The table keeps those facts only, checked against
// the guide on 2026-11-23, whose newest release section was then v1.32.
const RemovedSource = "https://kubernetes.io/docs/reference/using-api/deprecation-guide/"

// Removed is one API version of a kind that a Kubernetes release no longer serves.
type Removed struct {
	// Group and Version are the removed API version ("" for the core group), Kind the kind.
	Group, Version, Kind string
	// In is the release (major.minor) that stopped serving it.
	In string
	// Use is the API version (group/version) to use instead, "" when there is none to move to.
	Use string
	// Resource is the kind's REST resource (plural), by which the replacement lists the objects:
	// a server that no longer serves the old version still serves the objects at the new one.
	Resource string
}

// APIVersion is the removed version as manifests write it: group/version, or version alone.
func (r Removed) APIVersion() string {
	if r.Group == "" {
		return r.Version
	}
	return r.Group + "/" + r.Version
}

// RemovedAPIs is the table, oldest release first. Only kinds a user applies are listed; review
// kinds (TokenReview, SubjectAccessReview) are never stored, so no object can use them.
var RemovedAPIs = []Removed{
	// 1.16
	{"extensions", "v1beta1", "NetworkPolicy", "1.16", "networking.k8s.io/v1", "networkpolicies"},
	{"extensions", "v1beta1", "DaemonSet", "1.16", "apps/v1", "daemonsets"},
	{"extensions", "v1beta1", "Deployment", "1.16", "apps/v1", "deployments"},
	{"extensions", "v1beta1", "ReplicaSet", "1.16", "apps/v1", "replicasets"},
	// Its successor, policy/v1beta1, went in 1.25 too: only a server older than that lists them.
	{"extensions", "v1beta1", "PodSecurityPolicy", "1.16", "policy/v1beta1", "podsecuritypolicies"},
	{"apps", "v1beta1", "Deployment", "1.16", "apps/v1", "deployments"},
	{"apps", "v1beta1", "ReplicaSet", "1.16", "apps/v1", "replicasets"},
	{"apps", "v1beta1", "StatefulSet", "1.16", "apps/v1", "statefulsets"},
	{"apps", "v1beta2", "DaemonSet", "1.16", "apps/v1", "daemonsets"},
	{"apps", "v1beta2", "Deployment", "1.16", "apps/v1", "deployments"},
	{"apps", "v1beta2", "ReplicaSet", "1.16", "apps/v1", "replicasets"},
	{"apps", "v1beta2", "StatefulSet", "1.16", "apps/v1", "statefulsets"},
	// 1.22
	{"admissionregistration.k8s.io", "v1beta1", "MutatingWebhookConfiguration", "1.22", "admissionregistration.k8s.io/v1", "mutatingwebhookconfigurations"},
	{"admissionregistration.k8s.io", "v1beta1", "ValidatingWebhookConfiguration", "1.22", "admissionregistration.k8s.io/v1", "validatingwebhookconfigurations"},
	{"apiextensions.k8s.io", "v1beta1", "CustomResourceDefinition", "1.22", "apiextensions.k8s.io/v1", "customresourcedefinitions"},
	{"apiregistration.k8s.io", "v1beta1", "APIService", "1.22", "apiregistration.k8s.io/v1", "apiservices"},
	{"certificates.k8s.io", "v1beta1", "CertificateSigningRequest", "1.22", "certificates.k8s.io/v1", "certificatesigningrequests"},
	{"coordination.k8s.io", "v1beta1", "Lease", "1.22", "coordination.k8s.io/v1", "leases"},
	{"extensions", "v1beta1", "Ingress", "1.22", "networking.k8s.io/v1", "ingresses"},
	{"networking.k8s.io", "v1beta1", "Ingress", "1.22", "networking.k8s.io/v1", "ingresses"},
	{"networking.k8s.io", "v1beta1", "IngressClass", "1.22", "networking.k8s.io/v1", "ingressclasses"},
	{"rbac.authorization.k8s.io", "v1beta1", "ClusterRole", "1.22", "rbac.authorization.k8s.io/v1", "clusterroles"},
	{"rbac.authorization.k8s.io", "v1beta1", "ClusterRoleBinding", "1.22", "rbac.authorization.k8s.io/v1", "clusterrolebindings"},
	{"rbac.authorization.k8s.io", "v1beta1", "Role", "1.22", "rbac.authorization.k8s.io/v1", "roles"},
	{"rbac.authorization.k8s.io", "v1beta1", "RoleBinding", "1.22", "rbac.authorization.k8s.io/v1", "rolebindings"},
	{"scheduling.k8s.io", "v1beta1", "PriorityClass", "1.22", "scheduling.k8s.io/v1", "priorityclasses"},
	{"storage.k8s.io", "v1beta1", "CSIDriver", "1.22", "storage.k8s.io/v1", "csidrivers"},
	{"storage.k8s.io", "v1beta1", "CSINode", "1.22", "storage.k8s.io/v1", "csinodes"},
	{"storage.k8s.io", "v1beta1", "StorageClass", "1.22", "storage.k8s.io/v1", "storageclasses"},
	{"storage.k8s.io", "v1beta1", "VolumeAttachment", "1.22", "storage.k8s.io/v1", "volumeattachments"},
	// 1.25
	{"batch", "v1beta1", "CronJob", "1.25", "batch/v1", "cronjobs"},
	{"discovery.k8s.io", "v1beta1", "EndpointSlice", "1.25", "discovery.k8s.io/v1", "endpointslices"},
	{"events.k8s.io", "v1beta1", "Event", "1.25", "events.k8s.io/v1", "events"},
	{"autoscaling", "v2beta1", "HorizontalPodAutoscaler", "1.25", "autoscaling/v2", "horizontalpodautoscalers"},
	{"policy", "v1beta1", "PodDisruptionBudget", "1.25", "policy/v1", "poddisruptionbudgets"},
	// PodSecurityPolicy has no successor to list its objects by: Pod Security Admission replaces it.
	{"policy", "v1beta1", "PodSecurityPolicy", "1.25", "", "podsecuritypolicies"},
	{"node.k8s.io", "v1beta1", "RuntimeClass", "1.25", "node.k8s.io/v1", "runtimeclasses"},
	// 1.26
	{"flowcontrol.apiserver.k8s.io", "v1beta1", "FlowSchema", "1.26", "flowcontrol.apiserver.k8s.io/v1", "flowschemas"},
	{"flowcontrol.apiserver.k8s.io", "v1beta1", "PriorityLevelConfiguration", "1.26", "flowcontrol.apiserver.k8s.io/v1", "prioritylevelconfigurations"},
	{"autoscaling", "v2beta2", "HorizontalPodAutoscaler", "1.26", "autoscaling/v2", "horizontalpodautoscalers"},
	// 1.27
	{"storage.k8s.io", "v1beta1", "CSIStorageCapacity", "1.27", "storage.k8s.io/v1", "csistoragecapacities"},
	// 1.29
	{"flowcontrol.apiserver.k8s.io", "v1beta2", "FlowSchema", "1.29", "flowcontrol.apiserver.k8s.io/v1", "flowschemas"},
	{"flowcontrol.apiserver.k8s.io", "v1beta2", "PriorityLevelConfiguration", "1.29", "flowcontrol.apiserver.k8s.io/v1", "prioritylevelconfigurations"},
	// 1.32
	{"flowcontrol.apiserver.k8s.io", "v1beta3", "FlowSchema", "1.32", "flowcontrol.apiserver.k8s.io/v1", "flowschemas"},
	{"flowcontrol.apiserver.k8s.io", "v1beta3", "PriorityLevelConfiguration", "1.32", "flowcontrol.apiserver.k8s.io/v1", "prioritylevelconfigurations"},
}

// RemovedBetween are the table's rows removed by a release above from and at most to: what an
// upgrade from the running version to the target stops serving on the way.
func RemovedBetween(table []Removed, from, to string) []Removed {
	var out []Removed
	for _, r := range table {
		above, ok1 := kubeversion.MinorSteps(from, r.In)
		upTo, ok2 := kubeversion.MinorSteps(r.In, to)
		if ok1 && ok2 && above > 0 && upTo >= 0 {
			out = append(out, r)
		}
	}
	return out
}
