package fakedo

import (
	"encoding/json"
	"time"

	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
	"github.com/digitalocean/godo"
	"github.com/pkg/errors"
)

// snapshot is what Save writes: the stores, not the catalogue (versions, sizes, regions) nor
// what a test set (faults, holds, polls), which a restarted fake takes from its defaults again.
type snapshot struct {
	VPCs        map[string]godo.VPC     `json:"vpcs"`
	Order       []string                `json:"order"`
	Clusters    map[string]savedCluster `json:"clusters"`
	NextDroplet int                     `json:"nextDroplet"`
	NextIPv4    int                     `json:"nextIPv4"`
}

// savedCluster is a cluster as Save writes it: settled, whatever was provisioning runs once read.
type savedCluster struct {
	Cluster godo.KubernetesCluster `json:"cluster"`
	CAPEM   []byte                 `json:"caPEM,omitempty"`
	// Upgrade is the upgrade under way, which a later run ends on time; FailedUpgrade says a
	// failed upgrade left the cluster degraded.
	Upgrade       *upgradeRun `json:"upgrade,omitempty"`
	FailedUpgrade bool        `json:"failedUpgrade,omitempty"`
}

// NewFor starts the API as New does, on port when it is free (0: any), for lifetime (0: until
// the caller cleans up); the sandbox serves its clouds for as long as it runs, at the same URL
// each time it can.
func NewFor(t fakecloud.TB, token string, port int, lifetime time.Duration) *DO {
	t.Helper()
	d := newDO(token)
	d.s.srv = fakecloud.StartFor(t, &api{d.s}, port, lifetime)
	return d
}

// OnChange sets what runs after each request that changed the cloud, outside its lock: the
// sandbox saves the cloud there, so that a killed sandbox loses nothing it answered.
func (d *DO) OnChange(f func()) { d.s.srv.OnChange(f) }

// OnRequest sets what is told of every request once it is answered, under the cloud's lock:
// tools/fakeclouds logs them for a bench to count.
func (d *DO) OnRequest(log func(at time.Time, r fakecloud.Request)) { d.s.srv.OnRequest(log) }

// Save is the cloud's clusters, pools and VPCs as JSON, for Load in a later run.
func (d *DO) Save() ([]byte, error) {
	defer d.s.lock()()
	s := snapshot{VPCs: d.s.vpcs, Order: d.s.order, Clusters: map[string]savedCluster{},
		NextDroplet: d.s.nextDroplet, NextIPv4: d.s.nextIPv4}
	for id, cl := range d.s.clusters {
		s.Clusters[id] = savedCluster{Cluster: cl.c, CAPEM: cl.caPEM, Upgrade: cl.upgrade, FailedUpgrade: cl.failedUpgrade}
	}
	data, err := json.MarshalIndent(s, "", "  ")
	return data, errors.Wrap(err, "encode the DigitalOcean cloud")
}

// Load replaces the cloud's clusters, pools and VPCs with what Save wrote.
func (d *DO) Load(data []byte) error {
	var s snapshot
	if err := json.Unmarshal(data, &s); err != nil {
		return errors.Wrap(err, "decode the DigitalOcean cloud")
	}
	d.s.srv.Mu.Lock()
	defer d.s.srv.Mu.Unlock()
	d.s.vpcs = map[string]godo.VPC{}
	for id, v := range s.VPCs {
		d.s.vpcs[id] = v
	}
	d.s.clusters = map[string]*cluster{}
	d.s.order = nil
	for _, id := range s.Order {
		saved, ok := s.Clusters[id]
		if !ok {
			continue
		}
		d.s.clusters[id] = &cluster{c: saved.Cluster, poolPending: map[string]int{}, caPEM: saved.CAPEM,
			upgrade: saved.Upgrade, failedUpgrade: saved.FailedUpgrade}
		d.s.order = append(d.s.order, id)
	}
	d.s.nextDroplet = max(d.s.nextDroplet, s.NextDroplet)
	d.s.nextIPv4 = max(d.s.nextIPv4, s.NextIPv4)
	return nil
}
