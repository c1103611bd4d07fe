//go:build e2e

package e2e_test

import (
	"testing"

	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
)

// A cluster the API creates costs the loopback cloud no more requests than `clusterplane up
// --yes` of the same manifest on a fresh stack, followed by `clusterplane status --drift`: what
// the worker runs, an up that says yes as --yes does, with no preview of a stack that holds
// nothing to replace, and after it Drifted, found by comparing the state that up wrote (what its
// engine run read of the cloud, with its changes) with the manifest. Nor does it cost more than
// `up --yes` alone: that comparison sends no request, its program taking the version the cluster
// runs from the state the up wrote instead of listing the account's clusters. Each side runs in a
// test environment of its own, so that each cloud's log holds that side's requests alone; serve
// compares stacks with the cloud only after each deploy (--drift-every 0).
func TestAClusterCreatedThroughServeCostsTheCloudNoMoreThanUpWithYesAndStatus(t *testing.T) {
	t.Parallel()
	served := newEnv(t)
	a := served.startServe("", "", "--listen", "127.0.0.1:0", "--workers", "1", "--drift-every", "0")
	a.token = served.serveToken("")
	before := served.cloudMark()
	// minimal.yaml as a body: the worker's manifest is the example's, clusterName its name.
	code, c := a.call("POST", "/api/v1/clusters", `{"name": "dev-fra1", "spec": {"platform": {"type": "digitalocean",
		"digitalocean": {"region": "fra1", "kubernetesVersion": "1.31.1-do.5", "defaultNodePool": {"size": "s-2vcpu-4gb", "nodeCount": 2}}}}}`)
	if code != 201 {
		t.Fatalf("create the cluster: %d %v", code, c)
	}
	a.waitStatus("/api/v1/clusters/"+c["id"].(string), "True")
	viaServe := served.requestsSince(before)

	cli := newEnv(t)
	manifest := cli.write("minimal.yaml", example(t, "digitaloceankubernetescluster/minimal.yaml"))
	if r, code := cli.clusterplane("up", manifest, "--yes"); code != 0 {
		t.Fatalf("up --yes = %d: %s", code, r)
	}
	viaUpAlone := cli.requestsSince(cloudMark{})
	if st := cli.status(manifest); len(st.Conditions) == 0 || st.Conditions[0].Status != "True" {
		t.Fatalf("status --drift after up --yes: %+v, want Ready", st)
	}
	viaUp := cli.requestsSince(cloudMark{})

	t.Logf("serve sent %d requests (%s); up --yes and status --drift %d (%s); up --yes alone %d (%s)", len(viaServe), tally(viaServe),
		len(viaUp), tally(viaUp), len(viaUpAlone), tally(viaUpAlone))
	if len(viaServe) > len(viaUp) {
		t.Errorf("the create through serve sent the cloud %d requests, up --yes and status --drift of the same manifest %d",
			len(viaServe), len(viaUp))
	}
	if len(viaServe) > len(viaUpAlone) {
		t.Errorf("the create through serve sent the cloud %d requests (%s), up --yes alone of the same manifest %d (%s): "+
			"Drifted after the deploy must be found without asking the cloud again", len(viaServe), tally(viaServe),
			len(viaUpAlone), tally(viaUpAlone))
	}
}

// cloudMark is how many requests each of the test's loopback clouds had answered at a moment.
type cloudMark struct{ do, civo int }

// cloudMark marks how many requests the test's clouds have answered so far.
func (e *env) cloudMark() cloudMark {
	return cloudMark{len(e.do.Requests("")), len(e.civo.Requests(""))}
}

// requestsSince are the requests the test's clouds answered after the mark m.
func (e *env) requestsSince(m cloudMark) []fakecloud.Request {
	return append(e.do.Requests("")[m.do:], e.civo.Requests("")[m.civo:]...)
}
