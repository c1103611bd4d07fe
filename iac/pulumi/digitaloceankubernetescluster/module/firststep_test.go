package module_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/digitaloceankubernetescluster/module"
	"github.com/clusterplane/clusterplane/internal/testing/moduletest"
	"github.com/clusterplane/clusterplane/pkg/change/upgrade"
	dodriver "github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/kubeversion"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
	"github.com/clusterplane/clusterplane/pkg/pulumi/mockrun"
	"github.com/digitalocean/godo"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// The user's report this test keeps from coming back: over a cluster on 1.31.1, preview refused
// 1.33.1-do.0 naming "the latest 1.32 slug" as the first step, up refused that naming
// 1.31.9-do.2, and `upgrade plan` said 1.31.9-do.2 all along. Every pair of versions of the
// catalogue, the wanted one newer, is asked of both: the version the module deploys, or names
// first when it refuses, is the first step of upgrade plan's path.
// Promise: pitfalls-one-minor-from-latest-patch
func TestTheModuleAndUpgradePlanNameTheSameFirstStepForEveryUpgradeOfTheCatalogue(t *testing.T) {
	catalogue := dodriver.Driver{}.Versions("")
	const token = "dop_v1_first-step"
	do := fakedo.New(t, token)
	do.Account().SetVersions(catalogue...)
	n := 0
	for _, running := range catalogue {
		for _, wanted := range catalogue {
			if newer, _ := kubeversion.Less(running, wanted); !newer {
				continue
			}
			n++
			name := fmt.Sprintf("pair-%d", n)
			t.Run("from "+running+" to "+wanted, func(t *testing.T) {
				do.SeedCluster(godo.KubernetesCluster{Name: name, RegionSlug: "fra1", VersionSlug: running})
				plan := planFirstStep(t, do, token, name, wanted)
				if got := moduleFirstStep(t, running, wanted, catalogue); got != plan {
					t.Errorf("the module's first step is %s, upgrade plan's %s", got, plan)
				}
			})
		}
	}
	if n == 0 {
		t.Fatal("the catalogue holds no upgrade")
	}
}

// planCloud is DigitalOcean as upgrade plan asks it, its cluster and offer read from the fake API;
// its checks and the cluster's objects, which add blockers but never change a step, are not read.
type planCloud struct{ *dodriver.Upgrades }

func (planCloud) Lint(context.Context, upgrade.Live) ([]upgrade.Diagnostic, error) { return nil, nil }

func (planCloud) Objects(context.Context, upgrade.Live) (upgrade.Lister, error) {
	return nil, errors.New("the cluster's objects are not read in this test")
}

// planFirstStep is the first step of upgrade plan's path for the cluster named name to wanted.
func planFirstStep(t *testing.T, do *fakedo.DO, token, name, wanted string) string {
	t.Helper()
	plans := upgrade.Assess(context.Background(), []upgrade.Cluster{{File: "cluster.yaml", Kind: module.Kind, Name: name,
		ClusterName: name, Region: "fra1", Version: wanted, Cloud: planCloud{dodriver.NewUpgrades(do.URL(), token)}}})
	if len(plans) != 1 || plans[0].Next() == "" {
		t.Fatalf("upgrade plan names no first step: %+v", plans)
	}
	return plans[0].Next()
}

// setFirst is how a refusal names the version to deploy first.
var setFirst = regexp.MustCompile(`Set kubernetesVersion to (\S+) and deploy`)

// moduleFirstStep is the version the module deploys over a cluster running running when the
// manifest says wanted, or when it refuses, the version its refusal says to set first.
func moduleFirstStep(t *testing.T, running, wanted string, offered []string) string {
	t.Helper()
	in := stack.Input()
	in.Target.Spec.KubernetesVersion = wanted
	p, err := moduletest.RunBody(t, func(ctx *pulumi.Context) error { return module.Resources(ctx, in) },
		mockrun.Options{State: cloudState, Invoke: offering(running, offered)})
	if err != nil {
		m := setFirst.FindStringSubmatch(err.Error())
		if m == nil {
			t.Fatalf("the refusal names no version to set first: %v", err)
		}
		return m[1]
	}
	v, _ := moduletest.MustFind(t, p, clusterType, "prod-fra1").Inputs["version"].(string)
	return v
}

// offering answers the module's lookups as DigitalOcean's provider does: the cluster runs live
// ("" for none), and getKubernetesVersions lists the offered versions that start with its
// versionPrefix (every one without), the latest of them as latestVersion.
func offering(live string, offered []string) func(string, resource.PropertyMap) (resource.PropertyMap, error) {
	return func(token string, args resource.PropertyMap) (resource.PropertyMap, error) {
		switch token {
		case lookupToken:
			if live == "" {
				return nil, errors.New("Unable to find cluster with name: " + args["name"].StringValue())
			}
			return resource.NewPropertyMapFromMap(map[string]any{"name": args["name"].StringValue(), "version": live}), nil
		case versionsToken:
			prefix := ""
			if p, ok := args["versionPrefix"]; ok && p.IsString() {
				prefix = p.StringValue()
			}
			valid, latest := []any{}, ""
			for _, v := range offered {
				if !strings.HasPrefix(v, prefix) {
					continue
				}
				valid = append(valid, v)
				if older, _ := kubeversion.Less(latest, v); latest == "" || older {
					latest = v
				}
			}
			return resource.NewPropertyMapFromMap(map[string]any{"latestVersion": latest, "validVersions": valid}), nil
		}
		return nil, nil
	}
}
