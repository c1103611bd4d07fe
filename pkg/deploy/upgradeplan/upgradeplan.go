// Package upgradeplan finds what `clusterplane upgrade plan` plans: the clusters among a fleet's
// manifests, each with its target, and the cloud ids their stacks recorded.
package upgradeplan

import (
	"context"
	"fmt"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"github.com/pkg/errors"
	"google.golang.org/protobuf/proto"

	"github.com/clusterplane/clusterplane/pkg/change/upgrade"
	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/manifest/apikinds"
)

// UpgradeClusters are the clusters an upgrade plan of targets covers, each with its target: node
// pools follow their cluster's version. Every problem is in the *ProblemsError returned: two
// files of one stack (a manifest and its .stack-input.yaml twin, which would plan the cluster
// twice, each a row and a place in the fleet's order, refused as preview does), or no cluster
// among the paths given.
func UpgradeClusters(targets []deploytarget.Target, paths []string) ([]deploytarget.Target, []upgrade.Cluster, error) {
	var clusters []upgrade.Cluster
	var out []deploytarget.Target
	var problems []error
	byStack := map[string]string{}
	for _, t := range targets {
		c, ok := upgrade.ClusterOf(t.File, t.Name, apikinds.Target(t.Input))
		d, known := clouds.OfInput(t.Input)
		if !ok || !known {
			continue
		}
		c.Cloud = upgradeCloud(d, t.Input, c.Region)
		if other, ok := byStack[t.Key()]; ok {
			problems = append(problems, fmt.Errorf("%s and %s both deploy stack %s: give only one of them", other, t.File, t.Key()))
			continue
		}
		byStack[t.Key()] = t.File
		clusters = append(clusters, c)
		out = append(out, t)
	}
	if len(problems) > 0 {
		return nil, nil, &deploytarget.ProblemsError{Problems: problems}
	}
	if len(clusters) == 0 {
		return nil, nil, &deploytarget.ProblemsError{Problems: []error{fmt.Errorf("no cluster manifest in %s: node pools follow their cluster's version",
			strings.Join(paths, " "))}}
	}
	return out, clusters, nil
}

// upgradeCloud is the cluster's cloud as an upgrade plan asks it, through its driver d, with the
// token and URL the deploy commands would use for input. A cluster whose cloud cannot be asked
// (no token) gets a Cloud that says why at every question: a mistake to fix, not a blocked
// upgrade.
func upgradeCloud(d cloud.Driver, input proto.Message, region string) upgrade.Cloud {
	env, ownToken, ownURL, _ := stackinput.ProviderConfig(input)
	token, url, err := env.Resolve(ownToken, ownURL)
	switch {
	case err != nil:
		return upgrade.NoCloud{Err: err}
	case token == "":
		return upgrade.NoCloud{Err: errors.Errorf("no %s API token (providerConfig.apiToken or %s)", env.Name, env.TokenEnv)}
	}
	return d.Upgrades(url, token, region)
}

// StackClusterIDs sets each cluster's ID from its stack's cluster_id output where the stack
// exists, so that an upgrade plan is of the cluster the stack deployed, whatever else holds its
// name. Without a backend to ask (no Pulumi CLI, no passphrase) or a stack, a cluster is found by
// its name, and says why when something kept the stack from being read. clusters[i] is
// targets[i]'s.
func StackClusterIDs(ctx context.Context, open func() (stackstate.Backend, error), targets []deploytarget.Target, clusters []upgrade.Cluster) {
	b, err := open()
	if err != nil {
		for i := range clusters {
			clusters[i].Note = "found by name, no stack read: " + firstLine(err.Error())
		}
		return
	}
	for i, t := range targets {
		id, err := deploytarget.StackOutput(ctx, b, t, "cluster_id")
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
