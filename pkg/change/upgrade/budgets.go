package upgrade

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/pkg/errors"
)

// Budget is a PodDisruptionBudget that never allows a disruption: it needs every pod it covers
// healthy (maxUnavailable: 0, or a minAvailable of all of them, as with one replica and
// minAvailable: 1). The eviction API refuses to evict any of its pods, so a node drain waits on
// it for as long as it stands, and an upgrade replaces every node of a cluster: DigitalOcean's
// moves each node's pods before it replaces the node
// (docs.digitalocean.com/products/kubernetes/how-to/upgrade-cluster).
type Budget struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Needed is how many pods it needs healthy (its status's desiredHealthy); Pods how many it
	// covers (expectedPods).
	Needed int `json:"needed"`
	Pods   int `json:"pods"`
}

// Ref is the budget as kubectl names it: namespace/name.
func (b Budget) Ref() string { return b.Namespace + "/" + b.Name }

// BudgetsAllowingNoDisruption lists the cluster's PodDisruptionBudgets (policy/v1) that never
// allow a disruption, by what their controller reports: pods covered, and as many needed
// healthy. One whose pods are only unhealthy for now (being rescheduled after a node was
// replaced) allows disruptions again once they recover, so it is not one of them; nor is one
// that covers no pods. A server that does not serve policy/v1 has none.
func BudgetsAllowingNoDisruption(ctx context.Context, list Lister) ([]Budget, error) {
	items, served, err := list(ctx, "/apis/policy/v1/poddisruptionbudgets")
	if err != nil || !served {
		return nil, err
	}
	var out []Budget
	for _, raw := range items {
		var pdb struct {
			Metadata struct {
				Name      string `json:"name"`
				Namespace string `json:"namespace"`
			} `json:"metadata"`
			Status struct {
				DesiredHealthy int `json:"desiredHealthy"`
				ExpectedPods   int `json:"expectedPods"`
			} `json:"status"`
		}
		if err := json.Unmarshal(raw, &pdb); err != nil {
			return nil, errors.Wrap(err, "read a PodDisruptionBudget of the cluster's API")
		}
		if s := pdb.Status; s.ExpectedPods > 0 && s.DesiredHealthy >= s.ExpectedPods {
			out = append(out, Budget{Namespace: pdb.Metadata.Namespace, Name: pdb.Metadata.Name, Needed: s.DesiredHealthy, Pods: s.ExpectedPods})
		}
	}
	return out, nil
}

// checkBudgets makes each PodDisruptionBudget that never allows a disruption a blocker of every
// step; where the cluster's API cannot be read from here, a note says they were not checked.
func (p *Assessment) checkBudgets(ctx context.Context, objects func() (Lister, error)) int {
	list, err := objects()
	var budgets []Budget
	if err == nil {
		budgets, err = BudgetsAllowingNoDisruption(ctx, list)
	}
	if err != nil {
		p.Notes = append(p.Notes, fmt.Sprintf("PodDisruptionBudgets not checked: %v", err))
		return 0
	}
	p.Budgets = append(p.Budgets, budgets...)
	for _, b := range budgets {
		p.Blockers = append(p.Blockers, fmt.Sprintf("PodDisruptionBudget %s never allows a disruption (it needs %d of its %d pods healthy): "+
			"no node it has a pod on can be drained for the upgrade; let it allow one (maxUnavailable: 1, or more replicas)", b.Ref(), b.Needed, b.Pods))
	}
	return len(budgets)
}
