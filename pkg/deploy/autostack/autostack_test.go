package autostack

import (
	"errors"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/cloudfacts"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// Promise: secrets-provider-url-that-cannot-work-refused
func TestOnlyTheSecretsProvidersPulumiAcceptsPassAndAWrongOneSaysWhatWould(t *testing.T) {
	tests := []struct {
		provider string
		ok       bool
	}{
		{"passphrase", true},
		{"default", true},
		{"awskms://alias/clusterplane?region=eu-central-1", true},
		{"gcpkms://projects/p/locations/l/keyRings/r/cryptoKeys/k", true},
		{"azurekeyvault://vault.vault.azure.net/keys/k", true},
		{"hashivault://clusterplane", true},
		{"awskms://", false},
		{"kms://alias/x", false},
		{"passphrase://", false},
		{"s3://bucket", false},
	}
	for _, tt := range tests {
		err := checkSecretsProvider(tt.provider)
		if (err == nil) != tt.ok {
			t.Errorf("checkSecretsProvider(%q) = %v, want ok %v", tt.provider, err, tt.ok)
		}
		var wrong *stackstate.SecretsProviderError
		if err != nil && (!errors.As(err, &wrong) || !strings.Contains(err.Error(), tt.provider) || !strings.Contains(err.Error(), "hashivault://")) {
			t.Errorf("the error for %q names neither it nor what Pulumi accepts: %v", tt.provider, err)
		}
	}
}

// Promise: sandbox-nothing-leaves-the-machine
func TestInsideTheSandboxAStateBackendOffTheMachineIsRefusedWithoutItsPassword(t *testing.T) {
	tests := []struct {
		url     string
		refused bool
	}{
		{"postgres://u:S3cretPw@db.example.com/state", true},
		{"s3://bucket/state", true},
		{"file://" + t.TempDir(), false},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			t.Setenv(cloudfacts.SandboxEnv, t.TempDir())
			err := (&Backend{url: tt.url}).staysInSandbox()
			if refused := err != nil && strings.Contains(err.Error(), "inside the clusterplane sandbox the state stays in a file:// folder"); refused != tt.refused {
				t.Fatalf("New(%s) in the sandbox = %v, want refused %t", tt.url, err, tt.refused)
			}
			if err != nil && strings.Contains(err.Error(), "S3cretPw") {
				t.Errorf("the refusal prints the password: %v", err)
			}
		})
	}
}
