package autostack

import (
	"context"
	"encoding/json"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"io/fs"
	"strings"

	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	"github.com/pulumi/pulumi/sdk/v3/go/common/workspace"
)

// A pool's program reads its cluster's stack (a stack reference), and the CLI opens that stack's
// secrets as well as the pool's own: under the passphrase provider, one key derived from the
// passphrase for each salt (BenchmarkOpeningAPassphraseStacksSecrets). The CLI keeps each key for
// the rest of the process by its salt, so a pool whose stack has its cluster's salt costs one
// derivation instead of two. The workspace's stack settings name the salt the CLI encrypts with
// (an up saves the state under it), so giving them the cluster's salt brings the pool's state to
// it at its next up.

// ShareSecretsWith gives the stack's workspace the passphrase salt of stack key
// (<project>/<stack>), which its program reads, when both are in a local file backend: there the
// referenced stack's state is a file to read the salt from, where another backend would take a
// CLI run, as costly as the derivation it saves. Nothing changes when the referenced stack does
// not exist yet, or when either stack is under another secrets provider.
func (s *stackOf) ShareSecretsWith(ctx context.Context, key string) error {
	project, stack, ok := strings.Cut(key, "/")
	if !ok {
		return nil
	}
	provider, salt, err := s.backend.secretsOf(project, stack)
	if errors.Is(err, stackstate.ErrRecordsUnread) {
		return nil // a form not read here: the keys are not shared, which costs time, nothing else
	}
	if err != nil || provider != passphraseProvider || salt == "" {
		return err
	}
	// The stack's own secrets stay under their provider: a stack under a KMS key is not moved to
	// the passphrase. One with no state yet is under the provider new stacks are made with.
	own, _, err := s.backend.secretsOf(s.project, s.stack)
	if errors.Is(err, stackstate.ErrRecordsUnread) {
		return nil
	}
	if err != nil || (own != passphraseProvider && (own != "" || s.backend.secrets != passphraseProvider)) {
		return err
	}
	ws := s.auto.Workspace()
	settings, err := ws.StackSettings(ctx, s.stack)
	if err != nil {
		// A stack just opened has no settings file yet: the CLI reads its salt from its state.
		settings = &workspace.ProjectStack{}
	}
	if settings.EncryptionSalt == salt {
		return nil
	}
	settings.EncryptionSalt = salt
	return errors.Wrapf(ws.SaveStackSettings(ctx, s.stack, settings), "keep the secrets of %s under the salt of %s", s.stack, key)
}

// passphraseProvider is the passphrase secrets provider, as a state and Options name it.
const passphraseProvider = "passphrase"

// secretsOf is the secrets provider of stack <project>/<stack> of a local file backend and, for
// the passphrase's, the salt, from the checkpoint the CLI writes
// (.pulumi/stacks/<project>/<stack>.json, in any of its forms: records.go); "" when the backend
// is another or the stack has no state; stackstate.ErrRecordsUnread when the checkpoint is in a form
// not read here. The salt is no secret: Pulumi keeps it in Pulumi.<stack>.yaml beside a program.
func (b *Backend) secretsOf(project, stack string) (provider, salt string, err error) {
	root, ok := strings.CutPrefix(b.url, "file://")
	if !ok {
		return "", "", nil
	}
	data, err := readStackState(context.Background(), dirBlobs{root: root, folders: &b.folders}, project, stack)
	if errors.Is(err, fs.ErrNotExist) {
		return "", "", nil
	}
	if err != nil {
		return "", "", errors.Wrapf(err, "read the state of %s/%s", project, stack)
	}
	provider, salt, err = passphraseOf(data)
	return provider, salt, errors.Wrapf(err, "read the state of %s/%s", project, stack)
}

// passphraseOf is the secrets provider a checkpoint records and, for the passphrase's, its salt;
// "" when the checkpoint holds no deployment yet.
func passphraseOf(checkpoint []byte) (provider, salt string, err error) {
	var versioned apitype.VersionedCheckpoint
	if err := json.Unmarshal(checkpoint, &versioned); err != nil {
		return "", "", err
	}
	var chk apitype.CheckpointV3
	if err := json.Unmarshal(versioned.Checkpoint, &chk); err != nil {
		return "", "", err
	}
	if chk.Latest == nil || chk.Latest.SecretsProviders == nil {
		return "", "", nil
	}
	sp := chk.Latest.SecretsProviders
	var state struct {
		Salt string `json:"salt"`
	}
	if sp.Type == passphraseProvider {
		if err := json.Unmarshal(sp.State, &state); err != nil {
			return "", "", err
		}
	}
	return sp.Type, state.Salt, nil
}
