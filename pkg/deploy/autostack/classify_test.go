package autostack

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy"
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
		{"protected-replace.txt", &deploy.ProtectedError{}, "digitalocean:index/kubernetesCluster:KubernetesCluster c is protected"},
		{"protected-delete.txt", &deploy.ProtectedError{}, "digitalocean:index/kubernetesCluster:KubernetesCluster c is protected"},
		{"wrong-passphrase-export.txt", &deploy.PassphraseError{}, "does not match the one the stack's secrets were encrypted with"},
		{"wrong-passphrase-preview.txt", &deploy.PassphraseError{}, "PULUMI_CONFIG_PASSPHRASE"},
		{"locked.txt", &deploy.LockedError{}, "pulumi cancel --stack organization/p/s --yes"},
		{"secrets-provider.txt", &deploy.SecretsProviderError{}, "could not create secrets manager for new stack: missing google credentials"},
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
	var engine *deploy.EngineError
	if !errors.As(err, &engine) || err.Error() != "update failed: "+want {
		t.Errorf("classify = %v", err)
	}
}
