package reconcile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/serve/store"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

func TestAFailureIsRetriedWhileAttemptsAreLeftAndOnTheLastSaysItGaveUp(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, store.SQLitePrefix+filepath.Join(t.TempDir(), "serve.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	w := &Worker{Store: st}
	failure := errors.New("destroy of cluster a: the cloud said no")
	tests := []struct {
		name      string
		attempt   int
		cancelled bool
		reason    string
	}{
		{"a failure with attempts left is returned for River to retry, the status left as it was", 1, false, ""},
		{"a failure on the next to last attempt is still retried", 4, false, ""},
		{"a failure on the last attempt says it gave up and cancels the job", 5, true, GaveUp},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := st.Objects().Create(ctx, store.Object{Type: store.Cluster, Name: fmt.Sprint("c", i), Spec: json.RawMessage(`{}`), CreatedBy: "test"})
			if err != nil {
				t.Fatal(err)
			}
			job := &river.Job[Args]{JobRow: &rivertype.JobRow{Attempt: tt.attempt, MaxAttempts: 5}, Args: Args{ObjectID: o.ID}}
			err = w.failing(ctx, job, o, failure)
			var cancel *rivertype.JobCancelError
			if errors.As(err, &cancel) != tt.cancelled || !errors.Is(err, failure) {
				t.Errorf("failing = %v, want the failure, cancelled: %t", err, tt.cancelled)
			}
			sts, err := st.Statuses().List(ctx, store.Cluster, o.ID)
			if err != nil {
				t.Fatal(err)
			}
			if tt.reason == "" {
				if len(sts) != 0 {
					t.Errorf("status %v, want none written", sts)
				}
				return
			}
			if len(sts) != 1 {
				t.Fatalf("status %v, want the controller's", sts)
			}
			ready, _ := sts[0].Condition("Ready")
			degraded, _ := sts[0].Condition("Degraded")
			if ready.Status != "False" || ready.Reason != tt.reason || degraded.Status != "True" ||
				!strings.Contains(ready.Message, "gave up after 5 attempts") || !strings.Contains(ready.Message, "the cloud said no") {
				t.Errorf("conditions %+v, want Ready False and Degraded True, reason %s, saying it gave up and why", sts[0].Conditions, tt.reason)
			}
		})
	}
}
