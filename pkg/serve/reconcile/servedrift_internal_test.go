package reconcile

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/serve/store"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// serve's Drifted condition speaks of what serve does, the worker deploying the object's spec,
// never of the CLI's up, which a client of the API does not run: a console edit reads "the next
// deploy of the spec would update 1 (...)". `clusterplane status --drift` of the same stack still
// says "up would update 1".
func TestServesDriftedConditionSpeaksOfDeployingTheSpecNotOfUp(t *testing.T) {
	const clusterType = "digitalocean:index/kubernetesCluster:KubernetesCluster"
	upWord := regexp.MustCompile(`\bup\b`)
	tests := []struct {
		name string
		// edit changes the cluster in the cloud behind the API's back; nil leaves it.
		edit           func(b *deploytest.Backend, key, name string)
		status, reason string // serve's Drifted
		says, cliSays  string // in serve's message, and in the CLI's
	}{
		{"a console edit the next deploy puts back",
			func(b *deploytest.Backend, key, name string) {
				b.Edit(key, clusterType, name, "tags", []any{"hand-edited"})
			},
			"True", "ChangesPending", "the next deploy of the spec would update 1", "up would update 1"},
		{"a cloud left as the deploy made it", nil, "False", "InSync", "the cloud matches", "the cloud matches"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			st, err := store.Open(ctx, store.SQLitePrefix+filepath.Join(t.TempDir(), "serve.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(st.Close)
			spec := `{"platform": {"type": "digitalocean", "digitalocean": {"region": "fra1", "kubernetesVersion": "1.31.1-do.5",
				"deletionProtection": false, "defaultNodePool": {"size": "s-2vcpu-4gb", "nodeCount": 2}}}}`
			o, err := st.Objects().Create(ctx, store.Object{Type: store.Cluster, Name: "api-fra1", Spec: json.RawMessage(spec), CreatedBy: "test"})
			if err != nil {
				t.Fatal(err)
			}
			b := deploytest.New()
			w := &Worker{Store: st, Kinds: registry.Kinds(), Backend: func() (stackstate.Backend, error) { return b, nil }, StackTimeout: time.Minute}
			if err := w.Work(ctx, &river.Job[Args]{JobRow: &rivertype.JobRow{Attempt: 1, MaxAttempts: 5}, Args: Args{ObjectID: o.ID}}); err != nil {
				t.Fatal(err)
			}
			m, _, err := w.manifest(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			key := m.Target.Key()
			if tt.edit != nil {
				for _, r := range b.Resources(key) {
					if typ, name, _ := strings.Cut(r, "::"); typ == clusterType {
						tt.edit(b, key, name)
					}
				}
			}
			check := &Drift{Worker: w}
			if err := check.Work(ctx, &river.Job[DriftArgs]{JobRow: &rivertype.JobRow{Attempt: 1, MaxAttempts: 1}, Args: DriftArgs{ObjectID: o.ID}}); err != nil {
				t.Fatal(err)
			}
			sts, err := st.Statuses().List(ctx, store.Cluster, o.ID)
			if err != nil || len(sts) != 1 {
				t.Fatalf("statuses %v (%v), want the controller's", sts, err)
			}
			drifted, _ := sts[0].Condition("Drifted")
			if drifted.Status != tt.status || drifted.Reason != tt.reason || !strings.HasPrefix(drifted.Message, tt.says) {
				t.Errorf("serve's Drifted is %s/%s %q, want %s/%s beginning %q", drifted.Status, drifted.Reason, drifted.Message,
					tt.status, tt.reason, tt.says)
			}
			if upWord.MatchString(drifted.Message) {
				t.Errorf("serve's Drifted speaks of up, which a client of the API does not run: %q", drifted.Message)
			}
			cli := (&deploy.Deployer{Backend: b}).Status(ctx, m.Target, deploy.StatusOptions{Drift: true})
			if cli.Report == nil || !strings.HasPrefix(cli.Report.Condition("Drifted").Message, tt.cliSays) {
				t.Errorf("the CLI's status --drift: %+v, want its Drifted beginning %q", cli.Report, tt.cliSays)
			}
		})
	}
}
