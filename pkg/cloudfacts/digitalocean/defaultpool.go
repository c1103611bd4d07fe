package digitalocean

// DefaultPoolField is the manifest's path of a DigitalOcean cluster's default node pool.
const DefaultPoolField = "spec.defaultNodePool"
