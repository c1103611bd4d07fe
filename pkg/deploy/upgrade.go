package deploy

import (
	"context"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/change/upgrade"
)

// StackClusterIDs sets each cluster's ID from its stack's cluster_id output where the stack
// exists, so that an upgrade plan is of the cluster the stack deployed, whatever else holds its
// name. Without a backend to ask (no Pulumi CLI, no passphrase) or a stack, a cluster is found by
// its name, and says why when something kept the stack from being read. clusters[i] is
// targets[i]'s.
func StackClusterIDs(ctx context.Context, open func() (Backend, error), targets []Target, clusters []upgrade.Cluster) {
	b, err := open()
	if err != nil {
		for i := range clusters {
			clusters[i].Note = "found by name, no stack read: " + firstLine(err.Error())
		}
		return
	}
	for i, t := range targets {
		id, err := StackOutput(ctx, b, t, "cluster_id")
		if err != nil {
			clusters[i].Note = "found by name, the stack not read: " + firstLine(err.Error())
		}
		clusters[i].ID = id
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
