// Package importscheck holds the tests of how pkg/'s role folders (pkg/change, pkg/cloud,
// pkg/cloudfacts, pkg/deploy, pkg/serve, pkg/manifest, pkg/pulumi, ...) import each other: no
// cycle through any number of folders, never two importing each other, pkg/change (what changes
// cost and do, computed) never pkg/cloud (the clouds' APIs, called); and of what the reading and
// computing folders link: pkg/manifest, pkg/change and pkg/redact no cloud's client, serve's store
// nothing under pkg/cloud and its bodies no driver list (go list).
package importscheck
