package fakecivo

import (
	"encoding/json"
	"time"

	"github.com/civo/civogo"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
	"github.com/pkg/errors"
)

// snapshot is what Save writes: the stores and the counter ids derive from (a restarted cloud
// must not hand out an id it gave before), not the catalogue nor what a test set.
type snapshot struct {
	Seq       int                      `json:"seq"`
	Clusters  map[string]savedCluster  `json:"clusters"`
	Pools     map[string]savedPool     `json:"pools"`
	Networks  map[string]savedNetwork  `json:"networks"`
	Firewalls map[string]savedFirewall `json:"firewalls"`
}

// savedCluster is a cluster as Save writes it: settled, a build or upgrade under way is over
// when the cloud is loaded; a deleted cluster is gone.
type savedCluster struct {
	Cluster civogo.KubernetesCluster `json:"cluster"`
	Region  string                   `json:"region"`
	Seq     int                      `json:"seq"`
	// FailedUpgrade says the cluster's last upgrade failed (FailUpgrades): it loads failed.
	FailedUpgrade bool `json:"failedUpgrade,omitempty"`
}

type savedPool struct {
	Pool civogo.KubernetesPool `json:"pool"`
	Seq  int                   `json:"seq"`
}

type savedNetwork struct {
	Network civogo.Network `json:"network"`
	Region  string         `json:"region"`
	Seq     int            `json:"seq"`
}

type savedFirewall struct {
	Firewall civogo.Firewall `json:"firewall"`
	Region   string          `json:"region"`
	Seq      int             `json:"seq"`
}

// NewFor starts the API as New does, on port when it is free (0: any), for lifetime (0: until
// the caller cleans up); the sandbox serves its clouds for as long as it runs, at the same URL
// each time it can.
func NewFor(t fakecloud.TB, token, region string, port int, lifetime time.Duration, clusters ...string) *Civo {
	t.Helper()
	f := newCivo(token, region, clusters...)
	f.s.srv = fakecloud.StartFor(t, &api{f.s}, port, lifetime)
	return f
}

// OnChange sets what runs after each request that changed the cloud, outside its lock: the
// sandbox saves the cloud there, so that a killed sandbox loses nothing it answered.
func (f *Civo) OnChange(change func()) { f.s.srv.OnChange(change) }

// OnRequest sets what is told of every request once it is answered, under the cloud's lock:
// tools/fakeclouds logs them for a bench to count.
func (f *Civo) OnRequest(log func(at time.Time, r fakecloud.Request)) { f.s.srv.OnRequest(log) }

// Save is the cloud's clusters, pools, networks and firewalls as JSON, for Load in a later run.
func (f *Civo) Save() ([]byte, error) {
	st := f.s
	st.srv.Mu.Lock()
	defer st.srv.Mu.Unlock()
	s := snapshot{Seq: st.seq, Clusters: map[string]savedCluster{}, Pools: map[string]savedPool{},
		Networks: map[string]savedNetwork{}, Firewalls: map[string]savedFirewall{}}
	for id, c := range st.clusters {
		if !c.deleted {
			s.Clusters[id] = savedCluster{c.c, c.region, c.seq, c.failed}
			if c.upgradeFrom != "" && st.failUpgrades[c.c.Name] {
				// An upgrade under way that would fail is over, failed.
				failed := s.Clusters[id]
				failed.Cluster.Version, failed.FailedUpgrade = c.upgradeFrom, true
				s.Clusters[id] = failed
			}
		}
	}
	for key, p := range st.pools {
		s.Pools[key] = savedPool{p.pool, p.seq}
	}
	for id, n := range st.networks {
		s.Networks[id] = savedNetwork{n.n, n.region, n.seq}
	}
	for id, fw := range st.firewalls {
		s.Firewalls[id] = savedFirewall{fw.fw, fw.region, fw.seq}
	}
	data, err := json.MarshalIndent(s, "", "  ")
	return data, errors.Wrap(err, "encode the Civo cloud")
}

// Load replaces the cloud's clusters, pools, networks and firewalls with what Save wrote.
func (f *Civo) Load(data []byte) error {
	st := f.s
	var s snapshot
	if err := json.Unmarshal(data, &s); err != nil {
		return errors.Wrap(err, "decode the Civo cloud")
	}
	st.srv.Mu.Lock()
	defer st.srv.Mu.Unlock()
	st.seq = max(st.seq, s.Seq)
	st.clusters = map[string]*fakeCluster{}
	for id, c := range s.Clusters {
		st.clusters[id] = &fakeCluster{c: c.Cluster, region: c.Region, seq: c.Seq, failed: c.FailedUpgrade}
	}
	st.pools = map[string]*fakePool{}
	for key, p := range s.Pools {
		st.pools[key] = &fakePool{pool: p.Pool, seq: p.Seq}
	}
	st.networks = map[string]*fakeNetwork{}
	for id, n := range s.Networks {
		st.networks[id] = &fakeNetwork{n: n.Network, region: n.Region, seq: n.Seq}
	}
	st.firewalls = map[string]*fakeFirewall{}
	for id, fw := range s.Firewalls {
		st.firewalls[id] = &fakeFirewall{fw: fw.Firewall, region: fw.Region, seq: fw.Seq}
	}
	return nil
}
