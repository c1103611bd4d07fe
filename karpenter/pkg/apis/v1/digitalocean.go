package v1

import (
	"github.com/awslabs/operatorpkg/status"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CloudDigitalOcean is DigitalOcean's id, as pkg/cloud's driver names it: what a DigitalOceanNodeClass's Cloud says.
const CloudDigitalOcean = "digitalocean"

var _ = register(&DigitalOceanNodeClass{}, &DigitalOceanNodeClassList{})

// DigitalOceanNodeClass is a NodeClass whose nodes are Droplets in node pools of a DOKS cluster.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=digitaloceannodeclasses,scope=Cluster,categories=karpenter,shortName={donc,doncs}
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Cluster",type="string",JSONPath=".status.clusterID"
// +kubebuilder:printcolumn:name="Region",type="string",JSONPath=".status.region"
// +kubebuilder:printcolumn:name="Ready",type="string",JSONPath=".status.conditions[?(@.type==\"Ready\")].status"
type DigitalOceanNodeClass struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   NodeClassSpec   `json:"spec"`
	Status NodeClassStatus `json:"status,omitempty"`
}

// DigitalOceanNodeClassList is a list of DigitalOceanNodeClass.
//
// +kubebuilder:object:root=true
type DigitalOceanNodeClassList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []DigitalOceanNodeClass `json:"items"`
}

// StatusConditions are Ready, ClusterReady and SizesResolved.
func (in *DigitalOceanNodeClass) StatusConditions(opts ...status.ForOption) status.ConditionSet {
	return conditions(in, opts)
}

// GetConditions and SetConditions are operatorpkg's access to the conditions.
func (in *DigitalOceanNodeClass) GetConditions() []status.Condition { return in.Status.Conditions }

// SetConditions replaces the conditions.
func (in *DigitalOceanNodeClass) SetConditions(c []status.Condition) { in.Status.Conditions = c }

// NodeClassSpec is the spec.
func (in *DigitalOceanNodeClass) NodeClassSpec() *NodeClassSpec { return &in.Spec }

// NodeClassStatus is the status.
func (in *DigitalOceanNodeClass) NodeClassStatus() *NodeClassStatus { return &in.Status }

// Cloud is DigitalOcean.
func (in *DigitalOceanNodeClass) Cloud() string { return CloudDigitalOcean }

// NodeClasses are the list's items.
func (in *DigitalOceanNodeClassList) NodeClasses() []NodeClass {
	out := make([]NodeClass, 0, len(in.Items))
	for i := range in.Items {
		out = append(out, &in.Items[i])
	}
	return out
}
