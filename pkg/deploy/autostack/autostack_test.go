package autostack

import (
	"errors"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy"
)

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
		var wrong *deploy.SecretsProviderError
		if err != nil && (!errors.As(err, &wrong) || !strings.Contains(err.Error(), tt.provider) || !strings.Contains(err.Error(), "hashivault://")) {
			t.Errorf("the error for %q names neither it nor what Pulumi accepts: %v", tt.provider, err)
		}
	}
}
