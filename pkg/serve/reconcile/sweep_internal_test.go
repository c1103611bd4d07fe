package reconcile

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/digitalocean/godo"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/riverqueue/river"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/cloud/stackmark"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
	"github.com/clusterplane/clusterplane/pkg/pulumi/stackrecord"
	"github.com/clusterplane/clusterplane/pkg/serve/store"
)

// recordedFleet is the fake backend with each stack's records readable from its storage, as
// the file and PostgreSQL backends' are: what the fleet scan judges a stack by.
type recordedFleet struct {
	*deploytest.Backend
	records map[string]stackstate.Records
}

func (f recordedFleet) Records(_ context.Context, project, stack string) (stackstate.Records, error) {
	r, ok := f.records[project+"/"+stack]
	if !ok {
		return stackstate.Records{}, stackstate.ErrNotDeployed
	}
	return r, nil
}

func (f recordedFleet) LastUpdate(ctx context.Context, project, stack string) (*stackstate.Update, error) {
	r, err := f.Records(ctx, project, stack)
	return r.Last, err
}

var _ stackstate.Backend = recordedFleet{}

// ReadsRecords is true: Records above reads them from the map, as a file backend's from its files.
func (recordedFleet) ReadsRecords() bool { return true }

func (f recordedFleet) Exists(_ context.Context, project, stack string) (bool, error) {
	_, ok := f.records[project+"/"+stack]
	return ok, nil
}

// deployedRecords are the records an up that succeeded leaves: the stack's outputs (the
// generation, manifest and build of clusterplane it deployed) and its resources.
func deployedRecords(t *testing.T, target deploytarget.Target, resources ...apitype.ResourceV3) (stackstate.Records, map[string]any) {
	t.Helper()
	manifest, err := stackrecord.Manifest(target.Input)
	if err != nil {
		t.Fatal(err)
	}
	outputs := map[string]any{deploytarget.GenerationOutput: deploytarget.Generation(target.Input),
		deploytarget.ManifestOutput: manifest, stackrecord.ProgramOutput: stackrecord.Program()}
	all := append([]apitype.ResourceV3{{Type: resource.RootStackType, Outputs: outputs}}, resources...)
	for i := range all {
		all[i].URN = resource.URN(fmt.Sprintf("urn:pulumi:%s::%s::%s::r%d", target.Stack, target.Project, all[i].Type, i))
	}
	data, err := json.Marshal(apitype.DeploymentV3{Resources: all})
	if err != nil {
		t.Fatal(err)
	}
	return stackstate.Records{State: apitype.UntypedDeployment{Version: 3, Deployment: data},
		Last: &stackstate.Update{Operation: "update", Result: "succeeded"}, Newest: "update"}, outputs
}

// The drift sweep checks a fleet as `clusterplane drift` does: one list of the cloud per 200
// clusters for the whole interval, every object it can vouch for written InSync with no engine
// (and no Pulumi CLI: its records say whose its stack's last update was), and only an object
// whose cloud differs, or whose stack was updated outside the API, left to a check of its own
// (a refreshing preview, and the stack's history), queued within the interval.
// Promise: api-drift-sweep-one-list-per-200-clusters
func TestTheDriftSweepChecksEveryObjectWithOneListOfTheCloudPer200Clusters(t *testing.T) {
	const clusters = 5000 // and a pool each: 10,000 objects
	ctx := context.Background()
	do := fakedo.New(t, "sweep-token")
	t.Setenv(digitalocean.TokenEnv, "sweep-token")
	t.Setenv(digitalocean.APIURLEnv, do.URL())
	st, err := store.Open(ctx, store.SQLitePrefix+filepath.Join(t.TempDir(), "serve.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	st.Summarise = Controller
	fleet := recordedFleet{Backend: deploytest.New(), records: map[string]stackstate.Records{}}
	w := &Worker{Store: st, Kinds: registry.Kinds(), Backend: func() (stackstate.Backend, error) { return fleet, nil }, StackTimeout: time.Minute}
	var all []store.Object
	// The objects left to a check of their own: a cluster updated from the command line since the
	// worker's update, and a cluster resized in the cloud with its pool (the scan vouches for a pool
	// only with the cluster whose outputs it reads unchanged).
	var edited []string
	for i := range clusters {
		seeded, left := seedSweptCluster(t, ctx, i, do, st, w, fleet)
		all, edited = append(all, seeded...), append(edited, left...)
	}
	var queued []river.InsertManyParams
	sweep := &Sweep{Store: st, Every: time.Hour, Worker: w, insert: func(_ context.Context, params []river.InsertManyParams) error {
		queued = append(queued, params...)
		return nil
	}}
	before := len(do.Requests(""))
	began := time.Now()
	if err := sweep.Work(ctx, &river.Job[SweepArgs]{}); err != nil {
		t.Fatal(err)
	}
	took := time.Since(began)
	var lists int
	for _, r := range do.Requests("")[before:] {
		if r.Method != "GET" || r.Path != "/v2/kubernetes/clusters" {
			t.Errorf("the sweep sent %s %s: only lists of the clusters are wanted", r.Method, r.Path)
		}
		lists++
	}
	if want := (clusters + 199) / 200; lists > want {
		t.Errorf("the sweep listed the cloud %d times for %d clusters, want at most %d (one per 200)", lists, clusters, want)
	}
	var ids []string
	for _, q := range queued {
		ids = append(ids, q.Args.(DriftArgs).ObjectID)
		// No time is a check due now, which River makes available at once.
		if at := q.InsertOpts.ScheduledAt; !at.IsZero() && (at.Before(began) || !at.Before(began.Add(time.Hour))) {
			t.Errorf("a check of its own is at %s, want within the interval from %s", at, began)
		}
	}
	if fmt.Sprint(ids) != fmt.Sprint(edited) {
		t.Errorf("checks of their own queued for %v, want only the cluster updated outside the API, the resized cluster and its pool, %v", ids, edited)
	}
	unchecked := 0
	for _, o := range all {
		sts, err := st.Statuses().List(ctx, o.Type, o.ID)
		if err != nil || len(sts) != 1 {
			t.Fatalf("statuses of %s %s: %v, %v", o.Type, o.Name, sts, err)
		}
		d, _ := sts[0].Condition("Drifted")
		switch {
		case slices.Contains(edited, o.ID):
			if d.Reason != "NotChecked" {
				t.Errorf("%s %s: Drifted %+v, which its own check writes, not the scan", o.Type, o.Name, d)
			}
		case d.Status != "False" || d.Reason != "InSync" || !strings.Contains(d.Message, "fleet scan"):
			unchecked++
			if unchecked < 4 {
				t.Errorf("%s %s: Drifted %+v, want False, InSync, from the fleet scan", o.Type, o.Name, d)
			}
		}
	}
	if unchecked > 0 {
		t.Errorf("%d of %d objects not checked by the sweep", unchecked, len(all))
	}
	t.Logf("%d objects swept in %s, %d cloud requests", len(all), took, lists)
}

// seedSweptCluster makes the i-th cluster of the swept fleet and a pool of it: in the loopback
// cloud, in the store (Ready, Drifted not checked, the stacks owned), and in the fleet's records
// as an up would have left them. It returns both objects, and those of them left to a check of
// their own: the cluster updated from the command line (i 5), the one resized in the cloud with
// its pool (i 7).
func seedSweptCluster(t *testing.T, ctx context.Context, i int, do *fakedo.DO, st *store.Store, w *Worker, fleet recordedFleet) (seeded []store.Object, edited []string) {
	t.Helper()
	const poolType = "digitalocean:index/kubernetesNodePool:KubernetesNodePool"
	name := fmt.Sprintf("sweep-%04d", i)
	id := do.SeedCluster(godo.KubernetesCluster{Name: name, RegionSlug: "fra1", VersionSlug: "1.31.1-do.5",
		NodePools: []*godo.KubernetesNodePool{
			{Name: "default", Size: "s-2vcpu-4gb", Count: 2, Tags: []string{"terraform:default-node-pool"}},
			{Name: "workers", Size: "s-2vcpu-4gb", Count: 3}}})
	cl, _ := do.Cluster(id)
	spec := `{"platform": {"type": "digitalocean", "digitalocean": {"region": "fra1", "kubernetesVersion": "1.31.1-do.5",
		"deletionProtection": false, "defaultNodePool": {"size": "s-2vcpu-4gb", "nodeCount": 2}}}}`
	c, err := st.Objects().Create(ctx, store.Object{Type: store.Cluster, Name: name, Spec: json.RawMessage(spec), CreatedBy: "test"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := st.Objects().Create(ctx, store.Object{Type: store.NodePool, Name: "workers", ClusterID: c.ID, CreatedBy: "test",
		Spec: json.RawMessage(`{"platform": {"type": "digitalocean", "digitalocean": {"size": "s-2vcpu-4gb"}}, "nodeCount": 3}`)})
	if err != nil {
		t.Fatal(err)
	}
	cm, _, err := w.manifest(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	clusterRecords, clusterOutputs := deployedRecords(t, cm.Target, apitype.ResourceV3{Type: "digitalocean:index/kubernetesCluster:KubernetesCluster",
		Custom: true, ID: resource.ID(id), Outputs: map[string]any{"name": name, "region": "fra1", "version": "1.31.1-do.5",
			"vpcUuid": cl.VPCUUID, "clusterSubnet": cl.ClusterSubnet, "serviceSubnet": cl.ServiceSubnet, "surgeUpgrade": cl.SurgeUpgrade,
			"maintenancePolicy": map[string]any{"day": cl.MaintenancePolicy.Day.String(), "startTime": cl.MaintenancePolicy.StartTime},
			"nodePool":          map[string]any{"id": cl.NodePools[0].ID, "name": "default", "size": "s-2vcpu-4gb", "nodeCount": 2}}})
	switch i {
	case 3: // the API's worker made the stack's last update: its records say so
		clusterRecords.Last.Message = markOf(c)
		if err := st.Jobs().MarkStack(ctx, c.ID, cm.Target.Key(), 1); err != nil {
			t.Fatal(err)
		}
	case 5: // an up from the command line since the worker's: its own check reads the history
		clusterRecords.Last.Message = "an up from the command line"
		if err := st.Jobs().MarkStack(ctx, c.ID, cm.Target.Key(), 1); err != nil {
			t.Fatal(err)
		}
		edited = append(edited, c.ID)
	}
	fleet.records[cm.Target.Key()] = clusterRecords
	pm, _, err := w.manifest(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	fleet.records[pm.Target.Key()], _ = deployedRecords(t, pm.Target,
		apitype.ResourceV3{Type: resource.RootStackType + "Reference", Custom: true, ID: resource.ID("organization/" + cm.Target.Key()),
			Inputs: map[string]any{"name": "organization/" + cm.Target.Key()}, Outputs: map[string]any{"outputs": clusterOutputs}},
		apitype.ResourceV3{Type: poolType, Custom: true, ID: resource.ID(cl.NodePools[1].ID),
			Outputs: map[string]any{"clusterId": id, "name": "workers", "size": "s-2vcpu-4gb", "nodeCount": 3}})
	for _, o := range []store.Object{c, p} {
		if err := st.Objects().OwnStack(ctx, o.ID); err != nil {
			t.Fatal(err)
		}
		if err := st.Statuses().Put(ctx, o.Type, o.ID, store.ControllerStatus{ControllerName: Controller, ObservedGeneration: 1,
			Conditions: []store.Condition{condition("Ready", "True", "Deployed", ""), condition("Drifted", "Unknown", "NotChecked", "")}}); err != nil {
			t.Fatal(err)
		}
		seeded = append(seeded, o)
	}
	if i == 7 {
		edited = append(edited, c.ID, p.ID)
		do.EditPool(id, cl.NodePools[0].ID, func(p *godo.KubernetesNodePool) { p.Count = 5 })
	}
	return seeded, edited
}

// A cluster the sweep's list finds carrying an object's stack mark, which the stack does not
// record, makes that object's Drifted True (UnrecordedInCloud), naming its id: the object's own
// check lists nothing, so the sweep writes it. The other object stays InSync.
// Promise: drift-names-unrecorded-marked-clusters
func TestTheDriftSweepNamesAClusterCarryingAnObjectsStackMarkThatItsStackDoesNotRecord(t *testing.T) {
	ctx := context.Background()
	do := fakedo.New(t, "sweep-token")
	t.Setenv(digitalocean.TokenEnv, "sweep-token")
	t.Setenv(digitalocean.APIURLEnv, do.URL())
	st, err := store.Open(ctx, store.SQLitePrefix+filepath.Join(t.TempDir(), "serve.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	st.Summarise = Controller
	fleet := recordedFleet{Backend: deploytest.New(), records: map[string]stackstate.Records{}}
	w := &Worker{Store: st, Kinds: registry.Kinds(), Backend: func() (stackstate.Backend, error) { return fleet, nil }, StackTimeout: time.Minute}
	seeded, _ := seedSweptCluster(t, ctx, 0, do, st, w, fleet)
	cluster, pool := seeded[0], seeded[1]
	cm, _, err := w.manifest(ctx, cluster)
	if err != nil {
		t.Fatal(err)
	}
	lost := do.SeedCluster(godo.KubernetesCluster{Name: cluster.Name, RegionSlug: "fra1", VersionSlug: "1.31.1-do.5",
		Tags:      []string{stackmark.Of(fleet.ID(), cm.Target.Key()).Tag()},
		NodePools: []*godo.KubernetesNodePool{{Name: "default", Size: "s-2vcpu-4gb", Count: 1}}})
	sweep := &Sweep{Store: st, Every: time.Hour, Worker: w, insert: func(context.Context, []river.InsertManyParams) error { return nil }}
	if err := sweep.Work(ctx, &river.Job[SweepArgs]{}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		o      store.Object
		status string
		reason string
		says   string
	}{
		{"the cluster whose stack's mark the lost cluster carries", cluster, "True", "UnrecordedInCloud", lost},
		{"its pool", pool, "False", "InSync", "fleet scan"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sts, err := st.Statuses().List(ctx, tt.o.Type, tt.o.ID)
			if err != nil || len(sts) != 1 {
				t.Fatalf("statuses: %v, %v", sts, err)
			}
			d, _ := sts[0].Condition("Drifted")
			if d.Status != tt.status || d.Reason != tt.reason || !strings.Contains(d.Message, tt.says) {
				t.Errorf("Drifted %+v, want %s, %s, saying %s", d, tt.status, tt.reason, tt.says)
			}
		})
	}
}
