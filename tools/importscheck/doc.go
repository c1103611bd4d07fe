// Package importscheck holds the test of how pkg/'s role folders (pkg/change, pkg/cloud,
// pkg/deploy, pkg/serve, pkg/manifest, pkg/pulumi, ...) import each other: never both ways, and
// pkg/change (what changes cost and do, computed) never pkg/cloud (the clouds' APIs, called).
package importscheck
