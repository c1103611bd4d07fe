// Package v1 is the API of clusterplane's Karpenter provider: a NodeClass kind per cloud
// (DigitalOceanNodeClass, CivoNodeClass, each in its cloud's file), the NodeClasses a Karpenter
// NodePool's nodeClassRef names. A NodeClass says which managed cluster the nodes join and which
// of the cloud's sizes they may have; the provider adds each node to a managed node pool of that
// cluster (DOKS or Civo Kubernetes), because neither cloud accepts a bare machine as a node of a
// managed cluster.
//
// +k8s:deepcopy-gen=package
// +kubebuilder:object:generate=true
// +groupName=karpenter.clusterplane.dev
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
)

// Group is the API group of the NodeClasses.
const Group = "karpenter.clusterplane.dev"

// SchemeGroupVersion is the group and version of every kind here.
var SchemeGroupVersion = schema.GroupVersion{Group: Group, Version: "v1"}

// AddToScheme registers the kinds in a scheme, as a controller-runtime client needs them.
var AddToScheme = func(s *runtime.Scheme) error {
	s.AddKnownTypes(SchemeGroupVersion, kinds...)
	metav1.AddToGroupVersion(s, SchemeGroupVersion)
	return nil
}

// The kinds join client-go's scheme, as Karpenter core's own do (sigs.k8s.io/karpenter/pkg/apis/v1):
// Karpenter's operator builds its clients from that scheme.
func init() {
	if err := AddToScheme(scheme.Scheme); err != nil {
		panic(err)
	}
}
