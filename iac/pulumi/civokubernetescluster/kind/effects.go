package kind

import "github.com/clusterplane/clusterplane/pkg/effects"

// Effects is what changing each field of a CivoKubernetesCluster does, read from the pinned provider.
func Effects() *effects.Table { return effects.CivoCluster() }
