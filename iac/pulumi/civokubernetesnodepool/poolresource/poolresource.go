// Package poolresource is the Pulumi custom resource clusterplane:civo:NodePool: a Civo
// Kubernetes node pool that the clusterplane plugin manages itself through pkg/cloud/civo/pools,
// because the only Pulumi Civo provider (pulumi-civo 2.4.8) crashes on a node-count update and
// cannot clear a pool's labels or taints.
//
// Its properties keep the names the civo provider's kubernetesNodePool had (clusterId,
// nodeCount, labels, taints, publicIpNodePool, region, instanceNames), except `nodePoolName`
// for civo's `label`: a stack created with the civo provider is taken over through aliases, and
// its state then reads as this resource's state (see oldName).
package poolresource

import (
	"context"
	"slices"
	"strings"
	"time"

	civodriver "github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo/pools"
	"github.com/clusterplane/clusterplane/pkg/pulumi/componentprovider"
	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
)

// Property names, as in the package schema.
const (
	ClusterID     = "clusterId"
	NodePoolName  = "nodePoolName"
	Region        = "region"
	Size          = "size"
	NodeCount     = "nodeCount"
	AutoScale     = "autoScale"
	Labels        = "labels"
	Taints        = "taints"
	PublicIP      = "publicIpNodePool"
	InstanceNames = "instanceNames"

	// oldName is what pulumi-civo called the pool's name; a taken-over state has it instead
	// of NodePoolName.
	oldName = "label"
)

// Provider configuration keys (clusterplane:config:<key>). Absent, the token and API URL fall back
// to CIVO_TOKEN and CIVO_API_URL, as the civo provider's do, under civodriver.Env.Resolve's rule.
// The Civo driver names them, as the plugin's schema describes them (civo.PluginResources).
const (
	ConfigToken  = civodriver.PluginToken
	ConfigAPIURL = civodriver.PluginAPIURL
	ConfigRegion = civodriver.PluginRegion
)

// Config is the provider configuration the resource's calls use.
type Config struct {
	Token, APIURL, Region string
	// Refused says why the configured token and URL may not be used together (an API URL given
	// without its own token); every call then fails with it before asking anything.
	Refused error
	// Options configure every client, e.g. the poll interval in tests.
	Options []pools.Option
}

// ConfigFrom reads the configuration from the provider's variables (keys with or without the
// "clusterplane:config:" prefix), falling back to the environment as civodriver.Env.Resolve allows:
// a civoApiUrl given here never gets CIVO_TOKEN.
func ConfigFrom(vars map[string]string) Config {
	get := func(key string) string {
		for _, k := range []string{"clusterplane:config:" + key, key} {
			if v := vars[k]; v != "" {
				return v
			}
		}
		return ""
	}
	c := Config{Region: get(ConfigRegion)}
	token, url, err := civodriver.Env.Resolve(get(ConfigToken), get(ConfigAPIURL))
	if err != nil {
		c.Refused = errors.Wrapf(err, "the clusterplane provider's %s and %s", ConfigAPIURL, ConfigToken)
		return c
	}
	c.Token, c.APIURL = token, url
	if c.APIURL == "" {
		c.APIURL = civodriver.Env.API
	}
	return c
}

// pool is the resource's state in the pool client's terms (pkg/cloud/civo/pools), plus what
// only this resource knows.
type pool struct {
	pools.Spec
	AutoScale bool
	Instances []string
}

// read reads a property map (inputs, or the state of this resource or of civo's pool).
// Unknown values read as zero; known reports whether every value was known.
func read(m resource.PropertyMap) (p pool, known bool) {
	known = true
	str := func(key string) string {
		v, ok := m[resource.PropertyKey(key)]
		if !ok {
			return ""
		}
		if v.ContainsUnknowns() {
			known = false
			return ""
		}
		v = unwrap(v)
		if v.IsString() {
			return v.StringValue()
		}
		return ""
	}
	p.ClusterID = str(ClusterID)
	p.ID = str(NodePoolName)
	if p.ID == "" {
		p.ID = str(oldName)
	}
	p.Region = str(Region)
	p.Size = str(Size)
	for key, v := range m {
		if v.ContainsUnknowns() {
			known = false
			continue
		}
		v = unwrap(v)
		switch string(key) {
		case NodeCount:
			if v.IsNumber() {
				p.Count = int(v.NumberValue())
			}
		case AutoScale:
			p.AutoScale = v.IsBool() && v.BoolValue()
		case PublicIP:
			p.PublicIP = v.IsBool() && v.BoolValue()
		case Labels:
			if v.IsObject() {
				for k, lv := range v.ObjectValue() {
					if lv = unwrap(lv); lv.IsString() {
						if p.Labels == nil {
							p.Labels = map[string]string{}
						}
						p.Labels[string(k)] = lv.StringValue()
					}
				}
			}
		case Taints:
			if v.IsArray() {
				for _, tv := range v.ArrayValue() {
					if tv = unwrap(tv); tv.IsObject() {
						o := tv.ObjectValue()
						p.Taints = append(p.Taints, pools.Taint{Key: field(o, "key"), Value: field(o, "value"), Effect: field(o, "effect")})
					}
				}
			}
		case InstanceNames:
			if v.IsArray() {
				for _, n := range v.ArrayValue() {
					if n = unwrap(n); n.IsString() {
						p.Instances = append(p.Instances, n.StringValue())
					}
				}
			}
		}
	}
	return p, known
}

func unwrap(v resource.PropertyValue) resource.PropertyValue {
	for v.IsSecret() {
		v = v.SecretValue().Element
	}
	return v
}

func field(o resource.PropertyMap, key string) string {
	if v := unwrap(o[resource.PropertyKey(key)]); v.IsString() {
		return v.StringValue()
	}
	return ""
}

// inputs are the pool's inputs as property values.
func (p pool) inputs() resource.PropertyMap {
	m := resource.PropertyMap{
		ClusterID:    resource.NewStringProperty(p.ClusterID),
		NodePoolName: resource.NewStringProperty(p.ID),
		Size:         resource.NewStringProperty(p.Size),
		NodeCount:    resource.NewNumberProperty(float64(p.Count)),
		AutoScale:    resource.NewBoolProperty(p.AutoScale),
		PublicIP:     resource.NewBoolProperty(p.PublicIP),
	}
	if p.Region != "" {
		m[Region] = resource.NewStringProperty(p.Region)
	}
	labels := resource.PropertyMap{}
	for k, v := range p.Labels {
		labels[resource.PropertyKey(k)] = resource.NewStringProperty(v)
	}
	m[Labels] = resource.NewObjectProperty(labels)
	taints := []resource.PropertyValue{}
	for _, t := range p.Taints {
		taints = append(taints, resource.NewObjectProperty(resource.PropertyMap{
			"key": resource.NewStringProperty(t.Key), "value": resource.NewStringProperty(t.Value),
			"effect": resource.NewStringProperty(t.Effect),
		}))
	}
	m[Taints] = resource.NewArrayProperty(taints)
	return m
}

// outputs are the pool's state: its inputs and its instances' names.
func (p pool) outputs() resource.PropertyMap {
	m := p.inputs()
	names := []resource.PropertyValue{}
	for _, n := range p.Instances {
		names = append(names, resource.NewStringProperty(n))
	}
	m[InstanceNames] = resource.NewArrayProperty(names)
	return m
}

// fromState is a pool as Civo reports it, in the inputs' terms: Civo's own labels dropped.
func fromState(st pools.State, autoScale bool) pool {
	return pool{Spec: pools.Refresh(st), AutoScale: autoScale, Instances: slices.Clone(st.InstanceNames)}
}

// fields are the pool's properties in the order Diff lists them, each with the name the pool client
// gives it (ReplaceFields, Drift, Problems) and whether a value not yet known may replace the
// pool. autoScale is this resource's alone.
var fields = []struct {
	property, civo string
	replaces       bool
}{
	{ClusterID, "cluster_id", true}, {NodePoolName, "id", true}, {Region, "region", true},
	{Size, "size", true}, {PublicIP, "public_ip", true},
	{NodeCount, "count", false}, {AutoScale, "", false}, {Labels, "labels", false}, {Taints, "taints", false},
}

// property is the property the pool client's field name stands for ("taints[0].key" is below
// taints).
func property(civo string) string {
	head, rest, _ := strings.Cut(civo, "[")
	for _, f := range fields {
		if f.civo == head && rest != "" {
			return f.property + "[" + rest
		}
		if f.civo == head {
			return f.property
		}
	}
	return civo
}

func set(names []string) map[string]bool {
	out := map[string]bool{}
	for _, n := range names {
		out[n] = true
	}
	return out
}

// Check returns what in the inputs Civo would refuse or the pool could not keep converged
// (pools.Problems). Values not yet known (a cluster id known only after its cluster is
// created) are not checked.
func (r *Resource) Check(news resource.PropertyMap) []componentprovider.Failure {
	p, _ := read(news)
	var out []componentprovider.Failure
	for _, problem := range pools.Problems(p.Spec) {
		name := property(problem.Field)
		key, _, _ := strings.Cut(name, "[")
		if v, ok := news[resource.PropertyKey(key)]; ok && v.ContainsUnknowns() {
			continue
		}
		out = append(out, componentprovider.Failure{Property: name, Reason: problem.Reason})
	}
	return out
}

// Diff compares the pool's state (olds: this resource's or civo's pool's) with new inputs.
//
//   - clusterId, nodePoolName, region, size and publicIpNodePool replace the pool: Civo changes
//     none of them in place (pools.ReplaceFields). A replacement in the same cluster deletes
//     the old pool first, because the name is the pool's id and Civo refuses a second pool with
//     the same id; the pool's capacity is gone until the new one is running.
//   - nodeCount, labels and taints update the pool in place, clearing included (pools.Drift:
//     Civo's own labels, kubernetes.civo.com/, are never a difference).
//   - With autoScale, nodeCount is the autoscaler's: a difference is not a change.
func (r *Resource) Diff(olds, news resource.PropertyMap) componentprovider.Change {
	o, _ := read(olds)
	n, known := read(news)
	// A state taken over from civo's pool has no region: the pool was in its provider's.
	if o.Region == "" {
		o.Region = n.Region
	}
	if n.Region == "" {
		n.Region = o.Region
	}
	replace := set(pools.ReplaceFields(o.Spec, n.Spec))
	drift := set(pools.Drift(n.Spec, pools.State{Spec: o.Spec}))
	var c componentprovider.Change
	for _, f := range fields {
		v, has := news[resource.PropertyKey(f.property)]
		unknown := has && v.ContainsUnknowns()
		changed := unknown || replace[f.civo] || drift[f.civo] && !(f.property == NodeCount && n.AutoScale)
		if f.property == AutoScale {
			changed = unknown || o.AutoScale != n.AutoScale
		}
		if !changed {
			continue
		}
		c.Updates = append(c.Updates, f.property)
		if replace[f.civo] || unknown && f.replaces {
			c.Replaces = append(c.Replaces, f.property)
		}
	}
	sameCluster := !slices.Contains(c.Replaces, ClusterID) && !slices.Contains(c.Replaces, Region)
	c.DeleteBeforeReplace = len(c.Replaces) > 0 && sameCluster && (!known || o.ID == n.ID)
	return c
}

// Resource performs the pool's operations with a client made from its configuration.
type Resource struct {
	Config Config
}

// Custom is the resource as the plugin serves it, configured by the provider's variables.
func Custom(opts ...pools.Option) componentprovider.Custom {
	return componentprovider.Custom{Token: civodriver.PluginNodePool, New: func(vars map[string]string) componentprovider.CustomResource {
		c := ConfigFrom(vars)
		c.Options = opts
		return &Resource{Config: c}
	}}
}

// client returns a client in the pool's region (its own, else the provider's), waiting at most
// timeout (0: the pool client's default).
func (r *Resource) client(p pool, timeout time.Duration) (*pools.Client, error) {
	region := p.Region
	if region == "" {
		region = r.Config.Region
	}
	if r.Config.Refused != nil {
		return nil, errors.Wrapf(r.Config.Refused, "civo node pool %q in cluster %q", p.ID, p.ClusterID)
	}
	if r.Config.Token == "" {
		return nil, errors.Errorf("civo node pool %q in cluster %q: no Civo API token: set providerConfig.apiToken or CIVO_TOKEN", p.ID, p.ClusterID)
	}
	if region == "" {
		return nil, errors.Errorf("civo node pool %q in cluster %q: no region: set region", p.ID, p.ClusterID)
	}
	opts := slices.Clone(r.Config.Options)
	if timeout > 0 {
		opts = append(opts, pools.WithWaitTimeout(timeout))
	}
	return pools.New(r.Config.Token, r.Config.APIURL, region, opts...)
}

// Create creates the pool from inputs and waits until its nodes run. In a preview it only
// returns the outputs it would have, the instances' names unknown.
func (r *Resource) Create(ctx context.Context, news resource.PropertyMap, timeout time.Duration, preview bool) (string, resource.PropertyMap, error) {
	p, _ := read(news)
	if preview {
		out := news.Copy()
		out[InstanceNames] = resource.MakeComputed(resource.NewStringProperty(""))
		return "", out, nil
	}
	c, err := r.client(p, timeout)
	if err != nil {
		return "", nil, err
	}
	st, err := c.Create(ctx, p.Spec)
	if errors.Is(err, pools.ErrWaitTimeout) {
		// Civo has the pool, its nodes not yet running: it goes into the state, so that the next
		// update waits for it again rather than creating a second one.
		return "", nil, &componentprovider.PartialError{ID: p.ID, State: p.outputs(), Err: err}
	}
	if err != nil {
		return "", nil, err
	}
	return p.ID, withRegion(fromState(st, p.AutoScale), p.Region).outputs(), nil
}

// Read reads the pool with id from Civo. id is the pool's name, or CLUSTER_ID:POOL_NAME to
// import one; state and inputs may be empty (an import). A pool Civo no longer has reads as
// an empty id: Pulumi then drops it from the state.
func (r *Resource) Read(ctx context.Context, id string, state, inputs resource.PropertyMap) (string, resource.PropertyMap, resource.PropertyMap, error) {
	p, _ := read(state)
	in, _ := read(inputs)
	if cluster, name, ok := strings.Cut(id, ":"); ok {
		p.ClusterID, p.ID = cluster, name
	}
	if p.ID == "" {
		p.ID = id
	}
	if p.ClusterID == "" {
		p.ClusterID = in.ClusterID
	}
	if p.ClusterID == "" {
		return "", nil, nil, errors.Errorf("civo node pool %q: the cluster is unknown; import it as CLUSTER_ID:POOL_NAME", id)
	}
	if p.Region == "" {
		p.Region = in.Region
	}
	c, err := r.client(p, 0)
	if err != nil {
		return "", nil, nil, err
	}
	st, found, err := c.Get(ctx, p.ClusterID, p.ID)
	if err != nil || !found {
		return "", nil, nil, err
	}
	live := withRegion(fromState(st, p.AutoScale || in.AutoScale), p.Region)
	return p.ID, live.outputs(), live.inputs(), nil
}

// Update changes the pool in place from its state olds to inputs news and waits until its nodes
// run. With autoScale the node count stays the autoscaler's.
func (r *Resource) Update(ctx context.Context, olds, news resource.PropertyMap, timeout time.Duration, preview bool) (resource.PropertyMap, error) {
	o, _ := read(olds)
	n, _ := read(news)
	if n.AutoScale {
		n.Count = o.Count
	}
	if preview {
		out := n.outputs()
		out[InstanceNames] = resource.MakeComputed(resource.NewStringProperty(""))
		return out, nil
	}
	if n.Region == "" {
		n.Region = o.Region
	}
	if o.Region == "" {
		o.Region = n.Region
	}
	c, err := r.client(n, timeout)
	if err != nil {
		return nil, err
	}
	st, err := c.Update(ctx, o.Spec, n.Spec)
	if err != nil {
		return nil, err
	}
	return withRegion(fromState(st, n.AutoScale), n.Region).outputs(), nil
}

// Delete deletes the pool and waits until Civo no longer has it; one already gone is deleted.
func (r *Resource) Delete(ctx context.Context, id string, state resource.PropertyMap, timeout time.Duration) error {
	p, _ := read(state)
	if p.ID == "" {
		p.ID = id
	}
	c, err := r.client(p, timeout)
	if err != nil {
		return err
	}
	return c.Delete(ctx, p.ClusterID, p.ID)
}

// withRegion keeps the region the pool was addressed in: Civo's answer does not repeat it.
func withRegion(p pool, region string) pool {
	if region != "" {
		p.Region = region
	}
	return p
}
