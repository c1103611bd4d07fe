// Package plugin is the clusterplane Pulumi plugin's identity: its name, package, where it is
// downloaded from, and
// the type tokens of what it serves. The plugin, the modules that register its types, the package
// schema and the clusterplane command (which serves and installs the plugin) all read them here.
package plugin

import "strings"

const (
	// Package is the Pulumi package: every type the plugin serves is clusterplane:<module>:<Type>.
	Package = "clusterplane"
	// Name is the plugin's executable, as the engine looks for it.
	Name = "pulumi-resource-" + Package
)

// ComponentType is the type of a kind's component: the cloud as the module and the kind without
// its cloud, e.g. DigitalOceanKubernetesCluster is clusterplane:digitalocean:KubernetesCluster.
func ComponentType(kind string) string {
	cloud, rest := kind, kind
	if i := strings.Index(kind, "Kubernetes"); i > 0 {
		cloud, rest = kind[:i], kind[i:]
	}
	return Package + ":" + strings.ToLower(cloud) + ":" + rest
}

// DefaultDownloadURL is where releases are published: the GitHub releases of the repository,
// each holding the plugin as pulumi-resource-clusterplane-v<version>-<os>-<arch>.tar.gz.
const DefaultDownloadURL = "github://api.github.com/clusterplane/clusterplane"

// downloadURL overrides DefaultDownloadURL when a release is built for another server (make release
// DOWNLOAD_URL=https://...): -X github.com/clusterplane/clusterplane/pkg/plugin.downloadURL=...
var downloadURL string

// DownloadURL is where the engine downloads the plugin from when it is not installed: the package
// schema's pluginDownloadURL, and so every SDK's.
func DownloadURL() string {
	if downloadURL != "" {
		return downloadURL
	}
	return DefaultDownloadURL
}
