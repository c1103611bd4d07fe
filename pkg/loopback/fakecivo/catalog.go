package fakecivo

import (
	"slices"
	"strconv"
	"strings"

	"github.com/civo/civogo"
)

// The lists a test can replace with SetRegions, SetVersions and SetSizes. They cover what this
// repository's manifests and examples name (regions lon1 fra1 nyc1 phx1 mum1, the g4s.kube sizes
// and the L40S GPU size, 1.30.5-k3s1 and talos-v1.5.0) and a little more, so that refusals of
// what is not on them can be tested.
var (
	// DefaultRegions are the regions the fake offers; lon1 is the account's default, as it is
	// Civo's. Codes are lower case, as this repository's manifests write them; the fake matches
	// a region case-insensitively, as Civo's clients (LON1, lon1) assume it does.
	DefaultRegions = []civogo.Region{
		region("lon1", "London 1", "gb", "United Kingdom", true, true),
		region("fra1", "Frankfurt 1", "de", "Germany", false, true),
		region("nyc1", "New York 1", "us", "United States", false, false),
		region("phx1", "Phoenix 1", "us", "United States", false, false),
		region("mum1", "Mumbai 1", "in", "India", false, false),
	}

	// DefaultVersions are the Kubernetes versions offered. Type is the version's standing
	// (stable, development, deprecated) and ClusterType the distribution (k3s, talos), as the
	// provider's version checks read them. A deprecated version cannot be used for a new cluster.
	DefaultVersions = []civogo.KubernetesVersion{
		{Label: "1.27.1-k3s1", Version: "1.27.1-k3s1", Type: "deprecated", ClusterType: "k3s"},
		{Label: "1.28.7-k3s1", Version: "1.28.7-k3s1", Type: "stable", ClusterType: "k3s"},
		{Label: "1.29.8-k3s1", Version: "1.29.8-k3s1", Type: "stable", ClusterType: "k3s"},
		{Label: "1.30.5-k3s1", Version: "1.30.5-k3s1", Type: "stable", ClusterType: "k3s", Default: true},
		{Label: "1.31.1-k3s1", Version: "1.31.1-k3s1", Type: "stable", ClusterType: "k3s"},
		{Label: "talos-v1.5.0", Version: "talos-v1.5.0", Type: "stable", ClusterType: "talos", Default: true},
		{Label: "talos-v1.7.6", Version: "talos-v1.7.6", Type: "stable", ClusterType: "talos"},
	}

	// DefaultSizes are the instance sizes offered. Only those of type "kubernetes" can back a
	// node pool; the others are there so that a VM size given to a pool is refused as Civo
	// refuses it. CPU, memory and disk are the fake's approximations of Civo's shapes.
	DefaultSizes = []civogo.InstanceSize{
		kubeSize("g4s.kube.xsmall", "Extra Small - Standard", 1, 1024, 30),
		kubeSize("g4s.kube.small", "Small - Standard", 1, 2048, 40),
		kubeSize("g4s.kube.medium", "Medium - Standard", 2, 4096, 50),
		kubeSize("g4s.kube.large", "Large - Standard", 4, 8192, 60),
		kubeSize("g4s.kube.xlarge", "Extra Large - Standard", 6, 16384, 80),
		kubeSize("g4c.kube.small", "Small - CPU optimized", 4, 8192, 60),
		kubeSize("g4c.kube.medium", "Medium - CPU optimized", 8, 16384, 80),
		kubeSize("g4m.kube.small", "Small - Memory optimized", 2, 16384, 60),
		kubeSize("g4p.kube.small", "Small - Performance", 4, 16384, 60),
		{Type: "kubernetes", Name: "an.g1.l40s.kube.x1", NiceName: "NVIDIA L40S 48GB x1", CPUCores: 12,
			GPUCount: 1, GPUType: "L40S", RAMMegabytes: 65536, DiskGigabytes: 200, TransferTerabytes: 5,
			Description: "NVIDIA L40S 48GB x1", Selectable: true},
		vmSize("g3.xsmall", "Extra Small", 1, 1024, 25),
		vmSize("g3.small", "Small", 1, 2048, 25),
		vmSize("g3.medium", "Medium", 2, 4096, 50),
		vmSize("g3.large", "Large", 4, 8192, 100),
	}

	// DefaultApplications is the marketplace: what "applications" may name. Those marked Default
	// are installed in every new cluster unless the request removes them ("-metrics-server").
	DefaultApplications = []civogo.KubernetesMarketplaceApplication{
		app("metrics-server", "0.6.4", "architecture", true),
		app("traefik2-nodeport", "2.10.4", "architecture", true),
		app("cert-manager", "v1.13.1", "security", false),
		app("civo-cluster-autoscaler", "1.25.0", "architecture", false),
		app("prometheus-operator", "0.68.0", "monitoring", false),
		withPlans(app("Linkerd", "2.14.1", "architecture", false), "Linkerd only", "Linkerd & Jaeger"),
		withPlans(app("MariaDB", "10.11.5", "database", false), "5GB", "10GB", "20GB"),
	}
)

const (
	// defaultPoolSize and defaultPoolCount are what a cluster created without pools or with only
	// num_target_nodes/target_nodes_size gets, the defaults Civo documents for the legacy fields.
	defaultPoolSize  = "g4s.kube.medium"
	defaultPoolCount = 3
	// civoPoolLabel is the label Civo puts on every pool's nodes, naming the pool.
	civoPoolLabel = "kubernetes.civo.com/node-pool"
)

func region(code, name, country, countryName string, isDefault, gpu bool) civogo.Region {
	return civogo.Region{
		Code: code, Name: name, Type: "civostack", Country: country, CountryName: countryName, Default: isDefault,
		Features: civogo.Feature{Iaas: true, Kubernetes: true, ObjectStore: true, LoadBalancer: true, DBaaS: true,
			Volume: true, GPU: gpu, PublicIPNodePools: true},
	}
}

func kubeSize(name, nice string, cpu, ramMB, diskGB int) civogo.InstanceSize {
	return civogo.InstanceSize{Type: "kubernetes", Name: name, NiceName: nice, CPUCores: cpu, RAMMegabytes: ramMB,
		DiskGigabytes: diskGB, TransferTerabytes: 1, Description: nice, Selectable: true}
}

func vmSize(name, nice string, cpu, ramMB, diskGB int) civogo.InstanceSize {
	return civogo.InstanceSize{Type: "instance", Name: name, NiceName: nice, CPUCores: cpu, RAMMegabytes: ramMB,
		DiskGigabytes: diskGB, TransferTerabytes: 1, Description: nice, Selectable: true}
}

func app(name, version, category string, isDefault bool) civogo.KubernetesMarketplaceApplication {
	return civogo.KubernetesMarketplaceApplication{Name: name, Title: name, Version: version, Default: isDefault,
		Maintainer: "fakecivo", Description: name + " from the fake marketplace", Category: category,
		URL: "https://example.invalid/" + strings.ToLower(name)}
}

func withPlans(a civogo.KubernetesMarketplaceApplication, plans ...string) civogo.KubernetesMarketplaceApplication {
	for _, p := range plans {
		a.Plans = append(a.Plans, civogo.KubernetesMarketplacePlan{Label: p})
	}
	return a
}

// Catalogue is what the cloud offers: regions, instance sizes, Kubernetes versions and marketplace
// applications. Its exported methods take the server's Mu; the others run with it held.
type Catalogue struct{ *store }

// SetRegions replaces the regions offered. Each gets a default network.
func (f Catalogue) SetRegions(regions ...civogo.Region) {
	f.locked(func() {
		f.regions = slices.Clone(regions)
		for _, r := range f.regions {
			f.networking.defaultNetwork(r.Code)
		}
	})
}

// SetVersions replaces the Kubernetes versions offered.
func (f Catalogue) SetVersions(versions ...civogo.KubernetesVersion) {
	f.locked(func() { f.versions = slices.Clone(versions) })
}

// SetSizes replaces the instance sizes offered.
func (f Catalogue) SetSizes(sizes ...civogo.InstanceSize) {
	f.locked(func() { f.sizes = slices.Clone(sizes) })
}

// installApps is apps after a request's "applications": a comma-separated list of marketplace
// names, "name:plan" for a plan, "-name" to remove one. A new cluster (defaults) also gets the
// marketplace's default applications unless the list removes them.
func (f Catalogue) installApps(apps []civogo.KubernetesInstalledApplication, spec string, defaults bool) ([]civogo.KubernetesInstalledApplication, *apiError) {
	out := deepCopy(apps)
	var add []string
	removed := map[string]bool{}
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		switch {
		case item == "":
		case strings.HasPrefix(item, "-"):
			removed[strings.TrimPrefix(item, "-")] = true
		default:
			add = append(add, item)
		}
	}
	if defaults {
		for _, a := range f.applications {
			if a.Default && !removed[a.Name] {
				add = append([]string{a.Name}, add...)
			}
		}
	}
	out = slices.DeleteFunc(out, func(a civogo.KubernetesInstalledApplication) bool { return removed[a.Name] })
	for _, item := range add {
		name, plan, _ := strings.Cut(item, ":")
		a, ok := f.application(name)
		if !ok {
			return nil, badRequest("database_kubernetes_application_not_found", "%q is not in the marketplace", name)
		}
		if plan != "" && !slices.ContainsFunc(a.Plans, func(p civogo.KubernetesMarketplacePlan) bool { return p.Label == plan }) {
			return nil, badRequest("database_kubernetes_application_invalid_plan", "%s has no plan %q", name, plan)
		}
		out = slices.DeleteFunc(out, func(i civogo.KubernetesInstalledApplication) bool { return i.Name == name })
		out = append(out, civogo.KubernetesInstalledApplication{Application: a.Name, Name: a.Name, Version: a.Version,
			Maintainer: a.Maintainer, Description: a.Description, Installed: true, URL: a.URL, Category: a.Category, Plan: plan})
	}
	return out, nil
}

// firstRegion is the account's default region: the offered one marked default, else the first.
func (f Catalogue) firstRegion() string {
	for _, r := range f.regions {
		if r.Default {
			return r.Code
		}
	}
	if len(f.regions) > 0 {
		return f.regions[0].Code
	}
	return "lon1"
}

// regionCode is the code of the offered region matching name case-insensitively, and whether there
// is one. The region the fake was pinned to counts as offered even when the list lacks it, so a
// test may pin any region it likes.
func (f Catalogue) regionCode(name string) (string, bool) {
	if name == "" {
		return "", false
	}
	for _, r := range f.regions {
		if strings.EqualFold(r.Code, name) {
			return r.Code, true
		}
	}
	if f.region != "" && strings.EqualFold(f.region, name) {
		return f.region, true
	}
	return "", false
}

// poolSize tells whether name is an offered size that can back a node pool.
func (f Catalogue) poolSize(name string) bool {
	for _, s := range f.sizes {
		if s.Name == name {
			return s.Type == "" || s.Type == "kubernetes"
		}
	}
	return false
}

// clusterTypeOf is the distribution a version belongs to, read from its name when the list
// does not say.
func clusterTypeOf(v civogo.KubernetesVersion) string {
	if v.ClusterType != "" {
		return v.ClusterType
	}
	if strings.HasPrefix(v.Version, "talos") {
		return "talos"
	}
	return "k3s"
}

// version is the offered version named name for clusterType.
func (f Catalogue) version(name, clusterType string) (civogo.KubernetesVersion, bool) {
	for _, v := range f.versions {
		if v.Version == name && clusterTypeOf(v) == clusterType {
			return v, true
		}
	}
	return civogo.KubernetesVersion{}, false
}

// defaultVersion is what a cluster of clusterType created without a version gets: the one marked
// default, else the highest stable one.
func (f Catalogue) defaultVersion(clusterType string) string {
	best := ""
	for _, v := range f.versions {
		if clusterTypeOf(v) != clusterType || v.Type == "deprecated" {
			continue
		}
		if v.Default {
			return v.Version
		}
		if v.Type == "stable" && (best == "" || compareVersions(v.Version, best) > 0) {
			best = v.Version
		}
	}
	return best
}

// upgradeTo is the highest stable version of clusterType above current, or "" when none is.
func (f Catalogue) upgradeTo(current, clusterType string) string {
	best := ""
	for _, v := range f.versions {
		if clusterTypeOf(v) != clusterType || v.Type != "stable" || compareVersions(v.Version, current) <= 0 {
			continue
		}
		if best == "" || compareVersions(v.Version, best) > 0 {
			best = v.Version
		}
	}
	return best
}

// compareVersions orders "1.30.5-k3s1" and "talos-v1.5.0" style versions by their numbers.
func compareVersions(a, b string) int {
	return slices.Compare(versionNumbers(a), versionNumbers(b))
}

func versionNumbers(v string) []int {
	var out []int
	for _, field := range strings.FieldsFunc(v, func(r rune) bool { return r < '0' || r > '9' }) {
		n, _ := strconv.Atoi(field)
		out = append(out, n)
	}
	return out
}

// application is the marketplace entry named name.
func (f Catalogue) application(name string) (civogo.KubernetesMarketplaceApplication, bool) {
	for _, a := range f.applications {
		if a.Name == name {
			return a, true
		}
	}
	return civogo.KubernetesMarketplaceApplication{}, false
}
