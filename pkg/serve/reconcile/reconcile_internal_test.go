package reconcile

import (
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/change/rotation"
	"github.com/clusterplane/clusterplane/pkg/deploy/createguard"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/serve/body"
	"github.com/clusterplane/clusterplane/pkg/serve/store"
)

func TestARotationsStatusSaysItsPhaseAndPools(t *testing.T) {
	tests := []struct {
		name  string
		state rotation.State
		want  string
		phase string
	}{
		{"a rotation just started", rotation.State{OldID: "old"}, "rotating pool workers: started, the surge pool is made next (old pool old, surge pool not made yet)", "started"},
		{"a rotation past its drain", rotation.State{Phase: rotation.Drained, OldID: "old", SurgeID: "surge"}, "rotating pool workers: the old pool is drained (old pool old, surge pool surge)", "drained"},
		{"a second hop", rotation.State{Phase: rotation.SurgeReady, Hop: 1, OldID: "surge", SurgeID: "back"}, "rotating pool workers, second hop (back to its name): the surge pool's nodes are Ready (pool surge, pool back)", "surge-ready"},
		{"a roll-back", rotation.State{Phase: rotation.RollingBack, OldID: "old", SurgeID: "surge"}, "rolling back, the surge pool goes", "rolling-back"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := rotating("workers", tt.state)
			progressing, _ := st.Condition("Progressing")
			ready, _ := st.Condition("Ready")
			if progressing.Status != "True" || progressing.Reason != "Rotating" || ready.Status != "Unknown" {
				t.Errorf("conditions %v, want Progressing=True Rotating and Ready=Unknown", st.Conditions)
			}
			if !strings.Contains(progressing.Message, tt.want) {
				t.Errorf("message %q, want %q", progressing.Message, tt.want)
			}
			if r, _ := st.Metadata["rotation"].(map[string]any); r["phase"] != tt.phase || r["hop"] != tt.state.Hop+1 || r["pool"] != "workers" {
				t.Errorf("metadata %v, want phase %s", st.Metadata, tt.phase)
			}
		})
	}
}

func TestADriftCheckWritesOnlyWhileTheStatusIsOfTheGenerationItChecked(t *testing.T) {
	deployed := store.ControllerStatus{ObservedGeneration: 3, Metadata: map[string]any{"region": "fra1", "active_nodes": 2},
		Conditions: []store.Condition{condition("Ready", "True", "Deployed", ""), condition("Drifted", "False", "InSync", ""),
			condition("Progressing", "False", "Deployed", "")}}
	deploying := deployed
	deploying.Conditions = []store.Condition{condition("Ready", "Unknown", "Reconciling", ""), condition("Progressing", "True", "Reconciling", "")}
	older := deployed
	older.ObservedGeneration = 2
	tests := []struct {
		name   string
		object store.Object
		prior  *store.ControllerStatus
		writes bool
	}{
		{"the status of the generation checked", store.Object{Generation: 3}, &deployed, true},
		{"no status yet", store.Object{Generation: 3}, nil, false},
		{"a write moved the generation on", store.Object{Generation: 4}, &deployed, false},
		{"the status of another generation", store.Object{Generation: 3}, &older, false},
		{"a worker deploying", store.Object{Generation: 3}, &deploying, false},
		{"the object being deleted", store.Object{Generation: 3, Deleting: true}, &deployed, false},
	}
	drifted := condition("Drifted", "True", "ChangesPending", "up would update 1")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, writes := checked(3, drifted)(tt.object, tt.prior)
			if writes != tt.writes {
				t.Fatalf("writes %t, want %t", writes, tt.writes)
			}
			if !writes {
				return
			}
			if d, _ := st.Condition("Drifted"); d.Status != "True" || d.Reason != "ChangesPending" {
				t.Errorf("Drifted %v, want the check's", d)
			}
			if r, _ := st.Condition("Ready"); r.Status != "True" || len(st.Conditions) != 3 {
				t.Errorf("the other conditions changed: %v", st.Conditions)
			}
			if st.Metadata["active_nodes"] != 2 || st.Metadata["region"] != "fra1" {
				t.Errorf("metadata %v, want the last deploy's", st.Metadata)
			}
		})
	}
}

// An object left Interrupted says what recovers it, for a client of the API: the commands on
// the object's manifest (not the worker's copy, gone by then), then the PUT that deploys again.
// Promise: api-rescue-refuses-several-of-the-name
func TestAnInterruptedStatusNamesTheCommandsAndTheRequestThatRecoverIt(t *testing.T) {
	pool := store.Object{ID: "5f0c", Type: store.NodePool, Name: "workers"}
	create := stackstate.PendingCreate{URN: "urn:pulumi:s::p::digitalocean:index/kubernetesNodePool:KubernetesNodePool::workers",
		Type: "digitalocean:index/kubernetesNodePool:KubernetesNodePool", Name: "workers"}
	worker := "/tmp/clusterplane-serve-1/5f0c.yaml"
	tests := []struct {
		name string
		err  error
		want []string
	}{
		{"creates left pending, the cloud holding one", &stackstate.PendingCreatesError{Leftovers: stackstate.Leftovers{
			Creates: []stackstate.PendingCreate{create}, Cancel: "`pulumi cancel --stack s`", Looked: true,
			Found: []kinds.Live{{ID: "np-1", Name: "workers"}}}},
			[]string{"`clusterplane refresh MANIFEST --import-pending-create np-1`", "`pulumi cancel --stack s`"}},
		{"creates left pending, the cloud holding none", &stackstate.PendingCreatesError{Leftovers: stackstate.Leftovers{
			Creates: []stackstate.PendingCreate{create}, Cancel: "`pulumi cancel --stack s`", Looked: true}},
			[]string{"`clusterplane refresh MANIFEST --clear-pending-creates`"}},
		{"the engine's lock left", &stackstate.LockedError{Cancel: "`pulumi cancel --stack s`"},
			[]string{"remove its lock with `pulumi cancel --stack s`"}},
		{"an operation interrupted with operations pending", &stackstate.InterruptedError{File: worker,
			Leftovers: stackstate.Leftovers{Others: 1, Cancel: "`pulumi cancel --stack s`"}},
			[]string{"`clusterplane refresh MANIFEST`"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := fromUp(pool, outcome.Outcome{Status: outcome.Blocked, Err: tt.err}, nil, "digitalocean")
			ready, _ := st.Condition("Ready")
			if ready.Reason != "Interrupted" {
				t.Fatalf("Ready %v, want Interrupted", ready)
			}
			want := append(tt.want, "manifest of this node pool (workers",
				"send PUT /api/v1/nodepools/5f0c with the same spec and If-Match: its resource_version")
			for _, w := range want {
				if !strings.Contains(ready.Message, w) {
					t.Errorf("message %q\ndoes not name %q", ready.Message, w)
				}
			}
			if strings.Contains(ready.Message, worker) {
				t.Errorf("message %q names the worker's own copy of the manifest", ready.Message)
			}
		})
	}
}

// A pool or cluster the cloud already holds under the object's name is refused before anything
// is made; the message is for a client of the API, which has no manifest file to adopt with.
// Promise: api-name-the-cloud-holds-refused
func TestAPoolTheCloudAlreadyHoldsIsRefusedNamingItAndWhatTheClientCanDo(t *testing.T) {
	pool := store.Object{ID: "5f0c", Type: store.NodePool, Name: "workers"}
	live := []kinds.Live{{Type: "node pool", Name: "workers", Where: "cluster c-1", ID: "np-9"}}
	tests := []struct {
		name      string
		err       *createguard.ExistingError
		want, not []string
	}{
		{"a pool made outside clusterplane", &createguard.ExistingError{File: body.File, Live: live, NameField: "spec.nodePoolName"},
			[]string{"node pool workers in cluster c-1 (id np-9)", "this attempt created nothing", "delete it in the cloud",
				"send PUT /api/v1/nodepools/5f0c with the same spec and If-Match: its resource_version",
				"`clusterplane adopt MANIFEST --id np-9`", "DELETE /api/v1/nodepools/5f0c", "destroys nothing"},
			[]string{"adopt " + body.File, "run up again", "earlier attempt"}},
		{"a pool another stack manages", &createguard.ExistingError{File: body.File, Live: live, ManagedBy: "digitaloceankubernetesnodepool/prod",
			NameField: "spec.nodePoolName"},
			[]string{"node pool workers in cluster c-1 (id np-9)", "digitaloceankubernetesnodepool/prod", "another name",
				"DELETE /api/v1/nodepools/5f0c"},
			[]string{"this manifest", "clusterplane adopt"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := fromUp(pool, outcome.Outcome{Status: outcome.Blocked, Reason: "refused", Err: tt.err}, nil, "digitalocean")
			ready, _ := st.Condition("Ready")
			if ready.Reason != "Refused" {
				t.Fatalf("Ready %v, want Refused", ready)
			}
			for _, w := range tt.want {
				if !strings.Contains(ready.Message, w) {
					t.Errorf("message %q\ndoes not say %q", ready.Message, w)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(ready.Message, n) {
					t.Errorf("message %q\nsays %q, which an API client cannot follow", ready.Message, n)
				}
			}
		})
	}
}

// A later attempt of a job that finds the name taken says that its earlier attempt's create, which
// the cloud may have carried out while answering with an error, may have made it; a pool another
// stack manages, or a first attempt, says nothing of the kind.
// Promise: api-later-attempt-says-own-create
func TestALaterAttemptThatFindsTheNameTakenSaysAnEarlierAttemptMayHaveMadeIt(t *testing.T) {
	pool := store.Object{ID: "5f0c", Type: store.NodePool, Name: "workers"}
	live := []kinds.Live{{Type: "node pool", Name: "workers", Where: "cluster c-1", ID: "np-9"}}
	for _, tt := range []struct {
		name string
		err  *createguard.ExistingError
		want bool
	}{
		{"a pool no stack holds", &createguard.ExistingError{File: body.File, Live: live}, true},
		{"a pool another stack manages", &createguard.ExistingError{File: body.File, Live: live, ManagedBy: "digitaloceankubernetesnodepool/prod"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := outcome.Outcome{Status: outcome.Blocked, Reason: "refused", Err: tt.err}
			st := mayBeOwnCreate(fromUp(pool, out, nil, "digitalocean"), out)
			ready, _ := st.Condition("Ready")
			if got := strings.Contains(ready.Message, "this may be the one it made"); got != tt.want || ready.Reason != "Refused" {
				t.Errorf("Ready %s %q: says an earlier attempt may have made it %v, want %v", ready.Reason, ready.Message, got, tt.want)
			}
		})
	}
}
