// Package scan compares what a cloud lists with what stacks recorded, for a fleet: each
// account's clusters are listed once (a page of clusters with their pools a request, per region
// where the cloud lists by region), and each stack's cluster or node pool is then judged in
// memory against the outputs its state holds, the properties as the provider read them at the
// last up or refresh. A drift of a thousand stacks then costs a handful of requests, where the
// provider's refresh costs one or more a resource; only the stacks found different, missing or
// not judged need the refresh.
//
// The scan reads the list's answer as the pinned provider's Read reads a cluster: each cloud's
// driver lists and reads it (cloud.Driver's ScanReaders and ScanList, with where in the provider's
// source each property comes from). It compares only
// those properties, so what it finds is a reason to ask the provider, never the provider's word:
// callers confirm each finding with the provider's refresh, and a resource of a type it does not
// read is left unjudged.
package scan

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
)

// Account is one cloud account as a manifest reaches it: the cloud (its driver's ID), its API's base URL ("" for the cloud's own) and the token.
type Account struct {
	Cloud, Base, Token string
}

// Resource is a cloud resource a stack's state holds.
type Resource struct {
	// Type is its Pulumi type token; ID its id in the cloud.
	Type, ID string
	// Inputs are the properties its program sent, Outputs those the provider read (Pulumi names),
	// as the state holds them.
	Inputs, Outputs map[string]any
	// Ignore are the properties the stack's program leaves to the cloud (ignoreChanges, paths as
	// the state records them: an autoscaled node count, an auto-upgraded version): no drift.
	Ignore []string
}

// Verdict is what the scan found of one resource.
type Verdict string

// The verdicts.
const (
	// Same: the cloud lists the resource with every compared property as recorded.
	Same Verdict = "same"
	// Differs: a compared property differs (Finding.Differences say which).
	Differs Verdict = "differs"
	// Missing: the cloud lists no resource with the recorded id.
	Missing Verdict = "missing"
	// Unjudged: the scan cannot tell (a type it does not read, a list that failed).
	Unjudged Verdict = "unjudged"
)

// Finding is the scan's judgement of one resource.
type Finding struct {
	Verdict Verdict
	// Differences are the compared properties that differ, for Differs; for Unjudged by a list
	// that leaves properties out, those of the others that differ.
	Differences []Difference
	// Why says what made the verdict, in a few words for people.
	Why string
	// Unread are the compared properties the cloud's list left out (Unjudged): the engine reads them.
	Unread []string
}

// Difference is a property whose value in the cloud is not the recorded one.
type Difference struct {
	// Property is its path, Pulumi names with dots ("nodePool.nodeCount").
	Property string
	// Live is what the cloud lists, Recorded what the state holds.
	Live, Recorded any
}

// Cluster is a cluster the cloud listed that no judged resource is, nor holds a judged pool:
// a candidate for discover.
type Cluster = cloud.ListedCluster

// Scanner lists each account's clusters once, when a resource of it is first judged, and judges
// resources against the lists. It is safe for concurrent use.
type Scanner struct {
	mu sync.Mutex
	// listed holds each account's (and, for a cloud that lists by region, each region's) list, or
	// why it failed.
	listed map[listKey]*listing
	// held are the ids of the clusters a judged resource is, or holds a pool of, and those Hold
	// was told of.
	held    map[string]bool
	clients []cloud.Counted
}

type listKey struct {
	Account
	region string
}

// listing is one list's answer, read as the provider would read each cluster and pool.
type listing struct {
	err error
	// Clusters are the listed clusters, by id; Pools the listed pools, by the id a pool's state
	// holds, with the cluster they are in.
	cloud.Listing
}

// maxRetryAfter bounds how long one 429 makes a list wait, whatever the cloud says.
const maxRetryAfter = 2 * time.Minute

// New is a scanner that has listed nothing yet.
func New() *Scanner {
	return &Scanner{listed: map[listKey]*listing{}, held: map[string]bool{}}
}

// Judge judges r, a resource of a stack deployed through account a, listing the account's
// clusters first (or the region's the resource recorded, for a cloud that lists by region) if no earlier call did.
func (s *Scanner) Judge(ctx context.Context, a Account, r Resource) Finding {
	read, ok := readers[r.Type]
	if !ok {
		return Finding{Verdict: Unjudged, Why: "the scan does not read " + r.Type}
	}
	if read.cloud != a.Cloud {
		return Finding{Verdict: Unjudged, Why: r.Type + " is not of " + a.Cloud}
	}
	region := ""
	if read.Region != nil {
		region = read.Region(r.Outputs)
	}
	l := s.list(ctx, a, region)
	if l.err != nil {
		return Finding{Verdict: Unjudged, Why: l.err.Error()}
	}
	found, ok := l.Clusters[r.ID]
	switch read.List {
	case cloud.ListsPools:
		found, ok = l.Pools[r.ID]
	case cloud.ListsFirewalls:
		found, ok = l.Firewalls[r.ID]
	}
	if !ok {
		if clusterID, _ := r.Outputs["clusterId"].(string); read.List == cloud.ListsPools && l.PoolsLeftOut[clusterID] {
			return Finding{Verdict: Unjudged, Why: "the cloud's list leaves out the pools of cluster " + clusterID}
		}
		return Finding{Verdict: Missing, Why: "the cloud lists no " + read.What + " " + r.ID}
	}
	if read.List != cloud.ListsFirewalls {
		s.mu.Lock()
		s.held[found.Cluster.ID] = true
		s.mu.Unlock()
	}
	diffs, unread := compare(found.Properties, r, read)
	if len(unread) > 0 {
		// A list that leaves out a property says nothing of it, whatever else differs: the
		// differences seen are kept, but they are not all there may be.
		return Finding{Verdict: Unjudged, Differences: diffs, Unread: unread, Why: "the cloud's list leaves out its " + strings.Join(unread, ", ")}
	}
	if len(diffs) > 0 {
		names := make([]string, len(diffs))
		for i, d := range diffs {
			names[i] = d.Property
		}
		return Finding{Verdict: Differs, Differences: diffs, Why: "the cloud differs from the state in " + strings.Join(names, ", ")}
	}
	return Finding{Verdict: Same, Why: "the cloud lists it as the state recorded"}
}

// List lists the clusters of account a where a resource of type typ would be (the account's, or
// region's for a cloud that lists by region) if no earlier call did, judging nothing: Unheld then
// holds them. A stack that holds nothing has its account listed so, so that a cluster carrying its
// mark (package stackmark) is found. A type the scan does not read lists nothing.
func (s *Scanner) List(ctx context.Context, a Account, typ, region string) {
	read, ok := readers[typ]
	if !ok || read.cloud != a.Cloud {
		return
	}
	if read.Region == nil {
		region = ""
	}
	s.list(ctx, a, region)
}

// Hold tells the scanner of clusters a stack holds (its cluster, or its pool's) that it may not
// judge: Unheld leaves them out, as it leaves out the clusters of the resources it judged.
func (s *Scanner) Hold(clusterIDs ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range clusterIDs {
		if id != "" {
			s.held[id] = true
		}
	}
}

// Unheld are the listed clusters that no judged resource is or holds a pool of, and that Hold
// was not told of, sorted by cloud and name.
func (s *Scanner) Unheld() []Cluster {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Cluster
	seen := map[string]bool{}
	for _, l := range s.listed {
		for id, c := range l.Clusters {
			if !s.held[id] && !seen[id] {
				seen[id] = true
				out = append(out, c.Cluster)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Cloud != out[j].Cloud {
			return out[i].Cloud < out[j].Cloud
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// MarkedPools are the listed pools that carry a stack's mark (cloud.Listing.MarkedPools), each
// once, sorted by cloud, cluster and name.
func (s *Scanner) MarkedPools() []cloud.ListedPool {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []cloud.ListedPool
	seen := map[string]bool{}
	for _, l := range s.listed {
		for _, p := range l.MarkedPools {
			if !seen[p.AdoptID] {
				seen[p.AdoptID] = true
				out = append(out, p)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Cluster.Cloud != b.Cluster.Cloud {
			return a.Cluster.Cloud < b.Cluster.Cloud
		}
		if a.Cluster.Name != b.Cluster.Name {
			return a.Cluster.Name < b.Cluster.Name
		}
		return a.Name < b.Name
	})
	return out
}

// Requests is how many requests the scan's lists made, retries included.
func (s *Scanner) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.clients {
		n += c.Requests()
	}
	return n
}

// list is the account's (or the region's, for a cloud that lists by region) list, read once.
func (s *Scanner) list(ctx context.Context, a Account, region string) *listing {
	key := listKey{a, region}
	s.mu.Lock()
	defer s.mu.Unlock()
	// One list at a time: the stacks judged together share it, and the cloud's rate limit is
	// better spent on nothing twice.
	if l, ok := s.listed[key]; ok {
		return l
	}
	l := &listing{Listing: cloud.NewListing()}
	s.listed[key] = l
	d, err := clouds.Get(cloud.ID(a.Cloud))
	if err != nil {
		l.err = fmt.Errorf("the scan lists no cloud %q", a.Cloud)
		return l
	}
	got, client, err := d.ScanList(ctx, a.Base, a.Token, region, cloudapi.Options{Retry: cloudapi.Patient(4, maxRetryAfter)})
	s.clients = append(s.clients, client)
	l.Listing, l.err = got, err
	return l
}

// reader is how the scan reads a resource type from its cloud's list: its driver's ScanReader.
type reader struct {
	cloud string
	cloud.ScanReader
}

// readers are the types the scan reads, from every cloud's driver.
var readers = func() map[string]reader {
	out := map[string]reader{}
	for _, d := range clouds.All() {
		for typ, r := range d.ScanReaders() {
			out[typ] = reader{cloud: string(d.ID()), ScanReader: r}
		}
	}
	return out
}()

// Compared are the properties of resources of type typ that the scan compares (Pulumi names,
// dots into a nested block: "nodePool.size"); none for a type it does not read. A property sent
// from the manifest that the scan does not compare would be a drift it cannot see: the deploy
// package's tests hold the effects tables to this list.
func Compared(typ string) []string { return readers[typ].Compares }

// compare lists the compared properties (read.Compares) whose value in live, the cloud's answer,
// differs from the one r's state recorded. Every compared property is compared, whether or not
// the answer holds it: one the answer leaves out is what the provider's Read records for it then
// (each cloud's driver fills in that value, the provider's empty list, false or zero, with where
// the provider's source says so), and only a property the provider's Read keeps as the state has
// it (kept) is left alone. One the answer leaves out where the cloud always gives one (unread:
// a cluster's version, its pools) is no value at all: it is named in unread, never compared, so
// the stack is not judged rather than judged as recorded. A property the program leaves to the
// cloud (r.Ignore) is left only as far as the module leaves it (read.Leaves). An unset value
// and an empty one (false, 0, "", an empty list or map) are alike, as are two lists of strings
// with the same members (tags, which the providers keep as sets).
func compare(live map[string]any, r Resource, read reader) (diffs []Difference, unread []string) {
	for _, path := range read.Compares {
		if ignored(r.Ignore, path) && (read.Leaves == nil || read.Leaves(path, live, r.Inputs, r.Outputs)) {
			continue
		}
		top, _, _ := strings.Cut(path, ".")
		if _, ok := live[top].(cloud.Kept); ok {
			continue
		}
		if read.UnsentKept[top] && valueAt(r.Inputs, top) == nil {
			// Optional and Computed, and the program sent nothing: the provider's plan takes
			// whatever the cloud has, so no value there is drift.
			continue
		}
		lv, rv := valueAt(live, path), valueAt(r.Outputs, path)
		if _, ok := live[top].(cloud.Unread); ok {
			lv = cloud.Unread{}
			path = top
		}
		if _, ok := lv.(cloud.Unread); ok {
			if !slices.Contains(unread, path) {
				unread = append(unread, path)
			}
			continue
		}
		if !reflect.DeepEqual(normal(lv), normal(rv)) {
			diffs = append(diffs, Difference{Property: path, Live: lv, Recorded: rv})
		}
	}
	return diffs, unread
}

// ignored tells whether path, or a block holding it, is among the paths the program leaves to the
// cloud.
func ignored(ignore []string, path string) bool {
	for _, i := range ignore {
		if path == i || strings.HasPrefix(path, i+".") {
			return true
		}
	}
	return false
}

// valueAt is the value at path (dots into nested blocks) in m; nil when any part is absent. A
// block the state holds as a list of one (a Terraform block of at most one item) is its item.
func valueAt(m map[string]any, path string) any {
	var cur any = m
	for _, part := range strings.Split(path, ".") {
		if l, ok := cur.([]any); ok && len(l) == 1 {
			cur = l[0]
		}
		switch c := cur.(type) {
		case map[string]any:
			cur = c[part]
		case map[string]string:
			cur = c[part]
		default:
			return nil
		}
	}
	return cur
}

// ReadsType tells whether the scan reads resources of type typ.
func ReadsType(typ string) bool { _, ok := readers[typ]; return ok }

// normal is v as JSON reads it, with the empty values made nil and string lists sorted, so that
// a value in the state (decoded JSON) and one from the list (Go values) compare alike.
func normal(v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if json.Unmarshal(data, &out) != nil {
		return v
	}
	return emptied(out)
}

func emptied(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range v {
			if e = emptied(e); e != nil {
				out[k] = e
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case []any:
		if len(v) == 0 {
			return nil
		}
		// The providers keep tags and taints as sets: the order is no difference.
		// An element with nothing in it is none (a block the provider reads as an empty object).
		v = slices.DeleteFunc(slices.Clone(v), func(e any) bool { return emptied(e) == nil })
		if len(v) == 0 {
			return nil
		}
		type keyed struct {
			key string
			v   any
		}
		all := make([]keyed, len(v))
		for i, e := range v {
			e = emptied(e)
			data, _ := json.Marshal(e)
			all[i] = keyed{string(data), e}
		}
		sort.SliceStable(all, func(i, j int) bool { return all[i].key < all[j].key })
		out := make([]any, len(all))
		for i, k := range all {
			out[i] = k.v
		}
		return out
	case bool:
		if !v {
			return nil
		}
	case float64:
		if v == 0 {
			return nil
		}
	case string:
		if v == "" {
			return nil
		}
	}
	return v
}
