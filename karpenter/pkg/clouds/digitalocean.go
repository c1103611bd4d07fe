package clouds

import (
	"context"
	"slices"
	"strings"

	v1 "github.com/clusterplane/clusterplane/karpenter/pkg/apis/v1"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/pkg/errors"
)

// DigitalOceanMarkTag is the prefix of the tag that marks the provider's DigitalOcean pools:
// "clusterplane-karpenter:<mark>". DigitalOcean's tags allow letters, digits, '-', '_' and ':';
// the prefix differs from rotations' ("clusterplane-rotation:"), so neither takes the other's
// pools.
const DigitalOceanMarkTag = digitalocean.KarpenterMarkTag

// DigitalOceanProviderIDPrefix is a DOKS node's providerID before its Droplet id, as DigitalOcean's
// cloud controller manager writes it.
const DigitalOceanProviderIDPrefix = "digitalocean://"

// digitalOceanDriver is DigitalOcean as the provider serves it.
//
// DOKS reserves memory and CPU for its kubelet and system daemons, by a table per node memory in
// DigitalOcean's documentation ("Allocatable memory", docs.digitalocean.com/products/kubernetes/
// details/limits) that its API does not return: the provider reserves by GKE's published formula
// instead (ReserveGKEFormula). It is an estimate, not DigitalOcean's table, and errs high on
// purpose: reserving too much only makes Karpenter pick a size up, reserving too little leaves
// pods pending on a node Karpenter thought would fit them.
var digitalOceanDriver = Driver{
	ID:               string(digitalocean.ID),
	Name:             "DigitalOcean",
	Kind:             "DigitalOceanNodeClass",
	NodeClass:        func() v1.NodeClass { return &v1.DigitalOceanNodeClass{} },
	NodeClasses:      func() v1.NodeClassList { return &v1.DigitalOceanNodeClassList{} },
	ProviderIDPrefix: DigitalOceanProviderIDPrefix,
	Env:              digitalocean.Env,
	New:              func(base, token string) Cloud { return NewDigitalOcean(base, token) },
	Reserve:          ReserveGKEFormula,
}

// digitalOceanHours are the hours a month's price is spread over: DigitalOcean bills a node by
// the hour up to 672 hours (28 days) a month (docs.digitalocean.com/products/kubernetes/details/
// pricing). Karpenter only compares prices, so the choice matters only between sizes of one cloud.
const digitalOceanHours = 672

// DigitalOcean is DigitalOcean's Kubernetes API.
type DigitalOcean struct {
	// api asks a refused read, resize or delete again, and sends a create once (cloudapi.CreateOnce
	// decides whether to send it again).
	api *digitalocean.Client
	// host is the API's host, named in an error that got no answer.
	host string
}

// NewDigitalOcean is DigitalOcean's API at base ("" is DigitalOcean's own) with token.
func NewDigitalOcean(base, token string) *DigitalOcean {
	return &DigitalOcean{
		api:  digitalocean.New(base, token, digitalocean.Options{Options: cloudapi.Options{Retry: retryRule}}),
		host: apiHost(base, digitalocean.Env.API),
	}
}

// Name is "digitalocean".
func (d *DigitalOcean) Name() string { return string(digitalocean.ID) }

// ProviderIDPrefix is digitalocean://.
func (d *DigitalOcean) ProviderIDPrefix() string { return DigitalOceanProviderIDPrefix }

// Requests is how many requests went to DigitalOcean.
func (d *DigitalOcean) Requests() int { return d.api.Requests() }

// FindCluster reads the cluster by id, or walks the account's clusters for its name.
func (d *DigitalOcean) FindCluster(ctx context.Context, id, name, _ string) (_ Cluster, err error) {
	defer d.nameHost(&err)
	var found *digitalocean.Cluster
	if id != "" {
		c, err := d.api.Cluster(ctx, id)
		if cloudapi.IsNotFound(err) {
			return Cluster{}, errors.Wrapf(ErrClusterNotFound, "DigitalOcean cluster %s", id)
		}
		if err != nil {
			return Cluster{}, err
		}
		found = &c
	} else {
		err := d.api.WalkClusters(ctx, func(page []digitalocean.Cluster) bool {
			for i := range page {
				if page[i].Name == name {
					found = &page[i]
					return false
				}
			}
			return true
		})
		if err != nil {
			return Cluster{}, err
		}
		if found == nil {
			return Cluster{}, errors.Wrapf(ErrClusterNotFound, "no DigitalOcean cluster named %s", name)
		}
	}
	state := ""
	if found.Status != nil {
		state = found.Status.State
	}
	return Cluster{ID: found.ID, Name: found.Name, Region: found.Region, State: state, Running: state == "running"}, nil
}

// Sizes are the Droplet sizes DigitalOcean offers for Kubernetes (its Kubernetes options) that
// are available in region, with their shape and price from the sizes API; a size the API does
// not price takes the price table's (pkg/change/cost), else it has none.
func (d *DigitalOcean) Sizes(ctx context.Context, region string) (_ []Size, err error) {
	defer d.nameHost(&err)
	opts, err := d.api.Options(ctx)
	if err != nil {
		return nil, err
	}
	details, err := d.api.SizeDetails(ctx)
	if err != nil {
		return nil, err
	}
	table := digitalocean.Driver{}.Prices()
	var out []Size
	for _, s := range details {
		offered := slices.ContainsFunc(opts.Sizes, func(o digitalocean.Size) bool { return o.Slug == s.Slug })
		if !offered || !s.Available || !slices.Contains(s.Regions, region) {
			continue
		}
		size := Size{Name: s.Slug, Family: doFamily(s.Slug), Tags: doTags(s.Slug), CPUs: s.Vcpus, MemoryMiB: s.Memory,
			MonthlyPrice: s.PriceMonthly}
		if s.GPUInfo != nil {
			size.GPUs = s.GPUInfo.Count
		}
		if size.MonthlyPrice <= 0 {
			size.MonthlyPrice = table.Sizes[s.Slug]
		}
		size.HourlyPrice = size.MonthlyPrice / digitalOceanHours
		out = append(out, size)
	}
	return out, nil
}

// doFamily is a slug's family: what comes before its first '-' (s, c, g, gd, m, so, gpu).
func doFamily(slug string) string {
	family, _, _ := strings.Cut(slug, "-")
	return family
}

// doTags are the properties a slug says: DigitalOcean names its premium CPUs by a suffix (-amd,
// -intel) and its dedicated-CPU families by prefix (c, g, gd, m, so: "Dedicated CPU Droplets").
func doTags(slug string) []string {
	var tags []string
	for _, t := range []string{"amd", "intel"} {
		if strings.HasSuffix(slug, "-"+t) {
			tags = append(tags, t)
		}
	}
	switch doFamily(slug) {
	case "c", "c2", "g", "gd", "m", "m3", "m6", "so", "so1_5":
		tags = append(tags, "dedicated")
	case "gpu":
		tags = append(tags, "gpu", "dedicated")
	}
	return tags
}

// Pools are the cluster's pools; a pool's mark is read from its tag.
func (d *DigitalOcean) Pools(ctx context.Context, c Cluster) (_ []Pool, err error) {
	defer d.nameHost(&err)
	pools, err := d.api.NodePools(ctx, c.ID)
	if cloudapi.IsNotFound(err) {
		return nil, errors.Wrapf(ErrClusterNotFound, "DigitalOcean cluster %s", c.ID)
	}
	if err != nil {
		return nil, err
	}
	out := make([]Pool, 0, len(pools))
	for _, p := range pools {
		out = append(out, doPool(p))
	}
	return out, nil
}

func doPool(p digitalocean.NodePool) Pool {
	out := Pool{ID: p.ID, Name: p.Name, Size: p.Size, Count: int(p.Count)}
	for _, t := range p.Tags {
		if m, ok := strings.CutPrefix(t, DigitalOceanMarkTag); ok && IsMark(m) {
			out.Mark = m
		}
	}
	for _, n := range p.Nodes {
		node := Node{ID: n.ID, Name: n.Name, Ready: n.Status.State == "running",
			Going: n.Status.State == "deleting" || n.Status.State == "draining"}
		if n.DropletID != "" {
			node.ProviderID = DigitalOceanProviderIDPrefix + n.DropletID
		}
		out.Nodes = append(out.Nodes, node)
	}
	return out
}

// CreatePool makes a pool named karpenter-<size>-<random>: DigitalOcean wants names unique in a
// cluster. The name is kept if the create is sent again (see cloudapi.CreateOnce), so that a repeat of a
// create the cloud did carry out cannot make a second pool; otherwise pools are found by mark.
func (d *DigitalOcean) CreatePool(ctx context.Context, c Cluster, spec PoolSpec) (_ Pool, err error) {
	defer d.nameHost(&err)
	req := digitalocean.PoolRequest{Name: poolName(spec.Size), Size: spec.Size, Count: int32(spec.Count),
		Tags: append(slices.Clone(spec.Tags), DigitalOceanMarkTag+spec.Mark), Labels: spec.Labels}
	for _, t := range spec.Taints {
		req.Taints = append(req.Taints, digitalocean.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect})
	}
	send := func(ctx context.Context) (Pool, error) {
		p, err := d.api.CreatePool(ctx, c.ID, req)
		if err != nil {
			return Pool{}, err
		}
		return doPool(p), nil
	}
	return cloudapi.CreateOnce(ctx, send, func(ctx context.Context) (Pool, bool, error) {
		return findPool(ctx, d, c, spec.Mark, req.Name)
	})
}

// ResizePool sets the pool's count.
func (d *DigitalOcean) ResizePool(ctx context.Context, c Cluster, p Pool, count int) (err error) {
	defer d.nameHost(&err)
	_, err = d.api.ResizePool(ctx, c.ID, p.ID, p.Name, int32(count))
	return err
}

// DeleteNode deletes the node without a replacement.
func (d *DigitalOcean) DeleteNode(ctx context.Context, c Cluster, p Pool, n Node) (err error) {
	defer d.nameHost(&err)
	return notFound(d.api.DeleteNode(ctx, c.ID, p.ID, n.ID))
}

// DeletePool deletes the pool.
func (d *DigitalOcean) DeletePool(ctx context.Context, c Cluster, p Pool) (err error) {
	defer d.nameHost(&err)
	return notFound(d.api.DeletePool(ctx, c.ID, p.ID))
}

// notFound makes a 404 ErrNotFound.
func notFound(err error) error {
	if cloudapi.IsNotFound(err) {
		return errors.Wrap(ErrNotFound, err.Error())
	}
	return err
}

func (d *DigitalOcean) nameHost(err *error) { *err = withHost(d.host, *err) }
