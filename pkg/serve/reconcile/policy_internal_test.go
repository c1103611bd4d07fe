package reconcile

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/change/policy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/serve/store"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// The API judges a body before it saves it, and the worker judges the stored body again before
// it deploys: the policy may have changed between the two (a replica started with another
// --policy). A stored object the worker's policy denies is refused and deploys nothing.
func TestAStoredObjectThePolicyNowDeniesIsRefusedAndNothingIsDeployed(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, store.SQLitePrefix+filepath.Join(t.TempDir(), "serve.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	p, err := policy.Parse("policy.yaml", []byte("rules:\n  - name: three-nodes\n    message: at least 3 nodes\n"+
		"    kinds: [DigitalOceanKubernetesCluster]\n    expression: spec.defaultNodePool.nodeCount >= 3\n"))
	if err != nil {
		t.Fatal(err)
	}
	// Saved as the API saves a body it accepted, under a policy without the rule.
	spec := `{"platform": {"type": "digitalocean", "digitalocean": {"region": "fra1", "kubernetesVersion": "1.31.1-do.5",
		"deletionProtection": false, "defaultNodePool": {"size": "s-2vcpu-4gb", "nodeCount": 2}}}}`
	o, err := st.Objects().Create(ctx, store.Object{Type: store.Cluster, Name: "api-fra1", Spec: json.RawMessage(spec), CreatedBy: "test"})
	if err != nil {
		t.Fatal(err)
	}
	b := deploytest.New()
	w := &Worker{Store: st, Kinds: registry.Kinds(), Policy: p, Backend: func() (stackstate.Backend, error) { return b, nil },
		StackTimeout: time.Minute}
	job := &river.Job[Args]{JobRow: &rivertype.JobRow{Attempt: 1, MaxAttempts: 5}, Args: Args{ObjectID: o.ID}}
	if err := w.Work(ctx, job); err != nil {
		t.Fatal(err)
	}
	sts, err := st.Statuses().List(ctx, store.Cluster, o.ID)
	if err != nil || len(sts) != 1 {
		t.Fatalf("statuses %v (%v), want the controller's", sts, err)
	}
	if ready, _ := sts[0].Condition("Ready"); ready.Status != "False" || ready.Reason != "Refused" || !strings.Contains(ready.Message, "policy") {
		t.Errorf("Ready %+v, want False, Refused by the policy", ready)
	}
	m, _, err := w.manifest(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if deployed, err := deploytarget.Deployed(ctx, b, m.Target.Key()); err != nil || deployed {
		t.Errorf("stack %s deployed %t (%v), want nothing deployed", m.Target.Key(), deployed, err)
	}
}
