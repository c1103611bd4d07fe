//go:build e2e

package e2e_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/internal/testing/pgtest"
	"github.com/clusterplane/clusterplane/pkg/serve/body"
)

// Through the API on the real engine and plugin: a pool the API made is scaled by `clusterplane
// up` of its stack from the command line, which the API's next check reports as Drifted,
// ChangedOutsideAPI, with the stack's node count. The command line then destroys the stack and
// makes it again: the next check says so, and the API refuses the pool's DELETE with 409 naming
// the stack, which keeps the command line's pool.
// Promise: api-stack-made-again-never-destroyed
func TestAPoolChangedAndMadeAgainFromTheCLIIsReportedAndItsDeleteRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	db := pgtest.Start(t).Database("serve")
	a := e.startServe(db, "", "--listen", "127.0.0.1:0", "--workers", "2", "--stack-timeout", "5m", "--drift-every", "1m")
	a.token = e.serveToken(db)
	const cluster = `{"name": "api-fra1", "spec": {"platform": {"type": "digitalocean",
		"digitalocean": {"region": "fra1", "kubernetesVersion": "1.31.1-do.5", "deletionProtection": false,
		"defaultNodePool": {"size": "s-2vcpu-4gb", "nodeCount": 2}}}}}`
	code, c := a.call("POST", "/api/v1/clusters", cluster)
	if code != 201 {
		t.Fatalf("create the cluster: %d %v", code, c)
	}
	a.waitStatus("/api/v1/clusters/"+c["id"].(string), "True")
	pool := func(nodes int) string {
		return fmt.Sprintf(`{"name": "workers", "spec": {"platform": {"type": "digitalocean", "digitalocean": {"size": "s-2vcpu-4gb"}}, "nodeCount": %d}}`, nodes)
	}
	code, p := a.call("POST", "/api/v1/clusters/"+c["id"].(string)+"/nodepools", pool(2))
	if code != 201 {
		t.Fatalf("create the pool: %d %v", code, p)
	}
	path := "/api/v1/nodepools/" + p["id"].(string)
	a.waitStatus(path, "True")

	// The manifest of the API's pool, as its worker writes it, with another node count.
	cb, err := body.Parse([]byte(cluster))
	if err != nil {
		t.Fatal(err)
	}
	pb, err := body.Parse([]byte(pool(3)))
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := body.PoolManifest(pb, body.ClusterOf(cb))
	if err != nil {
		t.Fatal(err)
	}
	file := e.write("pool.yaml", string(manifest))
	if r, code := e.clusterplane("up", file, "--yes"); code != 0 {
		t.Fatalf("the CLI's up of the API's pool = %d: %s", code, r)
	}
	cs := a.waitDrifted(path, "changed outside the API")
	if md, _ := cs["metadata"].(map[string]any); md["desired_nodes"] != float64(2) || md["active_nodes"] != float64(3) || md["changed_outside_api"] == nil {
		t.Errorf("after the CLI's up to 3 nodes, metadata %v, want desired_nodes 2, active_nodes 3 and changed_outside_api", md)
	}

	if r, code := e.clusterplane("destroy", file, "--yes"); code != 0 {
		t.Fatalf("the CLI's destroy = %d: %s", code, r)
	}
	if r, code := e.clusterplane("up", file, "--yes"); code != 0 {
		t.Fatalf("the CLI's up again = %d: %s", code, r)
	}
	made, ok := e.do.PoolNamed(e.doCluster("api-fra1").ID, "workers")
	if !ok {
		t.Fatal("the CLI's up made no pool")
	}
	a.waitDrifted(path, "and made again")
	_, now := a.call("GET", path, "")
	code, out := a.call("DELETE", path, "", "If-Match", fmt.Sprint(now["resource_version"]))
	if msg := fmt.Sprint(out); code != 409 || !strings.Contains(msg, "digitaloceankubernetesnodepool/api-fra1-workers") {
		t.Errorf("DELETE of the pool whose stack the CLI made again: %d %v, want 409 naming the stack", code, out)
	}
	time.Sleep(5 * time.Second)
	if still, ok := e.do.PoolNamed(e.doCluster("api-fra1").ID, "workers"); !ok || still.ID != made.ID {
		t.Errorf("the CLI's pool %s is gone after the API's DELETE", made.ID)
	}
}

// waitDrifted polls path's status until its Drifted condition is True, ChangedOutsideAPI, its
// message saying want, and returns the controller status.
func (a *api) waitDrifted(path, want string) map[string]any {
	a.e.t.Helper()
	deadline := time.Now().Add(4 * time.Minute)
	var last any
	for time.Now().Before(deadline) {
		_, st := a.call("GET", path+"/status", "")
		items, _ := st["controller_status"].([]any)
		for _, it := range items {
			cs, _ := it.(map[string]any)
			conds, _ := cs["conditions"].([]any)
			for _, c := range conds {
				cond, _ := c.(map[string]any)
				if cond["type"] != "Drifted" {
					continue
				}
				last = cond
				if cond["status"] == "True" && cond["reason"] == "ChangedOutsideAPI" && strings.Contains(fmt.Sprint(cond["message"]), want) {
					return cs
				}
			}
		}
		time.Sleep(time.Second)
	}
	a.e.t.Fatalf("%s: Drifted never became True, ChangedOutsideAPI, saying %q: last %v", path, want, last)
	return nil
}
