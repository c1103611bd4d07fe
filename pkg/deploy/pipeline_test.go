package deploy_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/change/policy"
	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/pipeline"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// preview is the operation the pipeline tests run: a preview of each stack on the fake backend.
var preview = pipeline.Preview(deploy.PreviewOptions{})

// writeFiles writes each text to a file of its name in a new folder, and returns the folder.
func writeFiles(t *testing.T, texts map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range texts {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestThePipelineSaysEveryProblemOfTheInputBeforeAnyStackIsTouched(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"a.yaml": strings.Replace(clusterText("a", "prod"), "nodeCount: 2", "nodeCount: -1", 1),
		"b.yaml": strings.Replace(clusterText("b", "prod"), "region: fra1", "region: frankfurt", 1),
	})
	b := deploytest.New()
	outcomes, err := pipeline.Run(context.Background(), pipeline.Request{Paths: []string{dir},
		Files: reading(t, "", false), Backend: func() (stackstate.Backend, error) { return b, nil }, Parallel: 2, StackTimeout: time.Minute, Op: preview})
	var problems *deploytarget.ProblemsError
	if !errors.As(err, &problems) || len(problems.Problems) != 2 {
		t.Fatalf("want both files' problems in one *ProblemsError, got %v (%T)", err, err)
	}
	if outcomes != nil || len(b.Calls()) != 0 {
		t.Errorf("a stack was touched despite invalid input: outcomes %v, calls %v", outcomes, b.Calls())
	}
}

func TestThePipelineRunsNoStackWhenAPolicyDeniesOneManifest(t *testing.T) {
	dir := writeFiles(t, map[string]string{"a.yaml": clusterText("a", "prod"), "b.yaml": clusterText("b", "dev")})
	p, err := policy.Parse("policy.yaml", []byte(`rules:
  - name: prod-is-ha
    message: a production cluster needs a highly available control plane
    expression: metadata.env != "prod" || spec.?highlyAvailable.orValue(false)
`))
	if err != nil {
		t.Fatal(err)
	}
	b := deploytest.New()
	var said []string
	outcomes, err := pipeline.Run(context.Background(), pipeline.Request{Paths: []string{dir},
		Files: reading(t, "", false), Backend: func() (stackstate.Backend, error) { return b, nil }, Policy: p, Parallel: 2, StackTimeout: time.Minute, Op: pipeline.Up(deploy.UpOptions{}),
		Say: func(line string) { said = append(said, line) }})
	var denied *pipeline.PolicyDeniedError
	if !errors.As(err, &denied) {
		t.Fatalf("want a *PolicyDeniedError, got %v", err)
	}
	statuses := map[string]outcome.Status{}
	for _, o := range outcomes {
		statuses[o.Target.Key()] = o.Status
	}
	want := map[string]outcome.Status{"digitaloceankubernetescluster/a-prod": outcome.Blocked, "digitaloceankubernetescluster/b-dev": outcome.Skipped}
	for key, status := range want {
		if statuses[key] != status {
			t.Errorf("%s: %s, want %s (all: %v)", key, statuses[key], status, statuses)
		}
	}
	if len(said) != 1 || !strings.Contains(said[0], "prod-is-ha") {
		t.Errorf("the denial was not said once, naming its rule: %q", said)
	}
	for _, c := range b.Calls() {
		if !strings.HasPrefix(c, "open ") && !strings.HasPrefix(c, "exists ") {
			t.Errorf("a stack ran despite the denial: %s", c)
		}
	}
}

// Promise: architecture-pipeline-refuses-before-the-queue
func TestThePipelineRefusesEveryStackWhenAWholeGuardRefusesOne(t *testing.T) {
	dir := writeFiles(t, map[string]string{"a.yaml": clusterText("a", "prod"), "b.yaml": clusterText("b", "prod")})
	b := deploytest.New()
	ran := 0
	outcomes, err := pipeline.Run(context.Background(), pipeline.Request{Paths: []string{dir},
		Files: reading(t, "", false), Backend: func() (stackstate.Backend, error) { return b, nil }, Parallel: 2, StackTimeout: time.Minute, Whole: true,
		Guard: func(_ context.Context, _ stackstate.Backend, targets []deploytarget.Target) (map[string]error, error) {
			return map[string]error{targets[0].Key(): errors.New("moved since the plan")}, nil
		},
		Op: pipeline.Up(deploy.UpOptions{}).Around(func(c pipeline.Call) outcome.Outcome {
			ran++
			return c.Run()
		})})
	if err != nil {
		t.Fatal(err)
	}
	if ran != 0 || len(outcomes) != 2 {
		t.Fatalf("ran %d stacks, %d outcomes; want none run and 2 outcomes", ran, len(outcomes))
	}
	for _, o := range outcomes {
		if o.Status != outcome.Blocked {
			t.Errorf("%s: %s, want blocked", o.Target.Key(), o.Status)
		}
	}
}

// status exits 4 for every Ready=False a script must stop at, a rotation stopped midway among
// them, and for drift that status --drift found; 0 for a stack that is ready or was destroyed on
// purpose, and for drift not checked.
// Promise: status-exit-codes
func TestStatusCountsAStoppedRotationAndFoundDriftAsNotReady(t *testing.T) {
	tests := []struct {
		condition outcome.Condition
		want      bool
	}{
		{outcome.Condition{Type: "Ready", Status: "False", Reason: "RotationUnderWay"}, true},
		{outcome.Condition{Type: "Ready", Status: "False", Reason: "OrphanPool"}, true},
		{outcome.Condition{Type: "Ready", Status: "False", Reason: "ManifestChanged"}, true},
		{outcome.Condition{Type: "Ready", Status: "False", Reason: "LastUpdateFailed"}, true},
		{outcome.Condition{Type: "Ready", Status: "False", Reason: "Destroyed"}, false},
		{outcome.Condition{Type: "Drifted", Status: "True", Reason: "ChangesPending"}, true},
		{outcome.Condition{Type: "Drifted", Status: "False", Reason: "InSync"}, false},
		{outcome.Condition{Type: "Drifted", Status: "Unknown", Reason: "NotChecked"}, false},
	}
	for _, tt := range tests {
		ready := outcome.Condition{Type: "Ready", Status: "True", Reason: "Deployed"}
		st := &outcome.StackStatus{Conditions: []outcome.Condition{ready, tt.condition}}
		if got := st.NotReady(); got != tt.want {
			t.Errorf("%s=%s %s: not ready %t, want %t", tt.condition.Type, tt.condition.Status, tt.condition.Reason, got, tt.want)
		}
	}
}

func TestThePipelineRefusesARequestWithoutAnOperationOrABackend(t *testing.T) {
	b := deploytest.New()
	open := func() (stackstate.Backend, error) { return b, nil }
	for _, r := range []pipeline.Request{{Backend: open}, {Op: preview}} {
		if _, err := pipeline.Run(context.Background(), r); err == nil || !strings.Contains(err.Error(), "needs an Op") {
			t.Errorf("a request without its Op or Backend ran: %v", err)
		}
	}
}

// providerBackend is the fake backend as the engine is: its stacks run provider plugins, which
// need a cloud's token.
type providerBackend struct{ *deploytest.Backend }

var _ stackstate.Backend = providerBackend{}

func (providerBackend) RunsProviders() bool { return true }

// On a backend that runs the providers, an operation that asks the cloud is refused before any
// stack is touched when a manifest's cloud has no token, naming the file and the variable to set;
// status reads the backend alone and runs, and a token in the environment lets the up run.
// Promise: up-without-a-token-refused-before-the-engine
func TestAnOperationThatAsksTheCloudWithoutItsTokenIsRefusedBeforeAnyStackRuns(t *testing.T) {
	dir := writeFiles(t, map[string]string{"a.yaml": clusterText("a", "prod")})
	cloud := httptest.NewServer(http.NotFoundHandler()) // asked what it offers, it answers nothing
	defer cloud.Close()
	for _, tc := range []struct {
		name    string
		op      pipeline.Step
		token   string
		refused bool
	}{
		{"an up with no token is refused", pipeline.Up(deploy.UpOptions{}), "", true},
		{"a preview with no token is refused", preview, "", true},
		{"a destroy with no token is refused", pipeline.Destroy(deploy.DestroyOptions{}), "", true},
		{"a status with no token runs", pipeline.Status(false), "", false},
		{"an up with a token runs", pipeline.Up(deploy.UpOptions{}), "dop_v1_test-token-never-shown", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := reading(t, "", false) // which clears the tokens
			t.Setenv("DIGITALOCEAN_TOKEN", tc.token)
			t.Setenv("DIGITALOCEAN_API_URL", cloud.URL)
			b := providerBackend{deploytest.New()}
			_, err := pipeline.Run(context.Background(), pipeline.Request{Paths: []string{dir},
				Files: files, Backend: func() (stackstate.Backend, error) { return b, nil }, Parallel: 1,
				StackTimeout: time.Minute, Op: tc.op})
			var problems *deploytarget.ProblemsError
			refused := errors.As(err, &problems)
			if refused != tc.refused {
				t.Fatalf("refused %v (%v), want %v", refused, err, tc.refused)
			}
			if !refused {
				return
			}
			if msg := err.Error(); !strings.Contains(msg, "a.yaml: no DigitalOcean API token: set DIGITALOCEAN_TOKEN") {
				t.Errorf("error %q does not name the file and the variable", msg)
			}
			for _, c := range b.Calls() {
				if !strings.HasPrefix(c, "exists ") {
					t.Errorf("a stack was touched before the refusal: %s", c)
				}
			}
		})
	}
}

// A shell that still holds the sandbox's variables after `clusterplane sandbox stop` points the
// providers at a closed loopback port. An operation that asks the cloud is then refused before any
// stack is touched, naming the sandbox and how to start it again; with the sandbox's API
// answering, or outside the sandbox, the same up runs.
// Promise: sandbox-stopped-refused-before-the-engine
func TestAnOperationInAStoppedSandboxIsRefusedBeforeAnyStackRuns(t *testing.T) {
	dir := writeFiles(t, map[string]string{"a.yaml": clusterText("a", "prod")})
	running := httptest.NewServer(http.NotFoundHandler())
	defer running.Close()
	stopped := httptest.NewServer(http.NotFoundHandler())
	stopped.Close() // its port answers nothing now, as a stopped sandbox's
	for _, tc := range []struct {
		name    string
		op      pipeline.Step
		sandbox string
		apiURL  string
		refused bool
	}{
		{"an up in a stopped sandbox is refused", pipeline.Up(deploy.UpOptions{}), "/home/u/.clusterplane-sandbox", stopped.URL, true},
		{"a drift in a stopped sandbox is refused", pipeline.Drift(false), "/home/u/.clusterplane-sandbox", stopped.URL, true},
		{"a preview in a stopped sandbox is refused", pipeline.Preview(deploy.PreviewOptions{}), "/home/u/.clusterplane-sandbox", stopped.URL, true},
		{"a destroy in a stopped sandbox is refused", pipeline.Destroy(deploy.DestroyOptions{}), "/home/u/.clusterplane-sandbox", stopped.URL, true},
		{"a refresh in a stopped sandbox is refused", pipeline.Refresh(deploy.RefreshOptions{}), "/home/u/.clusterplane-sandbox", stopped.URL, true},
		{"an adopt in a stopped sandbox is refused", pipeline.Adopt(func(string) string { return "4d24060e" }, deploy.AdoptOptions{}),
			"/home/u/.clusterplane-sandbox", stopped.URL, true},
		{"a status in a stopped sandbox runs", pipeline.Status(false), "/home/u/.clusterplane-sandbox", stopped.URL, false},
		{"an up in a running sandbox runs", pipeline.Up(deploy.UpOptions{}), "/home/u/.clusterplane-sandbox", running.URL, false},
		{"an up outside the sandbox is the engine's to run", pipeline.Up(deploy.UpOptions{}), "", stopped.URL, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := reading(t, "", false)
			t.Setenv("CLUSTERPLANE_SANDBOX", tc.sandbox)
			t.Setenv("DIGITALOCEAN_TOKEN", "sandbox-digitalocean-token-loopback-only")
			t.Setenv("DIGITALOCEAN_API_URL", tc.apiURL)
			b := providerBackend{deploytest.New()}
			_, err := pipeline.Run(context.Background(), pipeline.Request{Paths: []string{dir},
				Files: files, Backend: func() (stackstate.Backend, error) { return b, nil }, Parallel: 1,
				StackTimeout: time.Minute, Op: tc.op})
			var problems *deploytarget.ProblemsError
			if refused := errors.As(err, &problems); refused != tc.refused {
				t.Fatalf("refused %v (%v), want %v", refused, err, tc.refused)
			}
			if !tc.refused {
				return
			}
			want := "a.yaml: the clusterplane sandbox in /home/u/.clusterplane-sandbox is not running: nothing answers at " +
				tc.apiURL + " (DIGITALOCEAN_API_URL)"
			if msg := err.Error(); !strings.Contains(msg, want) || !strings.Contains(msg, "clusterplane sandbox env") {
				t.Errorf("error %q does not name the file, the sandbox and how to start it", msg)
			}
			for _, c := range b.Calls() {
				if !strings.HasPrefix(c, "exists ") {
					t.Errorf("a stack was touched before the refusal: %s", c)
				}
			}
		})
	}
}
