package cost

import (
	"slices"
	"strings"
)

// The Kubernetes versions table in the repository: what validate checks a manifest's
// kubernetesVersion against offline, beside the sizes of the price table. The clouds add and drop
// versions every few weeks, so a version missing here is only a warning; online (a token in the
// environment) preview and up check the cloud's own list instead, which decides.
//
// DigitalOcean: the version slugs GET /v2/kubernetes/options lists (`doctl kubernetes options
// versions`). Civo: the versions GET /v2/kubernetes/versions lists (`civo kubernetes versions`),
// k3s and talos, without the deprecated ones a new cluster cannot use. Both as this repository's
// examples, tests and loopback clouds (pkg/loopback/fakedo, pkg/loopback/fakecivo) record them on
// VersionsDate.
//
// Update the versions and VersionsDate together; a warning names the date, so an old table is seen.

// VersionsDate is the day the table's versions were read.
const VersionsDate = "2026-11-23"

// VersionsSource names the table in a warning.
const VersionsSource = "clusterplane's versions table (pkg/change/cost)"

// kubernetesVersions are the Kubernetes versions each cloud offers a new cluster, oldest first.
var kubernetesVersions = map[string][]string{
	DigitalOcean: {"1.30.10-do.0", "1.31.1-do.5", "1.31.9-do.0", "1.31.9-do.2", "1.32.2-do.0", "1.33.1-do.0"},
	Civo: {"1.28.7-k3s1", "1.29.8-k3s1", "1.30.5-k3s1", "1.31.1-k3s1",
		"talos-v1.5.0", "talos-v1.7.6"},
}

// Versions are the Kubernetes versions the table says cloud offers; for Civo only those of
// distribution ("k3s" or "talos"; "" for both).
func Versions(cloud, distribution string) []string {
	var out []string
	for _, v := range kubernetesVersions[cloud] {
		if cloud != Civo || distribution == "" || DistributionOf(v) == distribution {
			out = append(out, v)
		}
	}
	return slices.Clone(out)
}

// DistributionOf is the Civo distribution a version belongs to, read from its name as Civo's
// own list does when it does not say: talos-v1.5.0 is talos, anything else k3s.
func DistributionOf(version string) string {
	if strings.HasPrefix(version, "talos") {
		return "talos"
	}
	return "k3s"
}
