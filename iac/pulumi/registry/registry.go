// Package registry is the list of kinds, the one place that names them all: the clusterplane
// command, the pulumi-resource-clusterplane plugin, the schema generators and the benches take
// their kinds from here. A kind itself lives in its own folder, iac/pulumi/<kind>.
package registry

import (
	civocluster "github.com/clusterplane/clusterplane/iac/pulumi/civokubernetescluster/entry"
	civopool "github.com/clusterplane/clusterplane/iac/pulumi/civokubernetesnodepool/entry"
	docluster "github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetescluster/entry"
	dopool "github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetesnodepool/entry"
	"github.com/clusterplane/clusterplane/pkg/kinds"
)

// Kinds returns every kind, in the order the docs list them.
func Kinds() kinds.List {
	return kinds.List{civocluster.Kind(), civopool.Kind(), docluster.Kind(), dopool.Kind()}
}
