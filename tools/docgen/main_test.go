package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"
)

// make check-generated regenerates the pages too, but it needs buf; these catch a stale page in a
// plain `go test`.
// Promise: pitfalls-page-is-generated
func TestTheCommittedPitfallsPageIsWhatTheEffectsTablesGenerate(t *testing.T) {
	committed, err := os.ReadFile(filepath.Join("..", "..", "docs", "pitfalls.md"))
	if err != nil {
		t.Fatal(err)
	}
	generated, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	if string(committed) != generated {
		t.Error("docs/pitfalls.md is stale: run `make protos` (or `go run ./tools/docgen -pitfalls docs/pitfalls.md`) and commit it")
	}
}

// The pitfalls page carries duties the providers leave to the user in words no table generates:
// deleting them would pass the test above, so this one names each.
func TestThePitfallsPageKeepsTheProvidersDutiesInWords(t *testing.T) {
	page, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ duty, words string }{
		{"renew an expired DigitalOcean kubeconfig", "run `pulumi up --refresh` after\n  expiry"},
		{"set how long a DigitalOcean kubeconfig lasts", "`kubeconfigExpireSeconds`"},
		{"turn HA on but never off", "accepts turning it on later, never off"},
		{"keep workloads on separate DigitalOcean pools", "Run workloads on\n  `DigitalOceanKubernetesNodePool`s"},
		{"change the default pool's size without replacing the cluster", "`spec.defaultNodePool.rollout`"},
	} {
		if !strings.Contains(page, tt.words) {
			t.Errorf("the pitfalls page no longer says how to %s (%q)", tt.duty, tt.words)
		}
	}
}

// The outputs table of docs/deploying.md lists each kind of the list with the outputs its API
// declares, secrets in bold: a fifth kind gets its row from its own API.
func TestTheCommittedOutputsTableListsEveryKindsOutputsAndSecrets(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "deploying.md")
	committed, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	generated, err := withOutputsTable(string(committed), registry.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	if string(committed) != generated {
		t.Error("docs/deploying.md's outputs table is stale: run `make protos` (or `go run ./tools/docgen -outputs docs/deploying.md`) and commit it")
	}
	for _, want := range []string{
		"| DigitalOceanKubernetesCluster | `cluster_id`, `cluster_urn`",
		"**`kubeconfig`**",
		"**`kubeconfig_b64`**",
		"| CivoKubernetesNodePool | `node_pool_id`, `instance_names` |",
	} {
		if !strings.Contains(generated, want) {
			t.Errorf("the outputs table has no %q:\n%s", want, generated)
		}
	}
}

func TestTheOutputsTableIsRefusedWhereThePageOrAKindCannotHoldIt(t *testing.T) {
	page := "# Outputs\n" + outputsBegin + "\nold\n" + outputsEnd + "\nafter\n"
	kind, _ := registry.Kinds().ByName("CivoKubernetesNodePool")
	noOutputs := kind
	noOutputs.Name = "FakeKind"
	noOutputs.NewStackInput = func() proto.Message { return &emptypb.Empty{} }
	tests := []struct {
		name, page string
		list       kinds.List
		wantErr    string
	}{
		{"a page without the markers", "# Outputs\n", kinds.List{kind}, "must hold the line"},
		{"a page with the end marker first", outputsEnd + "\n" + outputsBegin + "\n", kinds.List{kind}, "must hold the line"},
		{"a kind that declares no outputs", page, kinds.List{noOutputs}, "FakeKind declares no stack outputs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := withOutputsTable(tt.page, tt.list)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %v, want one saying %q", err, tt.wantErr)
			}
		})
	}
	got, err := withOutputsTable(page, kinds.List{kind})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got, "\nold\n") || !strings.HasSuffix(got, outputsEnd+"\nafter\n") {
		t.Errorf("the table did not replace what stood between the markers:\n%s", got)
	}
}
