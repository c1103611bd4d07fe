package autostack

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/change/upgrade"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/kubeversion"
)

// The engine's words in testdata were recorded once from the real Pulumi CLI v3.259.0 through
// the Automation API (the error each operation returned), with the real DigitalOcean plugin
// against the loopback API.
func TestClassifyReadsTheEnginesOwnWordsIntoTypedErrors(t *testing.T) {
	b := &Backend{url: "file:///state", secrets: "gcpkms://projects/p/locations/l/keyRings/r/cryptoKeys/k"}
	s := &stackOf{backend: b, project: "p", stack: "s"}
	tests := []struct {
		file string
		want any
		// says is what the typed error must say.
		says string
	}{
		{"protected-replace.txt", &stackstate.ProtectedError{}, "digitalocean:index/kubernetesCluster:KubernetesCluster c is protected"},
		{"protected-delete.txt", &stackstate.ProtectedError{}, "digitalocean:index/kubernetesCluster:KubernetesCluster c is protected"},
		{"wrong-passphrase-export.txt", &stackstate.PassphraseError{}, "does not match the one the stack's secrets were encrypted with"},
		{"wrong-passphrase-preview.txt", &stackstate.PassphraseError{}, "PULUMI_CONFIG_PASSPHRASE"},
		{"locked.txt", &stackstate.LockedError{}, "pulumi cancel --stack organization/p/s --yes"},
		{"secrets-provider.txt", &stackstate.SecretsProviderError{}, "could not create secrets manager for new stack: missing google credentials"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			got := classify(context.Background(), "preview", errors.New(string(data)), "", b, s)
			target := reflect.New(reflect.TypeOf(tt.want)).Interface()
			if !errors.As(got, target) {
				t.Fatalf("classify = %T %v, want %T", got, got, tt.want)
			}
			if !strings.Contains(got.Error(), tt.says) {
				t.Errorf("%v\ndoes not say %q", got, tt.says)
			}
		})
	}
}

func TestAnyOtherFailureSaysTheCloudsAnswerWithoutTheProvidersNoise(t *testing.T) {
	// As the engine reported a create the DigitalOcean API refused (e2e, a VPC it did not know).
	const cluster = "digitalocean:index/kubernetesCluster:KubernetesCluster platform-ams3"
	c := &collector{errors: []diagnostic{
		{"", "update failed"},
		{cluster, `  sdk-v2/provider2.go:572: sdk.helper_schema: Error creating Kubernetes cluster: POST ` +
			`http://127.0.0.1:41321/v2/kubernetes/clusters: 422 (request "ece1") validation error: invalid vpc_uuid: provider=digitalocean@4.57.0`},
		{cluster, "1 error occurred:\n\t* Error creating Kubernetes cluster: " +
			`POST http://127.0.0.1:41321/v2/kubernetes/clusters: 422 (request "ece1") validation error: invalid vpc_uuid` + "\n\n"},
	}}
	want := `digitalocean:index/kubernetesCluster:KubernetesCluster platform-ams3: Error creating Kubernetes cluster: POST ` +
		`http://127.0.0.1:41321/v2/kubernetes/clusters: 422 (request "ece1") validation error: invalid vpc_uuid`
	if got := c.cause(); got != want {
		t.Errorf("cause = %q\nwant    %q", got, want)
	}
	err := classify(context.Background(), "update", errors.New("failed to run update: exit status 1"), c.cause(), &Backend{}, &stackOf{})
	var engine *stackstate.EngineError
	if !errors.As(err, &engine) || err.Error() != "update failed: "+want {
		t.Errorf("classify = %v", err)
	}
}

// The engine's words in testdata/backend-*.txt were recorded from the real Pulumi CLI v3.259.0
// through the Automation API (auto.SelectStack) with PULUMI_BACKEND_URL naming a PostgreSQL
// database it could not open: nothing listening, a wrong password, a missing database, an
// sslmode the server refuses. The engine quotes the URL, password and all.
func TestABackendsPasswordTheEngineQuotesNeverLeavesClassify(t *testing.T) {
	tests := []struct {
		file, password string
		// says is what the error must still say: the cause, without the password.
		says string
	}{
		{"backend-unreachable.txt", "S3cretPassw0rd", `"postgres://clusterplane:[redacted]@127.0.0.1:1/state?sslmode=disable": failed to ping PostgreSQL: dial tcp 127.0.0.1:1: connect: connection refused`},
		{"backend-wrong-password.txt", "S3cretPassw0rd", `password authentication failed for user "clusterplane"`},
		{"backend-missing-database.txt", "Sup3rPassw0rd", `database "nosuchdb" does not exist`},
		{"backend-sslmode.txt", "S3cretPassw0rd", "SSL is not enabled on the server"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(data), tt.password) {
				t.Fatalf("the recording does not hold the password %q", tt.password)
			}
			b := &Backend{url: "postgres://clusterplane:" + tt.password + "@127.0.0.1/state", secrets: "passphrase"}
			s := &stackOf{backend: b, project: "p", stack: "s"}
			// As the engine's error comes, and as its diagnostics stream it (the cause).
			for _, cause := range []string{"", strings.TrimSpace(string(data))} {
				got := classify(context.Background(), "select the stack", errors.New(string(data)), cause, b, s)
				var engine *stackstate.EngineError
				if !errors.As(got, &engine) {
					t.Fatalf("classify = %T %v, want an EngineError", got, got)
				}
				if strings.Contains(got.Error(), tt.password) || strings.Contains(engine.Cause, tt.password) {
					t.Errorf("the error says the password:\n%v", got)
				}
				if !strings.Contains(got.Error(), tt.says) {
					t.Errorf("%v\ndoes not say %q", got, tt.says)
				}
			}
		})
	}
}

func TestTheRunsSecretsNeverLeaveClassify(t *testing.T) {
	t.Setenv("DIGITALOCEAN_TOKEN", "dop_v1_sentinel0token")
	t.Setenv(BackendEnv, "postgres://clusterplane:EnvPassw0rd@db/state")
	b := &Backend{url: "postgres://clusterplane:EnvPassw0rd@db/state", secrets: "awskms://alias/k?region=x&password=KmsSecret"}
	s := &stackOf{backend: b, project: "p", stack: "s"}
	tests := []struct{ name, text, cause string }{
		{"a token the provider echoes", "failed", "digitalocean:index/kubernetesCluster:KubernetesCluster c: GET https://api: 401 token dop_v1_sentinel0token"},
		{"the password alone", "stderr: error: could not connect: EnvPassw0rd rejected", ""},
		{"a secrets provider's setting", "stderr: error: constructing secrets manager failed", ""},
		{"a protected resource's message", "stderr: error: resource \"urn:pulumi:s::p::t::c\" cannot be deleted postgres://u:EnvPassw0rd@db", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := classify(context.Background(), "update", errors.New(tt.text), tt.cause, b, s).Error()
			for _, secret := range []string{"dop_v1_sentinel0token", "EnvPassw0rd", "KmsSecret"} {
				if strings.Contains(got, secret) {
					t.Errorf("the error says %q:\n%s", secret, got)
				}
			}
		})
	}
}

func TestTheCancelCommandNeverShowsTheBackendsPassword(t *testing.T) {
	t.Setenv(BackendEnv, "")
	tests := []struct{ url, want string }{
		{"postgres://clusterplane:S3cretPassw0rd@db:5432/state?sslmode=disable",
			"`PULUMI_BACKEND_URL='postgres://clusterplane:[redacted]@db:5432/state?sslmode=disable' pulumi cancel --stack organization/p/s --yes` " +
				"(with the backend's password in place of [redacted])"},
		{"file:///state", "`PULUMI_BACKEND_URL=file:///state pulumi cancel --stack organization/p/s --yes`"},
	}
	for _, tt := range tests {
		s := &stackOf{backend: &Backend{url: tt.url}, project: "p", stack: "s"}
		if got := s.CancelCommand(); got != tt.want {
			t.Errorf("CancelCommand() = %s\nwant %s", got, tt.want)
		}
	}
}

func TestAMissingProviderPluginSaysTheCommandThatInstallsIt(t *testing.T) {
	b := &Backend{url: "file:///state"}
	s := &stackOf{backend: b, project: "p", stack: "s"}
	tests := []struct{ plugin, version, says string }{
		{"digitalocean", "4.57.0", "pulumi plugin install resource digitalocean 4.57.0"},
		{"civo", "2.4.8", "pulumi plugin install resource civo 2.4.8"},
		{"digitalocean", "4.57.0", "make engine"},
	}
	for _, tt := range tests {
		t.Run(tt.says, func(t *testing.T) {
			// As the engine words it (workspace.MissingError), inside the CLI's output.
			text := "code: 255\nstderr: error: could not load plugin for digitalocean provider " +
				"'urn:pulumi:s::p::pulumi:providers:" + tt.plugin + "::c': no resource plugin 'pulumi-resource-" + tt.plugin +
				"' found in the workspace at version v" + tt.version + " or on your $PATH\n"
			got := classify(context.Background(), "up", errors.New(text), "", b, s)
			if !strings.Contains(got.Error(), tt.says) {
				t.Errorf("%v\ndoes not say %q", got, tt.says)
			}
		})
	}
}

// The cloud's answers are quoted as the clouds' clients (godo's ErrorResponse.Error, civogo's
// DecodeError) word them, inside the bridged provider's diagnostic.
func TestAnEngineFailureKnowsTheCloudsStatusSoThatOnlyA429OrA5xxRunsAgain(t *testing.T) {
	tests := []struct {
		name      string
		text      string
		status    int
		transient bool
	}{
		{"a throttled create", `error: creating urn:pulumi:s::p::digitalocean:index/kubernetesCluster:KubernetesCluster::dev-fra1: ` +
			`1 error occurred: * Error creating Kubernetes cluster: POST https://api.digitalocean.com/v2/kubernetes/clusters: ` +
			`429 (request "5b2d") API Rate limit exceeded`, 429, true},
		{"a server error without a request id", `Error reading cluster: GET http://127.0.0.1:4000/v2/kubernetes/clusters/abc: 503 busy`, 503, true},
		{"a size the cloud does not offer", `POST https://api.digitalocean.com/v2/kubernetes/clusters: 422 (request "x") invalid size`, 422, false},
		{"an answer asking again would not mend counts first", "GET https://a/v2/x: 503 busy\nPOST https://a/v2/x: 401 (request \"r\") Unable to authenticate you", 401, false},
		{"several answers of not now", "GET https://a/v2/x: 503 busy\nPOST https://a/v2/x: 429 slow down", 429, true},
		// As the real Civo plugin (civogo) words a 429 of the loopback API (e2e/faults_test.go).
		{"a throttled Civo create", `error: sdk-v2/provider2.go:515: sdk.helper_schema: [ERR] failed to create the kubernetes cluster: ` +
			`Error: Unknown error response - status: 429 Too Many Requests, code: 429, reason: {"code":"too_many_requests",` +
			`"reason":"Too Many Requests","result":"failed"} : provider=civo@2.4.8`, 429, true},
		{"a Civo server error", `error waiting for cluster (2788) to be created: Error: Unknown error response - status: 503 ` +
			`Service Unavailable, code: 503, reason: {}`, 503, true},
		{"a Civo refusal it names", `[ERR] failed to create a new firewall: dev-fra1, err: DatabaseNetworkNotFoundError: no network n in fra1`, 0, false},
		{"no answer quoted", `error: update failed: context deadline exceeded`, 0, false},
		{"a status in other words is not an answer", `error: 500 resources were read`, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := classify(context.Background(), "update", errors.New(tt.text), "", &Backend{url: "file:///state"}, &stackOf{})
			var engine *stackstate.EngineError
			if !errors.As(got, &engine) || engine.Status != tt.status || engine.Transient() != tt.transient {
				t.Errorf("classify(%q) = %#v, want status %d, transient %t", tt.text, got, tt.status, tt.transient)
			}
		})
	}
}

// The DigitalOcean module refuses a Kubernetes version while the engine previews the stack,
// because only then is the live cluster read: a version older than the cluster's, or one the
// cloud cannot upgrade it to in one step. Either is a refused change (exit 3) in the module's own
// words, wherever the engine quotes them, and never a failure of the engine (exit 1).
func TestAVersionTheModuleRefusesIsReadAsARefusedChangeNotAFailure(t *testing.T) {
	upgradedPast := (&kubeversion.UpgradedPastError{Field: "spec.kubernetesVersion", Manifest: "1.31", Live: "1.32.2-do.1",
		Cloud: "DigitalOcean", Want: "1.32 (or 1.32.2-do.1)"}).Error()
	firstStep := upgrade.FirstStep("spec.kubernetesVersion", "DigitalOcean", "1.31.1-do.5", "1.33.1-do.0",
		digitalocean.UpgradeOffer(nil, []string{"1.31.1-do.5", "1.31.9-do.2", "1.32.2-do.0", "1.33.1-do.0"})).Error()
	stderr := func(refusal string) string {
		return "failed to run preview: exit status 1\ncode: 1\nstdout: Previewing update (rec):\n\nstderr: error: an unhandled error " +
			"occurred: program failed:\n1 error occurred:\n\t* DigitalOceanKubernetesCluster prod-fra1: " + refusal + "\nerror: preview failed\n"
	}
	tests := []struct {
		name, text, cause string
		// words are the refusal's words after its field, as the refused change's reason.
		words string
	}{
		{name: "a version older than the cluster's, in the engine's stderr", text: stderr(upgradedPast),
			words: strings.TrimPrefix(upgradedPast, "spec.kubernetesVersion: ")},
		{name: "a version the cloud cannot reach in one step, in the engine's stderr", text: stderr(firstStep),
			words: strings.TrimPrefix(firstStep, "spec.kubernetesVersion: ")},
		{name: "a version the cloud cannot reach in one step, in the engine's diagnostics", text: "failed to run preview: exit status 1",
			cause: "DigitalOceanKubernetesCluster prod-fra1: " + firstStep, words: strings.TrimPrefix(firstStep, "spec.kubernetesVersion: ")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := classify(context.Background(), "preview", errors.New(tt.text), tt.cause, &Backend{}, &stackOf{})
			var refused *stackstate.RefusedError
			if !errors.As(err, &refused) {
				t.Fatalf("classify = %T %v, want a refused change", err, err)
			}
			if len(refused.Changes) != 1 || refused.Changes[0].Path != "spec.kubernetesVersion" || refused.Changes[0].Reason != tt.words {
				t.Errorf("refused %+v, want spec.kubernetesVersion refused with the module's words %q", refused.Changes, tt.words)
			}
		})
	}
	var engine *stackstate.EngineError
	if err := classify(context.Background(), "preview", errors.New(stderr("read the live cluster's version: 401 Unable to authenticate you")),
		"", &Backend{}, &stackOf{}); !errors.As(err, &engine) {
		t.Errorf("another failure of the program: classify = %T %v, want the engine's failure", err, err)
	}
}
