// Package discover reads the Kubernetes clusters and node pools of a DigitalOcean or Civo account
// and writes the manifests that describe them as they run: one per cluster (its default pool
// inside) and one per extra pool, which refers to its cluster with valueFrom. The cloud's id is
// recorded as the annotation clusterplane.dev/cloud-id, which adopt reads; annotations never
// reach the cloud.
//
// What the cloud sets by itself is left out (DigitalOcean's k8s, k8s:<id> and k8s:worker tags,
// the Terraform provider's terraform:default-node-pool tag, Civo's own node labels) or written as
// the cloud has it. Nothing secret is read into memory: the answers are decoded into structs with
// no field for a kubeconfig, and the token goes only into the Authorization header.
//
// It lists, never one request per resource: DigitalOcean's clusters come 200 a page with their
// pools inline; Civo's 100 a page per region. Requests are paced under DigitalOcean's 250 a
// minute and a 429 is answered by waiting as Retry-After says.
package discover

import (
	"context"
	"net/http"
	"sort"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/manifest/labels"
	"github.com/pkg/errors"
)

// Options say which account to read and how.
type Options struct {
	// Cloud is the cloud's ID (pkg/cloud/clouds): its driver reads the account.
	Cloud string
	// Token is the API token; APIURL the API's base URL ("" for the cloud's own).
	Token, APIURL string
	// Region keeps only the clusters of one region ("" for all). Civo is read region by region,
	// so a region also saves requests there.
	Region string
	// Cluster keeps only the cluster with this name or id, with its pools.
	Cluster string
	// Command is how the files say they were made, e.g. "clusterplane discover civo --dir x".
	Command string
	// HTTPClient makes the requests (nil: a client with a 60 s timeout).
	HTTPClient *http.Client
	// Kinds are the kinds the manifests are written as (cmd/clusterplane gives registry.Kinds()).
	Kinds kinds.List
	// PerMinute and Burst pace the requests (0: DefaultPerMinute, DefaultBurst).
	PerMinute, Burst int
	// IncludeManaged also writes the clusters clusterplane deployed (those tagged
	// resource-kind:<its cluster kind>) and their pools. They are left out by default: their
	// stacks already hold them, and a discovered file would take the module's own resources
	// (a Civo firewall) for the cloud's.
	IncludeManaged bool
}

// File is one manifest to write.
type File struct {
	// Name is the file name, e.g. "dev-fra1.yaml", from the cloud's names.
	Name string
	// Kind is the manifest's kind; CloudID the id of what it describes.
	Kind, CloudID string
	// Data is the YAML text, starting with a comment saying where it came from.
	Data []byte
}

// Result is what a discovery found.
type Result struct {
	Files []File
	// Clusters and Pools count what the files describe (Pools: the extra pools).
	Clusters, Pools int
	// Requests is how many requests went to the cloud, retries included.
	Requests int
	// Managed counts the clusters left out because clusterplane deployed them (their pools go
	// with them), ManagedPools the pools it deployed as stacks of their own on a cluster made
	// elsewhere; both always 0 with IncludeManaged.
	Managed, ManagedPools int
	// Notes are things the files could not say, one sentence each (a pool's labels the cluster
	// kind cannot carry, a region this version does not know).
	Notes []string
}

// Discover reads the account and returns the manifests describing it, in a stable order and with
// stable contents: the same account gives the same bytes.
func Discover(ctx context.Context, o Options) (*Result, error) {
	if o.Token == "" {
		return nil, errors.New("no API token")
	}
	p := newPacer(o.PerMinute, o.Burst)
	if o.Burst == 0 {
		p = newPacer(o.PerMinute, DefaultBurst)
	}
	if err := KnownCloud(o.Cloud); err != nil {
		return nil, err
	}
	d, _ := clouds.Get(cloud.ID(o.Cloud))
	// An empty APIURL is the cloud's own API (each client's default).
	read, err := d.Discover(ctx, cloud.Account{
		Token: o.Token, URL: o.APIURL, Transport: transport(o.HTTPClient, p), MaxPages: maxPages,
		Region: o.Region, Cluster: o.Cluster, Spellable: cost.RegionName, Managed: labels.Managed,
	})
	if err != nil {
		return nil, err
	}
	found, notes := foundManifests(d, read), read.Notes
	res := &Result{Requests: read.Requests}
	for _, n := range notes {
		res.Notes = append(res.Notes, Printable(n))
	}
	if !o.IncludeManaged {
		found, res.Managed, res.ManagedPools = withoutManaged(found)
	}
	if o.Cluster != "" && len(found) == 0 {
		return nil, errors.Errorf("no %s cluster has the name or id %q%s", o.Cloud, o.Cluster, inRegion(o.Region))
	}
	names := map[string]bool{}
	for _, m := range found {
		data, err := render(m, o)
		if err != nil {
			return nil, err
		}
		name := fileName(m.fileBase, names)
		res.Files = append(res.Files, File{Name: name, Kind: m.kind, CloudID: Printable(m.cloudID), Data: data})
		if m.pool {
			res.Pools++
		} else {
			res.Clusters++
		}
	}
	return res, nil
}

// withoutManaged are the manifests without the clusters clusterplane deployed and their pools,
// and without the pools it deployed on other clusters, with how many clusters and such pools were
// left out. A pool follows its cluster (they share a sortKey).
func withoutManaged(ms []manifest) (_ []manifest, clusters, pools int) {
	managed := map[string]bool{}
	for _, m := range ms {
		if !m.pool && m.managed {
			managed[m.sortKey] = true
			clusters++
		}
	}
	var out []manifest
	for _, m := range ms {
		switch {
		case managed[m.sortKey]:
		case m.pool && m.managed:
			pools++
		default:
			out = append(out, m)
		}
	}
	return out, clusters, pools
}

// fileName is base.yaml, or base-2.yaml and so on when two resources share a name.
func fileName(base string, taken map[string]bool) string {
	name := base + ".yaml"
	for i := 2; taken[name]; i++ {
		name = base + "-" + itoa(i) + ".yaml"
	}
	taken[name] = true
	return name
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// foundManifests are the manifests of what the driver d found, each cluster named apart from
// every other cluster it read, in a stable order.
func foundManifests(d cloud.Driver, read cloud.Found) []manifest {
	var all []discovered
	for _, c := range read.Clusters {
		all = append(all, discovered{c.ID, c.Name, c.Where})
	}
	for _, c := range read.Besides {
		all = append(all, discovered{c.ID, c.Name, c.Where})
	}
	names := clusterNames(all)
	var out []manifest
	for _, c := range read.Clusters {
		out = append(out, manifests(d, c, names[c.ID])...)
	}
	sortManifests(out)
	return out
}

// sortManifests orders the clusters by region and name, then the pools by their cluster and
// name, so the output does not depend on the order the cloud lists them in, and reads as adopt
// takes them: clusters first.
func sortManifests(ms []manifest) {
	sort.SliceStable(ms, func(i, j int) bool {
		a, b := ms[i], ms[j]
		if a.pool != b.pool {
			return !a.pool
		}
		if a.sortKey != b.sortKey {
			return a.sortKey < b.sortKey
		}
		return a.fileBase < b.fileBase
	})
}

func inRegion(region string) string {
	if region == "" {
		return ""
	}
	return " in region " + region
}

// discovered is what naming needs of a discovered cluster: its cloud id, name and region.
type discovered struct{ id, name, region string }

// clusterNames gives every cluster of a run a manifest name of its own (no two manifests may share
// a stack, or one could never be adopted): its cloud name, with its region added when another
// cluster of the account has the same name (Civo's names are unique per region only), and when
// that is still taken (a cluster named "dup" in fra1 beside one named "dup-fra1"), a number. A
// name the cloud gave (no region added) is kept first; the rest follow in the order of their
// names, regions and ids, so that the same account always gives the same names, whatever order
// the cloud lists them in.
func clusterNames(all []discovered) map[string]string {
	count := map[string]int{}
	for _, c := range all {
		count[c.name]++
	}
	type candidate struct {
		discovered
		base    string
		natural bool
	}
	var cs []candidate
	for _, c := range all {
		cand := candidate{discovered: c, base: metaName(c.name), natural: count[c.name] == 1}
		if !cand.natural {
			cand.base = metaName(c.name + "-" + c.region)
		}
		cs = append(cs, cand)
	}
	sort.SliceStable(cs, func(i, j int) bool {
		a, b := cs[i], cs[j]
		switch {
		case a.natural != b.natural:
			return a.natural
		case a.base != b.base:
			return a.base < b.base
		case a.name != b.name:
			return a.name < b.name
		case a.region != b.region:
			return a.region < b.region
		}
		return a.id < b.id
	})
	taken := map[string]bool{}
	out := map[string]string{}
	for _, c := range cs {
		name := c.base
		for i := 2; taken[name]; i++ {
			suffix := "-" + itoa(i)
			name = strings.TrimRight(c.base[:min(len(c.base), 63-len(suffix))], "-") + suffix
		}
		taken[name] = true
		out[c.id] = name
	}
	return out
}
