// Command pulumi-resource-digitalocean is the digitalocean provider plugin stand-in for offline end-to-end tests:
// see package standin for what it proves and what it cannot. It keeps its resources in the
// directory named by CLUSTERPLANE_STANDIN_CLOUD.
package main

import "github.com/clusterplane/clusterplane/internal/standin"

func main() { standin.Main("digitalocean") }
