package cost

// Catalogue is what a cloud's API offers new clusters and node pools now, read by its driver
// (pkg/cloud/<cloud>) in one call.
type Catalogue struct {
	// Versions are the Kubernetes versions the API lists.
	Versions []CatalogueVersion
	// Sizes are the node sizes a pool may use; nil when the call does not list them (Civo's
	// versions call has no sizes).
	Sizes []string
	// Regions are the regions (DigitalOcean's slugs, Civo's codes, lower case) new clusters may be
	// created in; nil when the catalogue was read without them.
	Regions []string
}

// CatalogueVersion is one Kubernetes version a cloud lists.
type CatalogueVersion struct {
	Version string
	// Distribution is Civo's cluster type (k3s, talos); "" on DigitalOcean.
	Distribution string
	// Deprecated tells that the cloud lists the version but creates no cluster with it (Civo).
	Deprecated bool
}
