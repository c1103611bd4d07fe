package kind

import "github.com/clusterplane/clusterplane/pkg/effects"

// Effects is what changing each field of a DigitalOceanKubernetesCluster does, read from the pinned provider.
func Effects() *effects.Table { return effects.DigitalOceanCluster() }
