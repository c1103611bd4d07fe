package upgrade_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/change/upgrade"
	"github.com/clusterplane/clusterplane/pkg/cloud/kube"
)

func TestTheFleetGoesNonProductionFirst(t *testing.T) {
	plans := []upgrade.Assessment{
		{Name: "shop", Env: "prod", Running: "1.30.10-do.0"},
		{Name: "shop", Env: "staging", Running: "1.30.10-do.0"},
		{Name: "edge", Env: "", Running: "1.31.1-do.5"},
		{Name: "shop", Env: "dev", Running: "1.31.1-do.5"},
		{Name: "api", Env: "dev", Running: "1.30.10-do.0"},
		{Name: "ml", Env: "qa", Running: "1.31.1-do.5"},
		{Name: "web", Env: "eu-production", Running: "1.29.1-do.0"},
		{Name: "pay", Env: "preprod", Running: "1.31.1-do.5"},
	}
	var got []string
	for _, p := range upgrade.Order(plans) {
		got = append(got, p.Name+"-"+p.Env)
	}
	want := []string{"api-dev", "shop-dev", "ml-qa", "pay-preprod", "shop-staging", "edge-", "web-eu-production", "shop-prod"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("order %v\nwant  %v", got, want)
	}
}

// cloud is a Cloud of one cluster and fixed answers.
type cloud struct {
	live       upgrade.Live
	offer      upgrade.Offer
	lint       []upgrade.Diagnostic
	kubeconfig []byte
	// kubeconfigErr is the cloud's answer when the kubeconfig cannot be read.
	kubeconfigErr error
}

func (c cloud) Find(context.Context, string, string, string) (upgrade.Live, bool, error) {
	return c.live, c.live.ID != "", nil
}
func (c cloud) Offer(context.Context, upgrade.Live) (upgrade.Offer, error)       { return c.offer, nil }
func (c cloud) Lint(context.Context, upgrade.Live) ([]upgrade.Diagnostic, error) { return c.lint, nil }
func (c cloud) Health(context.Context, upgrade.Live) (upgrade.Health, error) {
	return upgrade.Health{Version: c.live.Version, Phase: upgrade.Settled}, nil
}
func (c cloud) Objects(context.Context, upgrade.Live) (upgrade.Lister, error) {
	if c.kubeconfigErr != nil {
		return nil, c.kubeconfigErr
	}
	return kube.Lister(c.kubeconfig)
}

// Promise: upgrade-plan-blockers
func TestAPlanIsBlockedByARemovedAPIInUseOrAClusterlintError(t *testing.T) {
	kc := apiServer(t, map[string][]map[string]any{
		"/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas": {
			object("", "old-schema", `{"apiVersion":"flowcontrol.apiserver.k8s.io/v1beta3","kind":"FlowSchema"}`),
		},
		"/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations": {},
	})
	offer := upgrade.Offer{Next: []string{"1.31.9-do.2"}, Versions: doVersions}
	cases := []struct {
		name    string
		cloud   cloud
		goal    string
		blocker string
	}{
		{name: "a removed API in use", goal: "1.32.2-do.0",
			cloud:   cloud{live: upgrade.Live{ID: "c1", Version: "1.30.10-do.0"}, offer: offer, kubeconfig: kc},
			blocker: "FlowSchema old-schema uses flowcontrol.apiserver.k8s.io/v1beta3, removed in 1.32: use flowcontrol.apiserver.k8s.io/v1"},
		{name: "a clusterlint error", goal: "1.31.9-do.2",
			cloud: cloud{live: upgrade.Live{ID: "c1", Version: "1.30.10-do.0"}, offer: offer, kubeconfig: kc,
				lint: []upgrade.Diagnostic{{Check: "bare-pods", Severity: "warning", Message: "bare pod"},
					{Check: "admission-controller-webhook", Severity: "error", Message: "webhook points nowhere", Object: "ValidatingWebhookConfiguration w"}}},
			blocker: "clusterlint admission-controller-webhook: ValidatingWebhookConfiguration w webhook points nowhere"},
		{name: "nothing in the way", goal: "1.31.9-do.2",
			cloud: cloud{live: upgrade.Live{ID: "c1", Version: "1.30.10-do.0"}, offer: offer, kubeconfig: kc,
				lint: []upgrade.Diagnostic{{Check: "bare-pods", Severity: "warning", Message: "bare pod"}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			plans := upgrade.Assess(context.Background(), []upgrade.Cluster{{Name: "a", ClusterName: "a", Version: c.goal, Cloud: c.cloud}})
			p := plans[0]
			if c.blocker == "" {
				if p.Blocked() {
					t.Errorf("blocked: %q", p.Blockers)
				}
				return
			}
			if !p.Blocked() || !strings.Contains(strings.Join(p.Blockers, "\n"), c.blocker) {
				t.Errorf("blockers %q, want %q", p.Blockers, c.blocker)
			}
		})
	}
}

// Promise: sandbox-kubeconfig-answers-nothing
func TestAFirstStepThatRemovesNoAPIIsClearWhenALaterStepsAPIsCannotBeChecked(t *testing.T) {
	unreadable := errors.New("the kubeconfig could not be read")
	// DigitalOcean's: a cluster behind its minor's latest patch takes that patch first.
	offer := upgrade.Offer{Next: []string{"1.31.9-do.2"}, Versions: doVersions, PatchFirst: true}
	cases := []struct {
		name    string
		running string
		goal    string
		// clear is whether the first step may be taken; blocker is the plan's.
		clear   bool
		blocker string
	}{
		{name: "a patch first, then a release that removes APIs", running: "1.31.1-do.5", goal: "1.32.2-do.0", clear: true,
			blocker: "the APIs 1.32 removes could not be checked: the kubeconfig could not be read"},
		{name: "a first step that removes APIs itself", running: "1.31.9-do.2", goal: "1.32.2-do.0", clear: false,
			blocker: "the APIs 1.32 removes could not be checked"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cl := cloud{live: upgrade.Live{ID: "c1", Version: c.running}, offer: offer, kubeconfigErr: unreadable}
			if c.running == "1.31.9-do.2" {
				cl.offer = upgrade.Offer{Next: []string{"1.32.2-do.0"}, Versions: doVersions, PatchFirst: true}
			}
			p := upgrade.Assess(context.Background(), []upgrade.Cluster{{Name: "a", ClusterName: "a", Version: c.goal, Cloud: cl}})[0]
			if len(p.Steps) == 0 || !strings.Contains(strings.Join(p.Blockers, "\n"), c.blocker) || p.NextClear != c.clear {
				t.Errorf("steps %v, blockers %q, first step clear %v; want blocked by %q with the first step clear %v",
					p.Steps, p.Blockers, p.NextClear, c.blocker, c.clear)
			}
		})
	}
}

// checksNotWanted is a cloud whose checks fail the test: Paths asks only for the cluster and its
// offer.
type checksNotWanted struct {
	cloud
	t *testing.T
}

func (c checksNotWanted) Lint(context.Context, upgrade.Live) ([]upgrade.Diagnostic, error) {
	c.t.Error("the cloud's lint was run")
	return nil, nil
}

func (c checksNotWanted) Objects(context.Context, upgrade.Live) (upgrade.Lister, error) {
	c.t.Error("the cluster's API was asked")
	return nil, errors.New("not asked")
}

func TestPathsGivesEachClustersStepsInFleetOrderWithoutCheckingTheClusters(t *testing.T) {
	offer := upgrade.Offer{Next: []string{"1.31.9-do.2"}, Versions: doVersions}
	at := func(name, env string) upgrade.Cluster {
		return upgrade.Cluster{Name: name, ClusterName: name, Env: env, Version: "1.32.2-do.0",
			Cloud: checksNotWanted{cloud: cloud{live: upgrade.Live{ID: name, Version: "1.30.10-do.0"}, offer: offer}, t: t}}
	}
	paths := upgrade.Paths(context.Background(), []upgrade.Cluster{at("p", "prod"), at("d", "dev")})
	if len(paths) != 2 || paths[0].Name != "d" || paths[1].Name != "p" {
		t.Fatalf("paths %+v, want development first", paths)
	}
	for _, p := range paths {
		if got := fmt.Sprint(p.Steps); len(p.Steps) != 2 || p.Steps[1].To != "1.32.2-do.0" || p.Blocked() {
			t.Errorf("%s: steps %s, blockers %q; want two steps to 1.32.2-do.0, nothing checked", p.Name, got, p.Blockers)
		}
	}
}

// Promise: upgrade-plan-budgets
func TestAPodDisruptionBudgetThatNeverAllowsADisruptionBlocksEveryStep(t *testing.T) {
	budget := func(name string, healthy, desired, expected int) map[string]any {
		return map[string]any{"metadata": map[string]any{"name": name, "namespace": "shop"},
			"status": map[string]any{"currentHealthy": healthy, "desiredHealthy": desired, "expectedPods": expected, "disruptionsAllowed": max(healthy-desired, 0)}}
	}
	cases := []struct {
		name    string
		budgets []map[string]any
		blocker string
	}{
		{name: "one replica with minAvailable 1", budgets: []map[string]any{budget("api", 1, 1, 1)},
			blocker: "PodDisruptionBudget shop/api never allows a disruption (it needs 1 of its 1 pods healthy)"},
		{name: "maxUnavailable 0 over three pods", budgets: []map[string]any{budget("db", 3, 3, 3)},
			blocker: "PodDisruptionBudget shop/db never allows a disruption (it needs 3 of its 3 pods healthy)"},
		{name: "a budget whose pods are only unhealthy for now", budgets: []map[string]any{budget("web", 1, 2, 3)}},
		{name: "a budget over no pods", budgets: []map[string]any{budget("idle", 0, 0, 0)}},
		{name: "a budget that allows one", budgets: []map[string]any{budget("ok", 3, 2, 3)}},
	}
	offer := upgrade.Offer{Next: []string{"1.31.9-do.2"}, Versions: doVersions}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			kc := apiServer(t, map[string][]map[string]any{"/apis/policy/v1/poddisruptionbudgets": c.budgets})
			cl := cloud{live: upgrade.Live{ID: "c1", Version: "1.30.10-do.0"}, offer: offer, kubeconfig: kc}
			p := upgrade.AssessOne(context.Background(), upgrade.Cluster{Name: "a", ClusterName: "a", Version: "1.31.9-do.2", Cloud: cl})
			got := strings.Join(p.Blockers, "\n")
			if c.blocker == "" && p.Blocked() || c.blocker != "" && (!strings.Contains(got, c.blocker) || p.NextClear) {
				t.Errorf("blockers %q (next step clear: %t), want %q", p.Blockers, p.NextClear, c.blocker)
			}
		})
	}
}
