// Package plugin is the clusterplane Pulumi plugin's identity: its name, package and version, and
// the type tokens of what it serves. The plugin, the modules that register its types, the package
// schema and the clusterplane command (which serves and installs the plugin) all read them here.
package plugin

import (
	"runtime/debug"
	"strings"
)

const (
	// Package is the Pulumi package: every type the plugin serves is clusterplane:<module>:<Type>.
	Package = "clusterplane"
	// Name is the plugin's executable, as the engine looks for it.
	Name = "pulumi-resource-" + Package
	// CivoNodePool is the Civo node pool the plugin manages itself through Civo's API.
	CivoNodePool = Package + ":civo:NodePool"
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

// Version is the module version the binary was built from (go install ...@v0.3.0), or 0.0.0 for a
// build from a checkout.
func Version() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		if v := info.Main.Version; len(v) > 1 && v[0] == 'v' && v != "(devel)" {
			return v[1:]
		}
	}
	return "0.0.0"
}
