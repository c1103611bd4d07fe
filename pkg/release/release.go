// Package release is the version of this build of clusterplane, set once when a release is built
// and read by everything that says it: clusterplane version, the plugin, its package schema, the
// SDKs and the operator export. It imports nothing of the project, so any layer may read it.
package release

import (
	"runtime/debug"
	"strings"
)

// version is set when a release is built: go build -ldflags "-X
// github.com/clusterplane/clusterplane/pkg/release.version=v0.1.0" (make release).
var version string

// Version is clusterplane's version, without the v: the one a release was built with, else the
// module version the binary was built from (go install ...@v0.3.0), else 0.0.0 for a build from
// a checkout. clusterplane version, the plugin, its package schema and the SDKs all say it.
func Version() string {
	if v := strings.TrimPrefix(version, "v"); v != "" {
		return v
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		if v := info.Main.Version; len(v) > 1 && v[0] == 'v' && v != "(devel)" {
			return v[1:]
		}
	}
	return "0.0.0"
}
