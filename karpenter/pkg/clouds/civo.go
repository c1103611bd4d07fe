package clouds

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"maps"
	"net/http"
	"strings"
	"sync"

	v1 "github.com/clusterplane/clusterplane/karpenter/pkg/apis/v1"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo/pools"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/pkg/errors"
)

// CivoMarkLabel is the node label that marks the provider's Civo pools (Civo's pools carry no
// tags): its value is the mark. It differs from rotations' (clusterplane.dev/rotation).
const CivoMarkLabel = civo.KarpenterMarkLabel

// CivoProviderIDPrefix is a Civo node's providerID before its instance id, as Civo's cloud
// controller manager writes it.
const CivoProviderIDPrefix = "civo://"

// civoDriver is Civo as the provider serves it. Civo's nodes run k3s, which sets no kube-reserved
// or system-reserved (k3s's kubelet arguments, docs.k3s.io/cli/agent, reserve nothing unless
// given), so a Civo node keeps only the kubelet's eviction threshold (ReserveNothing).
var civoDriver = Driver{
	ID:               string(civo.ID),
	Name:             "Civo",
	Kind:             "CivoNodeClass",
	NodeClass:        func() v1.NodeClass { return &v1.CivoNodeClass{} },
	NodeClasses:      func() v1.NodeClassList { return &v1.CivoNodeClassList{} },
	ProviderIDPrefix: CivoProviderIDPrefix,
	Env:              civo.Env,
	New:              func(base, token string) Cloud { return NewCivo(base, token) },
	Reserve:          ReserveNothing,
}

// civoHours are the hours a month's price is spread over: Civo lists monthly prices of 730 hours
// (civo.com/pricing). Karpenter only compares prices, so the choice matters only between sizes of
// one cloud.
const civoHours = 730

// Civo is Civo's Kubernetes API: its clusters, regions and sizes through civo.Client, its pools
// through Civo's one pool client (pkg/cloud/civo/pools), one a region, since Civo's pool calls are
// per region. Every request goes through the civo.Client's one cloudapi client: one retry rule
// (retryRule), one count.
type Civo struct {
	// api asks a refused request again (a create after a 429 only: cloudapi never sends a POST
	// again after a 5xx or a lost answer).
	api *civo.Client
	// base and token name the pool clients' API; they send through api's cloudapi client.
	base, token string
	// host is the API's host, named in an error that got no answer.
	host string

	mu    sync.Mutex
	pools map[string]*pools.Client
}

// NewCivo is Civo's API at base ("" is Civo's own) with token.
func NewCivo(base, token string) *Civo {
	if base == "" {
		base = civo.Env.API
	}
	return &Civo{
		api:  civo.New(base, token, civo.Options{Options: cloudapi.Options{Retry: retryRule}}),
		base: base, token: token,
		host:  apiHost(base, civo.Env.API),
		pools: map[string]*pools.Client{},
	}
}

// poolsIn is the pool client of region, made on first use. It sends through api's cloudapi
// client, so its requests are asked again by retryRule and counted with the others; a create
// that got a 5xx or no answer is not sent again by it, which CreateOnce's look-and-send-again
// loop is for.
func (c *Civo) poolsIn(region string) (*pools.Client, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := c.pools[region]; ok {
		return p, nil
	}
	p, err := pools.New(c.token, c.base, region, pools.WithAPI(c.api.API()))
	if err != nil {
		return nil, err
	}
	c.pools[region] = p
	return p, nil
}

// Name is "civo".
func (c *Civo) Name() string { return string(civo.ID) }

// ProviderIDPrefix is civo://.
func (c *Civo) ProviderIDPrefix() string { return CivoProviderIDPrefix }

// Requests is how many requests went to Civo, the pools' included: they share api's count.
func (c *Civo) Requests() int { return c.api.Requests() }

// FindCluster looks in region, or in every region the account may use when region is "". Civo's
// regions list spells codes in upper case (LON1), clusterplane in lower case (lon1); region is
// taken in either and the cluster's region kept in lower case, since it becomes the nodes' zone
// and region labels, which must not differ between two NodeClasses of one cluster.
//
// Civo's cluster names are unique per region only: a name found in two regions is
// ErrClusterAmbiguous, naming both, rather than the first region's cluster, whose nodes would
// then be made in a cluster the NodeClass does not mean.
func (c *Civo) FindCluster(ctx context.Context, id, name, region string) (_ Cluster, err error) {
	defer c.nameHost(&err)
	region = strings.ToLower(region)
	regions := []string{region}
	if region == "" {
		all, err := c.api.Regions(ctx)
		if err != nil {
			return Cluster{}, err
		}
		regions = regions[:0]
		for _, r := range all {
			regions = append(regions, strings.ToLower(r.Code))
		}
	}
	var found []Cluster
	for _, r := range regions {
		cl, ok, err := c.findIn(ctx, r, id, name, region == "")
		if err != nil {
			return Cluster{}, err
		}
		if ok {
			found = append(found, cl)
		}
		if ok && id != "" {
			break // an id is one cluster's, whatever the region
		}
	}
	what := id
	if what == "" {
		what = "named " + name
	}
	switch len(found) {
	case 0:
		return Cluster{}, errors.Wrapf(ErrClusterNotFound, "no Civo cluster %s in %s", what, strings.Join(regions, ", "))
	case 1:
		return found[0], nil
	}
	var where []string
	for _, cl := range found {
		where = append(where, cl.Region)
	}
	return Cluster{}, errors.Wrapf(ErrClusterAmbiguous, "Civo has a cluster %s in each of %s: give the NodeClass's cluster its region "+
		"or its id", what, strings.Join(where, ", "))
}

// findIn is region r's cluster of id, or when id is "" named name. anyRegion says every region
// is searched, so a region the account may not use is passed over rather than an error.
func (c *Civo) findIn(ctx context.Context, r, id, name string, anyRegion bool) (Cluster, bool, error) {
	var found *civo.Cluster
	if id != "" {
		cl, err := c.api.Cluster(ctx, r, id)
		if cloudapi.IsNotFound(err) || (anyRegion && refused(err)) {
			return Cluster{}, false, nil
		}
		if err != nil {
			return Cluster{}, false, err
		}
		found = &cl
	} else {
		err := c.api.WalkClusters(ctx, r, func(page []civo.Cluster) bool {
			for i := range page {
				if page[i].Name == name {
					found = &page[i]
					return false
				}
			}
			return true
		})
		if err != nil && !(anyRegion && refused(err)) {
			return Cluster{}, false, err
		}
	}
	if found == nil {
		return Cluster{}, false, nil
	}
	return Cluster{ID: found.ID, Name: found.Name, Region: r, State: found.Status, Running: found.Status == "ACTIVE"}, true, nil
}

// refused tells a region the account may not use (Civo answers 400 or 403 about it), which a
// search of every region passes over: Civo lists regions an account cannot use.
func refused(err error) bool {
	s := cloudapi.StatusOf(err)
	return s == http.StatusBadRequest || s == http.StatusForbidden
}

// Sizes are Civo's Kubernetes sizes (type "kubernetes", selectable), priced by clusterplane's
// table (Civo's API has no prices); Civo offers the same sizes in every region.
func (c *Civo) Sizes(ctx context.Context, _ string) (_ []Size, err error) {
	defer c.nameHost(&err)
	sizes, err := c.api.Sizes(ctx)
	if err != nil {
		return nil, err
	}
	table := civo.Driver{}.Prices()
	var out []Size
	for _, s := range sizes {
		if s.Type != "kubernetes" || !s.Selectable {
			continue
		}
		family, _, _ := strings.Cut(s.Name, ".kube.")
		size := Size{Name: s.Name, Family: family, CPUs: s.CPUCores, MemoryMiB: s.RAMMB, GPUs: s.GPUCount,
			MonthlyPrice: table.Sizes[s.Name]}
		if s.GPUCount > 0 {
			size.Tags = append(size.Tags, "gpu")
		}
		// Civo's families: g4s standard, g4c CPU-optimised, g4m memory-optimised, g4p performance;
		// all but the standard ones have dedicated CPUs (civo.com/pricing).
		if family != "g4s" {
			size.Tags = append(size.Tags, "dedicated")
		}
		size.HourlyPrice = size.MonthlyPrice / civoHours
		out = append(out, size)
	}
	return out, nil
}

// Pools are the cluster's pools; a pool's mark is read from its label.
func (c *Civo) Pools(ctx context.Context, cl Cluster) (_ []Pool, err error) {
	defer c.nameHost(&err)
	api, err := c.poolsIn(cl.Region)
	if err != nil {
		return nil, err
	}
	all, err := api.List(ctx, cl.ID)
	if cloudapi.IsNotFound(err) {
		return nil, errors.Wrapf(ErrClusterNotFound, "Civo cluster %s", cl.ID)
	}
	if err != nil {
		return nil, err
	}
	out := make([]Pool, 0, len(all))
	for _, p := range all {
		pool := Pool{ID: p.ID, Name: p.ID, Size: p.Size, Count: p.Count}
		if m := p.Labels[CivoMarkLabel]; IsMark(m) {
			pool.Mark = m
		}
		for _, in := range p.Instances {
			pool.Nodes = append(pool.Nodes, Node{ID: in.ID, Name: in.Name, ProviderID: CivoProviderIDPrefix + in.ID,
				Ready: in.Status == pools.ReadyStatus, Going: in.Status == "DELETING"})
		}
		out = append(out, pool)
	}
	return out, nil
}

// CreatePool makes a pool whose id (its name in the cluster) is karpenter-<size>-<random>; the
// provider finds its pools by their label, and only a create's retry (cloudapi.CreateOnce) looks
// for that id too, next to the label.
func (c *Civo) CreatePool(ctx context.Context, cl Cluster, spec PoolSpec) (_ Pool, err error) {
	defer c.nameHost(&err)
	api, err := c.poolsIn(cl.Region)
	if err != nil {
		return Pool{}, err
	}
	labels := maps.Clone(spec.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[CivoMarkLabel] = spec.Mark
	req := pools.Spec{ClusterID: cl.ID, ID: poolName(spec.Size), Size: spec.Size, Count: spec.Count, Labels: labels}
	for _, t := range spec.Taints {
		req.Taints = append(req.Taints, pools.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect})
	}
	find := func(ctx context.Context) (Pool, bool, error) { return findPool(ctx, c, cl, spec.Mark, req.ID) }
	send := func(ctx context.Context) (Pool, error) {
		if err := api.Post(ctx, req); err != nil {
			return Pool{}, err
		}
		p, ok, err := find(ctx)
		if err != nil {
			return Pool{}, err
		}
		if !ok {
			return Pool{}, errors.Errorf("Civo made pool %s in cluster %s, yet does not list it", req.ID, cl.ID)
		}
		return p, nil
	}
	return cloudapi.CreateOnce(ctx, send, find)
}

// ResizePool sets the pool's count.
func (c *Civo) ResizePool(ctx context.Context, cl Cluster, p Pool, count int) (err error) {
	defer c.nameHost(&err)
	api, err := c.poolsIn(cl.Region)
	if err != nil {
		return err
	}
	return api.Resize(ctx, cl.ID, p.ID, count)
}

// DeleteNode deletes the pool's instance.
func (c *Civo) DeleteNode(ctx context.Context, cl Cluster, p Pool, n Node) (err error) {
	defer c.nameHost(&err)
	api, err := c.poolsIn(cl.Region)
	if err != nil {
		return err
	}
	return notFound(api.DeleteInstance(ctx, cl.ID, p.ID, n.ID))
}

// DeletePool deletes the pool.
func (c *Civo) DeletePool(ctx context.Context, cl Cluster, p Pool) (err error) {
	defer c.nameHost(&err)
	api, err := c.poolsIn(cl.Region)
	if err != nil {
		return err
	}
	return notFound(api.Remove(ctx, cl.ID, p.ID))
}

// poolName is a new pool's name: karpenter-<size, dots as dashes>-<8 random hex>, within the 63
// characters a Kubernetes label value (the pool label on its nodes) may hold.
func poolName(size string) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b) // crypto/rand never fails on the platforms Go supports.
	s := strings.ReplaceAll(size, ".", "-")
	if len(s) > 40 {
		s = s[:40]
	}
	return "karpenter-" + s + "-" + hex.EncodeToString(b)
}

func (c *Civo) nameHost(err *error) { *err = withHost(c.host, *err) }
