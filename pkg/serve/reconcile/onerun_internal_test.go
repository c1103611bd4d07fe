package reconcile

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/pipeline"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/serve/store"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// A reconcile builds the object's target from its stored row in memory and runs the pipeline
// once: up and then status in the one run, no manifest written to a file.
func TestAReconcileWritesNoFileAndRunsThePipelineOnce(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, store.SQLitePrefix+filepath.Join(t.TempDir(), "serve.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	// The temporary folder is a file: a reconcile that wrote its manifest to a temporary file
	// fails.
	tmp := filepath.Join(t.TempDir(), "not-a-folder")
	if err := os.WriteFile(tmp, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmp)
	spec := `{"platform": {"type": "digitalocean", "digitalocean": {"region": "fra1", "kubernetesVersion": "1.31.1-do.5",
		"deletionProtection": false, "defaultNodePool": {"size": "s-2vcpu-4gb", "nodeCount": 2}}}}`
	o, err := st.Objects().Create(ctx, store.Object{Type: store.Cluster, Name: "api-fra1", Spec: json.RawMessage(spec), CreatedBy: "test"})
	if err != nil {
		t.Fatal(err)
	}
	b := deploytest.New()
	runs := 0
	w := &Worker{Store: st, Kinds: registry.Kinds(), Backend: func() (stackstate.Backend, error) { return b, nil }, StackTimeout: time.Minute,
		pipeline: func(ctx context.Context, r pipeline.Request) ([]outcome.Outcome, error) {
			runs++
			return pipeline.Run(ctx, r)
		}}
	job := &river.Job[Args]{JobRow: &rivertype.JobRow{Attempt: 1, MaxAttempts: 5}, Args: Args{ObjectID: o.ID}}
	if err := w.Work(ctx, job); err != nil {
		t.Fatal(err)
	}
	if runs != 1 {
		t.Errorf("the pipeline ran %d times, want once", runs)
	}
	sts, err := st.Statuses().List(ctx, store.Cluster, o.ID)
	if err != nil || len(sts) != 1 {
		t.Fatalf("statuses %v (%v), want the controller's", sts, err)
	}
	if ready, _ := sts[0].Condition("Ready"); ready.Status != "True" {
		t.Errorf("Ready %+v, want True", ready)
	}
	if drifted, _ := sts[0].Condition("Drifted"); drifted.Status == "" {
		t.Errorf("conditions %+v, want status's Drifted after up", sts[0].Conditions)
	}
}
