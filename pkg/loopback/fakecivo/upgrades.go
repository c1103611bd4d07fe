package fakecivo

import (
	"slices"
	"time"

	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
)

// UpgradeRecord is an upgrade the API accepted (Upgrades).
type UpgradeRecord = fakecloud.UpgradeRecord

// failedStatus is the status of a cluster whose upgrade failed, in the fake's words: neither
// civogo v0.3.89 nor terraform-provider-civo v1.1.4 names a failed state (civogo knows only
// ACTIVE, in fake_client.go; the provider waits for ACTIVE through BUILDING, AVAILABLE, UPGRADING
// and SCALING, civo/kubernetes/resource_kubernetes_cluster.go:297-298), so the fake says ERROR,
// which the provider's wait and pkg/cloud/civo/pools.ReadyStatus both take as not ACTIVE.
//
// The provider does not wait for an upgrade at all: its update sends the PUT
// (resource_kubernetes_cluster.go:464) and then waits in waitForKubernetesNodePoolCreate
// (resource_kubernetes_cluster.go:469, defined in resource_kubernetes_cluster_nodepool.go:366),
// which looks for a pool whose id is the cluster's, finds none, and returns at its first tick
// (10 s) whatever the cluster's status; the read after it records the version Civo reports.
const failedStatus = "ERROR"

// FailUpgrades, while fail is set, makes each upgrade of the cluster named clusterName fail: it
// reports UPGRADING for BuildPolls reads (at the new version, as any upgrade does), then is back
// at its old version with status ERROR (ready still true: the old version serves). An upgrade
// ends as the flag stands when its polls are used up. Clearing the flag "fixes" the cluster: one
// left failed by an upgrade is ACTIVE again, at the version it is at.
func (f *Civo) FailUpgrades(clusterName string, fail bool) {
	f.s.locked(func() {
		if fail {
			if f.s.failUpgrades == nil {
				f.s.failUpgrades = map[string]bool{}
			}
			f.s.failUpgrades[clusterName] = true
			return
		}
		delete(f.s.failUpgrades, clusterName)
		for _, fc := range f.s.clusters {
			if fc.c.Name == clusterName {
				fc.failed = false
			}
		}
	})
}

// Upgrades are the upgrades the API accepted (a cluster PUT that changed kubernetes_version), in
// that order; a refused PUT is not among them.
func (f *Civo) Upgrades() []UpgradeRecord {
	f.s.srv.Mu.Lock()
	defer f.s.srv.Mu.Unlock()
	return slices.Clone(f.s.upgradeLog)
}

// startUpgrade moves fc to version to, reported UPGRADING for BuildPolls reads; with none it ends
// at once.
func (f clusterAPI) startUpgrade(fc *fakeCluster, to string) {
	f.upgradeLog = append(f.upgradeLog, UpgradeRecord{ClusterID: fc.c.ID, ClusterName: fc.c.Name,
		From: fc.c.Version, To: to, At: time.Now().UTC()})
	if fc.upgradeFrom == "" {
		fc.upgradeFrom = fc.c.Version
	}
	fc.c.Version = to
	fc.upgrading = f.opts.BuildPolls
	fc.failed = false
	if fc.upgrading == 0 {
		f.endUpgrade(fc)
	}
}

// endUpgrade ends fc's upgrade: kept, or, when the cluster's upgrades fail, undone and failed.
func (f clusterAPI) endUpgrade(fc *fakeCluster) {
	if f.failUpgrades[fc.c.Name] {
		fc.c.Version = fc.upgradeFrom
		fc.failed = true
	}
	fc.upgradeFrom = ""
}
