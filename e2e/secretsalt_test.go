//go:build e2e

package e2e_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
)

// TestAStackKeepsItsSecretsSaltAcrossOperations holds autostack.FallbackEnv: the stack's secrets
// stay under the salt its state records; and a pool's come under its cluster's. Without it every operation derived a key for a new salt
// of its own (a fifth of an unchanged preview's CPU) and every `up` or `refresh` saved the state
// under that new salt.
func TestAStackKeepsItsSecretsSaltAcrossOperations(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	input := e.write("cluster.yaml", withSpec(example(t, "digitaloceankubernetescluster/minimal.yaml"), "  deletionProtection: false\n"))
	state := filepath.Join(e.dir, "state", ".pulumi", "stacks", "digitaloceankubernetescluster", "dev-fra1.json")
	var salts []string
	for _, args := range [][]string{
		{"up", input, "--yes"},
		{"up", input, "--yes"},
		{"refresh", input},
		{"preview", input},
	} {
		if r, code := e.clusterplane(args...); code != 0 {
			t.Fatalf("%s = %d: %s", args[0], code, r)
		}
		salts = append(salts, saltOf(t, state))
	}
	for i, salt := range salts {
		if salt != salts[0] {
			t.Errorf("after operation %d the state's salt is %q, after the first up %q: the state was saved under another", i+1, salt, salts[0])
		}
	}

	// A pool's program reads its cluster's stack: its state comes under the cluster's salt, so
	// that an operation on it derives one key rather than two (autostack.ShareSecretsWith).
	pool := e.write("pool.yaml", strings.Replace(example(t, "digitaloceankubernetesnodepool/minimal.yaml"),
		"    value: b6a1c3d5-e7f9-4a2b-8c4d-6e8f0a1b2c3d\n",
		"    valueFrom: {kind: DigitalOceanKubernetesCluster, name: dev-fra1}\n", 1))
	if r, code := e.clusterplane("up", pool, "--yes"); code != 0 {
		t.Fatalf("up of the pool = %d: %s", code, r)
	}
	poolState := filepath.Join(e.dir, "state", ".pulumi", "stacks", "digitaloceankubernetesnodepool", "dev-fra1-workers.json")
	if got := saltOf(t, poolState); got != salts[0] {
		t.Errorf("the pool's state is under salt %q, its cluster's under %q", got, salts[0])
	}
	if r, code := e.clusterplane("preview", pool); code != 0 {
		t.Errorf("preview of the pool = %d: %s", code, r)
	}
	for _, file := range []string{pool, input} {
		if r, code := e.clusterplane("destroy", file, "--yes"); code != 0 {
			t.Errorf("destroy = %d: %s", code, r)
		}
	}
}

// saltOf is the passphrase salt a file-backend checkpoint records (not a secret: Pulumi keeps it
// in Pulumi.<stack>.yaml beside the program).
func saltOf(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var versioned apitype.VersionedCheckpoint
	var chk apitype.CheckpointV3
	var state struct {
		Salt string `json:"salt"`
	}
	if err := json.Unmarshal(data, &versioned); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if err := json.Unmarshal(versioned.Checkpoint, &chk); err != nil || chk.Latest == nil || chk.Latest.SecretsProviders == nil {
		t.Fatalf("%s holds no deployment with a secrets provider (%v)", path, err)
	}
	sp := chk.Latest.SecretsProviders
	if err := json.Unmarshal(sp.State, &state); err != nil || sp.Type != "passphrase" || state.Salt == "" {
		t.Fatalf("%s records secrets provider %q with state %s, not a passphrase's (%v)", path, sp.Type, sp.State, err)
	}
	return state.Salt
}
