package v1

import (
	"github.com/awslabs/operatorpkg/status"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// The conditions a NodeClass's status carries. Ready is true when both others are.
const (
	// ConditionClusterReady says the cluster was found in the cloud and is running.
	ConditionClusterReady = "ClusterReady"
	// ConditionSizesResolved says at least one size the terms select is offered in the cluster's
	// region.
	ConditionSizesResolved = "SizesResolved"
)

// AnnotationHash is the NodeClass's hash of its spec, written on the NodeClass by its controller
// and on each NodeClaim when it is launched: Karpenter's providers (AWS's
// karpenter.k8s.aws/ec2nodeclass-hash, Azure's, the kwok one) mark drift the same way. A NodeClaim
// whose hash differs from its NodeClass's is drifted and gets replaced.
const AnnotationHash = Group + "/nodeclass-hash"

// AnnotationHashVersion is the version of the hash's recipe: a NodeClaim of another version is
// not compared (a provider upgrade that changes the recipe must not replace every node).
const (
	AnnotationHashVersion = Group + "/nodeclass-hash-version"
	HashVersion           = "v1"
)

// NodeClassSpec is what every cloud's NodeClass says; the kinds differ in the cloud they name.
type NodeClassSpec struct {
	// Cluster is the managed Kubernetes cluster the nodes join. Its region and Kubernetes version
	// are the nodes' too.
	Cluster ClusterRef `json:"cluster"`
	// SizeSelectorTerms select the sizes (DigitalOcean's Droplet slugs, Civo's kube sizes) nodes
	// may have: a size is selected when any term matches it, and a term matches when every field it
	// sets matches. A GPU size is matched only by a term that names it, its family or the tag gpu.
	// None selects every size the cluster's region offers for Kubernetes but its GPU sizes.
	// +kubebuilder:validation:MaxItems=30
	// +optional
	SizeSelectorTerms []SizeSelectorTerm `json:"sizeSelectorTerms,omitempty"`
	// Labels are Kubernetes labels on every node, set on the node pool. The API server refuses
	// a key Kubernetes would refuse on a Node: the cloud would take it, and the failure would only
	// show when the node registers. (Values are not checked here: a CEL rule on every value of an
	// unbounded map costs more than the API server allows.)
	// +kubebuilder:validation:MaxProperties=64
	// +kubebuilder:validation:XValidation:rule="self.all(k, !k.startsWith('karpenter.sh/') && !k.startsWith('karpenter.clusterplane.dev/'))",message="labels under karpenter.sh/ and karpenter.clusterplane.dev/ are Karpenter's and the provider's"
	// +kubebuilder:validation:XValidation:rule="self.all(k, k.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$'))",message="a label key is an optional DNS prefix and '/', then at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit"
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
	// Taints are Kubernetes taints on every node, set on the node pool.
	// +kubebuilder:validation:MaxItems=50
	// +optional
	Taints []Taint `json:"taints,omitempty"`
	// Tags are the cloud's tags on the node pool and its Droplets. DigitalOcean's pools only:
	// Civo's pools have no tags, so a CivoNodeClass's tags are written nowhere.
	// +kubebuilder:validation:MaxItems=20
	// +optional
	Tags []string `json:"tags,omitempty"`
}

// Taint is a Kubernetes taint as a Node carries it (corev1.Taint's key, value and effect, with
// the same JSON), checked by the API server as Kubernetes checks a Node's: a misspelt effect or a
// key with a space would otherwise be taken by the cloud and fail only when the node registers.
// Its own type rather than corev1.Taint, so its fields can carry the checks; patterns, not CEL,
// since CEL on unbounded strings costs more than the API server allows.
type Taint struct {
	// Key is a qualified name: an optional DNS prefix and '/', then at most 63 letters, digits,
	// '-', '_' or '.', starting and ending with a letter or digit.
	// +kubebuilder:validation:MaxLength=317
	// +kubebuilder:validation:Pattern=`^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$`
	Key string `json:"key"`
	// Value is at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or
	// digit.
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$`
	// +optional
	Value string `json:"value,omitempty"`
	// Effect is what the taint does to pods that do not tolerate it.
	// +kubebuilder:validation:Enum=NoSchedule;PreferNoSchedule;NoExecute
	Effect corev1.TaintEffect `json:"effect"`
}

// ClusterRef names a managed cluster by its cloud id or by its name (a clusterplane stack's
// spec.clusterName): exactly one of the two.
//
// +kubebuilder:validation:XValidation:rule="has(self.id) != has(self.name)",message="give exactly one of id and name"
type ClusterRef struct {
	// ID is the cluster's id in the cloud.
	// +kubebuilder:validation:MinLength=1
	// +optional
	ID string `json:"id,omitempty"`
	// Name is the cluster's name in the cloud, as a clusterplane manifest's spec.clusterName
	// gives it.
	// +kubebuilder:validation:MinLength=1
	// +optional
	Name string `json:"name,omitempty"`
	// Region is where a Civo cluster is (Civo's API is per region); every region the account may
	// use is searched when it is empty, and a name found in two regions is ClusterAmbiguous until
	// the region is given. DigitalOcean's clusters are found without it.
	// +optional
	Region string `json:"region,omitempty"`
}

// NodeClassStatus is what the controller found.
type NodeClassStatus struct {
	// ClusterID is the cloud's id of the cluster the spec names, and Region its region.
	// +optional
	ClusterID string `json:"clusterID,omitempty"`
	// +optional
	Region string `json:"region,omitempty"`
	// Sizes are the sizes the terms select that the region offers, cheapest first.
	// +optional
	Sizes []string `json:"sizes,omitempty"`
	// Conditions are Ready, ClusterReady and SizesResolved.
	// +optional
	Conditions []status.Condition `json:"conditions,omitempty"`
}

// SizeSelectorTerm matches sizes by name, family or tag; the fields it sets must all match.
//
// +kubebuilder:validation:XValidation:rule="has(self.names) || has(self.families) || has(self.tags)",message="a term sets names, families or tags"
type SizeSelectorTerm struct {
	// Names are sizes by their slug (s-2vcpu-4gb, g4s.kube.medium).
	// +optional
	Names []string `json:"names,omitempty"`
	// Families are sizes by family: DigitalOcean's slug prefix before the first '-' (s, c, g,
	// m, so, gpu), Civo's name before ".kube." (g4s, g4c, g4m, g4p, an.g1).
	// +optional
	Families []string `json:"families,omitempty"`
	// Tags are properties a size must have: "gpu", "amd", "intel" (DigitalOcean's slug suffixes)
	// or "dedicated" (a family with dedicated CPUs).
	// +optional
	Tags []string `json:"tags,omitempty"`
}

// NodeClass is what the provider reads of any cloud's kind.
//
// +kubebuilder:object:generate=false
type NodeClass interface {
	status.Object
	// NodeClassSpec and NodeClassStatus are the kind's spec and status.
	NodeClassSpec() *NodeClassSpec
	NodeClassStatus() *NodeClassStatus
	// Cloud is the cloud's id, as pkg/cloud's driver names it.
	Cloud() string
}

// NodeClassList is a list of one kind of NodeClass, as the provider reads it.
//
// +kubebuilder:object:generate=false
type NodeClassList interface {
	runtime.Object
	metav1.ListInterface
	// NodeClasses are the list's items.
	NodeClasses() []NodeClass
}

// kinds are each cloud's NodeClass and its list, as the cloud's file registers them
// (var _ = register(...)): the scheme learns them from here, so no file but the cloud's names it.
var kinds []runtime.Object

// register adds a cloud's NodeClass and list to the kinds the scheme learns. It runs as a
// package variable's initialiser, which Go runs before any init function, AddToScheme's
// included.
func register(kind NodeClass, list NodeClassList) bool {
	kinds = append(kinds, kind, list)
	return true
}

func conditions(o status.Object, opts []status.ForOption) status.ConditionSet {
	return status.NewReadyConditions(ConditionClusterReady, ConditionSizesResolved).For(o, opts...)
}
