package cost

// The price table in the repository: what a plan is priced with offline, and Civo's only prices
// (its API has none). Monthly list prices in US dollars, without tax, credits or bandwidth.
//
// DigitalOcean: worker nodes are Droplets billed at the Droplet price (capped at 672 hours a
// month); the high-availability control plane is $40 a month. Source:
// https://docs.digitalocean.com/products/kubernetes/details/pricing/ (the HA fee) and
// https://www.digitalocean.com/pricing/droplets (the sizes), as listed on TableDate. The sizes
// API (GET /v2/sizes, price_monthly) is used instead whenever a token is present.
//
// Civo: Kubernetes node sizes (g4s.kube.*) from https://www.civo.com/pricing as listed on
// TableDate; the control plane costs nothing.
//
// Update the prices and TableDate together; a report names the date, so an old table is seen.

// TableDate is the day the table's prices were read.
const TableDate = "2026-11-23"

// TableSource names the table in a report.
const TableSource = "clusterplane's price table (pkg/change/cost)"

// digitalOceanSizes are DigitalOcean Droplet sizes' monthly prices by slug.
var digitalOceanSizes = map[string]float64{
	"s-1vcpu-2gb":       12,
	"s-2vcpu-2gb":       18,
	"s-2vcpu-4gb":       24,
	"s-4vcpu-8gb":       48,
	"s-8vcpu-16gb":      96,
	"s-2vcpu-4gb-amd":   28,
	"s-4vcpu-8gb-amd":   56,
	"s-4vcpu-8gb-intel": 56,
	"c-2":               42,
	"c-4":               84,
	"c-8":               168,
	"c-16":              336,
	"g-2vcpu-8gb":       63,
	"g-4vcpu-16gb":      126,
	"g-8vcpu-32gb":      252,
	"gd-2vcpu-8gb":      68,
	"gd-4vcpu-16gb":     136,
	"m-2vcpu-16gb":      84,
	"m-4vcpu-32gb":      168,
	"m-8vcpu-64gb":      336,
	"so-2vcpu-16gb":     131,
	"so-4vcpu-32gb":     262,
}

// digitalOceanHAFee is the monthly price of DigitalOcean's high-availability control plane.
const digitalOceanHAFee = 40

// civoSizes are Civo Kubernetes node sizes' monthly prices by name.
var civoSizes = map[string]float64{
	"g4s.kube.xsmall":  5,
	"g4s.kube.small":   10,
	"g4s.kube.medium":  20,
	"g4s.kube.large":   40,
	"g4s.kube.xlarge":  80,
	"g4s.kube.2xlarge": 160,
}

// unpriced are sizes each cloud offers whose monthly price the table does not hold (GPU sizes,
// priced by the hour and changing often): validate knows them, an estimate names them unpriced.
var unpriced = map[string][]string{
	DigitalOcean: {"gpu-h100x1-80gb", "gpu-h100x8-640gb"},
	Civo:         {"an.g1.l40s.kube.x1"},
}
