package autostack

import (
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/config"
)

// BenchmarkOpeningAPassphraseStacksSecrets is what the Pulumi CLI pays to open the secrets of a
// stack under the passphrase provider, once per process and salt: a key derived from the
// passphrase by 1,000,000 rounds of PBKDF2 (config.NewSymmetricCrypterFromPassphrase, which
// Pulumi's passphrase secrets manager calls). Every operation on a stack starts the CLI once, so
// it is a floor under each stack's preview that nothing in clusterplane can lower; FallbackEnv
// keeps it to one derivation, or two for a pool whose cluster's stack has another salt
// (bench/README.md).
func BenchmarkOpeningAPassphraseStacksSecrets(b *testing.B) {
	salt := []byte("8 bytes.")
	for b.Loop() {
		_ = config.NewSymmetricCrypterFromPassphrase("the stacks' passphrase", salt)
	}
}
