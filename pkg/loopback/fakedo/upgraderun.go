package fakedo

import (
	"slices"
	"time"

	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
	"github.com/digitalocean/godo"
)

// UpgradeRecord is an upgrade the API accepted (Upgrades).
type UpgradeRecord = fakecloud.UpgradeRecord

const (
	stateUpgrading = "upgrading"
	stateDegraded  = "degraded"
)

// upgradeRun is an upgrade under way: the version the cluster runs and the one it goes to, when
// it ends, and the nodes it restarts, which report provisioning (and NotReady in the cluster's
// Kubernetes API) until then. It is saved with its cluster, so a sandbox restarted in the middle
// of an upgrade ends it on time.
type upgradeRun struct {
	From  string    `json:"from"`
	To    string    `json:"to"`
	Until time.Time `json:"until"`
	Nodes []string  `json:"nodes,omitempty"`
}

// SetUpgradeTime makes each upgrade accepted from now on take t of wall time: meanwhile the
// cluster reports status.state "upgrading" and its old version_slug, and every node of its pools
// "provisioning" (NotReady where SetNodes registers them); then the new version_slug, "running",
// and its nodes running and Ready. The time is read at each request (and each read of the test
// API): nothing runs in the background. 0, the default, upgrades at once.
func (d *DO) SetUpgradeTime(t time.Duration) { d.s.set(func() { d.s.upgradeTime = max(t, 0) }) }

// FailUpgrades, while fail is set, makes each upgrade of the cluster named clusterName end failed
// once its time is up (at once with no upgrade time): the cluster is back at its old
// version_slug, in status.state "degraded", its nodes running and Ready. An upgrade ends as the
// flag stands when its time is up. Clearing the flag "fixes" the cluster: one degraded by a
// failed upgrade runs again, at the version it is at.
func (d *DO) FailUpgrades(clusterName string, fail bool) {
	d.s.set(func() {
		if fail {
			if d.s.failUpgrades == nil {
				d.s.failUpgrades = map[string]bool{}
			}
			d.s.failUpgrades[clusterName] = true
			return
		}
		delete(d.s.failUpgrades, clusterName)
		for _, id := range d.s.order {
			if cl := d.s.clusters[id]; cl.c.Name == clusterName && cl.failedUpgrade {
				cl.failedUpgrade = false
				cl.c.Status = &godo.KubernetesClusterStatus{State: stateRunning}
				cl.c.UpdatedAt = now()
			}
		}
	})
}

// Upgrades are the upgrades the API accepted (POST .../upgrade answered 202), in that order;
// those refused (a bad path, one already under way) are not among them.
func (d *DO) Upgrades() []UpgradeRecord {
	d.s.srv.Mu.Lock()
	defer d.s.srv.Mu.Unlock()
	return slices.Clone(d.s.upgradeLog)
}

// clockNow is the time now, as the upgrades read it.
func (d *store) clockNow() time.Time {
	if d.clock != nil {
		return d.clock()
	}
	return time.Now()
}

// begin starts an upgrade of cl to version to, ending after the upgrade time: the cluster
// upgrading at its version, its running nodes restarting.
func (d clusterAPI) begin(cl *cluster, to string) {
	run := &upgradeRun{From: cl.c.VersionSlug, To: to, Until: d.clockNow().Add(d.upgradeTime)}
	t := now()
	for _, p := range cl.c.NodePools {
		for _, n := range p.Nodes {
			if n.Status != nil && n.Status.State == stateRunning {
				n.Status = &godo.KubernetesNodeStatus{State: stateProvisioning}
				n.UpdatedAt = t
				run.Nodes = append(run.Nodes, n.ID)
			}
		}
	}
	cl.upgrade = run
	cl.failedUpgrade = false
	cl.c.Status = &godo.KubernetesClusterStatus{State: stateUpgrading}
	cl.c.UpdatedAt = t
}

// end ends an upgrade of cl from version from to version to: the cluster runs to, or, when its
// upgrades fail (FailUpgrades), is back at from, degraded. The nodes the upgrade restarted run.
// Upgraded at once, a cluster that did not fail keeps its state, as it always did, unless a
// failed upgrade had left it degraded.
func (d clusterAPI) end(cl *cluster, from, to string) {
	t := now()
	switch {
	case d.failUpgrades[cl.c.Name]:
		cl.c.VersionSlug = from
		cl.c.Status = &godo.KubernetesClusterStatus{State: stateDegraded}
		cl.failedUpgrade = true
	default:
		cl.c.VersionSlug = to
		if cl.upgrade != nil || cl.failedUpgrade {
			cl.c.Status = &godo.KubernetesClusterStatus{State: stateRunning}
		}
		cl.failedUpgrade = false
	}
	if cl.upgrade != nil {
		for _, p := range cl.c.NodePools {
			for _, n := range p.Nodes {
				if cl.restarting(n.ID) {
					n.Status = &godo.KubernetesNodeStatus{State: stateRunning}
					n.UpdatedAt = t
				}
			}
		}
	}
	cl.upgrade = nil
	cl.c.UpdatedAt = t
}

// restarting tells whether node id is one an upgrade under way restarts.
func (cl *cluster) restarting(id string) bool {
	return cl.upgrade != nil && slices.Contains(cl.upgrade.Nodes, id)
}

// settle ends the upgrades whose time is up, and tells whether it ended any. It runs with Mu
// held, before each request is answered and each read or change through the test API.
func (d *store) settle() bool {
	t := d.clockNow()
	ended := false
	for _, id := range d.order {
		cl := d.clusters[id]
		if cl.upgrade != nil && !t.Before(cl.upgrade.Until) {
			d.clusterAPI.end(cl, cl.upgrade.From, cl.upgrade.To)
			ended = true
		}
	}
	return ended
}

// lock takes Mu and brings the upgrades up to date (and the registered nodes with them); it
// returns the unlock: defer d.s.lock()().
func (d *store) lock() func() {
	d.srv.Mu.Lock()
	if d.settle() {
		d.kubeLink.sync()
	}
	return d.srv.Mu.Unlock
}
