package v1

import (
	"github.com/awslabs/operatorpkg/status"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CloudCivo is Civo's id, as pkg/cloud's driver names it: what a CivoNodeClass's Cloud says.
const CloudCivo = "civo"

var _ = register(&CivoNodeClass{}, &CivoNodeClassList{})

// CivoNodeClass is a NodeClass whose nodes are instances in node pools of a Civo Kubernetes
// cluster.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=civonodeclasses,scope=Cluster,categories=karpenter,shortName={civonc,civoncs}
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=".status.clusterID"
// +kubebuilder:printcolumn:name="Region",type="string",JSONPath=".status.region"
// +kubebuilder:printcolumn:name="Ready",type="string",JSONPath=".status.conditions[?(@.type==\"Ready\")].status"
type CivoNodeClass struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   NodeClassSpec   `json:"spec"`
	Status NodeClassStatus `json:"status,omitempty"`
}

// CivoNodeClassList is a list of CivoNodeClass.
//
// +kubebuilder:object:root=true
type CivoNodeClassList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []CivoNodeClass `json:"items"`
}

// StatusConditions are Ready, ClusterReady and SizesResolved.
func (in *CivoNodeClass) StatusConditions(opts ...status.ForOption) status.ConditionSet {
	return conditions(in, opts)
}

// GetConditions and SetConditions are operatorpkg's access to the conditions.
func (in *CivoNodeClass) GetConditions() []status.Condition { return in.Status.Conditions }

// SetConditions replaces the conditions.
func (in *CivoNodeClass) SetConditions(c []status.Condition) { in.Status.Conditions = c }

// NodeClassSpec is the spec.
func (in *CivoNodeClass) NodeClassSpec() *NodeClassSpec { return &in.Spec }

// NodeClassStatus is the status.
func (in *CivoNodeClass) NodeClassStatus() *NodeClassStatus { return &in.Status }

// Cloud is Civo.
func (in *CivoNodeClass) Cloud() string { return CloudCivo }

// NodeClasses are the list's items.
func (in *CivoNodeClassList) NodeClasses() []NodeClass {
	out := make([]NodeClass, 0, len(in.Items))
	for i := range in.Items {
		out = append(out, &in.Items[i])
	}
	return out
}
