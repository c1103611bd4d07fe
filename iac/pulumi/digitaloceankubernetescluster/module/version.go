package module

import (
	"strings"

	"github.com/clusterplane/clusterplane/pkg/change/upgrade"
	do "github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
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
//
// DigitalOcean upgrades one minor version at a time, and only from the latest patch of the
// running minor (terraform-provider-digitalocean#708, #887: the upgrade fails with 422 invalid
// upgrade path, or reports success and does nothing). So a version that is not the next step of
// that path is refused, naming the step to deploy first. offered are the versions DigitalOcean
// offers (nil when unknown, as in an offline preview). The path is worked out by upgrade.FirstStep
// with DigitalOcean's offer, the very code `upgrade plan` works its path out with: when each had
// its own, the two named different first steps.
func deployedVersion(manifest, resolved string, autoUpgrade bool, live string, offered []string) (version, error) {
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
		// The CLI reads this refusal back from the engine's words (stackstate.ModuleRefusal), and
		// drift takes it as the drift it is.
		return version{}, &kubeversion.UpgradedPastError{Field: "spec.kubernetesVersion", Manifest: manifest, Live: live,
			Cloud: "DigitalOcean", Want: want}
	}
	// The CLI reads this refusal back from the engine's words (upgrade.ReadFirstStep) as the
	// refused change it is, so that preview and up exit 3 for it, not 1.
	if err := upgrade.FirstStep("spec.kubernetesVersion", "DigitalOcean", live, resolved, do.UpgradeOffer(nil, offered)); err != nil {
		return version{}, err
	}
	return version{send: resolved}, nil
}

// clusterVersion resolves the manifest's version (a minor line to its latest slug) through the
// cluster's provider, reads the live cluster's with live, and decides what to send.
func clusterVersion(ctx *pulumi.Context, l *locals, live func(name string) (string, error), opts ...pulumi.InvokeOption) (version, error) {
	spec := l.spec
	resolved := spec.GetKubernetesVersion()
	if kubeversion.IsMinorLine(resolved) {
		latest, err := latestPatch(ctx, resolved, opts...)
		if err != nil {
			return version{}, err
		}
		switch {
		case latest != "":
			resolved = latest
		case !ctx.DryRun():
			return version{}, errors.Errorf("spec.kubernetesVersion: DigitalOcean offers no %s version", spec.GetKubernetesVersion())
		}
		// In a preview without an answer (offline) the minor line stands for its latest slug.
	}
	running, err := live(spec.GetClusterName())
	if err != nil {
		return version{}, err
	}
	// Only an upgrade to a later minor has a path of several steps to check; the list is read
	// for nothing else.
	var offered []string
	if steps, ok := kubeversion.MinorSteps(running, resolved); ok && steps >= 1 {
		if offered, err = offeredVersions(ctx, opts...); err != nil {
			return version{}, err
		}
	}
	return deployedVersion(spec.GetKubernetesVersion(), resolved, spec.GetAutoUpgrade(), running, offered)
}

// offeredVersions are every slug DigitalOcean offers, none when no answer is known (an offline
// preview).
func offeredVersions(ctx *pulumi.Context, opts ...pulumi.InvokeOption) ([]string, error) {
	versions, err := digitalocean.GetKubernetesVersions(ctx, &digitalocean.GetKubernetesVersionsArgs{}, opts...)
	if err != nil {
		return nil, errors.Wrap(err, "list DigitalOcean Kubernetes versions")
	}
	return versions.ValidVersions, nil
}

// latestPatch is DigitalOcean's latest slug of a minor line ("1.31"), "" when it offers none or
// no answer is known (an offline preview).
func latestPatch(ctx *pulumi.Context, minor string, opts ...pulumi.InvokeOption) (string, error) {
	prefix := minor + "."
	versions, err := digitalocean.GetKubernetesVersions(ctx, &digitalocean.GetKubernetesVersionsArgs{VersionPrefix: &prefix}, opts...)
	if err != nil {
		return "", errors.Wrap(err, "list DigitalOcean Kubernetes versions")
	}
	return versions.LatestVersion, nil
}

// liveCluster is the part of getKubernetesCluster's answer the module reads. The answer also
// carries the cluster's kubeconfig, which the provider marks secret; the SDK's typed lookup
// (digitalocean.LookupKubernetesCluster) then fails with "unexpected secret result returned to
// invoke call" for every existing cluster. Reading only the version avoids that: the version is
// no secret.
type liveCluster struct {
	Version string `pulumi:"version"`
}

// liveVersion returns the version of the cluster named name, or "" when there is none yet, through
// the provider's lookup: what a provider given with WithProvider, or Pulumi's mocks, answer. The
// lookup fails with "Unable to find cluster with name" (or "No clusters found" for an account
// without clusters) when none exists; any other failure is an error. It reads only the first page
// of the account's clusters, so the module asks DigitalOcean's API itself when it can (LiveVersion).
func liveVersion(ctx *pulumi.Context, name string, opts ...pulumi.InvokeOption) (string, error) {
	var c liveCluster
	// The version pins the plugin as the SDK's own lookups do; an explicit provider in opts wins.
	opts = append([]pulumi.InvokeOption{pulumi.Version(digitaloceanPluginVersion)}, opts...)
	_, err := ctx.InvokePackageRaw(lookupClusterToken, map[string]any{"name": name}, &c, "", opts...)
	if err != nil {
		if msg := err.Error(); strings.Contains(msg, "Unable to find cluster") || strings.Contains(msg, "No clusters found") {
			return "", nil
		}
		return "", errors.Wrap(err, "read the live cluster's version")
	}
	return c.Version, nil
}

const (
	// lookupClusterToken is the provider function digitalocean.LookupKubernetesCluster invokes.
	lookupClusterToken = "digitalocean:index/getKubernetesCluster:getKubernetesCluster"
	// digitaloceanPluginVersion is the provider plugin the pinned SDK (pulumi-digitalocean v4.57.0)
	// asks for.
	digitaloceanPluginVersion = "4.57.0"
)
