// Package fakeclouds is the list of loopback clouds, the one place that names them all, as
// pkg/cloud/clouds is the list of drivers: what serves every cloud on loopback outside a test
// (tools/fakeclouds; the sandbox in time) finds each cloud's here by its ID, rather than
// branching on the cloud's name. A cloud is added by its loopback's line in All.
package fakeclouds

import (
	"context"
	"encoding/json"
	"time"

	"github.com/clusterplane/clusterplane/internal/seed"
	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecivo"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
)

// Cloud is a loopback cloud as it is served: where it listens, what it answered, and its state.
type Cloud interface {
	URL() string
	// OnRequest and OnChange set what runs after each request answered, and after each that
	// changed the cloud.
	OnRequest(log func(at time.Time, r fakecloud.Request))
	OnChange(f func())
	// Save and Load are the cloud's state, as the sandbox keeps it.
	Save() ([]byte, error)
	Load(data []byte) error
	// LoopbackEndpoints makes the endpoints of the cloud's clusters loopback addresses, so that
	// nothing a client dials leaves the machine.
	LoopbackEndpoints()
}

// Loopback is one cloud's loopback API.
type Loopback struct {
	// ID is the cloud's, as its driver names it.
	ID cloud.ID
	// Start serves the cloud on 127.0.0.1, taking token, on port when it is free (0: any), for
	// lifetime (0: until t cleans up).
	Start func(t fakecloud.TB, token string, port int, lifetime time.Duration) Cloud
	// Seed creates cl in the cloud at c through its API, as the cloud's own tools would.
	Seed func(ctx context.Context, c seed.Client, cl seed.Cluster) error
	// Examples puts into a new cloud what the examples in examples/ name by id (examples.go).
	Examples func(c Cloud)
	// SetPrices makes the cloud's sizes API price each size as prices do, a size prices lack
	// listed without a price; nil for a cloud whose loopback has no sizes API.
	SetPrices func(c Cloud, prices map[string]float64)
	// SetUpgradeTime makes each Kubernetes upgrade the cloud accepts take t of wall time, the
	// cluster reporting itself upgrading meanwhile; nil for a cloud whose loopback upgrades by
	// reads instead (Civo's BuildPolls).
	SetUpgradeTime func(c Cloud, t time.Duration)
	// Fleet is what tools/fleetgen needs to copy a deployed cluster in the cloud's state file;
	// nil for a cloud whose fleets it cannot write yet.
	Fleet *Fleet
}

// Fleet is how tools/fleetgen copies one of the cloud's deployed clusters into many: which
// resource of a stack is the cluster, and how the cloud's state file (Save) holds clusters.
type Fleet struct {
	// Kind is the name of the cluster's kind (the kinds' list, iac/pulumi/registry).
	Kind string
	// ResourceType is the Pulumi type of the cluster's resource in a stack's checkpoint.
	ResourceType string
	// Cluster reads the cluster id from the state file saved.
	Cluster func(saved []byte, id string) (fakecloud.FleetCluster, error)
	// Add is saved with copies of the cluster baseID (its JSON, rewritten) added after the
	// cloud's own clusters, as a state file Load reads.
	Add func(saved []byte, baseID string, copies []json.RawMessage) ([]byte, error)
}

// Get is the loopback of the cloud id; false for a cloud none serves.
func Get(id cloud.ID) (Loopback, bool) {
	for _, l := range All() {
		if l.ID == id {
			return l, true
		}
	}
	return Loopback{}, false
}

// All returns every cloud's loopback, in the drivers' order.
func All() []Loopback {
	return []Loopback{
		{ID: "civo",
			Start: func(t fakecloud.TB, token string, port int, lifetime time.Duration) Cloud {
				return fakecivo.NewFor(t, token, "", port, lifetime)
			},
			Seed: func(ctx context.Context, c seed.Client, cl seed.Cluster) error {
				_, _, err := fakecivo.Seed(ctx, c, cl)
				return err
			},
			Examples: func(c Cloud) { civoExamples(c.(*fakecivo.Civo)) }},
		{ID: "digitalocean",
			Start: func(t fakecloud.TB, token string, port int, lifetime time.Duration) Cloud {
				return fakedo.NewFor(t, token, port, lifetime)
			},
			Seed: func(ctx context.Context, c seed.Client, cl seed.Cluster) error {
				_, _, err := fakedo.Seed(ctx, c, cl)
				return err
			},
			Examples: func(c Cloud) { doExamples(c.(*fakedo.DO)) },
			SetPrices: func(c Cloud, prices map[string]float64) {
				for _, size := range fakedo.DefaultSizes {
					c.(*fakedo.DO).Account().SetPrice(size, prices[size])
				}
			},
			SetUpgradeTime: func(c Cloud, t time.Duration) { c.(*fakedo.DO).SetUpgradeTime(t) },
			Fleet: &Fleet{Kind: "DigitalOceanKubernetesCluster",
				ResourceType: "digitalocean:index/kubernetesCluster:KubernetesCluster",
				Cluster:      fakedo.FleetCluster, Add: fakedo.AddFleet}},
	}
}
