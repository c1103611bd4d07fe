package module

import (
	"context"
	"strings"

	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetescluster/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/cloud/stackmark"
	"github.com/clusterplane/clusterplane/pkg/manifest/labels"
)

// AllIPv4 is where the Kubernetes API is reachable from when api_server_allowed_cidrs is empty.
const AllIPv4 = "0.0.0.0/0"

// locals are the values derived from a manifest before anything is created.
type locals struct {
	name        string
	spec        *v1.CivoKubernetesClusterSpec
	region      string
	clusterType string
	cni         string
	// tags are one space-separated string: Civo's API takes them so.
	tags string
	// applications are one comma-separated string, as Civo's API takes them.
	applications string
	apiCIDRs     []string
	// protect is the cluster's deletion protection: on unless the manifest turns it off.
	protect bool
	// ignoreChanges are the cluster's properties the module leaves alone after creation.
	ignoreChanges []string
}

// newLocals derives the locals; ctx is the program's, whose stack mark (stackmark) the tags take.
func newLocals(ctx context.Context, name string, md *sharedv1.CloudResourceMetadata, spec *v1.CivoKubernetesClusterSpec) *locals {
	l := &locals{
		name:         name,
		spec:         spec,
		region:       spec.GetRegion(),
		clusterType:  v1.CivoKubernetesClusterType_k3s.String(),
		cni:          v1.CivoKubernetesClusterCni_flannel.String(),
		tags:         strings.Join(stackmark.Tags(ctx, labels.Tags(labels.Standard(Kind, md), spec.GetTags())), " "),
		applications: strings.Join(spec.GetApplications(), ","),
		apiCIDRs:     spec.GetApiServerAllowedCidrs(),
		protect:      spec.DeletionProtection == nil || spec.GetDeletionProtection(),
	}
	// Defaults are sent explicitly: both fields force a new cluster when they change, so the
	// provider's own default must never be what decides.
	if spec.GetClusterType() != v1.CivoKubernetesClusterType_CIVO_KUBERNETES_CLUSTER_TYPE_UNSPECIFIED {
		l.clusterType = spec.GetClusterType().String()
	}
	if spec.GetCni() != v1.CivoKubernetesClusterCni_CIVO_KUBERNETES_CLUSTER_CNI_UNSPECIFIED {
		l.cni = spec.GetCni().String()
	}
	if len(l.apiCIDRs) == 0 {
		l.apiCIDRs = []string{AllIPv4}
	}
	// For talos clusters the pinned provider reads back the Kubernetes version instead of the
	// talos one (civo/terraform-provider-civo#365): the manifest's version would differ from the
	// state after every refresh and the second update would fail.
	if l.clusterType == v1.CivoKubernetesClusterType_talos.String() {
		l.ignoreChanges = []string{"kubernetesVersion"}
	}
	return l
}
