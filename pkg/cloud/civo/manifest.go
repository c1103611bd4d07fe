package civo

import "regexp"

// TokenShape: Civo publishes no shape of its API keys, so none is looked for.
func (Driver) TokenShape() *regexp.Regexp { return nil }

// TagsIgnoreCase: the Civo kinds send no tags to Civo.
func (Driver) TagsIgnoreCase() bool { return false }

// Distribution: a Civo cluster runs k3s, or Talos when its cluster_type says talos; Civo lists
// each version for one of the two.
func (Driver) Distribution(clusterType string) string {
	if clusterType == "talos" {
		return "talos"
	}
	return "k3s"
}
