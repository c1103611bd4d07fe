//go:build e2e

package e2e_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/digitalocean/godo"

	dofacts "github.com/clusterplane/clusterplane/pkg/cloudfacts/digitalocean"
)

// A DigitalOcean cluster's default pool deleted in the cloud beside another pool: the provider's
// refresh keeps the pool it recorded (it reads node_pool only from a pool tagged
// terraform:default-node-pool), so only clusterplane's own list of the account tells. drift and
// status --drift say so, and up refuses, changing nothing; once a pool carries the tag again,
// drift is clean.
//
// Promise: drift-default-pool-gone
func TestADefaultPoolDeletedInTheCloudIsDriftAndUpRefusesIt(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	manifest := e.write("cluster.yaml", withSpec(example(t, "digitaloceankubernetescluster/minimal.yaml"), "  deletionProtection: false\n"))
	if r, code := e.clusterplane("up", manifest, "--yes"); code != 0 {
		t.Fatalf("up = %d: %s", code, r)
	}
	id := e.doCluster("dev-fra1").ID
	// The default pool is deleted; another pool, as a pool stack or the console would add, stays.
	var kept *godo.KubernetesNodePool
	defaultName := ""
	e.do.EditCluster(id, func(c *godo.KubernetesCluster) {
		defaultName = c.NodePools[0].Name
		other := *c.NodePools[0]
		other.ID, other.Name = other.ID+"-other", "other"
		other.Tags = slices.DeleteFunc(slices.Clone(other.Tags), func(t string) bool { return t == dofacts.DefaultPoolTag })
		c.NodePools = []*godo.KubernetesNodePool{&other}
		kept = &other
	})
	for _, args := range [][]string{{"drift", manifest}, {"drift", "--deep", manifest}} {
		if r, code := e.clusterplane(args...); code != 3 || !strings.Contains(r.stdout, "spec.defaultNodePool") {
			t.Errorf("%v with the default pool gone = %d, want 3 naming spec.defaultNodePool: %s", args, code, r)
		}
	}
	if r, code := e.clusterplane("status", "--drift", manifest); code != 4 || !strings.Contains(r.stdout, "Drifted=True\tNotPutBackByUp") {
		t.Errorf("status --drift with the default pool gone = %d, want 4 with Drifted=True NotPutBackByUp: %s", code, r)
	}
	writes := len(e.do.Requests("PUT")) + len(e.do.Requests("POST")) + len(e.do.Requests("DELETE"))
	if r, code := e.clusterplane("up", manifest, "--yes"); code != 3 || !strings.Contains(r.stdout+r.stderr, "tagged "+dofacts.DefaultPoolTag) {
		t.Errorf("up with the default pool gone = %d, want 3 refusing it: %s", code, r)
	}
	if now := len(e.do.Requests("PUT")) + len(e.do.Requests("POST")) + len(e.do.Requests("DELETE")); now != writes {
		t.Errorf("the refused up sent %d writes to the cloud", now-writes)
	}
	// The way back the refusal names: a pool tagged as the default again. This one is the old
	// default pool's twin, so nothing differs from the manifest.
	e.do.EditPool(id, kept.ID, func(p *godo.KubernetesNodePool) {
		p.Name = defaultName
		p.Tags = append(p.Tags, dofacts.DefaultPoolTag)
	})
	if r, code := e.clusterplane("drift", manifest); code != 0 {
		t.Errorf("drift with a pool tagged as the default again = %d, want 0: %s", code, r)
	}
}
