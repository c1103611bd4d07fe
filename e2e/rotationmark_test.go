//go:build e2e

package e2e_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/digitalocean/godo"

	"github.com/clusterplane/clusterplane/pkg/change/rotation"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecloud"
)

// A rotation finds its pools by the id it records and the mark they carry, never by their name:
// a pool of the surge name that someone else made beforehand is neither used nor deleted, and a
// surge pool whose create the cloud carried out but never confirmed (as a kill between the create
// and the record leaves it) is found and deleted by the roll-back, on the real engine and provider.

// Promise: rotation-leaves-foreign-surge-pool
func TestARotationLeavesAPoolOfTheSurgeNameItDidNotMakeAsItWas(t *testing.T) {
	t.Parallel()
	rig := newRotationRig(t)
	e, text, manifest, before := rig.e, rig.text, rig.manifest, rig.before

	// A user's own pool of the surge name: another size, a tag of theirs.
	client := godo.NewFromToken(doToken)
	client.BaseURL, _ = client.BaseURL.Parse(e.do.URL() + "/")
	theirs, _, err := client.Kubernetes.CreateNodePool(context.Background(), doClusterID, &godo.KubernetesNodePoolCreateRequest{
		Name: "workers-surge", Size: "s-2vcpu-4gb", Count: 1, Tags: []string{"owner:team-a"}})
	if err != nil {
		t.Fatal(err)
	}

	resized := e.write("resized.yaml", strings.Replace(text, "size: s-4vcpu-8gb", "size: s-8vcpu-16gb", 1))
	// preview says what up will do: refuse, naming the pool.
	r, code := e.clusterplane("preview", resized)
	if code != 3 || !strings.Contains(r.stdout+r.stderr, "workers-surge") || !strings.Contains(r.stdout+r.stderr, "did not create") {
		t.Fatalf("preview of a rotation whose surge name is taken = %d, want 3 naming the pool: %s", code, r)
	}
	r, code = e.clusterplane("up", resized, "--yes")
	if code != 3 || !strings.Contains(r.stdout+r.stderr, "workers-surge") || !strings.Contains(r.stdout+r.stderr, "did not create") {
		t.Fatalf("up of a rotation whose surge name is taken = %d, want 3 (refused) naming the pool: %s", code, r)
	}
	// Nothing was started: status does not say a rotation is under way.
	if r, code := e.clusterplane("status", manifest); code != 0 || strings.Contains(r.stdout, "RotationUnderWay") {
		t.Errorf("status after the refused rotation = %d, want 0 and no rotation under way: %s", code, r)
	}
	// The manifest goes back: nothing of the rotation's to roll back, the user's pool kept.
	if r, code := e.clusterplane("up", manifest, "--yes"); code != 0 {
		t.Fatalf("up with the old manifest = %d: %s", code, r)
	}
	if after := e.doPool(doClusterID, "workers-surge"); after.ID != theirs.ID || after.Size != "s-2vcpu-4gb" ||
		!slices.Contains(after.Tags, "owner:team-a") {
		t.Errorf("the user's workers-surge pool after the rotation and its roll-back: %+v, want it as it was", after)
	}
	if after := e.doPool(doClusterID, "workers"); after.ID != before.ID || after.Size != before.Size {
		t.Errorf("the stack's pool is %s %s, want the old %s %s", after.ID, after.Size, before.ID, before.Size)
	}
}

// Promise: rotation-finds-pools-by-mark
func TestARollBackDeletesTheSurgePoolWhoseCreateWasNeverConfirmed(t *testing.T) {
	t.Parallel()
	rig := newRotationRig(t)
	e, text, manifest := rig.e, rig.text, rig.manifest

	// The cloud creates the surge pool, then the answer is lost: what a kill right after the
	// create leaves, a pool in the cloud whose id no record holds.
	e.do.Inject(fakecloud.Fault{Method: http.MethodPost, Path: "/v2/kubernetes/clusters/" + doClusterID + "/node_pools",
		Status: http.StatusInternalServerError, Commit: true, Times: 1})
	resized := e.write("resized.yaml", strings.Replace(text, "size: s-4vcpu-8gb", "size: s-8vcpu-16gb", 1))
	r, code := e.clusterplane("up", resized, "--yes")
	if code == 0 {
		t.Fatalf("up whose surge create failed = 0, want it stopped: %s", r)
	}
	if pools := poolNames(e); fmt.Sprint(pools) != "[default workers workers-surge]" {
		t.Fatalf("after the unconfirmed create the cluster has pools %v, want the surge pool too; the up said: %s", pools, r)
	}
	if r, code := e.clusterplane("status", resized, "-o", "json"); !strings.Contains(r.stdout, "RotationUnderWay") {
		t.Errorf("status after the stopped create = %d, want the rotation under way: %s", code, r)
	}
	if r, code := e.clusterplane("up", manifest, "--yes"); code != 0 {
		t.Fatalf("up with the old manifest = %d, want the rotation rolled back: %s", code, r)
	}
	if pools := poolNames(e); fmt.Sprint(pools) != "[default workers]" {
		t.Errorf("after the roll-back the cluster has pools %v, want no pool of the rotation's", pools)
	}
	if r, code := e.clusterplane("status", manifest, "-o", "json"); code != 0 || strings.Contains(r.stdout, "RotationUnderWay") {
		t.Errorf("status after the roll-back = %d, want ready: %s", code, r)
	}
}

func TestAnUpKilledBetweenTheSurgeCreateAndItsRecordIsRolledBackWithNothingLeft(t *testing.T) {
	t.Parallel()
	rig := newRotationRig(t)
	e, text, manifest := rig.e, rig.text, rig.manifest

	// The cloud carries the create out and then holds its answer: the up is killed while it
	// waits, after the create and before any record of it.
	e.do.Inject(fakecloud.Fault{Method: http.MethodPost, Path: "/v2/kubernetes/clusters/" + doClusterID + "/node_pools",
		Status: http.StatusInternalServerError, Commit: true, Hold: 5 * time.Minute, Times: 1})
	resized := e.write("resized.yaml", strings.Replace(text, "size: s-4vcpu-8gb", "size: s-8vcpu-16gb", 1))
	e.killedWhen(resized, "the surge pool created", func(string) bool {
		_, ok := e.do.PoolNamed(doClusterID, "workers-surge")
		return ok
	}, 0)
	if r, _ := e.clusterplane("status", resized, "-o", "json"); !strings.Contains(r.stdout, "RotationUnderWay") {
		t.Errorf("status after the kill: want the rotation under way, recorded before the create: %s", r)
	}
	e.statusFromRecordsAgrees(resized)
	if r, code := e.clusterplane("up", manifest, "--yes"); code != 0 {
		t.Fatalf("up with the old manifest after the kill = %d, want the rotation rolled back: %s", code, r)
	}
	if pools := poolNames(e); fmt.Sprint(pools) != "[default workers]" {
		t.Errorf("after the roll-back the cluster has pools %v, want no pool of the rotation's", pools)
	}
	if r, code := e.clusterplane("drift", manifest); code != 0 {
		t.Errorf("drift after the roll-back = %d, want clean: %s", code, r)
	}
}

func TestTwoUpsOfOneRotationStartedTogetherMakeOneSurgePool(t *testing.T) {
	t.Parallel()
	rig := newRotationRig(t)
	e, text, manifest := rig.e, rig.text, rig.manifest

	resized := e.write("resized.yaml", strings.Replace(text, "size: s-4vcpu-8gb", "size: s-8vcpu-16gb", 1))
	type run struct {
		r    result
		code int
	}
	runs := make(chan run, 2)
	for range 2 {
		go func() {
			r, code := e.clusterplane("up", resized, "--yes")
			runs <- run{r, code}
		}()
	}
	busy := 0
	for range 2 {
		// The PDB allows no eviction: the up that rotates stops at its drain, the other is turned away.
		got := <-runs
		if strings.Contains(got.r.stdout+got.r.stderr, "holds its lock") {
			busy++
		}
	}
	if busy != 1 {
		t.Errorf("%d of the two ups were turned away by the stack's lock, want 1", busy)
	}
	if pools := poolNames(e); fmt.Sprint(pools) != "[default workers workers-surge]" {
		t.Errorf("after two ups of one rotation the cluster has pools %v, want one surge pool", pools)
	}
	if r, code := e.clusterplane("up", manifest, "--yes"); code != 0 {
		t.Fatalf("up with the old manifest = %d, want the rotation rolled back: %s", code, r)
	}
	if pools := poolNames(e); fmt.Sprint(pools) != "[default workers]" {
		t.Errorf("after the roll-back the cluster has pools %v, want no pool of the rotation's", pools)
	}
}

// Promise: orphan-pools-reported
func TestDriftReportsAPoolLeftWithTheStacksMarkAndTheCommandThatDeletesIt(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seedExamples()
	manifest := e.write("pool.yaml", withSpec(example(t, "digitaloceankubernetesnodepool/minimal.yaml"),
		"  rollout:\n    strategy: ROTATE\n"))
	if r, code := e.clusterplane("up", manifest, "--yes"); code != 0 {
		t.Fatalf("up = %d: %s", code, r)
	}
	if r, code := e.clusterplane("drift", manifest); code != 0 {
		t.Fatalf("drift right after up = %d: %s", code, r)
	}
	// A pool a stopped rotation of this stack left (as an older clusterplane could, or a record
	// removed by hand), and one of another stack's rotation, which is not this stack's to report.
	client := godo.NewFromToken(doToken)
	client.BaseURL, _ = client.BaseURL.Parse(e.do.URL() + "/")
	ours := rotation.NewMark("digitaloceankubernetesnodepool/dev-fra1-workers", rotation.NewID())
	theirs := rotation.NewMark("digitaloceankubernetesnodepool/other", rotation.NewID())
	left, _, err := client.Kubernetes.CreateNodePool(context.Background(), doClusterID, &godo.KubernetesNodePoolCreateRequest{
		Name: "workers-surge", Size: "s-2vcpu-4gb", Count: 1, Tags: []string{digitalocean.MarkTag + ours.String()}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := client.Kubernetes.CreateNodePool(context.Background(), doClusterID, &godo.KubernetesNodePoolCreateRequest{
		Name: "other-surge", Size: "s-2vcpu-4gb", Count: 1, Tags: []string{digitalocean.MarkTag + theirs.String()}}); err != nil {
		t.Fatal(err)
	}
	r, code := e.clusterplane("drift", manifest)
	out := r.stdout + r.stderr
	if code != 3 || !strings.Contains(out, "doctl kubernetes cluster node-pool delete "+doClusterID+" "+left.ID) ||
		strings.Contains(out, "other-surge") {
		t.Errorf("drift with a pool left by this stack's rotation = %d, want it reported alone with its delete command: %s", code, r)
	}
	if r, code := e.clusterplane("status", manifest, "--drift", "-o", "json"); code != 4 || !strings.Contains(r.stdout, "OrphanPool") {
		t.Errorf("status --drift = %d, want Ready=False/OrphanPool (4): %s", code, r)
	}
}
