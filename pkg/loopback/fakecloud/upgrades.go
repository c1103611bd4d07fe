package fakecloud

import "time"

// UpgradeRecord is a Kubernetes upgrade a loopback cloud accepted: the cluster's id and its name
// then, the version it ran (From) and the one asked for (To), and when the cloud accepted it. A
// record says nothing of how the upgrade ended: a failed one is recorded as well.
type UpgradeRecord struct {
	ClusterID, ClusterName string
	From, To               string
	At                     time.Time
}
