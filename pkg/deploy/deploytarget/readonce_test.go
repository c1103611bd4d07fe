package deploytarget_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/deploy/operation"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/render"
)

// exampleCluster is the DigitalOcean cluster example, unprotected, each pair of replacements
// applied, as clusterplane reads it from its file.
func exampleCluster(t *testing.T, replacements ...string) deploytarget.Target {
	t.Helper()
	t.Setenv(digitalocean.TokenEnv, "")
	t.Setenv(digitalocean.APIURLEnv, "")
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", "digitaloceankubernetescluster", "minimal.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(data), "\nspec:\n", "\nspec:\n  deletionProtection: false\n", 1)
	text = strings.NewReplacer(replacements...).Replace(text)
	k, _ := registry.Kinds().ByName("DigitalOceanKubernetesCluster")
	target, err := deploytarget.Read(k, "cluster.yaml", []byte(text), "")
	if err != nil {
		t.Fatal(err)
	}
	return target
}

// TestEachCommandReadsAStacksRecordedManifestOnce holds what a target carries: the manifest its
// stack last deployed, and the change from it to the file's, are worked out once a stack a
// command, however many gates, runners and report sections ask of them.
func TestEachCommandReadsAStacksRecordedManifestOnce(t *testing.T) {
	ctx := context.Background()
	unknown := func(cloud string) cost.Prices { return cost.Unknown(cloud, errors.New("no prices in this test")) }
	tests := []struct {
		name    string
		command operation.Name
		run     func(d *deploy.Deployer, c deploytarget.Target) outcome.Outcome
	}{
		{"an up of a changed manifest", operation.Up, func(d *deploy.Deployer, c deploytarget.Target) outcome.Outcome {
			return d.Up(ctx, c, deploy.UpOptions{Yes: true})
		}},
		{"a preview of a changed manifest", operation.Preview, func(d *deploy.Deployer, c deploytarget.Target) outcome.Outcome {
			return d.Preview(ctx, c, deploy.PreviewOptions{})
		}},
		{"a drift with a manifest edit pending", operation.Drift, func(d *deploy.Deployer, c deploytarget.Target) outcome.Outcome {
			return d.Drift(ctx, c)
		}},
		{"a status that looks for drift", operation.Status, func(d *deploy.Deployer, c deploytarget.Target) outcome.Outcome {
			return d.Status(ctx, c, deploy.StatusOptions{Drift: true})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := deploytest.New()
			d := &deploy.Deployer{Backend: b}
			if o := d.Up(ctx, exampleCluster(t), deploy.UpOptions{Yes: true}); o.Status != outcome.Done {
				t.Fatalf("first up: %s %v", o.Status, o.Err)
			}
			changed := exampleCluster(t, "nodeCount: 2", "nodeCount: 3")
			before := deploytarget.ManifestReads()
			o := tt.run(d, changed)
			if o.Status == outcome.Failed {
				t.Fatalf("%s: %v", o.Status, o.Err)
			}
			render.Report(tt.command, []outcome.Outcome{o}, unknown)
			if n := deploytarget.ManifestReads() - before; n != 1 {
				t.Errorf("the recorded manifest was read %d times, want once", n)
			}
		})
	}
}
