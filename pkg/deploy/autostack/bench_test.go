package autostack

import (
	"os/exec"
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

// BenchmarkStartingTheSupervisor is one start of the supervisor that runs each Pulumi CLI (package
// supervisor), around a command that ends at once: what the supervisor adds to every run of the
// CLI. The test binary links what clusterplane links, so its packages' init costs the same.
func BenchmarkStartingTheSupervisor(b *testing.B) {
	for b.Loop() {
		cmd := exec.Command("/bin/true")
		if !supervised(cmd) {
			b.Skip("no supervisor on this system")
		}
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
}
