package main

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/internal/seed"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	dofacts "github.com/clusterplane/clusterplane/pkg/cloudfacts/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
)

// A cluster doctl made with an extra pool carries no terraform:default-node-pool tag, without
// which the provider cannot import it: adopt tags the pool the manifest names (the module's
// "default" when it names none) and says so, in the pool's line and in the summary's count of what
// it changed in the cloud.
// Promise: adopt-summary-counts-the-tag
func TestAdoptTagsTheManifestsDefaultPoolOfADoctlClusterOfSeveralPoolsAndSaysSo(t *testing.T) {
	const token = "dop_v1_adopt-default-pool-test"
	do := fakedo.New(t, token)
	id, _, err := fakedo.Seed(context.Background(), seed.Client{URL: do.URL(), Token: token}, seed.Cluster{Tool: fakedo.Doctl,
		Name: "dev-fra1", Region: "fra1", Pools: []seed.Pool{{Name: "default", Size: "s-2vcpu-4gb", Count: 2}, {Name: "batch", Count: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(fleet(t), "cluster.yaml")
	annotate(t, file, id)
	b := deploytest.New()
	b.Live(id, map[string]any{"name": "dev-fra1", "region": "fra1", "version": "1.31.1-do.5", "tags": []any{},
		"nodePool": map[string]any{"name": "default", "size": "s-2vcpu-4gb", "actualNodeCount": float64(2)}})
	for _, env := range []string{civo.TokenEnv, civo.APIURLEnv, stackinput.FileEnv} {
		t.Setenv(env, "")
	}
	t.Setenv(digitalocean.TokenEnv, token)
	t.Setenv(digitalocean.APIURLEnv, do.URL())
	var stdout, stderr bytes.Buffer
	a := newApp(registry.Kinds(), strings.NewReader(""), &stdout, &stderr)
	a.f.deploy.backend = b
	interactive := false
	a.f.deploy.interactive = &interactive
	if code := a.run([]string{"adopt", file}); code != exitcode.OK {
		t.Fatalf("adopt = %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	live, _ := do.Cluster(id)
	for _, p := range live.NodePools {
		if got := slices.Contains(p.Tags, dofacts.DefaultPoolTag); got != (p.Name == "default") {
			t.Errorf("pool %s tagged %s: %t, want it on the manifest's default pool only", p.Name, dofacts.DefaultPoolTag, got)
		}
	}
	if !strings.Contains(stdout.String(), "was tagged "+dofacts.DefaultPoolTag) {
		t.Errorf("adopt does not say it tagged the default pool:\n%s", stdout.String())
	}
	// The summary counts the tag it put on, and says nothing else changed, not "none changed".
	if want := "; 1 pool tagged " + dofacts.DefaultPoolTag + ", nothing else changed in the cloud"; !strings.Contains(stdout.String(), want) ||
		strings.Contains(stdout.String(), "none changed in the cloud") {
		t.Errorf("adopt's summary does not count the pool it tagged (%q):\n%s", want, stdout.String())
	}
	if strings.Contains(stdout.String()+stderr.String(), token) {
		t.Errorf("adopt printed the token")
	}
}
