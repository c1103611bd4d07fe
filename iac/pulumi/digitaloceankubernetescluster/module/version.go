package module

import (
	"strings"

	"github.com/clusterplane/clusterplane/pkg/kubeversion"
	"github.com/pkg/errors"
	"github.com/pulumi/pulumi-digitalocean/sdk/v4/go/digitalocean"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// version is the version the cluster is registered with, and whether later changes of it are
// left to DigitalOcean.
type version struct {
	send   string
	ignore bool
}

// deployedVersion decides the version to send from the manifest's version and the one the
// cluster runs now (live, "" when it does not exist yet). DigitalOcean upgrades clusters itself
// (auto_upgrade, and forced upgrades of versions near their end of life); after a refresh the
// state holds the newer version, and the provider replaces the cluster when the manifest's is
// lower. So a version lower than the live one is refused, not sent; with auto_upgrade the live
// minor line's patches are left to DigitalOcean and a higher minor line upgrades.
func deployedVersion(manifest, resolved string, autoUpgrade bool, live string) (version, error) {
	if live == "" {
		return version{send: resolved, ignore: autoUpgrade}, nil
	}
	if autoUpgrade && kubeversion.SameMinor(resolved, live) {
		return version{send: resolved, ignore: true}, nil
	}
	if older, ok := kubeversion.Less(resolved, live); ok && older {
		want := live
		if autoUpgrade {
			want = kubeversion.Minor(live) + " (or " + live + ")"
		}
		return version{}, errors.Errorf("spec.kubernetesVersion: %s is older than the version the cluster runs, %s, "+
			"which DigitalOcean upgraded it to; deploying it would replace the cluster. Set kubernetesVersion to %s",
			manifest, live, want)
	}
	return version{send: resolved}, nil
}

// clusterVersion resolves the manifest's version (a minor line to its latest slug) and reads
// the live cluster's, both through the cluster's provider, and decides what to send.
func clusterVersion(ctx *pulumi.Context, l *locals, opts ...pulumi.InvokeOption) (version, error) {
	spec := l.spec
	resolved := spec.GetKubernetesVersion()
	if kubeversion.IsMinorLine(resolved) {
		prefix := resolved + "."
		versions, err := digitalocean.GetKubernetesVersions(ctx, &digitalocean.GetKubernetesVersionsArgs{VersionPrefix: &prefix}, opts...)
		if err != nil {
			return version{}, errors.Wrap(err, "list DigitalOcean Kubernetes versions")
		}
		switch {
		case versions.LatestVersion != "":
			resolved = versions.LatestVersion
		case !ctx.DryRun():
			return version{}, errors.Errorf("spec.kubernetesVersion: DigitalOcean offers no %s version", spec.GetKubernetesVersion())
		}
		// In a preview without an answer (offline) the minor line stands for its latest slug.
	}
	live, err := liveVersion(ctx, spec.GetClusterName(), opts...)
	if err != nil {
		return version{}, err
	}
	return deployedVersion(spec.GetKubernetesVersion(), resolved, spec.GetAutoUpgrade(), live)
}

// liveVersion returns the version of the cluster named name, or "" when there is none yet. The
// provider's lookup fails with "Unable to find cluster with name" (or "No clusters found" for an
// account without clusters) when none exists; any other failure is an error.
func liveVersion(ctx *pulumi.Context, name string, opts ...pulumi.InvokeOption) (string, error) {
	c, err := digitalocean.LookupKubernetesCluster(ctx, &digitalocean.LookupKubernetesClusterArgs{Name: name}, opts...)
	if err != nil {
		if msg := err.Error(); strings.Contains(msg, "Unable to find cluster") || strings.Contains(msg, "No clusters found") {
			return "", nil
		}
		return "", errors.Wrap(err, "read the live cluster's version")
	}
	return c.Version, nil
}
